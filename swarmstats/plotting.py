"""Matplotlib views of results.  Imported only when a plot is asked for."""

from __future__ import annotations

import numpy as np


def literal_text(figure) -> None:
    """Draw every text of ``figure`` as written: a metric named ``$\\alpha$`` or ``a $ b $``
    is a name, not mathtext (which could also fail to parse and abort the whole plot)."""
    from matplotlib.text import Text

    for text in figure.findobj(Text):
        text.set_parse_math(False)


def literal_labels(plot):
    """Decorate a ``plot`` method: the names it drew are drawn literally (see literal_text)."""
    import functools

    @functools.wraps(plot)
    def wrapper(*args, **kwargs):
        ax = plot(*args, **kwargs)
        figure = ax.get_figure() if hasattr(ax, "get_figure") else None
        if figure is not None:
            literal_text(figure)
        return ax

    return wrapper


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt  # falls back to Agg when there is no display

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


def plot_result(result, ax=None):
    """Dispatch on the result's type; returns the Axes."""
    from .convergence import ConvergenceResult, MultiRunConvergenceResult
    from .trend import TrendResult
    from .warmup import WarmupResult

    ax = _axes(ax)
    if isinstance(result, ConvergenceResult):
        return plot_convergence(result, ax)
    if isinstance(result, MultiRunConvergenceResult):
        for run in result.runs:
            plot_convergence(run, ax, label=run.name)
        ax.set_title(f"{result.verdict.replace('_', ' ')} over {len(result.runs)} runs "
                     f"(R-hat {result.rhat:.3f})")
        return ax
    if isinstance(result, WarmupResult):
        return plot_warmup(result, ax)
    if isinstance(result, TrendResult):
        return plot_trend(result, ax)
    drawn = _plot_test(result, ax)
    if drawn is not None:
        return drawn
    ax.text(0.5, 0.5, result.summary(), ha="center", va="center", wrap=True,
            transform=ax.transAxes)
    ax.set_axis_off()
    return ax


def plot_convergence(result, ax, label=None):
    values, steps = result._values, result._steps
    if values is None:
        return ax
    line, = plot_series(ax, steps, values, lw=0.8, alpha=0.8, label=label or result.name or "series")
    if result.warmup:
        ax.axvspan(steps[0], steps[min(result.warmup, len(steps) - 1)], color="0.85",
                   label="warm-up" if label is None else None)
    if np.isfinite(result.mean):
        kept = steps[result.warmup:]
        ax.hlines(result.mean, kept[0], kept[-1], color=line.get_color(), lw=1.5)
        if np.all(np.isfinite(result.ci)):
            ax.fill_between(kept[[0, -1]], result.ci[0], result.ci[1], color=line.get_color(), alpha=0.2,
                            label=f"{result.ci_level:.0%} CI of the mean" if label is None else None)
    if label is None:
        ax.set_title(f"{result.name + ': ' if result.name else ''}{result.verdict.replace('_', ' ')}"
                     f" - {result.main_reason}"[:110], fontsize=9)
    ax.set_xlabel("step")
    ax.legend(loc="best", fontsize=8)
    return ax


def plot_warmup(result, ax):
    values = result._values
    plot_series(ax, np.arange(len(values)), values, lw=0.8, label="series")
    ax.axvline(result.index, color="C3", label=f"warm-up ends ({result.method})")
    ax.set_xlabel("index")
    ax.legend(loc="best", fontsize=8)
    return ax


def plot_trend(result, ax):
    values, steps = result._values, result._steps
    plot_series(ax, steps, values, lw=0.8, label="series")
    ax.plot(steps, result.sen_intercept + result.sen_slope * steps, color="C3",
            label=f"Sen slope {result.sen_slope:.3g}/step ({result.trend})")
    ax.set_xlabel("step")
    ax.legend(loc="best", fontsize=8)
    return ax


def _plot_test(result, ax):
    """The stationarity diagnostics and the selection test: the statistic against its
    reference, not the summary's words.  None for a result drawn elsewhere."""
    from .quality.selection_test import SelectionTestResult
    from .stationarity import (
        GewekeResult,
        HeidelbergerWelchResult,
        VarianceStabilityResult,
    )

    if isinstance(result, GewekeResult) and result.segment_z:
        ax.plot(result.starts, result.segment_z, "o", color="C0", label="Geweke z")
        for bound in (-1.96, 1.96):
            ax.axhline(bound, color="C3", linestyle="--", linewidth=1)
        ax.set_xlabel("first point kept")
        ax.set_ylabel("z (first vs last window)")
        ax.set_title(result.summary(), fontsize=9)
        return ax
    if isinstance(result, HeidelbergerWelchResult) and result.statistics:
        ax.plot(result.starts, result.statistics, "o-", color="C0", label="bridge statistic")
        ax.axhline(result.critical, color="C3", linestyle="--", linewidth=1, label="critical value")
        if result.stationary:
            ax.axvline(result.start, color="C2", linewidth=1, label="stationary from here")
        ax.set_xlabel("points discarded")
        ax.set_ylabel("Cramer-von Mises statistic")
        ax.legend(fontsize=8)
        ax.set_title(result.summary(), fontsize=9)
        return ax
    if isinstance(result, VarianceStabilityResult) and result.squares:
        squares = np.asarray(result.squares)
        half = len(squares) // 2
        ax.bar(np.arange(len(squares)), squares, color=["C0"] * half + ["C1"] * (len(squares) - half))
        ax.set_xlabel("block of the second half")
        ax.set_ylabel("mean squared deviation")
        ax.set_title(result.summary(), fontsize=9)
        return ax
    if isinstance(result, SelectionTestResult) and result.null:
        ax.hist(result.null, bins=50, color="C0", alpha=0.6, label="permutation null")
        ax.axvline(result.statistic, color="C3", linewidth=2, label=f"observed {result.statistic:.3g}")
        ax.set_xlabel("quality gap")
        ax.legend(fontsize=8)
        ax.set_title(result.summary(), fontsize=9)
        return ax
    return None
