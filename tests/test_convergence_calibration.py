"""Monte-Carlo calibration of the convergence verdict (fixed seeds, binomial tolerances).

The issue's targets: stationary AR(1) with phi in {0, 0.5, 0.9} and n in {500, 5000} is
called not converged in at most 8% of 400 replicates at alpha = 0.05; a drift of one
noise SD over 2000 steps (phi = 0.5) is called not converged in at least 90%; a
transient over the first 10% then stationary: warm-up within 5% of n and converged in
at least 85%.  Measured rates are recorded in docs/convergence.md.
"""

import numpy as np
import pytest

import swarmstats as ss

from .conftest import ar1

REPS = 400


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
@pytest.mark.parametrize("n", [500, 5000])
def test_stationary_false_alarm_rate_at_most_8_percent(phi, n):
    rng = np.random.default_rng(1000 + int(10 * phi) + n)
    series = ar1(phi, n, rng, reps=REPS)
    test = ss.ConvergenceTest(alpha=0.05)
    verdicts = [test.fit(row).verdict for row in series]
    false_alarms = verdicts.count("not_converged")
    assert false_alarms <= 0.08 * REPS
    # and the verdict is not dodging: most series get a definite "converged"
    assert verdicts.count("converged") >= 0.85 * REPS


def test_drift_of_one_sd_over_2000_steps_is_caught_90_percent():
    reps = 200
    rng = np.random.default_rng(7)
    series = ar1(0.5, 2000, rng, reps=reps)
    noise_sd = np.sqrt(1 / (1 - 0.25))
    series = series + np.linspace(0, noise_sd, 2000)
    test = ss.ConvergenceTest()
    caught = sum(test.fit(row).verdict == "not_converged" for row in series)
    assert caught >= 0.90 * reps


def test_transient_over_first_tenth_then_stationary():
    reps, n = 200, 2000
    rng = np.random.default_rng(8)
    series = ar1(0.5, n, rng, reps=reps)
    series[:, : n // 10] += np.linspace(3, 0, n // 10) * series.std()
    test = ss.ConvergenceTest()
    results = [test.fit(row) for row in series]
    good = sum(r.converged and abs(r.warmup - n // 10) <= 0.05 * n for r in results)
    assert good >= 0.85 * reps


def test_ci_of_the_mean_covers_at_nominal_rate():
    # autocorrelation-aware 95% CI of the post-warm-up mean: coverage within binomial error
    reps = 400
    rng = np.random.default_rng(9)
    series = ar1(0.7, 2000, rng, reps=reps)
    test = ss.ConvergenceTest()
    covered = 0
    for row in series:
        result = test.fit(row)
        covered += result.ci[0] <= 0.0 <= result.ci[1]
    rate = covered / reps
    assert abs(rate - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps) + 0.01
