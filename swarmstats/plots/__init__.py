"""Matplotlib views of results: one module per family, found through a registry.

``Result.plot(ax=None, **options)`` calls :func:`draw`, which imports the family modules on
first use; each registers its drawing functions with :func:`plotter`.  The results never
import matplotlib or this package at module level, and the plots read results, never the
reverse.
"""

from __future__ import annotations

import importlib

from ._draw import (
    DRAWN_POINTS,
    axes,
    downsample,
    literal_labels,
    literal_text,
    plot_series,
)

__all__ = ["draw", "plotter", "plotter_for", "downsample", "plot_series", "literal_text",
           "literal_labels", "axes", "DRAWN_POINTS"]

#: the modules that register plotters, imported on the first plot
FAMILIES = ("convergence", "stationarity", "regimes", "windows", "quality", "proxy", "agents",
            "distributions", "sweeps", "streaming")

_PLOTTERS: dict = {}
_loaded = False


def plotter(*types):
    """Register the decorated function as the plotter of ``types`` (and their subclasses)."""
    def register(function):
        for cls in types:
            _PLOTTERS[cls] = function
        return function

    return register


def plotter_for(cls):
    """The function drawing results of type ``cls`` (None if there is none)."""
    _load()
    for base in cls.__mro__:
        if base in _PLOTTERS:
            return _PLOTTERS[base]
    return None


def draw(result, ax=None, **options):
    """Draw ``result`` on ``ax`` (a new figure when None); returns the Axes."""
    function = plotter_for(type(result))
    if function is None:
        raise TypeError(f"no plot is registered for {type(result).__name__}")
    ax = function(result, axes(ax), **options)
    figure = ax.get_figure() if hasattr(ax, "get_figure") else None
    if figure is not None:
        literal_text(figure)
    return ax


def _load() -> None:
    global _loaded
    if not _loaded:
        for family in FAMILIES:
            importlib.import_module(f"{__name__}.{family}")
        _loaded = True
