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
from scenarios import (  # noqa: E402
    SKEWED,
    STATIONARY,
    ar1,
    arma11,
    late_drop,
    learning_curve,
    running_mean,
    seeds_case,
    skewed,
    stationary,
)

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


def test_short_runs_too_persistent_for_their_length_are_not_called_moving_more_than_alpha():
    """A run of a few dozen points whose persistence Geyer's sum cannot see: stationary AR(0.97)
    of 60 and 100 points (g = 66), and SB3's ep_rew_mean as logged, a running mean of 25 rows
    (100 episodes, 4 per row), at 40 and 60 rows.  Their batch-means slopes alone called them
    moving in 11%, 8%, 19% and 9% (300 runs each): a slope shown on fewer than min_ess effective
    samples must now be confirmed by the rank trend test.  Pooled: 600 runs, alpha + 3 SE."""
    reps, found = 150, []
    for i, make in enumerate((lambda rng: ar1(0.97, 60, rng, reps), lambda rng: ar1(0.97, 100, rng, reps),
                              lambda rng: running_mean(25, 40, rng, reps),
                              lambda rng: running_mean(25, 60, rng, reps))):
        found += verdicts(make(np.random.default_rng(9760 + i)))
    assert found.count("not_converged") <= binomial_upper(0.05, len(found)) * len(found), found.count("not_converged")


def test_the_end_of_a_wander_in_a_short_persistent_run_is_not_called_moving_now():
    """The "moving now" test (a last regime's slope where the kept part shows none) runs at a
    sixteenth of alpha, but in a run of a few dozen autocorrelation times the regime search
    cuts the wander where it turns, and the last piece's slope passed both its tests: 8 of
    300 stationary AR(0.99) runs of 100 points, 5 at 60, and 7 of 300 running means of 25
    rows at 100 rows failed on "recent_trend" alone.  The kept part's ranks read such wanders
    as 1-17 effective samples (median ~4, 47 runs), a real climb-then-fall as 17-59, and below
    min_ess the slope is now only noted.  These 450
    runs (150 per cell) must fail it at most at its own level, alpha / 16, + 3 binomial SEs:
    4 (8 before this guard)."""
    reps, moving_now, noted = 150, 0, 0
    for i, make in enumerate((lambda rng: ar1(0.99, 100, rng, reps), lambda rng: ar1(0.99, 60, rng, reps),
                              lambda rng: running_mean(25, 100, rng, reps))):
        for row in make(np.random.default_rng(6800 + i)):
            result = TEST.fit(row)
            moving_now += "recent_trend" in result.failed_tests
            noted += any("so no move is claimed" in r and "effective samples by its ranks" in r
                         for r in result.reasons)
    assert moving_now <= binomial_upper(0.05 / 16, 3 * reps) * 3 * reps, moving_now
    assert noted >= 3, noted  # the slopes it no longer claims are said


def test_a_clear_trend_in_a_short_run_is_still_shown_moving():
    """The rank test's confirmation must not hide a trend the run shows: 3 noise SDs over 40
    points of white noise, 2.5 SDs over 60 points of AR(0.5) - both called moving as often as
    before it, within 3 binomial SEs (66% and 35% of 300 runs before; 67 and 30 of these 100,
    67 and 33 before)."""
    reps = 100
    t = np.arange(40) / 40
    white = verdicts(3 * t + np.random.default_rng(40).normal(size=(reps, 40)))
    persistent = verdicts(2.5 * np.arange(60) / 60 + ar1(0.5, 60, np.random.default_rng(60), reps))
    assert white.count("not_converged") >= binomial_lower(0.66, reps) * reps, white.count("not_converged")
    assert persistent.count("not_converged") >= binomial_lower(0.35, reps) * reps, persistent.count("not_converged")


