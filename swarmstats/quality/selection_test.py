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
from .._kernels.permutation import gap_of_sums, lower_tail_pvalue, permuted_gaps
from .._result import Result, fmt
from ..errors import InputError, check_choice

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
    _private_fields = ("null",)

    def summary(self) -> str:
        where = "" if self.n_groups == 1 else f" (mean over {self.n_groups_used} of {self.n_groups} groups)"
        return (f"quality gap {fmt(self.statistic)}{where}; permutation p = {fmt(self.pvalue, 3)} "
                f"(alternative: {self.alternative}, {self.n_perm} shuffles)")


def adverse_selection_test(p, accepted, *, groups=None, alternative: str = "less",
                           n_perm: int = 9999, random_state=0) -> SelectionTestResult:
    """Permutation test of the quality gap against "acceptance ignores p".

    ``alternative="less"`` (the default) asks whether the gap is significantly
    below zero - adverse selection.  With ``groups`` (e.g. the epoch of each
    interaction) the flags are shuffled within groups and the statistic is the
    mean of the per-group gaps.

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=400)
    >>> adverse = rng.uniform(size=400) < 1 - p          # low p accepted more often
    >>> adverse_selection_test(p, adverse, random_state=1).pvalue < 0.01
    True
    """
    check_choice("alternative", alternative, ALTERNATIVES)
    if int(n_perm) < 1:
        raise InputError(f"n_perm must be >= 1, got {n_perm}")
    p, flags, _, _ = interaction_arrays(p, accepted)
    if groups is None:
        labels = np.zeros(len(p), dtype=int)
    else:
        labels = pd.Series(np.asarray(groups)).to_numpy()
        if len(labels) != len(p):
            raise InputError(f"groups has {len(labels)} values but p has {len(p)}")
        labels = pd.factorize(labels, sort=True)[0]
    rng = resolve_rng(random_state)
    n_perm = int(n_perm)
    observed, nulls = [], []
    n_groups = int(labels.max()) + 1
    for g in range(n_groups):
        members = labels == g
        p_g, a_g = p[members], flags[members]
        n_acc = int(a_g.sum())
        if n_acc in (0, len(p_g)):
            continue  # a one-sided group carries no information about selection
        observed.append(gap_of_sums(float(p_g[a_g].sum()), float(p_g.sum()), n_acc, len(p_g)))
        nulls.append(permuted_gaps(p_g, a_g, n_perm, rng))
    if not observed:
        return SelectionTestResult(np.nan, np.nan, alternative, n_groups, 0, n_perm)
    statistic = float(np.mean(observed))
    null = np.mean(nulls, axis=0)
    if alternative == "less":
        pvalue = lower_tail_pvalue(statistic, null)
    elif alternative == "greater":
        pvalue = lower_tail_pvalue(-statistic, -null)
    else:
        pvalue = min(1.0, 2 * min(lower_tail_pvalue(statistic, null), lower_tail_pvalue(-statistic, -null)))
    return SelectionTestResult(statistic, pvalue, alternative, n_groups, len(observed), n_perm,
                               null=tuple(null.tolist()))
