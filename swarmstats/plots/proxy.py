"""The proxy tracker's report: per-key intervals against the threshold, or the reliability diagram."""

from __future__ import annotations

import numpy as np

from .._result import fmt
from ..errors import check_choice
from ..proxy.result import ProxyResult
from . import plotter


@plotter(ProxyResult)
def plot_proxy(report, ax, kind: str = "keys"):
    """``kind="keys"``: per-key means with intervals against the threshold;
    ``"reliability"``: the reliability diagram (needs outcomes)."""
    check_choice("kind", kind, ("keys", "reliability"))
    return plot_proxy_keys(report, ax) if kind == "keys" else plot_reliability(report, ax)


#: keys drawn at most in the per-key plot (the worst first)
MAX_KEYS_DRAWN = 40


def plot_proxy_keys(report, ax):
    """Per-key mean of p with its 95% interval (thick) and +-1 SD of single scores (thin),
    against the threshold; too-noisy keys in red."""
    from scipy import stats

    table = report.table.head(MAX_KEYS_DRAWN)
    positions = np.arange(len(table))[::-1]
    n = table["n"].to_numpy(float)
    half = stats.t.ppf(0.975, np.maximum(n - 1, 1)) * table["se"].to_numpy(float)
    colours = np.where(table["too_noisy"].to_numpy(bool), "C3", "C2")
    mean, sd = table["mean"].to_numpy(float), table["sd"].to_numpy(float)
    ax.hlines(positions, mean - sd, mean + sd, colors=colours, lw=1, alpha=0.5)
    ax.hlines(positions, mean - half, mean + half, colors=colours, lw=4)
    ax.scatter(mean, positions, color="k", s=10, zorder=3)
    ax.axvline(report.threshold, color="k", ls="--", lw=1)
    ax.set_yticks(positions)
    ax.set_yticklabels([str(key) for key in table.index], fontsize=7)
    ax.set_xlabel("p  (thick: 95% CI of the mean; thin: +-1 SD of single scores)")
    shown = "" if len(report.table) <= MAX_KEYS_DRAWN else f", worst {MAX_KEYS_DRAWN} shown"
    ax.set_title(f"{report.n_too_noisy} of {report.n_keys} keys too noisy for a hard decision at "
                 f"{fmt(report.threshold)}{shown}", fontsize=9)
    return ax



def plot_reliability(report, ax):
    """Reliability diagram: share of positive outcomes against mean p per bin, with intervals."""
    ax.plot([0, 1], [0, 1], color="0.6", ls="--", lw=1, label="perfect calibration")
    if report.reliability is None:
        ax.text(0.5, 0.5, "no outcomes: no reliability diagram", ha="center", va="center",
                transform=ax.transAxes)
        return ax
    used = report.reliability[report.reliability["count"] > 0]
    ax.errorbar(used["mean_p"], used["share_positive"],
                yerr=[used["share_positive"] - used["share_low"], used["share_high"] - used["share_positive"]],
                fmt="o-", color="C0", capsize=3, label="observed (95% Wilson intervals)")
    c = report.calibration
    ax.set_title(f"reliability: ECE {fmt(c['ece'], 3)}, Brier {fmt(c['brier'], 3)}, "
                 f"AUC {fmt(c['auc'], 3)} (n = {c['n_outcomes']})", fontsize=9)
    ax.set_xlabel("mean p in bin")
    ax.set_ylabel("share of positive outcomes")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="upper left")
    return ax
