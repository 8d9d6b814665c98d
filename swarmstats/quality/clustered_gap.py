"""The adverse-selection test when interactions come in agent clusters.

Shuffling accept flags treats every interaction as independent evidence.  When each agent has
its own typical quality and its own acceptance rate, 20 agents x 50 interactions carry about 20
agents' worth of evidence, and chance agreement between the agents' quality and their
acceptance read as selection: with independent quality and acceptance offsets of 1 SD (logit
scale), the permutation test called adverse selection 21% of the time at 5%
(docs/quality.md).  This test takes whole agents as the units instead, as
:func:`quality_metrics`'s clustered p-value does: the statistic over its delete-one-agent
jackknife standard error, against Student's t on G - 1 degrees of freedom; with two labels
(initiator, counterparty), Cameron, Gelbach & Miller's two-way jackknife variance, on
min(G) - 1.

Measured on 1,000 null batches per design (benchmarks/calibration_quality_clusters.py), the
one-way t rejected 4.9-5.9% at 5% with 20-50 agents and 2.7-3.3% with 5-10; the share of
cluster-bootstrap gaps on the far side of zero, used before, 5.8-8.3%.

The statistic is the one the permutation test uses: the gap, or with strata (epochs) the mean
of the per-stratum gaps over the strata that hold both accepted and rejected interactions.
"""

from __future__ import annotations

import numpy as np

from .._kernels.bootstrap import (
    cluster_totals,
    jackknife_t_pvalues,
    two_way_cluster_interval,
)
from .._kernels.distributions import t_sf
from ..errors import InputError

#: the per-stratum sums each cluster contributes: interactions, accepted, p over the
#: accepted, p over all
SUMS = 4


def stratum_gap_mean(sums: np.ndarray) -> np.ndarray:
    """The mean over strata of each stratum's gap, from sums laid out (rows, strata x SUMS);
    strata with no accepted or no rejected interaction are left out (nan if none is left).

    >>> sums = np.array([[2, 1, 0.9, 1.1, 2, 1, 0.2, 1.0]])   # two strata: gaps 0.7 and -0.6
    >>> stratum_gap_mean(sums).round(6).tolist()
    [[0.05]]
    """
    rows = sums.shape[0]
    n, accepted, p_accepted, p_all = np.moveaxis(sums.reshape(rows, -1, SUMS), 2, 0)
    rejected = n - accepted
    usable = (accepted > 0) & (rejected > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gaps = p_accepted / accepted - (p_all - p_accepted) / rejected
    gaps = np.where(usable, gaps, 0.0)
    used = usable.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(used > 0, gaps.sum(axis=1) / used, np.nan)
    return mean[:, None]


def _sums_by(codes: np.ndarray, count: int, strata: np.ndarray, n_strata: int,
             p: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """(count, n_strata x SUMS): each code's sums within each stratum."""
    columns = np.column_stack([np.ones(len(p)), flags, p * flags, p])
    totals = cluster_totals(columns, codes * n_strata + strata, count * n_strata)
    return totals.reshape(count, n_strata * SUMS)


def clustered_gap_pvalues(p: np.ndarray, flags: np.ndarray, strata: np.ndarray,
                          labels: dict) -> tuple[float, float, float]:
    """(statistic, p-value for "below zero", p-value for "above zero") with interactions
    clustered by ``labels`` ({"cluster": codes} or {"initiator": ..., "counterparty": ...},
    integer codes) and stratified by ``strata`` (integer codes).

    >>> rng = np.random.default_rng(0)
    >>> agent = np.repeat(np.arange(20), 30)
    >>> p = rng.uniform(size=600)
    >>> flags = rng.uniform(size=600) < 1 - p               # low p accepted: adverse
    >>> gap, below, above = clustered_gap_pvalues(p, flags, np.zeros(600, int), {"cluster": agent})
    >>> round(gap, 2), below < 0.01, above > 0.99
    (-0.32, True, True)
    """
    n_strata = int(strata.max()) + 1
    counts = {name: int(codes.max()) + 1 for name, codes in labels.items()}
    if min(counts.values()) < 2:
        name = min(counts, key=counts.get)
        raise InputError(f"clusters: every interaction has the same {name}; resampling clusters "
                         "needs at least 2 (leave clusters out to treat interactions as independent)")
    if len(labels) == 1:
        codes = labels["cluster"]
        totals = _sums_by(codes, counts["cluster"], strata, n_strata, p, flags)
        observed = float(stratum_gap_mean(totals.sum(axis=0)[None, :])[0, 0])
        below, above = jackknife_t_pvalues(stratum_gap_mean, totals)
        return observed, float(below[0]), float(above[0])
    # two ways: only sums within initiators, counterparties and their cells are read, so the
    # interactions of one cell are summed first
    rows, cols = labels["initiator"], labels["counterparty"]
    cell_of, cells = np.unique(rows * counts["counterparty"] + cols, return_inverse=True)
    cells = cells.ravel()
    totals = _sums_by(cells, len(cell_of), strata, n_strata, p, flags)
    observed = float(stratum_gap_mean(totals.sum(axis=0)[None, :])[0, 0])
    low, high, se, dof = two_way_cluster_interval(
        totals, cell_of // counts["counterparty"], cell_of % counts["counterparty"],
        stratum_gap_mean, 0.95)
    centre = (low[0] + high[0]) / 2.0     # the jackknife's bias-corrected gap
    if not (np.isfinite(centre) and se[0] > 0):
        return observed, np.nan, np.nan
    t = centre / se[0]
    return observed, float(t_sf(-t, dof)), float(t_sf(t, dof))
