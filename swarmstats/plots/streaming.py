"""Live monitoring: a stream's running figures, every tracked metric, the logged series."""

from __future__ import annotations

import numpy as np

from .._result import fmt
from ..sequential import SequentialResult, SequentialState
from ..streaming.convergence_monitor import MonitorState
from ..streaming.monitor import MonitorStatus
from . import plotter
from ._draw import axes, literal_text, plot_series

VERDICT_COLOURS = {"converged": "C2", "not_converged": "C3", "insufficient_data": "0.6"}


@plotter(MonitorState)
def plot_monitor_state(state, ax):
    """The running mean with +-1 SD, coloured by the latest verdict (``result().plot()`` draws
    the series itself)."""
    colour = VERDICT_COLOURS.get(state.verdict, "C0")
    ax.errorbar([0], [state.mean], yerr=[[state.sd if np.isfinite(state.sd) else 0.0]], fmt="o",
                color=colour, capsize=6, label=f"running mean +-1 SD ({state.n} points)")
    ax.set_xticks([])
    ax.legend(fontsize=7)
    ax.set_title(state.summary(), fontsize=9)
    return ax


@plotter(MonitorStatus)
def plot_monitor_report(report, ax):
    """Each tracked metric's running mean with +-1 SD, coloured by its verdict."""
    names = list(report.metrics)
    for position, name in enumerate(names):
        entry = report.metrics[name]
        sd = entry["sd"] if entry["sd"] is not None and np.isfinite(entry["sd"]) else 0.0
        ax.errorbar([entry["mean"]], [position], xerr=[[sd]], fmt="o", capsize=4,
                    color=VERDICT_COLOURS.get(entry["verdict"], "C0"))
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([f"{name} ({report.metrics[name]['verdict']}, n {report.metrics[name]['n']})"
                        for name in names], fontsize=7)
    ax.set_xlabel("running mean +-1 SD")
    stop = (f"stop on {report.stop_metric}: {'yes' if report.should_stop else 'not yet'}"
            if report.stop_metric else "no stop rule")
    ax.set_title(f"{report.steps} log call(s); {stop}", fontsize=9)
    return ax


def plot_monitor(monitor, ax=None):
    """Each tracked metric's series (on one Axes, or one panel per metric when ax is None)."""
    names = list(monitor._streams)
    if ax is None and len(names) > 1:
        import matplotlib.pyplot as plt

        fig, panels = plt.subplots(len(names), 1, figsize=(9, 2.6 * len(names)), squeeze=False)
        for name, axis in zip(names, panels[:, 0]):
            _plot_one(monitor, name, axis)
        literal_text(fig)  # before the layout, which renders every text
        fig.tight_layout()
        return panels[0, 0]
    ax = axes(ax)
    for name in names:
        _plot_one(monitor, name, ax)
    literal_text(ax.get_figure())
    return ax


def _plot_one(monitor, name: str, ax) -> None:
    stream = monitor._streams[name]
    plot_series(ax, monitor._steps[name], stream.values, lw=0.8,
                label=f"{name} ({stream.state.verdict}, mean {fmt(stream.state.mean)})")
    ax.legend(fontsize=7)
    ax.set_xlabel("step")


@plotter(SequentialResult)
def plot_sequential(result, ax):
    """The running mean difference and its confidence sequence over the scenarios, zero, and
    where the comparison was decided."""
    table = result.table
    finite = np.isfinite(table["ci_low"]) & np.isfinite(table["ci_high"])
    ax.fill_between(table["n"][finite], table["ci_low"][finite], table["ci_high"][finite], color="C0",
                    alpha=0.25, label=f"{1 - result.alpha:.0%} confidence sequence")
    ax.plot(table["n"], table["difference"], color="C0", lw=1.5,
            label=f"mean difference, {result.names[0]} - {result.names[1]}")
    ax.axhline(0.0, color="0.3", lw=1)
    if result.decided_at is not None:
        ax.axvline(result.decided_at, color="C3", ls="--", lw=1.2,
                   label=f"decided after {result.decided_at}: {result.verdict.replace('_', ' ')}")
    ax.set_xlabel("scenarios")
    ax.set_ylabel("difference")
    ax.legend(fontsize=8)
    ax.set_title(result.summary().splitlines()[0], fontsize=9)
    return ax


@plotter(SequentialState)
def plot_sequential_state(state, ax):
    """The mean difference with its confidence sequence now, against zero."""
    low, high = state.ci
    shown = [v for v in (low, high) if np.isfinite(v)]
    ax.errorbar([state.difference], [0], xerr=[[max(state.difference - low, 0.0) if np.isfinite(low) else 0.0],
                                               [max(high - state.difference, 0.0) if np.isfinite(high) else 0.0]],
                fmt="o", color="C0", capsize=6)
    ax.axvline(0.0, color="0.3", lw=1)
    if shown:
        ax.set_xlim(min(shown + [0.0]) - 0.1 * (max(shown) - min(shown) + 1e-12),
                    max(shown + [0.0]) + 0.1 * (max(shown) - min(shown) + 1e-12))
    ax.set_yticks([])
    ax.set_title(state.summary(), fontsize=9)
    return ax
