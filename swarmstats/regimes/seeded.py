"""A near-linear search for long series: seeded intervals propose, optimal partitioning decides.

Exact PELT is quadratic on a plateau - every start stays a candidate when nothing changes,
which on a converged reward curve (the common case) is the whole series: 10^5 points took
minutes.  Here the candidates come from seeded binary segmentation (Kovacs, Li, Haghbin &
Munk 2023, Biometrika): intervals of length n, n/2, n/4, ... down to a few min_size, each
layer overlapping by half, and in each interval the single split that saves the most cost.
Each layer is one vectorised pass over ~2n points, so proposing costs O(n log n).  The
penalised cost is then minimised exactly over segmentations whose changes are among the
proposals (optimal partitioning with PELT's pruning, on a few candidates instead of n), and
each change is finally moved to its best place between its neighbours.

It minimises the same objective as PELT over a smaller set, so it can only miss the optimum
when the optimum uses a point no interval proposed; on the test series it finds PELT's
segmentation (tests/test_regimes_seeded.py).
"""

from __future__ import annotations

import math

import numpy as np

from .costs import SegmentCost

#: a proposal must save at least this share of the penalty in its own interval to be kept
#: (a change the final segmentation keeps saves at least the whole penalty somewhere)
PROPOSAL_SHARE = 0.25


def seeded_intervals(n: int, shortest: int) -> list[tuple[np.ndarray, int]]:
    """(starts, length) per layer: lengths n, n/2, ... >= ``shortest``, each layer
    2 * ceil(n / length) - 1 evenly spaced intervals (half-overlapping).

    >>> [(s.tolist(), l) for s, l in seeded_intervals(8, 4)]
    [([0], 8), ([0, 2, 4], 4)]
    """
    layers = []
    length = float(n)
    while int(length) >= shortest:
        count = 2 * math.ceil(n / length) - 1
        starts = np.unique(np.floor(np.linspace(0, n - int(length), count)).astype(np.int64))
        layers.append((starts, int(length)))
        length /= 2
    return layers


#: entries (interval x split) evaluated at once: small enough for the temporaries to stay in
#: cache (a whole layer at 10^6 points is 2 x 10^6 entries per temporary, and 16 MB arrays made
#: the search memory-bound: 10x the points took 19x the time)
BLOCK_ENTRIES = 1 << 15
#: candidates up to this many get all their segments' costs at once (the level-or-trend cost
#: makes ~15 temporaries of 0.5 MB: small beside what a long series' search holds)
MATRIX_POINTS = 256


