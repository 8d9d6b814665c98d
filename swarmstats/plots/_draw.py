"""Drawing helpers shared by every plot module: literal text, an Axes, long series drawn fast."""

from __future__ import annotations

import functools

import numpy as np


def literal_text(figure) -> None:
    """Draw every name in ``figure`` as written: a metric named ``$\\alpha$`` or ``a $ b $``
    is a name, not mathtext (which could also fail to parse and abort the whole plot).

    Titles, axis labels, legends, annotations and tick labels that are names (set with
    ``set_xticks(positions, names)``, drawn on a categorical axis, any formatter but
    matplotlib's number formatters) are made literal.  Tick labels of numbers are left to their
    formatter, which writes mathtext on purpose: a log axis labels its ticks
    ``$\\mathdefault{2^{5}}$``, shown as that string once made literal.  The ticks of a number
    axis are not asked for: asking makes them (a plot's every panel walked the whole figure,
    ~6 s of the report's 35 in a profile; drawing makes them once anyway).

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("$x$"); ax.set_xscale("log"); _ = ax.set_yticks([0, 1], ["$a", "b$"])
    >>> literal_text(fig)
    >>> ax.title.get_parse_math(), [t.get_parse_math() for t in ax.get_yticklabels()]
    (False, [False, False])
    >>> {t.get_parse_math() for t in ax.get_xticklabels()}   # numbers: the formatter's mathtext
    {True}
    >>> plt.close(fig)
    """
    from matplotlib.axis import Axis
    from matplotlib.text import Text
    from matplotlib.ticker import (
        LogFormatter,
        LogitFormatter,
        NullFormatter,
        PercentFormatter,
        ScalarFormatter,
    )

    # (EngFormatter is a ScalarFormatter; ticks given names get a FuncFormatter or FixedFormatter)
    numbers = (ScalarFormatter, LogFormatter, LogitFormatter, PercentFormatter, NullFormatter)
    pending = [figure]
    while pending:
        artist = pending.pop()
        if isinstance(artist, Text):
            artist.set_parse_math(False)
        if isinstance(artist, Axis):  # its label, and its tick labels where they are names
            artist.label.set_parse_math(False)
            for labels, formatter in ((artist.get_majorticklabels, artist.get_major_formatter()),
                                      (artist.get_minorticklabels, artist.get_minor_formatter())):
                if not isinstance(formatter, numbers):
                    for label in labels():
                        label.set_parse_math(False)
            continue  # an Axis' children are its ticks, made on demand
        pending.extend(artist.get_children())


def literal_labels(plot):
    """Decorate a ``plot`` method: the names it drew are drawn literally (see literal_text)."""

    @functools.wraps(plot)
    def wrapper(*args, **kwargs):
        ax = plot(*args, **kwargs)
        figure = ax.get_figure() if hasattr(ax, "get_figure") else None
        if figure is not None:
            literal_text(figure)
        return ax

    return wrapper


def axes(ax=None):
    """``ax``, or the Axes of a new figure (Agg when there is no display)."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4))
    return ax


#: above this many points a series is drawn from per-bucket minima and maxima
DRAWN_POINTS = 4000


def downsample(x, y, buckets: int = DRAWN_POINTS // 2):
    """(x, y) to draw: unchanged when short; else the minimum and the maximum of each of
    ``buckets`` equal slices, in order, so spikes and dips stay visible while a million-point
    line costs a few thousand segments.  The numbers behind a plot always use every point.

    >>> x, y = downsample(np.arange(10_000), np.sin(np.arange(10_000)), buckets=100)
    >>> len(x), float(y.max()) > 0.99, float(y.min()) < -0.99
    (200, True, True)
    """
    x, y = np.asarray(x), np.asarray(y, dtype=float)
    n = len(y)
    if n <= 2 * buckets:
        return x, y
    edges = np.linspace(0, n, buckets + 1).astype(int)
    arg_low = np.array([s + int(np.argmin(y[s:e])) for s, e in zip(edges[:-1], edges[1:])])
    arg_high = np.array([s + int(np.argmax(y[s:e])) for s, e in zip(edges[:-1], edges[1:])])
    first = np.minimum(arg_low, arg_high)
    second = np.maximum(arg_low, arg_high)
    order = np.column_stack([first, second]).ravel()
    return x[order], y[order]


def plot_series(ax, x, y, **kwargs):
    """``ax.plot`` of a series, down-sampled (extremes kept) when it is long."""
    return ax.plot(*downsample(x, y), **kwargs)


def bins(values: np.ndarray, lo: float | None = None, hi: float | None = None) -> np.ndarray:
    """Histogram edges: sqrt(n) bins, 10 to 60 of them."""
    lo = float(np.min(values)) if lo is None else lo
    hi = float(np.max(values)) if hi is None else hi
    if hi <= lo:
        hi = lo + 1.0
    count = int(np.clip(np.sqrt(len(values)), 10, 60))
    return np.linspace(lo, hi, count + 1)
