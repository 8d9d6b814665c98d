"""Regimes: segments on the series, the penalty path, and the online detectors' traces."""

from __future__ import annotations

import numpy as np

from ..regimes.bocpd import OnlineRegimeResult, OnlineRegimeState
from ..regimes.cusum import CusumResult, CusumState
from ..regimes.offline import RegimeResult
from ..regimes.path import RegimePath
from ..signal_health import LearningSignalResult
from . import plotter
from ._draw import downsample, plot_series


@plotter(RegimeResult)
def plot_regimes(result, ax):
    """The series; each regime's level (or line) with its interval; the changes as dashed lines,
    dotted and grey where they are within the wander of long-memory noise; a change of spread
    within a regime as a dash-dotted purple line."""
    steps = result._steps
    plot_series(ax, steps, result._values, lw=0.8, color="0.4", label=result.name or "series")
    for row in result.segments.to_dict("records"):
        span = steps[row["start"]: row["end"]]
        if row.get("sloped"):
            centre = span.mean()
            line = row["mean"] + row["slope"] * (span[[0, -1]] - centre)
            ax.plot(span[[0, -1]], line, color="C3", lw=2)
            continue
        ax.hlines(row["mean"], span[0], span[-1], color="C3", lw=2)
        ax.fill_between(span[[0, -1]], row["ci_low"], row["ci_high"], color="C3", alpha=0.15)
    wander = set(result.wander_changes)
    for point in result.changepoints:
        if point in wander:
            ax.axvline(steps[point], color="0.5", ls=":", lw=1.2)
        else:
            ax.axvline(steps[point], color="C0", ls="--", lw=1)
    for row in result.spread_changes.to_dict("records"):
        if not row["at_change"]:  # one on a change is that change's line
            ax.axvline(steps[row["changepoint"]], color="C4", ls="-.", lw=1)
    ax.set_title(result.summary().splitlines()[0], fontsize=9)
    ax.set_xlabel("step")
    return ax


@plotter(RegimePath)
def plot_path(result, ax):
    """Cost against the number of changes along the penalty path, with the elbow."""
    ax.plot(result.table["n_changepoints"], result.table["cost"], marker="o")
    ax.axvline(len(result.chosen), color="C3", ls="--", label="elbow")
    ax.set_xlabel("number of changes")
    ax.set_ylabel("unpenalised cost")
    ax.legend(fontsize=8)
    return ax


def _alarm_lines(ax, alarms) -> None:
    for i, alarm in enumerate(alarms):
        ax.axvline(alarm["index"], color="C3", lw=1.2, label="alarm" if i == 0 else None)
        ax.axvline(alarm["start"], color="C3", lw=0.8, ls=":", label="estimated start" if i == 0 else None)


@plotter(CusumResult)
def plot_cusum(result, ax):
    """S+ above the axis and -S- below it, against +-h; the alarms and the changes' starts."""
    index = np.arange(result.n)
    plot_series(ax, index, result._upper, color="C2", lw=1, label="S+ (upward)")
    plot_series(ax, index, -result._lower, color="C1", lw=1, label="-S- (downward)")
    for bound in (result.threshold, -result.threshold):
        ax.axhline(bound, color="k", ls="--", lw=1)
    _alarm_lines(ax, result.alarms)
    if result.reference_points:
        # the reference is learnt at the start and again after every alarm: the sums rest then
        starts = [0] + [alarm["index"] + 1 for alarm in result.alarms]
        for i, start in enumerate(starts):
            end = min(start + result.reference_points, result.n) - 1
            if end > start:
                ax.axvspan(start, end, color="0.9", label="reference learnt" if i == 0 else None)
    ax.set_xlabel("index")
    ax.set_ylabel("CUSUM (noise SDs)")
    ax.set_title(result.summary(), fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    return ax


@plotter(OnlineRegimeResult)
def plot_bocpd(result, ax):
    """The most probable run length (a sawtooth that drops at a change) and, on the right
    axis, the probability of a recent change against the alarm threshold."""
    index = np.arange(result.n)
    ax.step(*downsample(index, result._run_length), where="post", color="C0", lw=1,
            label="most probable run length")
    _alarm_lines(ax, result.alarms)
    ax.set_xlabel("index")
    ax.set_ylabel("run length (points since the last change)", color="C0")
    ax.legend(fontsize=7, loc="upper left")
    twin = ax.twinx()
    twin.plot(*downsample(index, result._change_probability), color="C1", lw=0.8, alpha=0.8)
    twin.axhline(result.threshold, color="C1", ls="--", lw=1)
    twin.set_ylim(-0.02, 1.02)
    twin.set_ylabel("P(recent change)", color="C1", fontsize=8)
    ax.set_title(result.summary(), fontsize=9)
    return ax


@plotter(CusumState)
def plot_cusum_state(state, ax):
    """The two sums now, as bars against the threshold (``result().plot()`` draws their history)."""
    ax.bar(["S+ (upward)", "S- (downward)"], [state.upper, state.lower], color=["C2", "C1"])
    ax.axhline(state.threshold, color="k", ls="--", lw=1, label="threshold h")
    ax.legend(fontsize=7)
    ax.set_ylabel("CUSUM (noise SDs)")
    ax.set_title(state.summary(), fontsize=9)
    return ax


@plotter(OnlineRegimeState)
def plot_bocpd_state(state, ax):
    """The probability of a recent change now, as a bar against the alarm threshold."""
    ax.bar(["P(recent change)"], [state.change_probability], color="C1")
    ax.axhline(state.threshold, color="k", ls="--", lw=1, label="alarm threshold")
    ax.legend(fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_title(state.summary(), fontsize=9)
    return ax


@plotter(LearningSignalResult)
def plot_learning_signal(result, ax):
    """The share of flat groups per step, each regime's mean, and where the collapse began."""
    ax.plot(result._steps, result._values, color="0.55", lw=1, label="share of groups with identical rewards")
    for row in result.segments.itertuples():
        ax.hlines(row.mean, row.start_step, row.end_step, color="C0", lw=2.5)
    if result.onset_step is not None:
        ax.axvline(result.onset_step, color="C3", ls="--", lw=1.5, label=f"collapse from step {result.onset_step:g}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("step")
    ax.set_ylabel("share of flat groups")
    ax.set_title(f"learning signal: {result.verdict}", fontsize=9)
    ax.legend(fontsize=8)
    return ax
