"""Exact penalised optimal partitioning by PELT (Killick, Fearnhead & Eckley 2012).

minimise  sum of segment costs + penalty * (number of changes)

over every segmentation whose segments are at least ``min_size`` long.  Each
step is vectorised over the surviving candidate starts.  A candidate s with
F(s) + C(s, t) > F(t) loses to t as the start of the last segment (K = 0 for
fitted-parameter costs) - but only once t is itself admissible, i.e. for ends
from t + min_size on; so s is dropped min_size steps after it was beaten.
Pruning it at once (as ruptures does) can lose the optimum when min_size > 1.
A cost for which a split can save at most K (C(a, b) + C(b, c) <= C(a, c) + K;
``cost.pruning_constant``) is pruned only when F(s) + C(s, t) - K > F(t).
"""

from __future__ import annotations

import numpy as np

from .costs import SegmentCost


def pelt(cost: SegmentCost, penalty: float, min_size: int = 2) -> tuple[list[int], float]:
    """Changepoints (first index of each new segment, without n) and the optimal
    penalised cost, for a prepared ``cost``.

    >>> from swarmstats.regimes.costs import MeanCost
    >>> y = np.r_[np.zeros(20), np.full(20, 5.0)] + np.tile([0.1, -0.1], 20)
    >>> pelt(MeanCost(y), penalty=10.0, min_size=2)[0]
    [20]
    """
    n = cost.n
    size = max(int(min_size), cost.min_size, 1)
    if n < 2 * size:
        return [], float(cost.cost(np.array([0]), n)[0]) if n >= size else float("nan")
    best = np.full(n + 1, np.inf)
    best[0] = -penalty  # so that a single segment costs C(0, n) with no penalty
    previous = np.zeros(n + 1, dtype=np.int64)
    never = np.iinfo(np.int64).max
    slack = float(getattr(cost, "pruning_constant", 0.0))
    candidates = np.zeros(1, dtype=np.int64)  # eligible starts, ascending
    dominated_at = np.full(1, never)  # when each was first beaten, for delayed pruning
    for end in range(size, n + 1):
        if end - size >= size:  # the start end - size becomes eligible now
            candidates = np.append(candidates, end - size)
            dominated_at = np.append(dominated_at, never)
        totals = best[candidates] + cost.cost(candidates, end) + penalty
        choice = int(np.argmin(totals))
        best[end] = totals[choice]
        previous[end] = candidates[choice]
        # s beaten at t (F(s) + C(s, t) > F(t)) loses to t for every end T >= t + size,
        # where t is an admissible start; before that it may still be the best, so it
        # is dropped only once t has become admissible.
        beaten = (totals - penalty - slack > best[end]) & (dominated_at == never)
        dominated_at[beaten] = end
        keep = dominated_at > end + 1 - size
        candidates, dominated_at = candidates[keep], dominated_at[keep]
    changepoints = []
    end = n
    while end > 0:
        end = int(previous[end])
        if end > 0:
            changepoints.append(end)
    return changepoints[::-1], float(best[n])
