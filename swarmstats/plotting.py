"""Deprecated path of :mod:`swarmstats.plots` (for one release)."""

import warnings

from .plots import downsample, literal_text, plot_series

warnings.warn("swarmstats.plotting is renamed swarmstats.plots; the old path will be removed in the "
              "next release", DeprecationWarning, stacklevel=2)

__all__ = ["downsample", "literal_text", "plot_series"]
