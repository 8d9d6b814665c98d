"""Convergence verdicts, warm-up cuts and trend lines, drawn on the series."""

from __future__ import annotations

import numpy as np

from ..convergence.result import ConvergenceResult, MultiRunConvergenceResult
from ..convergence.trend import TrendResult
from ..convergence.warmup import WarmupResult
from . import plotter
from ._draw import plot_series


@plotter(ConvergenceResult)
def plot_convergence(result, ax, label=None):
    """The series, the warm-up shaded, the mean after it with its interval - or, for a run that
    is not converged, what moved (see :func:`_movement`)."""
    values, steps = result._values, result._steps
    if values is None:
        return ax
    line, = plot_series(ax, steps, values, lw=0.8, alpha=0.8, label=label or result.name or "series")
    if result.warmup:
        ax.axvspan(steps[0], steps[min(result.warmup, len(steps) - 1)], color="0.85",
                   label="warm-up" if label is None else None)
    kept = steps[result.warmup:]
    # a moving run's mean and its interval say little (on a climbing curve the interval spans
    # the whole range): what moved is drawn instead - the slope, or the late stretch's level
    moved = _movement(result, steps, values) if result.verdict == "not_converged" else None
    if moved is not None:
        xs, ys, what = moved
        ax.plot(xs, ys, color="C3", lw=1.5, ls="--", label=what if label is None else None)
    elif np.isfinite(result.mean):
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


def _movement(result, steps, values):
    """(x, y, label) of what the verdict found moving, from the first test that failed: the
    slope after the warm-up or over the whole run through its mean, the last regime's Sen slope
    where only it moves, or the level before and during a late change; None for a variance
    change (the mean's interval still says where the level is)."""
    kept = np.asarray(steps[result.warmup:], dtype=float)
    test = result.failed_tests[0] if result.failed_tests else None
    if len(kept) < 2:
        return None
    if test == "late_change" and result.late_length and np.isfinite(result.late_change):
        m, late = len(kept), int(result.late_length)
        before = result.mean - result.late_change * late / m
        edge = kept[m - late]
        return ([kept[0], edge, edge, kept[-1]], [before, before, before + result.late_change,
                before + result.late_change], f"level before and during the last {late} points")
    if test == "drift" and np.isfinite(result.drift_slope):
        whole = np.asarray(steps, dtype=float)
        ends = np.array([whole[0], whole[-1]])
        centre = ends.mean()
        return ends, float(np.mean(values)) + result.drift_slope * (ends - centre), "slope over the whole run"
    if test == "recent_trend" and result._recent is not None:
        # Sen's line through the regime's medians, as Sen's intercept is taken
        first, slope = result._recent
        xs, ys = np.asarray(steps[first:], dtype=float), np.asarray(values[first:], dtype=float)
        ends = xs[[0, -1]]
        return ends, float(np.median(ys)) + slope * (ends - float(np.median(xs))), "slope of the last regime"
    if test == "trend" and np.isfinite(result.trend_slope):
        ends = np.array([kept[0], kept[-1]])
        return ends, result.mean + result.trend_slope * (ends - ends.mean()), "slope after the warm-up"
    return None


@plotter(MultiRunConvergenceResult)
def plot_runs(result, ax):
    """Every run as above, on one Axes."""
    for run in result.runs:
        plot_convergence(run, ax, label=run.name)
    ax.set_title(f"{result.verdict.replace('_', ' ')} over {len(result.runs)} runs "
                 f"(R-hat {result.rhat:.3f})")
    return ax


@plotter(WarmupResult)
def plot_warmup(result, ax):
    """The series and where its warm-up ends."""
    values = result._values
    plot_series(ax, np.arange(len(values)), values, lw=0.8, label="series")
    ax.axvline(result.index, color="C3", label=f"warm-up ends ({result.method})")
    ax.set_xlabel("index")
    ax.legend(loc="best", fontsize=8)
    return ax


@plotter(TrendResult)
def plot_trend(result, ax):
    """The series and its Sen slope line."""
    values, steps = result._values, result._steps
    plot_series(ax, steps, values, lw=0.8, label="series")
    ax.plot(steps, result.sen_intercept + result.sen_slope * steps, color="C3",
            label=f"Sen slope {result.sen_slope:.3g}/step ({result.trend})")
    ax.set_xlabel("step")
    ax.legend(loc="best", fontsize=8)
    return ax
