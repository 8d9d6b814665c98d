"""best_of (issue 21, item 3): the winner of N arms with an interval adjusted for being picked,
calibrated by Monte Carlo against a known truth, beside the naive interval it replaces."""

import numpy as np
import pytest
from scipy import stats
from scipy.signal import lfilter

from swarmstats.errors import InputError
from swarmstats.winners import best_of, truncated_normal_cdf

ARMS, OBSERVATIONS = 10, 20


def test_the_truncated_normal_matches_scipy_and_stays_finite_far_out():
    z = np.linspace(-4, 4, 33)
    for lower, upper in ((-1.0, 2.0), (-6.0, 6.0), (0.5, 3.0), (-3.0, -0.5)):
        np.testing.assert_allclose(truncated_normal_cdf(z, lower, upper), stats.truncnorm.cdf(z, lower, upper),
                                   atol=1e-12)
    far = np.linspace(30.0, 31.0, 11)
    np.testing.assert_allclose(truncated_normal_cdf(far, 30.0, 31.0), stats.truncnorm.cdf(far, 30.0, 31.0),
                               rtol=1e-9)


def _truths(config, rng):
    return {"equal": np.zeros(ARMS), "two at the top": np.r_[0.3, 0.3, np.zeros(ARMS - 2)],
            "normal spread": rng.normal(0.0, 0.3, ARMS)}[config]


def _simulate(config, reps, observations=OBSERVATIONS):
    """(adjusted covers, naive covers, p_best, truly best) per replicate; noise SD 1."""
    rows = []
    for rep in range(reps):
        rng = np.random.default_rng([rep, observations, len(config)])
        truth = _truths(config, rng)
        result = best_of(rng.normal(truth[:, None], 1.0, (ARMS, observations)), n_draws=2000, random_state=rep)
        picked = truth[int(result.best.split()[1])]
        rows.append((result.ci[0] <= picked <= result.ci[1], result.naive_ci[0] <= picked <= result.naive_ci[1],
                     result.p_best, picked == truth.max()))
    return np.array(rows, dtype=float)


@pytest.mark.parametrize("config", ["equal", "two at the top", "normal spread"])
def test_the_adjusted_interval_covers_the_winners_true_value(config):
    # measured (400 each): adjusted 94.5%, 95.0%, 94.75%; naive 81%, 86%, 88.75%
    reps = 300
    rows = _simulate(config, reps)
    adjusted, naive = rows[:, 0].mean(), rows[:, 1].mean()
    tolerance = 3 * np.sqrt(0.05 * 0.95 / reps)
    assert 0.95 - tolerance <= adjusted <= 0.955 + tolerance, adjusted
    assert naive < adjusted
    if config == "equal":  # the winner's curse at its worst: every arm equally good
        assert naive <= 0.86


def test_a_winner_picked_for_the_crashes_it_missed_is_not_taken_at_its_own_spread():
    """Each episode crashes (-10) one time in twenty, else N(0, 1): ten equally good seeds of
    20 episodes.  The winner is usually a seed with no crash, whose own SD (~1) hides the
    crashes' (the arms' pooled SD ~2.4): at its own spread the adjusted interval covered 60.5%
    of 400 replicates, floored at the pooled one 96.3%."""
    reps = 300
    covered = 0
    for rep in range(reps):
        rng = np.random.default_rng([rep, 77])
        episodes = np.where(rng.random((ARMS, OBSERVATIONS)) < 0.05, -10.0, rng.normal(0, 1, (ARMS, OBSERVATIONS)))
        result = best_of(episodes, n_draws=2000, random_state=rep)
        covered += result.ci[0] <= -0.5 <= result.ci[1]
    assert abs(covered / reps - 0.95) <= 3 * np.sqrt(0.05 * 0.95 / reps), covered / reps
    rng = np.random.default_rng(5)
    episodes = rng.normal(0, 1, (ARMS, OBSERVATIONS))
    episodes[1:, 0] = -30.0  # every seed but the first crashed once
    result = best_of(episodes, random_state=0)
    assert result.best == "arm 0"
    assert any("pooled" in note and "bad draws it happened not to have" in note for note in result.notes)
    row = result.table.iloc[0]
    assert result.naive_ci == pytest.approx((row["naive_low"], row["naive_high"]))  # the naive one stays naive