def test_a_slow_wander_under_fast_noise_cut_into_regimes_keeps_the_tests_its_noise_time():
    """ARMA(1,1) phi 0.9, theta -0.5 at n = 300: a slow component under fast noise, which the
    regime search cuts into "regimes" whose whitened noise looks nearly independent (g ~ 1.7)
    while what they leave still wanders.  Sized by that reading alone the trend and late tests
    called 8% of these stationary runs moving (200 runs); by the residuals' own time 2.5%.
    One-sided 1.64 SE over 5%: 7.5% at 200 runs."""
    reps = 200
    found = verdicts(arma11(0.9, -0.5, 300, np.random.default_rng(1002), reps))
    assert found.count("not_converged") <= binomial_upper(0.05, reps, z=1.64) * reps


def test_the_tests_noise_time_around_regimes_is_at_least_what_the_residuals_show():
    from swarmstats._kernels.autocorr import integrated_time
    from swarmstats.convergence.regime_check import tests_tau
    from swarmstats.regimes.residuals import around_regimes

    # seeded: a stationary slow wander the regime search cuts into regimes
    kept = arma11(0.95, -0.7, 300, np.random.default_rng(6), 1)[0]
    test_tau, regimes, _ = tests_tau(kept, tau=25.0)
    assert regimes is not None and regimes.changepoints
    around = float(integrated_time(around_regimes(kept, regimes.segments)))
    assert around > regimes.autocorr_time  # the whitened AR(1) reading understates it
    assert test_tau == min(25.0, around)
    # where what the regimes leave reads long memory and every change is within its wander
    # (seed 5: changes at 82 and 163), the regimes are not used at all
    wander = arma11(0.95, -0.7, 300, np.random.default_rng(5), 1)[0]
    assert ss.detect_regimes(wander).wander_changes == [82, 163]
    test_tau, regimes, searched = tests_tau(wander, tau=25.0)
    assert (test_tau, regimes) == (25.0, None) and searched.wander_changes == [82, 163]
    # on a real step in independent noise the residuals are independent: the time stays ~1
    step = np.r_[np.zeros(150), np.full(150, 3.0)] + np.random.default_rng(4).normal(size=300)
    test_tau, regimes, _ = tests_tau(step, tau=25.0)
    assert regimes.changepoints == [150] and test_tau < 1.5


def test_long_memory_the_regimes_do_not_explain_widens_the_tests_that_show_movement():
    # stationary ARFIMA d = 0.3, 5,000 points: the drift, trend and late-change tests' batch
    # means are optimistic under long memory; they called 23 of 100 runs moving.  Where the
    # noise around the kept part's regimes still reads long memory, their errors are widened
    # as the interval is: 5 of 100 (the bound: 5% plus 3 binomial SEs)
    from .conftest import fractional_noise

    rows = fractional_noise(0.3, 5000, np.random.default_rng(31), 100)
    moving = sum(TEST.fit(row).verdict == "not_converged" for row in rows)
    assert moving <= 100 * (0.05 + 3 * np.sqrt(0.05 * 0.95 / 100)), moving


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


@pytest.mark.parametrize("case", ["five-fold in the last tenth", "ten-fold along the run"])
def test_noise_that_grows_at_the_end_is_not_a_late_change_of_the_mean(case):
    # a flat mean whose SD grows (a policy turning unstable): the late batches' spread pooled
    # with the long quiet part's read the noisy end's mean as a late change in 42% and 9% of
    # 200 runs; now 2% and 1.5% (at most alpha = 5%; measured in 200 runs each)
    reps, n = 100, 1000
    rng = np.random.default_rng(42)
    scale = np.r_[np.ones(900), np.full(100, 5.0)] if case.startswith("five") else np.linspace(0.2, 2.0, n)
    series = 0.5 + scale * rng.normal(size=(reps, n))
    late = sum("late_change" in TEST.fit(row).failed_tests for row in series)
    assert late <= binomial_upper(0.05, reps) * reps, late


