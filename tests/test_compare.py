"""compare_runs(): rliable's published values, cross-checks and bad input."""

import numpy as np
import pytest

from swarmstats import InputError, compare_runs

A = [[1, 2], [2, 2], [1, 1], [2, 1]]
B = [[1, 1], [2, 2], [3, 3]]


def test_rliable_published_example_values():
    # convergence-methods.md section 12: IQM = mean = median = 1.5; P(A > B) = 1/3
    result = compare_runs(A, B, n_boot=200, random_state=0)
    row = result.table.iloc[0]
    assert row["iqm"] == 1.5 and row["mean"] == 1.5 and row["median"] == 1.5
    assert result.improvement.loc[0, "probability"] == pytest.approx(1 / 3)


def test_matches_rliable_metrics_on_random_scores():
    metrics = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(0)
    for runs_x, runs_y, tasks in ((5, 7, 3), (10, 10, 1), (3, 4, 6)):
        x = rng.normal(size=(runs_x, tasks)).round(1)  # rounding makes ties
        y = rng.normal(0.3, size=(runs_y, tasks)).round(1)
        result = compare_runs(x, y, n_boot=10, random_state=0)
        row = result.table.iloc[0]
        assert row["iqm"] == pytest.approx(metrics.aggregate_iqm(x))
        assert row["mean"] == pytest.approx(metrics.aggregate_mean(x))
        assert row["median"] == pytest.approx(metrics.aggregate_median(x))
        assert result.improvement.loc[0, "probability"] == pytest.approx(
            metrics.probability_of_improvement(x, y))


def test_identical_sets_are_a_coin_flip_and_intervals_bracket_estimates():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 2))
    result = compare_runs(x, x.copy(), n_boot=500, random_state=0)
    assert result.improvement.loc[0, "probability"] == pytest.approx(0.5)
    for row in result.table.to_dict("records"):
        for name in ("mean", "median", "iqm"):
            assert row[f"{name}_low"] <= row[name] <= row[f"{name}_high"]


def test_stratified_bootstrap_interval_of_the_mean_has_its_coverage():
    # one task, 20 runs of N(0, 1): the percentile interval of the mean should cover 0 in about
    # 95% of replicates (it is slightly narrow at 20 runs: allow 4 binomial SE below 0.95)
    rng = np.random.default_rng(2)
    reps = 300
    covered = 0
    for _ in range(reps):
        row = compare_runs(rng.normal(size=20), n_boot=1000, random_state=rng).table.iloc[0]
        covered += row["mean_low"] <= 0 <= row["mean_high"]
    assert covered / reps >= 0.95 - 4 * np.sqrt(0.05 * 0.95 / reps)


def test_performance_profile_is_the_share_above_each_threshold():
    result = compare_runs([0.1, 0.4, 0.5, 0.9], thresholds=[0.0, 0.45, 1.0], n_boot=100, random_state=0)
    profile = result.profile
    assert profile["fraction"].tolist() == [1.0, 0.5, 0.0]
    assert (profile["low"] <= profile["fraction"]).all() and (profile["fraction"] <= profile["high"]).all()


def test_reproducible_and_several_named_sets():
    sets = {"ppo": np.arange(10.0), "sac": np.arange(10.0) + 1, "dqn": np.arange(10.0) - 1}
    one = compare_runs(sets, n_boot=300, random_state=3)
    two = compare_runs(sets, n_boot=300, random_state=3)
    assert one.table.equals(two.table) and one.improvement.equals(two.improvement)
    assert len(one.improvement) == 3 and one.table["name"].tolist() == ["ppo", "sac", "dqn"]


@pytest.mark.parametrize("args,kwargs,message", [
    (([1.0, np.nan],), {}, "non-finite"),
    (([[1, 2]], [[1, 2, 3]]), {}, "same number of tasks"),
    (([1, 2], [1, 2]), {"names": ("x", "x")}, "two different labels"),
    (({"a": [1, 2]}, [1, 2]), {}, "not both"),
    (([],), {}, "runs x tasks"),
    (([1, 2],), {"n_boot": 0}, "n_boot"),
    ((["a", "b"],), {}, "numbers"),
])
def test_bad_input(args, kwargs, message):
    with pytest.raises(InputError, match=message):
        compare_runs(*args, **kwargs)