def test_with_five_observations_per_arm_the_interval_still_nearly_holds():
    # the standard error of 5 values is rough: the interval widens by t / z (measured 92.25%)
    reps = 300
    adjusted = _simulate("equal", reps, observations=5)[:, 0].mean()
    assert adjusted >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps) - 0.02


def test_the_probability_of_being_best_is_calibrated_when_arms_come_from_a_normal_population():
    rows = _simulate("normal spread", 300)
    predicted, happened = rows[:, 2].mean(), rows[:, 3].mean()
    assert abs(predicted - happened) <= 3 * np.sqrt(happened * (1 - happened) / len(rows)) + 0.02


def test_a_clear_winner_needs_no_adjustment():
    rng = np.random.default_rng(3)
    truth = np.r_[3.0, np.zeros(ARMS - 1)]
    result = best_of(rng.normal(truth[:, None], 1.0, (ARMS, OBSERVATIONS)), random_state=0)
    assert result.best == "arm 0" and result.p_best > 0.99 and result.gap_se > 5
    assert result.estimate == pytest.approx(result.naive_estimate, abs=1e-6)
    naive_width = result.naive_ci[1] - result.naive_ci[0]
    assert naive_width <= result.ci[1] - result.ci[0] <= 1.3 * naive_width  # the projection share costs a little


def test_lower_is_better_mirrors_higher():
    rng = np.random.default_rng(4)
    arms = {f"policy-{i}": rng.normal(0.1 * i, 1.0, 30) for i in range(6)}
    high = best_of(arms, random_state=1)
    low = best_of({name: -values for name, values in arms.items()}, better="lower", random_state=1)
    assert low.best == high.best and low.p_best == high.p_best
    assert low.estimate == pytest.approx(-high.estimate) and low.ci == pytest.approx((-high.ci[1], -high.ci[0]))
    assert "lower is better" in low.summary()


def test_autocorrelated_observations_need_their_own_standard_error():
    # ten runs of AR(0.7) noise, all equally good; each arm's score is the mean of its 100 values
    # (measured over 300: 92.7% with the pooled autocorrelation, 42.3% assuming independence)
    reps, covered = 150, {True: 0, False: 0}
    for rep in range(reps):
        rng = np.random.default_rng(rep)
        noise = lfilter([1.0], [1.0, -0.7], rng.normal(size=(ARMS, 300)), axis=1)[:, 200:]
        for flag in covered:
            result = best_of(noise, autocorrelated=flag, n_draws=500, random_state=rep)
            covered[flag] += result.ci[0] <= 0.0 <= result.ci[1]
    assert covered[True] / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)
    assert covered[False] / reps < 0.8  # independence assumed: the standard errors are far too small


@pytest.mark.parametrize("scores, kwargs, message", [
    ({"a": [1.0, 2.0]}, {}, "two or more"),
    ({"a": [1.0, 2.0], "b": [1.0]}, {}, "b: 1 observation"),
    ({"a": [1.0, np.nan], "b": [1.0, 2.0]}, {}, "non-finite"),
    ({"a": [1.0, 1.0], "b": [1.0, 2.0]}, {}, "every observation is the same"),
    ({"a": [1.0, 2.0], "b": [1.0, 2.0]}, {"better": "up"}, "better"),
    (np.ones(5), {}, "arms x observations"),
    ({"a": ["x", "y"], "b": [1.0, 2.0]}, {}, "a: expected numbers"),  # a ValueError before
    ({"a": [[1.0, 2.0], [3.0]], "b": [1.0, 2.0]}, {}, "a: could not read it"),
    ({"a": [1e300, -1e300, 2e300], "b": [1.0, 2.0]}, {}, "rescale"),  # intervals read "n/a" before
    ({"a": [1.0, 2.0], "b": [1.0, 3.0]}, {"ci": 1.5}, "ci"),
])
def test_bad_input_is_one_clear_error(scores, kwargs, message):
    with pytest.raises(InputError, match=message):
        best_of(scores, **kwargs)


def test_the_summary_says_both_figures_and_the_chance():
    rng = np.random.default_rng(1)
    result = best_of({f"seed-{i}": rng.normal(0.0, 1.0, 20) for i in range(16)}, random_state=0)
    text = result.summary()
    assert text.startswith("best of 16: seed-") and "adjusted for picking the best" in text
    assert "P(truly the best)" in text and result.to_frame()["arm"].iloc[0] == result.best
    # sixteen equal arms: the estimates spread no more than their noise, so none is favoured
    assert result.p_best == pytest.approx(1 / 16) and "none can be told best" in text