@pytest.mark.parametrize("phi, share", [(0.0, 0.9), (0.5, 0.8)])
def test_a_burst_of_noise_in_the_last_tenth_is_a_variance_change(phi, share):
    # the SD five-fold over the last 100 of 1,000 points: comparing the last quarter with the
    # quarter before diluted the burst (40% of the quarter) and found it in none of 400 runs;
    # the last 5%, 10% and 25% each against the second half before them: 96% and 86%
    reps = 100
    series = ar1(phi, 1000, np.random.default_rng(44), reps)
    series[:, -100:] *= 5.0
    found = [TEST.fit(row) for row in series]
    caught = [result for result in found if "variance" in result.failed_tests]
    assert len(caught) >= binomial_lower(share, reps) * reps, len(caught)
    # the stretch named is the burst, to whole batches (or the quarter holding it)
    assert all(30 <= result.variance_length <= 250 and result.variance_ratio > 4 for result in caught)


def test_an_end_that_quietens_is_a_variance_change_too():
    # the SD down to 0.3 over the last tenth (a policy gone deterministic): 12% before, 98% now
    reps = 60
    series = np.random.default_rng(45).normal(size=(reps, 1000))
    series[:, -100:] *= 0.3
    caught = sum("variance" in TEST.fit(row).failed_tests for row in series)
    assert caught >= binomial_lower(0.95, reps) * reps, caught


def test_the_trailing_variance_test_keeps_its_level_on_awkward_stationary_noise():
    """The variance test alone, at the verdict's alpha / 4, pooled over the awkward stationary
    kinds (persistent GARCH, whose squares' time is underestimated at these lengths, is the
    highest: ~3%; the rest 0-2%)."""
    from swarmstats._kernels.verdict_tests import variance_shift

    reps, level, rejected = 60, 0.05 / 4, 0
    for i, kind in enumerate(STATIONARY):
        for row in stationary(kind, 1000, np.random.default_rng(200 + i), reps):
            rejected += variance_shift((row - row.mean()) / row.std()).pvalue < level
    total = reps * len(STATIONARY)
    assert rejected <= binomial_upper(level, total) * total, rejected


def test_a_short_late_shift_is_still_caught_when_a_few_batches_hold_it():
    # 1.5 SD in the last 5% of 1,000 points: Welch's test on every late stretch found it in
    # 29% of runs; the pooled spread, kept unless four or more late batches are clearly
    # noisier, finds it in all
    reps = 60
    rng = np.random.default_rng(43)
    series = rng.normal(size=(reps, 1000)) + np.r_[np.zeros(950), np.full(50, 1.5)]
    found = sum("late_change" in TEST.fit(row).failed_tests for row in series)
    assert found >= binomial_lower(0.97, reps) * reps, found


@pytest.mark.parametrize("phi", [0.9, 0.97])
def test_the_interval_covers_or_the_verdict_says_insufficient(phi):
    reps = 150
    results = [TEST.fit(row) for row in ar1(phi, 1000, np.random.default_rng(int(100 * phi)), reps)]
    judged = [r for r in results if r.verdict != "insufficient_data"]
    missed = sum(not (r.ci[0] <= 0.0 <= r.ci[1]) for r in judged)
    assert missed <= (1 - binomial_lower(0.93, reps)) * reps


def test_rare_values_of_skewed_noise_are_not_cut_away_as_a_warm_up():
    """The warm-up rule drops the prefix that most lowers the variance of the kept mean; on
    skewed noise that is a prefix holding rare values (a failure, a crash), which biased the
    kept mean toward the bulk by ~0.35 SE and left intervals covering 87-91% (n = 500).  A
    cut must now set apart a transient (a rank test over every cut the rule could choose)."""
    reps, n = 100, 500
    sds = {"crash": np.sqrt(1 + 100 * 0.03 * 0.97), "success": np.sqrt(0.97 * 0.03),
           "lognormal": np.sqrt((np.e - 1) * np.e)}
    errors, covered = [], 0
    for i, (kind, (truth, bulk)) in enumerate(SKEWED.items()):
        for result in (TEST.fit(row) for row in skewed(kind, n, np.random.default_rng(40 + i), reps)):
            errors.append(bulk * (result.mean - truth) / (sds[kind] / np.sqrt(n)))
            covered += result.ci[0] <= truth <= result.ci[1]
    # each error is ~N(0, 1) when unbiased: their mean is within 3 / sqrt(300) of 0
    assert np.mean(errors) <= 3 / np.sqrt(len(errors))
    assert covered >= binomial_lower(0.93, len(errors)) * len(errors)