def propose(cost: SegmentCost, penalty: float, min_size: int) -> np.ndarray:
    """The best split of every seeded interval that saves >= PROPOSAL_SHARE x penalty."""
    n = cost.n
    layers = seeded_intervals(n, 2 * min_size + 1)
    if sum(len(starts) * (length - 2 * min_size + 1) for starts, length in layers) <= BLOCK_ENTRIES:
        flat = _propose_at_once(cost, penalty, min_size, layers)
        if flat is not None:
            return flat
    found = []
    for starts, length in layers:
        offsets = np.arange(min_size, length - min_size + 1)
        if len(offsets) == 0:
            continue
        best_saved = np.full(len(starts), -np.inf)
        best_split = np.zeros(len(starts), dtype=np.int64)
        rows_per_block = max(1, BLOCK_ENTRIES // len(offsets))
        columns_per_block = min(len(offsets), BLOCK_ENTRIES)
        for first in range(0, len(starts), rows_per_block):
            rows = slice(first, first + rows_per_block)
            s = starts[rows, None]
            e = s + length
            whole = _cost(cost, s, e)
            for column in range(0, len(offsets), columns_per_block):
                # the whole interval's cost against both sides of each split
                splits = s + offsets[None, column:column + columns_per_block]
                saved = whole - _cost(cost, s, splits) - _cost(cost, splits, e)
                best = np.argmax(saved, axis=1)
                picked = np.take_along_axis(saved, best[:, None], axis=1)[:, 0]
                better = picked > best_saved[rows]  # strictly: the first of equal splits wins
                best_saved[rows] = np.where(better, picked, best_saved[rows])
                best_split[rows] = np.where(better, splits[np.arange(len(best)), best], best_split[rows])
        found.append(best_split[best_saved >= PROPOSAL_SHARE * penalty])
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def _propose_at_once(cost: SegmentCost, penalty: float, min_size: int, layers) -> np.ndarray | None:
    """:func:`propose` for a short series, every layer's (interval, split) pairs in one pass:
    three cost calls in all instead of three per layer (a 1,000-point search with min_size 5
    makes 7 layers, 9,435 pairs in all, where each call's fixed cost outweighed its
    arithmetic).  The same costs and the same first-best split of each interval; None if a
    saving is NaN (the layered pass decides those as numpy's argmax does)."""
    starts = np.concatenate([s for s, _ in layers])
    lengths = np.concatenate([np.full(len(s), length) for s, length in layers])
    counts = lengths - 2 * min_size + 1
    usable = counts > 0
    starts, lengths, counts = starts[usable], lengths[usable], counts[usable]
    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    ends = starts + lengths
    interval = np.repeat(np.arange(len(starts)), counts)
    first_entry = np.concatenate([[0], np.cumsum(counts)[:-1]])
    splits = starts[interval] + (np.arange(len(interval)) - first_entry[interval] + min_size)
    whole = _cost(cost, starts, ends)
    saved = whole[interval] - _cost(cost, starts[interval], splits) - _cost(cost, splits, ends[interval])
    if np.isnan(saved).any():
        return None
    best_saved = np.maximum.reduceat(saved, first_entry)
    # the first split reaching each interval's best (as argmax picks it)
    at_best = np.flatnonzero(saved == best_saved[interval])
    first_best = at_best[np.r_[True, interval[at_best][1:] != interval[at_best][:-1]]]
    return np.unique(splits[first_best][best_saved >= PROPOSAL_SHARE * penalty])


def _cost(cost: SegmentCost, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """C(starts, ends) elementwise, for broadcastable arrays (the prefix-sum costs broadcast)."""
    starts, ends = np.broadcast_arrays(starts, ends)
    return cost.cost(starts, ends)


def partition(cost: SegmentCost, penalty: float, min_size: int, candidates: np.ndarray) -> list[int]:
    """Optimal partitioning with changes restricted to ``candidates`` (PELT pruning)."""
    n = cost.n
    points = np.r_[0, np.asarray(candidates, dtype=np.int64), n]
    points = np.unique(points[(points == 0) | (points == n)
                              | ((points >= min_size) & (points <= n - min_size))])
    best = np.full(len(points), np.inf)
    best[0] = -penalty
    previous = np.zeros(len(points), dtype=np.int64)
    slack = float(getattr(cost, "pruning_constant", 0.0))
    # A few hundred candidates (a series of thousands of points): every candidate segment's
    # cost in one broadcast call, where a call per end cost ~50 small numpy operations each
    # (the regime search at ten persistences is most of a 1,000-point convergence verdict).
    # The same elementwise arithmetic either way, so the same costs.
    costs = None
    if len(points) <= MATRIX_POINTS:
        with np.errstate(divide="ignore", invalid="ignore"):
            costs = cost.cost(*np.broadcast_arrays(points[:, None], points[None, :]))
    # the live starts (indices into points) and the point that beat each (PELT's delayed
    # pruning), in buffers filled from the front: appending one start per end copied both
    alive_buffer = np.zeros(len(points), dtype=np.int64)
    beaten_buffer = np.full(len(points), np.inf)
    live = 1
    for j in range(1, len(points)):
        end = points[j]
        # a start beaten at t loses to t for every end >= t + min_size: drop it from then on
        alive, beaten_at = alive_buffer[:live], beaten_buffer[:live]
        keep = ~(beaten_at + min_size <= end)
        if not keep.all():
            live = int(keep.sum())
            alive_buffer[:live], beaten_buffer[:live] = alive[keep], beaten_at[keep]
            alive, beaten_at = alive_buffer[:live], beaten_buffer[:live]
        usable = end - points[alive] >= min_size
        if usable.any():
            starts = alive[usable]
            segment = cost.cost(points[starts], end) if costs is None else costs[starts, j]
            totals = best[starts] + segment + penalty
            choice = int(np.argmin(totals))
            best[j] = totals[choice]
            previous[j] = starts[choice]
            newly = (totals - penalty - slack > best[j]) & ~np.isfinite(beaten_at[usable])
            marks = beaten_at[usable]
            marks[newly] = end
            beaten_at[usable] = marks  # (a view of the buffer: the marks stay)
        alive_buffer[live], beaten_buffer[live] = j, np.inf
        live += 1
    changepoints = []
    j = len(points) - 1
    while j > 0:
        j = int(previous[j])
        if j > 0:
            changepoints.append(int(points[j]))
    return changepoints[::-1]


def place_changes(cost, changepoints: list, min_size: int) -> list:
    """Each change moved, in turn, to the best split between its neighbours
    under ``cost`` (a coordinate pass of the segmentation's own objective).

    >>> from swarmstats.regimes.costs import MeanCost
    >>> place_changes(MeanCost(np.r_[np.zeros(50), np.ones(50)]), [45], 5)
    [50]
    """
    points = list(changepoints)
    n = cost.n
    for i in range(len(points)):
        start = points[i - 1] if i else 0
        end = points[i + 1] if i + 1 < len(points) else n
        first, last = start + min_size, end - min_size  # the admissible splits
        if last < first:
            continue
        best, best_total = first, np.inf
        # in blocks: one pass over a 10^6-point gap made ~20 temporaries of its length
        for low in range(first, last + 1, BLOCK_ENTRIES):
            splits = np.arange(low, min(low + BLOCK_ENTRIES, last + 1))
            # the prefix-sum costs broadcast: one start against every end, every start against one end
            totals = cost.cost(np.array([start]), splits) + cost.cost(splits, end)
            k = int(np.argmin(totals))
            if totals[k] < best_total:  # strictly: the first of equal splits wins
                best, best_total = int(splits[k]), float(totals[k])
        points[i] = best
    return points


def seeded_search(cost: SegmentCost, penalty: float, min_size: int) -> list[int]:
    """Changepoints minimising the penalised cost over the seeded proposals, each then
    moved to its best place between its neighbours.

    >>> from swarmstats.regimes.costs import MeanCost
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0.0, 3.0, 1.0], [400, 300, 300]) + rng.normal(size=1000)
    >>> seeded_search(MeanCost(y), 3 * np.log(1000), 5)
    [400, 701]
    """
    size = max(int(min_size), cost.min_size, 1)
    if cost.n < 2 * size:
        return []
    changepoints = partition(cost, penalty, size, propose(cost, penalty, size))
    return place_changes(cost, changepoints, size)
