"""Is selection adverse?  A permutation test of the quality gap, pooled over epochs.

Under the null, acceptance is independent of p inside each epoch, so the
accept flags are shuffled within each epoch (a stratified permutation test):
differences between epochs - one epoch of high p and many acceptances - can
never masquerade as selection.  The statistic is the mean of the per-epoch
gaps over the epochs that have both accepted and rejected interactions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._input.interactions import interaction_arrays
from .._input.random_state import resolve_rng
from .._kernels.permutation import (
    block_permuted_gaps,
    gap_of_sums,
    lower_tail_pvalue,
    permuted_gaps,
)
from .._result import Result, fmt
from ..errors import InputError, check_choice
from .clustered_gap import clustered_gap_pvalues

ALTERNATIVES = ("less", "greater", "two-sided")


@dataclass(frozen=True, repr=False)
class SelectionTestResult(Result):
    """Outcome of :func:`adverse_selection_test`."""

    statistic: float
    pvalue: float
    alternative: str
    n_groups: int
    n_groups_used: int
    n_perm: int
    #: the permutation null of the statistic (what the p-value counts against)
    null: tuple = ()
    #: accept flags shuffled in contiguous blocks of this many interactions (``blocks``); 0: one by one
    block_length: int = 0
    note: str = ""
    #: "permutation", or with ``clusters`` "cluster jackknife t" / "two-way cluster t"
    test: str = "permutation"
    #: the clusters (agents) resampled, the fewer way's count with two labels; 0 without
    n_clusters: int = 0
    _private_fields = ("null",)

    def summary(self) -> str:
        where = "" if self.n_groups == 1 else f" (mean over {self.n_groups_used} of {self.n_groups} groups)"
        draws = ""
        if self.test == "permutation":
            draws = f", {self.n_perm} " + (f"blocks of {self.block_length} shuffled" if self.block_length
                                             else "shuffles")
        line = (f"quality gap {fmt(self.statistic)}{where}; {self.test} p = {fmt(self.pvalue, 3)} "
                f"(alternative: {self.alternative}{draws})")
        return line + (f"\n{self.note}" if self.note else "")


def adverse_selection_test(p, accepted, *, groups=None, clusters=None, alternative: str = "less",
                           n_perm: int = 9999, blocks="auto", random_state=0) -> SelectionTestResult:
    """Permutation test of the quality gap against "acceptance ignores p".

    ``alternative="less"`` (the default) asks whether the gap is significantly
    below zero - adverse selection.  With ``groups`` (e.g. the epoch of each
    interaction) the flags are shuffled within groups and the statistic is the
    mean of the per-group gaps.

    ``blocks`` ("auto", an int or None) is :func:`quality_metrics`'s: interactions in time
    order whose p and accept flags each drift (a shared environment, a governance regime)
    correlate by chance far more often than independent ones, and shuffling single flags
    took that for selection - two independent AR(0.9) drifts over 1,000 interactions read
    as adverse selection 22-26% of the time at 5%.  "auto" (the default) shuffles
    contiguous blocks of five autocorrelation times, within each group, when either is
    persistent in the order given, less its group's mean (as :func:`quality_metrics`
    decides); None shuffles
    single flags; an int, blocks of that many.  Rows not in time order read as
    persistent: pass None for them.

    ``clusters`` names the agent behind each interaction (one label per interaction, or a
    tuple ``(initiators, counterparties)``), as in :func:`quality_metrics`.  Shuffling flags
    treats 1,000 interactions of 20 agents as 1,000 independent ones: when agents differ in
    quality and in how often they are accepted, chance agreement between the two read as
    adverse selection 21% of the time at 5%.  With ``clusters`` whole agents are resampled
    instead: the statistic over its delete-one-agent jackknife error, on Student's t with
    (agents - 1) degrees of freedom (two labels: Cameron-Gelbach-Miller's two-way variance),
    as quality_metrics's clustered p-value; with ``groups`` too.  ``n_perm`` and ``blocks``
    are then not used.

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=400)
    >>> adverse = rng.uniform(size=400) < 1 - p          # low p accepted more often
    >>> adverse_selection_test(p, adverse, random_state=1).pvalue < 0.01
    True
    """
    check_choice("alternative", alternative, ALTERNATIVES)
    if int(n_perm) < 1:
        raise InputError(f"n_perm must be >= 1, got {n_perm}")
    if clusters is not None and blocks not in ("auto", None):
        raise InputError("blocks and clusters are alternatives: resample contiguous blocks or "
                         "agents, not both")
    # (metrics imports nothing of this module)
    from .metrics import (
        _cluster_labels,
        _cluster_note,
        _cluster_test_name,
        _time_blocks,
    )

    p, flags, _, cluster_codes = interaction_arrays(p, accepted, labels=_cluster_labels(clusters))
    if groups is None:
        labels = np.zeros(len(p), dtype=int)
    else:
        labels = pd.Series(np.asarray(groups)).to_numpy()
        if len(labels) != len(p):
            raise InputError(f"groups has {len(labels)} values but p has {len(p)}")
        labels = pd.factorize(labels, sort=True)[0]
    rng = resolve_rng(random_state)
    n_perm = int(n_perm)
    n_groups = int(labels.max()) + 1
    if cluster_codes:
        return _clustered(p, flags, labels, n_groups, cluster_codes, alternative, n_perm,
                          _cluster_test_name(cluster_codes), _cluster_note(cluster_codes, test_only=True))
    # persistence is judged within the groups: a level that differs between epochs is what the
    # stratification already answers, not a drift inside them
    counts = np.bincount(labels, minlength=n_groups)
    within_p = p - (np.bincount(labels, weights=p, minlength=n_groups) / counts)[labels]
    within_flags = flags - (np.bincount(labels, weights=flags, minlength=n_groups) / counts)[labels]
    length, note = _time_blocks(within_p, within_flags, blocks, n_perm)
    observed, nulls = [], []
    for g in range(n_groups):
        members = labels == g
        p_g, a_g = p[members], flags[members]
        n_acc = int(a_g.sum())
        if n_acc in (0, len(p_g)):
            continue  # a one-sided group carries no information about selection
        observed.append(gap_of_sums(float(p_g[a_g].sum()), float(p_g.sum()), n_acc, len(p_g)))
        if length:
            # at least two blocks in every group (fewer leave no shuffle at all)
            nulls.append(block_permuted_gaps(p_g, a_g, n_perm, rng, max(1, min(length, len(p_g) // 2))))
        else:
            nulls.append(permuted_gaps(p_g, a_g, n_perm, rng))
    note = "" if not length else (
        f"the accept flags are shuffled in contiguous blocks of {length} interactions"
        + (" within each group" if n_groups > 1 else "")
        + (f" (blocks={blocks})" if blocks != "auto" else
           ", as p or the flags are persistent in the order given and interactions close in time "
           "are not independent; pass blocks=None if the rows are not in time order"))
    if not observed:
        return SelectionTestResult(np.nan, np.nan, alternative, n_groups, 0, n_perm,
                                   block_length=length, note=note)
    statistic = float(np.mean(observed))
    null = np.mean(nulls, axis=0)
    if alternative == "less":
        pvalue = lower_tail_pvalue(statistic, null)
    elif alternative == "greater":
        pvalue = lower_tail_pvalue(-statistic, -null)
    else:
        pvalue = min(1.0, 2 * min(lower_tail_pvalue(statistic, null), lower_tail_pvalue(-statistic, -null)))
    return SelectionTestResult(statistic, pvalue, alternative, n_groups, len(observed), n_perm,
                               null=tuple(null.tolist()), block_length=length, note=note)


def _clustered(p, flags, labels, n_groups, cluster_codes, alternative, n_perm, test, note):
    statistic, below, above = clustered_gap_pvalues(p, flags, labels, cluster_codes)
    # (min() of a NaN and 1.0 is 1.0: an undefined test must stay NaN both-sided too)
    both = min(1.0, 2 * min(below, above)) if np.isfinite(below) and np.isfinite(above) else np.nan
    pvalue = {"less": below, "greater": above, "two-sided": both}[alternative]
    # the groups with both sides (one pass, not a mask per group)
    sizes = np.bincount(labels, minlength=n_groups)
    accepted = np.bincount(labels, weights=flags, minlength=n_groups)
    used = int(((accepted > 0) & (accepted < sizes)).sum())
    fewest = min(int(codes.max()) + 1 for codes in cluster_codes.values())
    return SelectionTestResult(statistic, pvalue, alternative, n_groups, used, n_perm, note=note,
                               test=test, n_clusters=fewest)
