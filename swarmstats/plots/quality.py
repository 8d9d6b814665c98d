"""Quality-gap reports, the adverse-selection test and early warnings."""

from __future__ import annotations

import numpy as np

from .._result import fmt
from ..quality.early_warning import EarlyWarningResult
from ..quality.metrics import QualityResult
from ..quality.selection_test import SelectionTestResult
from . import plotter
from ._draw import bins


@plotter(QualityResult)
def plot_quality(report, ax):
    """Densities of p for accepted and rejected interactions, their means with
    intervals, the threshold and the uncertain band."""
    p, accepted = report._p, report._accepted
    edges = bins(p, 0.0, 1.0)
    lo, hi = 0.5 - report.band, 0.5 + report.band
    ax.axvspan(lo, hi, color="0.92", zorder=0, label=f"uncertain band ({fmt(report.band)})")
    for mask, label, colour, key in ((accepted, "accepted", "C2", "accepted_quality"),
                                     (~accepted, "rejected", "C3", "rejected_quality")):
        if mask.any():
            ax.hist(p[mask], bins=edges, density=True, histtype="stepfilled", alpha=0.35, color=colour,
                    label=f"{label} (n = {int(mask.sum())})")
            estimate = report.soft[key]
            ax.axvline(estimate.value, color=colour, lw=2)
            if np.isfinite(estimate.ci_low):
                ax.axvspan(estimate.ci_low, estimate.ci_high, color=colour, alpha=0.15)
    ax.axvline(report.threshold, color="k", ls="--", lw=1, label=f"threshold {fmt(report.threshold)}")
    gap, toxicity = report.soft["quality_gap"], report.soft["toxicity"]
    ax.set_title(f"gap {fmt(gap.value, 3)} [{fmt(gap.ci_low, 3)}, {fmt(gap.ci_high, 3)}], "
                 f"toxicity {fmt(toxicity.value, 3)} (hard {fmt(report.hard['hard_toxicity'].value, 3)})",
                 fontsize=9)
    ax.set_xlabel("p = P(beneficial)")
    ax.set_ylabel("density")
    ax.set_xlim(0, 1)
    ax.legend(fontsize=7, loc="upper left")
    return ax


@plotter(SelectionTestResult)
def plot_selection_test(result, ax):
    """The permutation null of the quality gap with the observed gap."""
    if not result.null:
        what = ("no permutation was run" if result.test == "permutation" else
                f"a {result.test} over {result.n_clusters} agents: no permutation null to draw")
        ax.text(0.5, 0.5, what, ha="center", va="center", transform=ax.transAxes)
        ax.set_title(result.summary(), fontsize=9)
        return ax
    ax.hist(result.null, bins=50, color="C0", alpha=0.6, label="permutation null")
    ax.axvline(result.statistic, color="C3", linewidth=2, label=f"observed {result.statistic:.3g}")
    ax.set_xlabel("quality gap")
    ax.legend(fontsize=8)
    ax.set_title(result.summary(), fontsize=9)
    return ax


@plotter(EarlyWarningResult)
def plot_early_warning(result, ax):
    """The per-epoch metric with its interval, the level and the alarms."""
    steps, values = result._steps, result._values
    x = steps if np.issubdtype(np.asarray(steps).dtype, np.number) else np.arange(len(values))
    ax.plot(x, values, marker="o", ms=3, lw=1, color="C0", label=result.metric)
    if result._low is not None and result._high is not None:
        ax.fill_between(x, result._low, result._high, color="C0", alpha=0.2, label="interval")
    ax.axhline(result.level, color="k", ls="--", lw=1, label=f"level {fmt(result.level)}")
    for alarm in result.alarms:
        position = alarm["alarm"] if x is steps else list(steps).index(alarm["alarm"])
        ax.axvline(position, color="C3", lw=1.5)
    sign = ">" if result.direction == "above" else "<"
    outcome = f"first alarm at {result.first_alarm}" if result.fired else "no alarm"
    ax.set_title(f"{result.metric} {sign} {fmt(result.level)} for {result.consecutive} epochs "
                 f"({result.rule} rule): {outcome}", fontsize=9)
    ax.set_xlabel("epoch")
    ax.legend(fontsize=7)
    return ax
