"""Distributions: a series described, runs compared."""

from __future__ import annotations

import numpy as np

from .._result import fmt
from ..compare import CompareResult, EvaluationPlan
from ..curves import CurvesResult
from ..description import DescribeResult
from ..winners import BestOfResult
from . import plotter
from ._draw import bins


@plotter(DescribeResult)
def plot_describe(result, ax):
    """Histogram of the values with the mean and its interval, median, IQM,
    the 5-95% range, the lower-tail CVaR, the peak and - where the density shows two - the two
    modes with their shares."""
    values = result._values
    ax.hist(values, bins=bins(values), density=True, color="0.75", label=f"values (n = {result.n})")
    ax.axvspan(result.ci[0], result.ci[1], color="C0", alpha=0.25,
               label=f"mean {fmt(result.mean)}, {result.ci_level:.0%} CI (ESS {fmt(result.ess, 3)})")
    ax.axvline(result.mean, color="C0", lw=2)
    ax.axvline(result.median, color="C1", lw=1.5, label=f"median {fmt(result.median)}")
    ax.axvline(result.iqm, color="C4", lw=1.5, ls=":", label=f"IQM {fmt(result.iqm)}")
    q = result.quantiles
    ax.axvline(q["q05"], color="0.3", lw=1, ls="--", label="5% / 95% quantiles")
    ax.axvline(q["q95"], color="0.3", lw=1, ls="--")
    ax.axvline(result.cvar, color="C3", lw=1.5, ls="-.", label=f"CVaR {result.cvar_tail:.0%} {fmt(result.cvar)}")
    lowest = result.better == "lower"  # a loss's best value is its lowest
    best, word = ((result.minimum, "best") if lowest else
                  (result.maximum, "peak" if result.better is not None else "max"))
    ax.axvline(best, color="C2", lw=1.5, label=f"{word} {fmt(best)}")
    if result.bimodal:  # where the density shows its two modes, and their shares
        ax.plot(result.modes, [0, 0], marker="^", ms=9, color="C5", clip_on=False, ls="none")
        ax.plot([], [], marker="^", color="C5", ls="none",
                label=f"two modes: {fmt(result.modes[0], 3)} ({result.mode_shares[0]:.0%}), "
                      f"{fmt(result.modes[1], 3)} ({result.mode_shares[1]:.0%})")
    sds = result.peak_gap_sd  # in SDs: a percentage of a mean near or below zero means nothing
    side = "below" if lowest else "above"
    gap = "" if not np.isfinite(sds) else f": the {word} is {fmt(sds, 3)} SDs {side} the mean"
    ax.set_title(f"{result.name or 'series'}{gap}", fontsize=9)
    ax.set_xlabel(result.name or "value")
    ax.set_ylabel("density")
    ax.legend(fontsize=7)
    return ax


@plotter(CompareResult)
def plot_compare(result, ax):
    """Performance profiles: share of runs above each score, with bootstrap bands."""
    for i, (name, part) in enumerate(result.profile.groupby("name", sort=False)):
        colour = f"C{i}"
        ax.plot(part["threshold"], part["fraction"], color=colour, lw=2, label=name)
        ax.fill_between(part["threshold"], part["low"], part["high"], color=colour, alpha=0.2)
    ax.set_xlabel("score threshold")
    ax.set_ylabel("share of runs scoring above")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"performance profiles ({result.ci_level:.0%} stratified bootstrap bands)", fontsize=9)
    ax.legend(fontsize=8)
    return ax


@plotter(BestOfResult)
def plot_best_of(result, ax):
    """Every arm's score with its naive interval, best first; the winner's interval adjusted
    for the selection beside its naive one."""
    table = result.table
    shown = table.head(30)
    positions = np.arange(len(shown))
    ax.errorbar(shown["mean"], positions, xerr=[shown["mean"] - shown["naive_low"], shown["naive_high"] - shown["mean"]],
                fmt="o", color="0.4", ms=4, lw=1, label=f"measured, naive {result.ci_level:.0%} interval")
    ax.errorbar([result.estimate], [-0.35], xerr=[[result.estimate - result.ci[0]], [result.ci[1] - result.estimate]],
                fmt="D", color="C3", ms=6, lw=2, label="the winner adjusted for being picked")
    ax.set_yticks(positions, [str(name) for name in shown["arm"]], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"score ({result.better} is better)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(f"best of {result.n_arms}: {result.best}, P(truly best) "
                 f"{fmt(result.p_best, 2)}", fontsize=9)
    return ax


@plotter(EvaluationPlan)
def plot_evaluation_plan(result, ax):
    """Runs per set needed against evaluation points per run, and the floor the seeds' own
    spread sets."""
    table = result.table
    ax.plot(table["points"], table["runs_per_set"], "o-", color="C0", lw=2,
            label=f"runs per set for a difference of {fmt(result.delta)}")
    if result.floor is not None:
        ax.axhline(result.floor, color="C3", ls="--", lw=1.5,
                   label=f"floor: the seeds' own spread (SD {fmt(result.between_sd, 3)})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("evaluation points per run")
    ax.set_ylabel("runs per set")
    ax.set_ylim(bottom=0)
    ax.set_title(f"power {result.power:.0%} at alpha {result.alpha}", fontsize=9)
    ax.legend(fontsize=8)
    return ax


def overlay_curves(results, ax, labels=None):
    """Several settings' curves in one panel: each setting's mean and its pointwise band in a
    colour of its own, its runs faint in that colour; ``labels`` names them in the legend
    (default: the results' names)."""
    labels = labels if labels is not None else [result.name for result in results]
    for index, (result, label) in enumerate(zip(results, labels)):
        table, color = result.table, f"C{index % 10}"
        for run in result._grid_values:
            ax.plot(table["step"], run, color=color, lw=0.5, alpha=0.25, zorder=1)
        ax.fill_between(table["step"], table["mean_low"], table["mean_high"], color=color, alpha=0.2,
                        zorder=2)
        ax.plot(table["step"], table["mean"], color=color, lw=2, zorder=3,
                label=f"{label} ({result.n_runs} runs)")
    ax.set_xlabel("step")
    ax.set_ylabel(results[0].name.split(" [")[0] if results and results[0].name else "score")
    ax.set_title(f"{len(results)} settings: the mean of each one's runs and its "
                 f"{results[0].ci_level:.0%} pointwise interval", fontsize=9)
    ax.legend(fontsize=8)
    return ax


@plotter(CurvesResult)
def plot_curves(result, ax):
    """Each run faint, the mean with its pointwise t band, the median and the IQM dashed."""
    table = result.table
    for run in result._grid_values:
        ax.plot(table["step"], run, color="0.75", lw=0.6, zorder=1)
    ax.fill_between(table["step"], table["mean_low"], table["mean_high"], color="C0", alpha=0.25,
                    label=f"mean, {result.ci_level:.0%} interval", zorder=2)
    ax.plot(table["step"], table["mean"], color="C0", lw=2, zorder=3)
    ax.plot(table["step"], table["median"], color="C1", lw=1.2, ls="--", label="median", zorder=3)
    ax.plot(table["step"], table["iqm"], color="C2", lw=1.2, ls=":", label="IQM", zorder=3)
    ax.set_xlabel("step")
    ax.set_ylabel(result.name or "score")
    ax.set_title(f"{result.n_runs} runs: pointwise intervals across runs", fontsize=9)
    ax.legend(fontsize=8)
    return ax
