"""PELT and the segment costs: closed forms, brute-force optimal partitioning, ruptures."""

import numpy as np
import pytest

from swarmstats.regimes import pelt as pelt_module
from swarmstats.regimes.costs import (
    KernelCost,
    LevelOrTrendCost,
    LinearCost,
    MeanCost,
    MeanVarCost,
)
from swarmstats.regimes.pelt import pelt


def brute_force(cost, penalty, min_size):
    """O(n^2) optimal partitioning with the same constraints: the reference optimum."""
    n = cost.n
    size = max(min_size, cost.min_size)
    best = np.full(n + 1, np.inf)
    best[0] = -penalty
    for end in range(size, n + 1):
        starts = np.array([s for s in range(0, end - size + 1) if s == 0 or s >= size])
        best[end] = np.min(best[starts] + cost.cost(starts, end) + penalty)
    return best[n]


def direct_costs(y, start, end):
    segment = y[start:end]
    rss = float(((segment - segment.mean()) ** 2).sum())
    t = np.arange(start, end, dtype=float)
    slope, intercept = np.polyfit(t, segment, 1)
    linear_rss = float(((segment - (intercept + slope * t)) ** 2).sum())
    return rss, len(segment) * np.log(rss / len(segment)), linear_rss


def test_costs_match_their_closed_forms_at_large_offsets():
    rng = np.random.default_rng(1)
    y = 1e6 + rng.normal(size=200) + 0.01 * np.arange(200)
    mean, meanvar, linear = MeanCost(y), MeanVarCost(y), LinearCost(y)
    for start, end in [(0, 200), (13, 57), (100, 103), (150, 200)]:
        rss, loglik, linear_rss = direct_costs(y, start, end)
        assert mean.cost(np.array([start]), end)[0] == pytest.approx(rss, rel=1e-8)
        assert meanvar.cost(np.array([start]), end)[0] == pytest.approx(loglik, rel=1e-8, abs=1e-8)
        assert linear.cost(np.array([start]), end)[0] == pytest.approx(linear_rss, rel=1e-6, abs=1e-9)


def test_meanvar_cost_has_a_variance_floor():
    y = np.r_[np.zeros(10), np.random.default_rng(2).normal(size=50)]
    assert np.isfinite(MeanVarCost(y).cost(np.array([0]), 10)[0])


@pytest.mark.parametrize("dense", [True, False], ids=["table", "pruned"])
@pytest.mark.parametrize("cost_class", [MeanCost, MeanVarCost, LinearCost])
@pytest.mark.parametrize("seed", range(6))
def test_pelt_reaches_the_brute_force_optimum(cost_class, seed, dense, monkeypatch):
    monkeypatch.setattr(pelt_module, "DENSE_UP_TO", 256 if dense else -1)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 90))
    levels = rng.normal(0, 2, 4)
    y = levels[np.sort(rng.integers(0, 4, n))] + rng.normal(size=n) * rng.uniform(0.3, 2)
    if seed % 2:
        y = np.round(y, 0)  # ties and repeated values
    cost = cost_class(y)
    for penalty in (0.5, 3.0, 15.0):
        for min_size in (1, 2, 5):
            changepoints, value = pelt(cost, penalty, min_size)
            assert value == pytest.approx(brute_force(cost, penalty, min_size), rel=1e-9, abs=1e-9)
            # the reported segmentation has that cost, and respects min_size
            assert cost.total(changepoints) + penalty * len(changepoints) == pytest.approx(value, abs=1e-7)
            bounds = [0, *changepoints, n]
            assert min(np.diff(bounds)) >= max(min_size, cost.min_size)


def test_same_changepoints_as_ruptures_on_20_random_series():
    rpt = pytest.importorskip("ruptures")
    rng = np.random.default_rng(3)
    for _ in range(20):
        n_segments = int(rng.integers(1, 6))
        lengths = rng.integers(20, 120, n_segments)
        y = np.concatenate([rng.normal(rng.normal(0, 2), 1, size) for size in lengths])
        min_size = int(rng.integers(2, 10))
        penalty = float(rng.uniform(1, 4) * np.log(len(y)))
        theirs = rpt.Pelt(model="l2", min_size=min_size, jump=1).fit(y).predict(pen=penalty)[:-1]
        ours, _ = pelt(MeanCost(y), penalty, min_size)
        assert ours == theirs


def test_short_series_solved_from_a_table_give_exactly_what_pruning_gives(monkeypatch):
    """Up to DENSE_UP_TO points every segment's cost is tabled and no start is pruned: the same
    optimum to the last bit and the same changepoints, ties included (a pruned start is
    strictly worse than the one that beat it, so never the first minimum)."""
    rng = np.random.default_rng(40)
    for trial in range(30):
        n = int(rng.integers(2, pelt_module.DENSE_UP_TO + 1))
        y = rng.normal(size=n) + (trial % 3 == 0) * np.repeat(rng.normal(0, 2, 5), -(-n // 5))[:n]
        y = np.round(y) if trial % 4 == 0 else y  # ties
        for cost in (MeanCost(y), LinearCost(y), MeanVarCost(y), LevelOrTrendCost(y, 2.0), KernelCost(y)):
            for min_size in (1, 2, 5):
                penalty = float(rng.uniform(0.5, 20.0))
                table = pelt(cost, penalty, min_size)
                monkeypatch.setattr(pelt_module, "DENSE_UP_TO", -1)
                pruned = pelt(cost, penalty, min_size)
                monkeypatch.undo()
                assert table[0] == pruned[0]
                assert table[1] == pruned[1] or (np.isnan(table[1]) and np.isnan(pruned[1]))


def test_short_series_have_no_changepoints():
    assert pelt(MeanCost(np.arange(7.0)), 1.0, min_size=4)[0] == []


def test_where_ruptures_prunes_too_early_ours_stays_optimal():
    # ruptures drops a candidate as soon as it is beaten, even while min_size still bars the
    # point that beat it; on small tied series that loses the optimum now and then.
    rpt = pytest.importorskip("ruptures")
    y = np.array([3, 2, 4, 1, 3, 2, 4, 0, 0, 1, -1, 0, 1, 0, 6, 5, 7, 6, 5, 6, 7, 6, 5, 7, 6, 5,
                  0, 1, 0, -1, 1, 0, 0, 1, 0, 1], dtype=float)
    cost = MeanCost(y)
    found = []
    for min_size in range(2, 9):
        for penalty in np.linspace(0.5, 6, 12):
            ours, value = pelt(cost, penalty, min_size)
            theirs = rpt.Pelt(model="l2", min_size=min_size, jump=1).fit(y).predict(pen=penalty)[:-1]
            theirs_value = cost.total(theirs) + penalty * len(theirs)
            assert value <= theirs_value + 1e-9
            assert value == pytest.approx(brute_force(cost, penalty, min_size), abs=1e-9)
            found.append(theirs_value > value + 1e-9)
    assert len(found) == 84
