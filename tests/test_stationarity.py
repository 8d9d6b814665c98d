"""Geweke, Heidelberger-Welch, the Cramer-von Mises law and the variance check."""

import numpy as np
import pytest

import swarmstats as ss
from swarmstats._kernels.stationary_tests import cramer_von_mises_cdf

from .conftest import ar1, binomial_upper


@pytest.mark.parametrize("q, p", [(0.347, 0.900), (0.461, 0.950), (0.743, 0.990)])
def test_cramer_von_mises_fixtures(q, p):
    assert cramer_von_mises_cdf(q) == pytest.approx(p, abs=5e-4)


def test_cramer_von_mises_cdf_against_simulated_bridge():
    rng = np.random.default_rng(1)
    steps = rng.normal(size=(20_000, 500))
    walk = np.cumsum(steps, axis=1) / np.sqrt(500)
    bridge = walk - np.outer(walk[:, -1], np.arange(1, 501) / 500)
    integral = (bridge**2).mean(axis=1)
    for q in (0.1, 0.347, 0.461):
        assert np.mean(integral <= q) == pytest.approx(cramer_von_mises_cdf(q), abs=0.015)


def test_geweke_size_on_independent_series():
    rng = np.random.default_rng(2)
    reps = 400
    hits = sum(abs(ss.geweke(rng.normal(size=1000)).z) > 1.96 for _ in range(reps))
    assert hits / reps <= binomial_upper(0.05, reps)
    assert hits / reps >= 0.05 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_geweke_sees_a_level_shift():
    y = np.r_[np.full(100, 1.0), np.zeros(900)] + np.random.default_rng(3).normal(0, 0.3, 1000)
    result = ss.geweke(y)
    assert result.z > 5 and result.pvalue < 1e-6


def test_heidelberger_welch_passes_stationary_and_discards_transients():
    rng = np.random.default_rng(4)
    assert ss.heidelberger_welch(5 + rng.normal(size=2000)).stationary
    y = 5 + rng.normal(size=2000)
    y[:300] += np.linspace(6, 0, 300)
    result = ss.heidelberger_welch(y)
    assert result.stationary and result.start >= 200
    # A steady drift inflates S0 (the AR fit absorbs it), so the bridge test may pass late;
    # the half-width test is what fails - the documented H-W behaviour.
    drifting = np.linspace(0, 10, 2000) + rng.normal(size=2000)
    result = ss.heidelberger_welch(drifting)
    assert result.start >= 400 and not result.halfwidth_passed


def test_heidelberger_welch_halfwidth_relative_and_absolute():
    y = 0.001 + np.random.default_rng(5).normal(size=2000)  # mean near zero
    assert not ss.heidelberger_welch(y).halfwidth_passed
    assert ss.heidelberger_welch(y, eps=0.1, absolute=True).halfwidth_passed


def test_heidelberger_welch_size_for_independent_series():
    rng = np.random.default_rng(6)
    reps = 300
    failures = sum(ss.heidelberger_welch(rng.normal(size=500)).start > 0 for _ in range(reps))
    assert failures / reps <= binomial_upper(0.05, reps)


def test_variance_stability_detects_a_variance_change():
    rng = np.random.default_rng(7)
    y = np.r_[rng.normal(0, 1, 3000), rng.normal(0, 2, 1000)]
    result = ss.variance_stability(y)
    assert not result.stable and result.ratio > 3


def test_variance_stability_size_under_autocorrelation():
    rng = np.random.default_rng(8)
    reps = 300
    series = ar1(0.9, 2000, rng, reps=reps)
    unstable = sum(not ss.variance_stability(row).stable for row in series)
    assert unstable / reps <= binomial_upper(0.05, reps)


@pytest.mark.parametrize("scale", [1e-20, 1e-120, 1e40])
def test_variance_stability_reads_any_scale_alike(scale):
    """Its test's rounding floor is in units of SD 1: on 1e-20-sized values it read every
    difference of squares as rounding (p = 1 where the unit series gives 0.85)."""
    rng = np.random.default_rng(8)
    y = np.r_[rng.normal(size=600), 2.0 * rng.normal(size=200)]  # the variance doubles at the end
    unit, scaled = ss.variance_stability(y), ss.variance_stability(y * scale)
    assert unit.pvalue < 0.05 and scaled.pvalue == pytest.approx(unit.pvalue, rel=1e-9)
    assert scaled.ratio == pytest.approx(unit.ratio, rel=1e-9)


def test_variance_stability_names_the_stretch_at_the_end_that_changed():
    # a burst in the last tenth: the quarter-against-quarter comparison diluted it (p ~ 0.03)
    y = np.random.default_rng(11).normal(size=1000)
    y[-100:] *= 5.0
    result = ss.variance_stability(y)
    assert not result.stable and result.judged and result.ratio > 5
    assert 30 <= result.length <= 250 and f"the last {result.length} points" in result.summary()
    assert result.late_blocks >= 1 and len(result.squares) == 20


def test_variance_stability_says_when_volatility_clusters_are_too_long_to_judge():
    # spells of four-times noise 100 points long in a run of 400: no batch spanning the
    # squares' persistence fits twice in the last quarter
    y = np.random.default_rng(3).normal(size=400) * np.repeat([1.0, 4.0, 1.0, 4.0], 100)
    result = ss.variance_stability(y)
    assert not result.judged and result.stable and result.pvalue == 1.0
    assert result.summary().startswith("trailing variance not judged")
    assert ss.variance_stability(np.ones(40)).summary() == "trailing variance stable: the series does not vary"


def test_a_score_that_begins_to_flip_after_holding_still_reads_as_such():
    # the spread before the end is nil (a 0/1 score at 1): the ratio is infinite, and the
    # reason says what happened instead of printing it
    y = np.r_[np.ones(955), np.tile([0.0, 1.0, 1.0], 15)]
    result = ss.check_convergence(y)
    assert "variance" in result.failed_tests and result.variance_ratio == np.inf
    reason = result.reasons[result.failed_tests.index("variance")]
    assert "vary, where the kept part's second half before them held still" in reason
    assert "held still" in ss.variance_stability(y).summary()
