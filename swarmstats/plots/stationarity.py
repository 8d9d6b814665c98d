"""The stationarity diagnostics: each statistic against its reference, not the summary's words."""

from __future__ import annotations

import numpy as np

from ..convergence.stationarity import (
    GewekeResult,
    HeidelbergerWelchResult,
    VarianceStabilityResult,
)
from . import plotter


def _unavailable(result, ax, what: str):
    """Too short to compute the statistic: the axes it would have, and the reason in words."""
    ax.text(0.5, 0.5, "too few points for this statistic", ha="center", va="center",
            transform=ax.transAxes)
    ax.set_xlabel(what)
    ax.set_title(result.summary(), fontsize=9)
    return ax


@plotter(GewekeResult)
def plot_geweke(result, ax):
    """Geweke's z for every first point kept, against +-1.96."""
    if not result.segment_z:
        return _unavailable(result, ax, "first point kept")
    ax.plot(result.starts, result.segment_z, "o", color="C0", label="Geweke z")
    for bound in (-1.96, 1.96):
        ax.axhline(bound, color="C3", linestyle="--", linewidth=1)
    ax.set_xlabel("first point kept")
    ax.set_ylabel("z (first vs last window)")
    ax.set_title(result.summary(), fontsize=9)
    return ax


@plotter(HeidelbergerWelchResult)
def plot_heidelberger_welch(result, ax):
    """The Cramer-von Mises bridge statistic for every cut, against its critical value."""
    if not result.statistics:
        return _unavailable(result, ax, "points discarded")
    ax.plot(result.starts, result.statistics, "o-", color="C0", label="bridge statistic")
    ax.axhline(result.critical, color="C3", linestyle="--", linewidth=1, label="critical value")
    if result.stationary:
        ax.axvline(result.start, color="C2", linewidth=1, label="stationary from here")
    ax.set_xlabel("points discarded")
    ax.set_ylabel("Cramer-von Mises statistic")
    ax.legend(fontsize=8)
    ax.set_title(result.summary(), fontsize=9)
    return ax


@plotter(VarianceStabilityResult)
def plot_variance_stability(result, ax):
    """The variance within each block of the second half, the blocks of the stretch compared coloured."""
    if not result.squares:
        return _unavailable(result, ax, "block of the second half")
    squares = np.asarray(result.squares)
    late = result.late_blocks
    ax.bar(np.arange(len(squares)), squares, color=["C0"] * (len(squares) - late) + ["C1"] * late)
    ax.set_xlabel("block of the second half")
    ax.set_ylabel("variance within the block")
    ax.set_title(result.summary(), fontsize=9)
    return ax
