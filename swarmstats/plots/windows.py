"""Adaptive windows: the series, the level now, the status band and the window's length."""

from __future__ import annotations

import numpy as np

from ..windows import WindowResult
from . import plotter
from ._draw import downsample, plot_series

STATUS_COLOURS = {"improving": "C2", "degrading": "C3", "rising": "C8", "falling": "C9", "stable": "C0",
                  "uncertain": "0.75"}


@plotter(WindowResult)
def plot_windows(result, ax):
    """The series, the level now (the trend line's end, or the window's mean) with its interval,
    the status as a coloured band along
    the bottom, the window length on the right-hand axis and the changes as vertical lines."""
    table = result.table
    steps = table["step"].to_numpy(dtype=float)
    plot_series(ax, steps, table["value"], color="0.55", lw=0.7, label=result.name or "series")
    every = max(1, len(steps) // 4000)  # smooth curves: every k-th point is enough to draw them
    ax.plot(steps[::every], table["level"].to_numpy()[::every], color="k", lw=1.2, label="level now")
    ax.fill_between(steps[::every], table["level_low"].to_numpy()[::every],
                    table["level_high"].to_numpy()[::every], color="k", alpha=0.12, label="its CI")
    low, high = np.nanmin(table["value"]), np.nanmax(table["value"])
    band = (high - low) * 0.06 or 1.0
    status = table["status"].to_numpy()
    run_start = 0
    for i in range(1, len(status) + 1):
        if i == len(status) or status[i] != status[run_start]:
            right = steps[i] if i < len(status) else steps[-1]
            ax.fill_between([steps[run_start], right], low - 2 * band, low - band,
                            color=STATUS_COLOURS[status[run_start]], lw=0)
            run_start = i
    for change in result.changes:
        ax.axvline(change["start"], color="C3" if change["direction"] == "down" else "C2", ls="--", lw=1)
    # a diagnostic (no better side) rises and falls; a score improves and degrades
    shown = [name for name in STATUS_COLOURS
             if name not in (("improving", "degrading") if result.better is None else ("rising", "falling"))]
    handles = [__import__("matplotlib.patches", fromlist=["Patch"]).Patch(color=STATUS_COLOURS[name], label=name)
               for name in shown]
    lines, labels = ax.get_legend_handles_labels()
    ax.legend(lines + handles, labels + shown, fontsize=7, ncol=2, loc="upper left")
    twin = ax.twinx()
    twin.plot(*downsample(steps, table["length"].to_numpy(dtype=float)), color="C1", lw=0.8, alpha=0.7)
    twin.set_ylabel("window length", color="C1", fontsize=8)
    twin.tick_params(axis="y", labelcolor="C1", labelsize=7)
    ax.set_ylim(low - 2.5 * band, high + band)
    ax.set_xlabel("step")
    ax.set_title(f"{result.name or 'series'}: now {result.final_status}; "
                 f"{len(result.changes)} change(s)", fontsize=9)
    return ax


