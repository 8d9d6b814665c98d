"""Convergence verdicts, warm-up cuts and trend lines, drawn on the series."""

from __future__ import annotations

import numpy as np

from ..convergence.trend import TrendResult
from ..convergence.verdict import ConvergenceResult, MultiRunConvergenceResult
from ..convergence.warmup import WarmupResult
from . import plotter
from ._draw import plot_series


@plotter(ConvergenceResult)
def plot_convergence(result, ax, label=None):
    """The series, the warm-up shaded, the mean after it with its interval."""
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
