"""The proxy tracker's report (per-key intervals against the threshold, or the reliability
diagram), and the proxy-outcome divergence check."""

from __future__ import annotations

import numpy as np

from .._result import fmt
from ..errors import check_choice
from ..proxy.result import ProxyResult
from ..proxy_outcome import DivergenceResult
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
                 f"AUC {fmt(c['auc'], 3)} [{fmt(c['auc_low'], 3)}, {fmt(c['auc_high'], 3)}] "
                 f"(n = {c['n_outcomes']}" + (f", {c['clusters']} keys as clusters)" if c.get("clusters") else ")"),
                 fontsize=9)
    ax.set_xlabel("mean p in bin")
    ax.set_ylabel("share of positive outcomes")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="upper left")
    return ax


@plotter(DivergenceResult)
def plot_divergence(result, ax):
    """The outcome at each evaluation against what the proxy predicts for it, the onset and
    the alarm; the proxy itself on a second axis."""
    steps = result._steps
    ax.plot(steps, result._outcome, "o", ms=3, color="C0", label="outcome")
    ax.plot(steps, result._predicted, color="C1", lw=1.5, label=f"predicted from the proxy ({result.relation_span})")
    if result.onset_step is not None and result.alarm_step is not None and result.onset_step < result.alarm_step:
        ax.axvspan(result.onset_step, steps[-1], color="C3", alpha=0.08)
    if result.onset_step is not None:
        ax.axvline(result.onset_step, color="C3", ls="--", lw=1, label=f"onset after step {result.onset_step:g}")
    if result.alarm_step is not None:
        ax.axvline(result.alarm_step, color="C3", lw=1.5, label=f"flagged at step {result.alarm_step:g}")
    proxy_axis = ax.twinx()
    proxy_axis.plot(steps, result._proxy, color="0.6", lw=1, label="proxy (mean per evaluation)")
    proxy_axis.set_ylabel("proxy", color="0.45")
    ax.set_xlabel("step")
    ax.set_ylabel("outcome")
    ax.set_title(f"proxy-outcome divergence: {result.verdict}", fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    more, more_labels = proxy_axis.get_legend_handles_labels()
    ax.legend(handles + more, labels + more_labels, fontsize=7)
    return ax
