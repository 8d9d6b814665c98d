"""The seeded search: PELT's optimum on every test series, in O(n log n)."""

import numpy as np

from swarmstats.regimes.costs import LevelOrTrendCost, LinearCost, MeanCost
from swarmstats.regimes.pelt import pelt
from swarmstats.regimes.seeded import partition, seeded_intervals, seeded_search


def _random_series(rng):
    n = int(rng.integers(200, 2500))
    k = int(rng.integers(0, 9))
    points = np.sort(rng.choice(np.arange(15, n - 15), k, replace=False))
    levels = np.repeat(rng.normal(0, 2, k + 1), np.diff(np.r_[0, points, n]))
    ramp = rng.uniform(-3, 3) * np.linspace(0, 1, n) * rng.integers(0, 2)
    return levels + ramp + rng.normal(size=n)


def test_seeded_search_finds_pelts_segmentation():
    rng = np.random.default_rng(160)
    same, total = 0, 0
    for _ in range(25):
        y = _random_series(rng)
        n = len(y)
        for cost in (MeanCost(y), LinearCost(y), LevelOrTrendCost(y, np.log(n))):
            penalty = 3 * np.log(n)
            ours = seeded_search(cost, penalty, 5)
            exact, optimum = pelt(cost, penalty, 5)
            value = cost.total(ours) + penalty * len(ours)
            assert value >= optimum - 1e-9 * abs(optimum)  # PELT is the optimum
            same += ours == exact
            total += 1
    assert same >= 0.95 * total, f"{same} of {total}"  # measured: all


def test_partition_over_every_point_is_pelt():
    rng = np.random.default_rng(161)
    y = np.repeat([0.0, 2.0, -1.0], [60, 40, 50]) + rng.normal(size=150)
    cost = MeanCost(y)
    assert partition(cost, 10.0, 5, np.arange(1, 150)) == pelt(cost, 10.0, 5)[0]


def test_intervals_cover_each_scale_with_half_overlap():
    layers = seeded_intervals(1000, 11)
    assert layers[0][1] == 1000 and len(layers[0][0]) == 1
    for starts, length in layers[1:]:
        assert starts[0] == 0 and starts[-1] + length == 1000
        assert np.max(np.diff(starts)) <= length // 2 + 1


def test_short_series_take_the_same_proposals_and_segmentations_in_one_pass(monkeypatch):
    """Below BLOCK_ENTRIES pairs every layer is proposed in one pass, and below MATRIX_POINTS
    candidates every segment's cost is tabled: both must give what the layer-by-layer,
    end-by-end search gives, to the split."""
    from swarmstats.regimes import seeded
    from swarmstats.regimes.costs import KernelCost

    rng = np.random.default_rng(77)
    cases = []
    for n in (40, 300, 1000, 2500):
        y = rng.standard_t(3, size=n) + np.repeat(rng.normal(0, 2, 4), n // 4 + 1)[:n]
        cases += [(MeanCost(y), 3 * np.log(n)), (LevelOrTrendCost(y, slope_penalty=2 * np.log(n)), 4 * np.log(n)),
                  (KernelCost((y - y.mean()) / y.std()), 5 * np.log(n))]
        # counts; and a level where every split saves exactly 0: with no penalty each interval
        # proposes a split, and the first of the equal ones must win
        steps = rng.integers(0, 3, n) + np.repeat([0, 2, 1, 3], n // 4 + 1)[:n]
        cases += [(MeanCost(steps.astype(float)), 2 * np.log(n)), (MeanCost(np.ones(n)), 0.0)]
    at_once = [(list(seeded.propose(c, pen, 5)), seeded_search(c, pen, 5)) for c, pen in cases]
    assert sum(len(p) for p, _ in at_once) > 50 and sum(len(s) for _, s in at_once) > 10
    monkeypatch.setattr(seeded, "BLOCK_ENTRIES", 64)    # layer by layer, in small blocks
    monkeypatch.setattr(seeded, "MATRIX_POINTS", 0)     # one cost call per end
    assert [(list(seeded.propose(c, pen, 5)), seeded_search(c, pen, 5)) for c, pen in cases] == at_once
