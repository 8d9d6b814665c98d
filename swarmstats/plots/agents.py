"""Multi-agent coupling: who leads whom."""

from __future__ import annotations

import numpy as np

from ..agents.contagion import ContagionResult
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
