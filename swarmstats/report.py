"""Deprecated path of :mod:`swarmstats.html_report` (for one release)."""

import warnings

from .html_report import Report, build_report

warnings.warn("swarmstats.report is renamed swarmstats.html_report; the old path will be removed in the "
              "next release", DeprecationWarning, stacklevel=2)

__all__ = ["Report", "build_report"]
