"""A success rate's interval stops at 1 (and 0) whatever the series holds
(``swarmstats/proportions.py``): the true mean lies there, so the cut costs no coverage."""

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.proportions import proportion_bounds, within_bounds
from tests.test_cli import run
from tests.test_real_logs import REAL


def climb_to_one(seed: int = 0) -> np.ndarray:
    """A success rate climbing to ~0.96 and wandering there: ~3 effective values, so the cut
    to the values' own range (which needs 9) leaves the interval above 1."""
    rng = np.random.default_rng(seed)
    return np.clip(np.r_[np.linspace(0.05, 0.9, 15), 0.96 + np.cumsum(rng.normal(0, 0.01, 18))], 0, 1)


@pytest.mark.parametrize("name", ["test/success_rate", "eval/success", "win_rate", "battle_won_mean", "is_success"])
def test_the_interval_of_a_success_rate_stops_at_one(name):
    y = climb_to_one()
    verdict = ss.check_convergence(pd.Series(y, name=name))
    unbounded = ss.check_convergence(pd.Series(y, name="reward"))
    assert unbounded.ci[1] > 1.1  # the same values named otherwise: nothing to cut at
    assert verdict.ci == (unbounded.ci[0], 1.0)
    # describe's interval of a rate is its score form (as Wilson's for a proportion), inside [0, 1]
    described, plain = ss.describe(pd.Series(y, name=name)), ss.describe(pd.Series(y, name="reward"))
    assert 0.0 <= described.ci[0] < described.mean < described.ci[1] < 1.0 and plain.ci[1] > 1.1


def test_a_rate_in_percent_or_an_accuracy_is_not_cut():
    # an accuracy may be printed in percent (DeiT's test_acc1), and a rate in percent holds
    # values above 1: neither says where its mean must lie
    assert proportion_bounds("test_acc1", [0.2, 0.5]) is None
    assert proportion_bounds("success_rate", [12.0, 87.5]) is None
    assert proportion_bounds("success_rate", [0.2, np.nan, 0.9]) == (0.0, 1.0)
    assert proportion_bounds("success_rate", [np.nan]) is None and proportion_bounds(None, [0.5]) is None
    assert proportion_bounds("success_count", [0.0, 1.0]) is None
    y = climb_to_one() * 100
    assert ss.check_convergence(pd.Series(y, name="success_rate")).ci[1] > 100


def test_the_cut_keeps_a_missing_end_missing():
    assert within_bounds((np.nan, 1.2), (0.0, 1.0))[1] == 1.0 and np.isnan(within_bounds((np.nan, 1.2), (0.0, 1.0))[0])
    assert within_bounds((-0.1, 0.4), (0.0, 1.0)) == (0.0, 0.4)


def test_the_adaptive_windows_intervals_of_a_success_rate_stop_at_one_while_its_values_lie_in_zero_one():
    y = climb_to_one()
    table = ss.AdaptiveWindow().fit(pd.Series(y, name="test/success_rate")).table
    free = ss.AdaptiveWindow().fit(pd.Series(y, name="reward")).table
    assert free["level_high"].max() > 1.05 and free["ci_high"].max() > 1.0  # what the cut takes
    assert table["level_high"].max() <= 1.0 and table["ci_high"].max() <= 1.0
    assert table["level_low"].min() >= 0.0
    # unchanged where the values' range already held them
    inside = free["level_high"] <= 1.0
    assert np.array_equal(table.loc[inside, "level_high"], free.loc[inside, "level_high"])
    # a value beyond 1 says it is no rate of successes (or not one in [0, 1]): from there on,
    # no cut; the states before keep theirs
    late = np.r_[y, [1.4, 1.3]]
    table = ss.AdaptiveWindow().fit(pd.Series(late, name="success_rate")).table
    assert table["level_high"].iloc[:len(y)].max() <= 1.0
    assert table["level_high"].iloc[len(y):].to_numpy() == pytest.approx(
        ss.AdaptiveWindow().fit(pd.Series(late, name="reward")).table["level_high"].iloc[len(y):].to_numpy())


def test_a_rate_labelled_with_its_run_is_still_a_rate():
    # the commands append the run ("test_battle_won_mean [run=1]"): a real pymarl seed's win
    # rate read "0.6393 [0.3678, 1.047]" in check-convergence's table of a sacred folder
    y = climb_to_one()
    for name in ("test_battle_won_mean [run=1]", "success_rate [env_args.map_name=3s5z]"):
        assert ss.check_convergence(pd.Series(y, name=name)).ci[1] == 1.0
        assert ss.describe(pd.Series(y, name=name)).ci[1] < 1.0
    assert proportion_bounds("reward [run=win_rate]", [0.2, 0.5]) is None  # the run's name says nothing
    text = run("check-convergence", REAL / "pymarl" / "sacred", "-m", "test_battle_won_mean").stdout
    row = next(line for line in text.splitlines() if line.startswith("test_battle_won_mean [run=1] "))
    assert "[0.3678, 1]" in row, row


@pytest.mark.parametrize("episodes", [20, 50])
def test_describe_covers_a_success_rate_near_one(episodes):
    """Success flags of evaluation episodes, p = 0.97: Student's t cut at 1 read [1, 1] whenever
    every episode succeeded and covered 49% (20 episodes) / 78% (50); the score form, as Wilson's
    for a proportion, covers at least 95% (a little more: Student's quantile on n - 1), 800 draws."""
    rng = np.random.default_rng(31)
    draws = 800
    covered = 0
    for _ in range(draws):
        flags = (rng.random(episodes) < 0.97).astype(float)
        low, high = ss.describe(pd.Series(flags, name="is_success"), n_boot=0).ci
        covered += low <= 0.97 <= high
    assert 0.95 - 3 * np.sqrt(0.95 * 0.05 / draws) <= covered / draws <= 0.995


def test_every_episode_a_success_reads_wilsons_interval_not_a_point():
    from statsmodels.stats.proportion import proportion_confint

    described = ss.describe(pd.Series(np.ones(20), name="eval/success_rate"), n_boot=0)
    assert described.ci == pytest.approx(proportion_confint(20, 20, method="wilson"))
    assert any("Wilson's for 20 of 20" in note for note in described.notes)
    # a constant that is no rate stays a point: nothing bounds how far another value would lie
    assert ss.describe(pd.Series(np.full(20, 0.5), name="reward"), n_boot=0).ci == (0.5, 0.5)
    # the verdict of a rate constant at 1 too (still converged: nothing moves)
    verdict = ss.check_convergence(pd.Series(np.ones(100), name="test/success_rate"))
    assert verdict.verdict == "converged"
    assert verdict.ci == pytest.approx(proportion_confint(100, 100, method="wilson"))
    assert "Wilson's for 100 of 100" in verdict.reasons[0]
    assert ss.check_convergence(pd.Series(np.ones(100), name="reward")).ci == (1.0, 1.0)
