"""Sweeps: where collapse begins, or each setting's across-seed mean."""

from __future__ import annotations

import numpy as np

from .._result import fmt
from ..sweeps import SweepResult
from . import plotter


@plotter(SweepResult)
def plot_sweep(result, ax):
    """The share of collapsed runs against the phase parameter with the logistic fit and its
    interval; without a phase, each setting's across-seed mean with its interval."""
    if result.phase:
        phase = result.phase
        levels = np.array([float(v) for v in phase["collapse_share"]])
        shares = np.array(list(phase["collapse_share"].values()))
        ax.plot(levels, shares, "o", color="C3", label="share of runs collapsed")
        if phase["logistic"] is not None:
            grid = np.linspace(levels.min(), levels.max(), 200)
            centre, slope = phase["logistic"], phase["slope"]
            ax.plot(grid, 1 / (1 + np.exp(-slope * (grid - centre))), color="k", lw=1, label="logistic fit")
            low, high = phase["ci"]
            if low is not None or high is not None:  # (an open end: the band runs to the sweep's edge)
                ax.axvspan(levels.min() if low is None else low, levels.max() if high is None else high,
                           color="C3", alpha=0.15,
                           label="50% point, CI" + (" (open past the sweep)" if phase.get("ci_open") else ""))
            ax.axvline(centre, color="C3", lw=1.5)
        if phase["midpoint"] is not None:
            ax.axvline(phase["midpoint"], color="C0", ls="--", lw=1, label="SWARM midpoint rule")
        ax.set_xlabel(phase["parameter"])
        ax.set_ylabel("P(collapse)")
        ax.legend(fontsize=7)
        ax.set_title(f"collapse begins at {phase['parameter']} ~ {fmt(phase['logistic'])}", fontsize=9)
        return ax
    table = result.table
    if table.empty:
        ax.text(0.5, 0.5, "no successful run", ha="center", transform=ax.transAxes)
        return ax
    metric = table["metric"].iloc[0]
    part = table[table["metric"] == metric].reset_index(drop=True)
    labels = [", ".join(f"{p}={row[p]}" for p in result.by) or "all" for row in part.to_dict("records")]
    x = np.arange(len(part))
    low = part["mean"] - part.get("mean_low", part["mean"])
    high = part.get("mean_high", part["mean"]) - part["mean"]
    ax.errorbar(x, part["mean"], yerr=[low.fillna(0), high.fillna(0)], fmt="o", capsize=3)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(f"{metric} (mean over seeds, 95% CI)")
    return ax