def test_a_climb_before_a_plateau_that_swings_between_levels_is_set_aside_as_a_warm_up():
    """The rank test that guards the warm-up cut sized its error by the rest's persistence,
    which a plateau swinging between levels makes long: a climb of 8 noise SDs over the first
    160 of 1,000 points was kept in 49% of 150 runs (a real Safety Gym run's climb was kept, and
    read "still improving" while its end fell).  Around the regimes the noise is short: the
    climb is now set aside in 85%.  Without the climb the verdicts stay what they were: none of
    those non-stationary runs is called converged."""
    reps, n = 60, 1000
    rng = np.random.default_rng(11)

    def swinging(climb: int) -> np.ndarray:
        levels = np.repeat(rng.normal(0, 1.0, 6), n // 6 + 1)[:n]
        y = levels + ar1(0.3, n, rng, 1)[0] * 0.8
        y[:climb] += np.linspace(-8, 0, climb)
        return y

    cut = sum(TEST.fit(swinging(160)).warmup > 0 for _ in range(reps))
    assert cut >= binomial_lower(0.82, reps) * reps, cut  # (49% before: 29 of 60 would fail)
    assert not any(TEST.fit(swinging(0)).converged for _ in range(reps // 2))


def test_a_constant_stretch_after_a_warm_up_is_a_streak_not_an_exact_mean():
    """A success rate that held at 1 after its last failure is not known to be exactly 1: the
    interval is the Clopper-Pearson bound of the streak."""
    curve = np.r_[np.zeros(40), np.ones(60)]   # learned at step 40, then never failed
    result = TEST.fit(curve)
    assert result.converged and result.warmup == 40 and result.mean == 1.0
    assert result.ci == pytest.approx((0.025 ** (1 / 60), 1.0))
    assert "departures in up to 6.0% of points" in result.reasons[0]
    precise = ss.ConvergenceTest(precision=0.02).fit(curve)
    needed = int(np.ceil(np.log(0.025) / np.log1p(-0.02)))   # 183 in a row give +-0.02
    assert precise.verdict == "insufficient_data" and precise.steps_needed == needed - 60
    # 60 draws of a 97% success rate, one failure at step 23: the warm-up rule cut at 26 and
    # the verdict read "converged, constant at 1 [1, 1]"; those 26 points are no transient
    draws = (np.random.default_rng(1).random(60) < 0.97).astype(float)
    assert np.flatnonzero(draws == 0).tolist() == [23]
    found = TEST.fit(draws)
    assert found.warmup == 0 and found.mean == pytest.approx(59 / 60)
    assert found.ci[0] < 0.97 and found.ci[1] == 1.0   # the interval stops at the cap
    assert "a few rare values are not a warm-up" in " ".join(found.reasons)


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


def test_the_late_shift_is_students_pooled_t_or_welchs_against_scipy():
    from scipy import stats

    from swarmstats._kernels.stationary_tests import late_shift

    rng = np.random.default_rng(44)
    early = rng.normal(size=40)
    same = rng.normal(0.3, 1.0, size=8)  # as noisy as the rest: the pooled t, n1 + n2 - 2 dof
    difference, t, p, se, dof = late_shift(same, early)
    assert t == pytest.approx(stats.ttest_ind(same, early).statistic, rel=1e-12)
    assert p == pytest.approx(stats.ttest_ind(same, early).pvalue, rel=1e-9) and dof == 46
    noisy = rng.normal(0.3, 6.0, size=8)  # clearly noisier (F test): Welch's t on the late dof
    difference, t, p, se, dof = late_shift(noisy, early)
    assert t == pytest.approx(stats.ttest_ind(noisy, early, equal_var=False).statistic, rel=1e-12)
    assert dof == 7 and p == pytest.approx(2 * stats.t.sf(abs(t), 7), rel=1e-9)
    # three late batches cannot show a spread of their own: pooled
    assert late_shift(noisy[:3], early)[4] == 41
