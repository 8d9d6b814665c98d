"""Monte-Carlo calibration of the convergence verdict (fixed seeds, binomial tolerances).

Issue 13's targets: "converged" only when the data show the curve flat - never for the
seeds' still-improving run or a learning curve stopped at tau or 2 tau; not_converged
at most alpha on awkward stationary series (heavy tails, volatility clustering, strong
persistence, counts, periodic); late collapses caught; an interval that covers; and
live checks after every step that do not stop a still-improving run.  The measured
rates are in docs/convergence.md (``python benchmarks/calibration.py``).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import swarmstats as ss

from .conftest import binomial_upper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from scenarios import STATIONARY, ar1, late_drop, learning_curve, seeds_case, stationary  # noqa: E402

TEST = ss.ConvergenceTest()


def verdicts(series):
    return [TEST.fit(row).verdict for row in series]


def binomial_lower(p, reps, z=3.0):
    return p - z * np.sqrt(p * (1 - p) / reps)


def test_stationary_awkward_noise_is_not_called_moving_more_than_alpha():
    reps, pooled = 100, []
    for i, kind in enumerate(STATIONARY):
        found = verdicts(stationary(kind, 1000, np.random.default_rng(100 + i), reps))
        assert found.count("not_converged") <= binomial_upper(0.05, reps) * reps, kind
        pooled += found
    assert pooled.count("not_converged") <= binomial_upper(0.05, len(pooled)) * len(pooled)


def test_short_persistent_runs_keep_their_size_where_the_regime_search_looks():
    """Below 50 effective samples the trend and late tests may take the noise's time from the
    regimes detect_regimes finds; on stationary AR(0.97) at n = 300 (ESS ~ 5) it looks every
    time and finds a spurious change in ~6%, which must not push the rate past alpha."""
    reps = 150
    found = verdicts(ar1(0.97, 300, np.random.default_rng(9700), reps))
    assert found.count("not_converged") <= binomial_upper(0.05, reps) * reps


def test_several_stationary_runs_are_not_called_moving_more_than_alpha_together():
    # any run rejecting makes the whole not_converged: each run is tested at alpha / k.
    # Tested at alpha each, 8 stationary runs were called not converged 32% of the time
    reps, k = 120, 8
    rng = np.random.default_rng(131)
    found = [TEST.fit(np.vstack(ar1(0.3, 400, rng, k))) for _ in range(reps)]
    rejected = sum(result.verdict == "not_converged" for result in found)
    assert rejected <= binomial_upper(0.05, reps) * reps
    # and a run that does drift is still found among seven that do not
    runs = np.vstack(ar1(0.3, 400, rng, k))
    runs[3] += np.linspace(0, 3, 400)
    result = TEST.fit(runs)
    assert result.verdict == "not_converged" and "run 3" in result.reasons[0]
    assert "alpha / 8" in result.reasons[0]


@pytest.mark.parametrize("n", [50, 100, 200])
def test_the_seeds_still_improving_run_is_never_called_converged(n):
    reps = 100
    found = []
    for phi in (0.0, 0.5):
        found += verdicts(seeds_case(n, phi, np.random.default_rng(n + int(10 * phi)), reps))
    assert found.count("converged") <= 0.05 * len(found)


def test_learning_curves_stopped_at_tau_and_2tau_are_not_called_converged():
    reps, found = 60, []
    for tau in (50, 200):
        for phi in (0.5, 0.9):
            for k in (1, 2):
                rng = np.random.default_rng(tau + k + int(10 * phi))
                found += verdicts(learning_curve(tau, phi, k * tau, rng, reps))
    assert found.count("converged") <= 0.05 * len(found)


def test_a_learning_curve_stopped_at_8tau_is_converged():
    reps = 100
    results = [TEST.fit(row) for row in learning_curve(200, 0.5, 1600, np.random.default_rng(208), reps)]
    converged = [r for r in results if r.converged]
    assert len(converged) >= binomial_lower(0.8, reps) * reps
    # the reported interval is of the mean after the warm-up: the cut must leave little enough
    # of the transient's tail that it covers the asymptote (issue 13's target: 90%; 81% when
    # the cut stopped inside the tail)
    covered = sum(r.ci[0] <= 3.0 <= r.ci[1] for r in converged)
    assert covered >= binomial_lower(0.9, len(converged)) * len(converged)


def test_long_stationary_runs_are_shown_flat():
    reps = 100
    found = verdicts(ar1(0.5, 5000, np.random.default_rng(5000), reps))
    assert found.count("converged") >= binomial_lower(0.9, reps) * reps


def test_a_late_one_sd_drop_is_caught():
    reps = 100
    found = verdicts(late_drop(1000, np.random.default_rng(5), reps))
    assert found.count("not_converged") >= binomial_lower(0.9, reps) * reps


@pytest.mark.parametrize("phi", [0.9, 0.97])
def test_the_interval_covers_or_the_verdict_says_insufficient(phi):
    reps = 150
    results = [TEST.fit(row) for row in ar1(phi, 1000, np.random.default_rng(int(100 * phi)), reps)]
    judged = [r for r in results if r.verdict != "insufficient_data"]
    missed = sum(not (r.ci[0] <= 0.0 <= r.ci[1]) for r in judged)
    assert missed <= (1 - binomial_lower(0.93, reps)) * reps


def first_stop(values, min_steps=100):
    """The length at which a live monitor, read after every step, first says converged."""
    monitor = ss.ConvergenceMonitor()
    monitor.update_many(values)
    return next((n for n, verdict in monitor.history if verdict == "converged" and n >= min_steps),
                None)


def test_live_checks_do_not_stop_a_still_improving_run():
    reps, false_stops, total = 40, 0, 0
    curves = [(seeds_case(1000, 0.0, np.random.default_rng(1), reps), 0.49 + 0.0011 * np.arange(1000))]
    for tau, phi in ((50, 0.5), (200, 0.5), (200, 0.9)):
        t = np.arange(10 * tau)
        curves.append((learning_curve(tau, phi, 10 * tau, np.random.default_rng(tau), reps),
                       3 * (1 - np.exp(-t / tau))))
    for series, mean in curves:
        for row in series:
            total += 1
            stop = first_stop(row)
            if stop is not None:
                tolerance = ss.ConvergenceTest().fit(row[:stop]).tolerance
                false_stops += (mean[-1] - mean[stop - 1]) > tolerance
    assert false_stops <= 0.05 * total


def test_live_checks_stop_a_flat_run_within_three_times_the_fixed_sample_size():
    # the fixed-sample verdict calls AR(0.5) converged in >= 90% of runs from n ~ 800
    reps = 60
    fixed = verdicts(ar1(0.5, 800, np.random.default_rng(800), reps))
    assert fixed.count("converged") >= binomial_lower(0.9, reps) * reps
    stops = [first_stop(row) for row in ar1(0.5, 2400, np.random.default_rng(9), reps)]
    assert sum(s is not None for s in stops) >= binomial_lower(0.9, reps) * reps


def test_a_drift_of_one_sd_over_2000_steps_is_caught():
    reps = 100
    series = ar1(0.5, 2000, np.random.default_rng(7), reps) + np.linspace(0, 1, 2000)
    found = verdicts(series)
    assert found.count("not_converged") >= binomial_lower(0.9, reps) * reps


def test_a_transient_over_the_first_tenth_is_set_aside_and_the_rest_shown_flat():
    reps, n = 100, 2000
    series = ar1(0.5, n, np.random.default_rng(8), reps)
    series[:, : n // 10] += np.linspace(3, 0, n // 10)
    results = [TEST.fit(row) for row in series]
    good = sum(r.converged and abs(r.warmup - n // 10) <= 0.05 * n for r in results)
    assert good >= binomial_lower(0.85, reps) * reps
