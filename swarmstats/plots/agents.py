"""Multi-agent coupling: who leads whom."""

from __future__ import annotations

import numpy as np

from ..agents.agreement import AgreementResult
from ..agents.contagion import ContagionResult
from ..agents.equilibria import EquilibriaResult
from ..agents.synergy import SynergyResult
from . import plotter


@plotter(ContagionResult)
def plot_contagion(result, ax):
    """The lead asymmetry of every pair as a matrix (row leads column), pairs shown after
    Holm's adjustment outlined."""
    names = list(result._names)
    index = {name: i for i, name in enumerate(names)}
    matrix = np.zeros((len(names), len(names)))
    for row in result.pairs.itertuples():
        matrix[index[row.leader], index[row.follower]] = row.asymmetry
        matrix[index[row.follower], index[row.leader]] = -row.asymmetry
    limit = max(float(np.abs(matrix).max()), 1e-12)
    edges = np.arange(len(names) + 1) - 0.5
    image = ax.pcolormesh(edges, edges, matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.invert_yaxis()                                   # the first agent's row on top, as a table reads
    for row in result.significant_pairs.itertuples():
        ax.add_patch(_outline(index[row.follower], index[row.leader]))
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xlabel("follower")
    ax.set_ylabel("leader")
    ax.figure.colorbar(image, ax=ax, label="lead asymmetry")
    ax.set_title(f"contagion: {result.verdict} (population p = {result.population_p:.2g})", fontsize=9)
    return ax


def _outline(column, row):
    from matplotlib.patches import Rectangle

    return Rectangle((column - 0.5, row - 0.5), 1, 1, fill=False, edgecolor="k", lw=2)


@plotter(EquilibriaResult)
def plot_equilibria(result, ax):
    """Where each run settled (+- 2 standard errors), coloured by its equilibrium: the first
    metric per run, or the first two metrics against each other."""
    runs = result.runs
    first = result.metrics[0]
    for index, (label, part) in enumerate(runs.groupby("equilibrium", sort=True)):
        colour = f"C{index % 10}"
        if len(result.metrics) >= 2:
            second = result.metrics[1]
            ax.errorbar(part[first], part[second], xerr=2 * part[f"{first}_se"], yerr=2 * part[f"{second}_se"],
                        fmt="o", color=colour, label=f"{label} ({len(part)} runs)")
        else:
            ax.errorbar(part.index, part[first], yerr=2 * part[f"{first}_se"], fmt="o", color=colour,
                        label=f"{label} ({len(part)} runs)")
    if len(result.metrics) >= 2:
        ax.set_xlabel(first)
        ax.set_ylabel(result.metrics[1])
    else:
        ax.set_xticks(range(len(runs)), runs["run"], rotation=45, ha="right", fontsize=7)
        ax.set_ylabel(f"{first} after the warm-up")
    ax.set_title(f"equilibria: {result.verdict}", fontsize=9)
    ax.legend(fontsize=7)
    return ax


@plotter(SynergyResult)
def plot_synergy(result, ax):
    """Each team's gap to its best member and to its mean member, with intervals, by team size."""
    table = result.by_size
    sizes = table["team_size"].to_numpy(dtype=float)
    ax.errorbar(sizes, table["gap_best"], yerr=[table["gap_best"] - table["gap_best_low"],
                                                table["gap_best_high"] - table["gap_best"]],
                fmt="o", color="C3", capsize=3, label="team - best member")
    ax.errorbar(sizes + 0.08, table["gap_mean"], yerr=[table["gap_mean"] - table["gap_mean_low"],
                                                       table["gap_mean_high"] - table["gap_mean"]],
                fmt="s", color="C0", capsize=3, label="team - mean member")
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xticks(np.unique(sizes))
    ax.set_xlabel("team size")
    ax.set_ylabel("synergy gap")
    ax.set_title(f"synergy gap: {result.verdict}", fontsize=9)
    ax.legend(fontsize=7)
    return ax


@plotter(AgreementResult)
def plot_agreement(result, ax):
    """The pairwise agreement rate per step, each window's mean with its interval, and the trend."""
    from ._draw import plot_series

    steps, rates = result._steps, result._rates
    plot_series(ax, steps, rates, color="0.6", lw=0.8, label="pairwise agreement per step")
    for row in result.windows.itertuples():
        ax.hlines(row.agreement, row.start_step, row.end_step, color="C0", lw=2.5)
        ax.fill_between([row.start_step, row.end_step], row.low, row.high, color="C0", alpha=0.2)
    centre = float(np.mean(steps))
    line = result.agreement + result.trend * (steps[[0, -1]] - centre)
    ax.plot(steps[[0, -1]], line, color="C3", ls="--", lw=1.5, label=f"trend (p = {result.trend_p:.2g})")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("step")
    ax.set_ylabel("share of pairs that agree")
    ax.set_title(f"agreement: {result.verdict}", fontsize=9)
    ax.legend(fontsize=7)
    return ax
