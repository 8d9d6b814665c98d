"""SequentialComparison (issue 21, item 4): look after every scenario, stop when decided, and the
error over all the looks stays below alpha - measured by Monte Carlo, beside the naive
"fixed-sample interval read after every scenario" it replaces."""

import numpy as np
import pytest

from swarmstats import InputError, SequentialComparison

from .conftest import binomial_upper

ALPHA = 0.05


def _ever_decided(make, reps, scenarios, **options):
    decided = 0
    for rep in range(reps):
        comparison = SequentialComparison(**options)
        comparison.update_many(*make(np.random.default_rng(rep), scenarios))
        decided += comparison.state.decided_at is not None
    return decided / reps


def test_bounded_scores_of_equal_systems_are_almost_never_called_different():
    # measured: 3.0% of 300 over 1,000 looks each (success / failure per scenario, p = 0.5 each)
    reps = 200
    rate = _ever_decided(lambda rng, n: (rng.binomial(1, 0.5, n), rng.binomial(1, 0.5, n)), reps, 1000,
                         bounds=(0, 1))
    assert rate <= binomial_upper(ALPHA, reps)


@pytest.mark.parametrize("noise", ["normal", "student-t(3)", "skewed"])
def test_unbounded_scores_of_equal_systems_are_almost_never_called_different(noise):
    # measured over 300 x 1,000 looks: 3.3% normal, 2.3% t(3), 4.0% skewed (exponential - normal)
    make = {"normal": lambda rng, n: (rng.normal(0, 1, n),),
            "student-t(3)": lambda rng, n: (rng.standard_t(3, n),),
            "skewed": lambda rng, n: (rng.exponential(1.0, n), rng.normal(1.0, 1.0, n))}[noise]
    reps = 200
    assert _ever_decided(make, reps, 600) <= binomial_upper(ALPHA, reps)


def test_looking_after_every_scenario_with_a_fixed_sample_interval_is_wrong_far_more_often():
    # the naive practice: a 95% t interval recomputed after each of 600 scenarios, stopping the
    # first time it excludes zero - on equal systems
    reps, n = 400, 600
    x = np.random.default_rng(0).normal(size=(reps, n))
    counts = np.arange(1, n + 1)
    means = np.cumsum(x, axis=1) / counts
    sds = np.sqrt(np.maximum(np.cumsum(x * x, axis=1) / counts - means ** 2, 0) * counts / np.maximum(counts - 1, 1))
    naive = (np.abs(means[:, 9:]) > 1.96 * sds[:, 9:] / np.sqrt(counts[9:])).any(axis=1).mean()
    assert naive > 0.3


def test_the_sequence_covers_the_true_difference_at_every_look_and_decides_real_ones():
    # success rates 0.65 against 0.35: the true difference 0.3 is inside the sequence at every one
    # of 400 looks (missed ever: 0.5% of 200), and the comparison is decided early
    reps, missed, decided_at = 200, 0, []
    for rep in range(reps):
        rng = np.random.default_rng(rep)
        result = SequentialComparison(bounds=(0, 1)).fit(np.c_[rng.binomial(1, 0.65, 400), rng.binomial(1, 0.35, 400)])
        table = result.table
        missed += bool(((table["ci_low"] > 0.3) | (table["ci_high"] < 0.3)).any())
        decided_at.append(result.decided_at or 10**6)
    assert missed / reps <= binomial_upper(ALPHA, reps)
    assert np.median(decided_at) < 120 and np.mean(np.array(decided_at) < 10**6) >= 0.95


def test_pairs_differences_and_arrays_give_one_answer():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.3, 1, 200), rng.normal(0.0, 1, 200)
    by_pairs = SequentialComparison()
    for x, y in zip(a, b):
        by_pairs.update(x, y)
    by_rows = SequentialComparison().fit(np.c_[a, b])
    by_differences = SequentialComparison().update_many(a - b)
    assert by_pairs.result().ci == pytest.approx(by_rows.ci)
    assert by_rows.ci == pytest.approx(by_differences.ci)
    assert by_pairs.state.verdict == by_rows.verdict == by_differences.verdict


def test_lower_is_better_names_the_winner_and_the_summary_says_when():
    rng = np.random.default_rng(5)
    loss_new, loss_old = rng.normal(0.8, 0.3, 300), rng.normal(1.0, 0.3, 300)
    comparison = SequentialComparison(better="lower", names=("v0.2", "v0.1"))
    comparison.update_many(loss_new, loss_old)
    result = comparison.result()
    assert result.verdict == "first_better" and result.ci[1] < 0
    assert result.summary().startswith("v0.2 beats v0.1 by ") and f"decided after {result.decided_at}" in result.summary()


def test_equal_systems_within_a_margin_are_called_equivalent():
    rng = np.random.default_rng(7)
    same = rng.uniform(0.4, 0.6, 3000)
    result = SequentialComparison(bounds=(0, 1), margin=0.05).fit(np.c_[same, same[::-1]])
    assert result.verdict == "equivalent" and -0.05 < result.ci[0] < result.ci[1] < 0.05


@pytest.mark.parametrize("options, update, message", [
    ({"bounds": (0, 1)}, (1.5, 0.2), "outside bounds"),
    ({"bounds": (0, 1)}, (1.5, None), "cannot come from scores within"),
    ({}, (float("nan"), 0.0), "a"),
    ({"bounds": (1, 0)}, None, "bounds"),
    ({"names": ("x", "x")}, None, "names"),
    ({"margin": -1.0}, None, "margin"),
    ({"better": "up"}, None, "better"),
])
def test_bad_input_is_one_clear_error(options, update, message):
    with pytest.raises(InputError, match=message):
        SequentialComparison(**options).update(*update) if update is not None else SequentialComparison(**options)


def test_a_result_needs_a_scenario():
    with pytest.raises(InputError, match="no scenarios yet"):
        SequentialComparison().result()
