"""Autocorrelation and integrated autocorrelation time against closed forms."""

import numpy as np
import pytest

import swarmstats as ss
from swarmstats._kernels.autocorr import (
    DIRECT_LAGS,
    ar_spectrum0,
    autocovariance,
    geyer_tau,
    levinson_durbin,
    sokal_tau,
)

from .conftest import ar1


def test_autocovariance_matches_direct_biased_sum(rng):
    x = rng.normal(size=257)
    centred = x - x.mean()
    direct = np.array([centred[: len(x) - k] @ centred[k:] / len(x) for k in range(len(x))])
    np.testing.assert_allclose(autocovariance(x), direct, atol=1e-12)


@pytest.mark.parametrize("max_lag", [0, 1, 20, DIRECT_LAGS - 1, DIRECT_LAGS, 200])
def test_few_lags_are_summed_directly_and_agree_with_the_transform(rng, max_lag):
    """Below DIRECT_LAGS lags the sums are taken directly (an AR fit's 44 lags of 20,000 block
    means); both routes give the same numbers, and the same lags for a short series."""
    for n in (3, 100, 5000):
        x = rng.normal(size=n) + 5.0
        full = autocovariance(x)  # every lag: the transform
        got = autocovariance(x, max_lag=max_lag)
        assert len(got) == min(max_lag, n - 1) + 1
        np.testing.assert_allclose(got, full[: len(got)], rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("phi", [-0.5, 0.0, 0.5, 0.9])
def test_tau_of_ar1_within_10_percent_of_closed_form(phi):
    # g = (1 + phi) / (1 - phi): 1/3, 1, 3, 19
    x = ar1(phi, 100_000, np.random.default_rng(int(100 * phi) + 107))
    truth = (1 + phi) / (1 - phi)
    assert ss.integrated_autocorr_time(x) == pytest.approx(truth, rel=0.10)


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_sokal_window_agrees_for_positive_correlation(phi):
    x = ar1(phi, 100_000, np.random.default_rng(3))
    truth = (1 + phi) / (1 - phi)
    assert ss.integrated_autocorr_time(x, method="sokal") == pytest.approx(truth, rel=0.10)


def test_geyer_on_exact_ar1_sequence():
    for phi, truth in [(0.5, 3.0), (0.9, 19.0)]:
        rho = phi ** np.arange(5000)
        assert geyer_tau(rho) == pytest.approx(truth, rel=1e-9)
        assert sokal_tau(rho)[0] == pytest.approx(truth, rel=0.05)


def test_antithetic_series_has_ess_above_n_capped_at_n_log10_n():
    x = ar1(-0.9, 1000, np.random.default_rng(11))
    # g floored at 1/log10(1000): ESS capped at exactly 3000
    assert ss.ess(x, method="plain") == pytest.approx(3000.0)
    assert ss.integrated_autocorr_time(x) == pytest.approx(1 / 3)


def test_negative_phi_never_gives_negative_tau():
    for seed in range(5):
        x = ar1(-0.95, 500, np.random.default_rng(seed))
        assert ss.integrated_autocorr_time(x) > 0
        assert ss.integrated_autocorr_time(x, method="sokal") > 0


def test_constant_and_short_series_give_nan_not_errors():
    assert np.isnan(ss.integrated_autocorr_time(np.full(100, 3.0)))
    assert np.isnan(ss.integrated_autocorr_time([1.0, 2.0, 3.0]))
    assert np.all(np.isnan(ss.acf(np.full(10, 2.0))))
    assert np.isnan(ss.ess(np.full(100, 3.0)))
    assert np.isnan(ss.mcse(np.full(100, 3.0)))


def test_acf_of_ar1_decays_geometrically():
    x = ar1(0.7, 200_000, np.random.default_rng(5))
    np.testing.assert_allclose(ss.acf(x, max_lag=4), 0.7 ** np.arange(5), atol=0.01)


def test_ar_spectrum0_matches_ar1_long_run_variance():
    phi = 0.8
    x = ar1(phi, 200_000, np.random.default_rng(9))
    spectrum, order = ar_spectrum0(x)
    assert spectrum == pytest.approx(1 / (1 - phi) ** 2, rel=0.05)
    assert order >= 1


def test_levinson_durbin_recovers_ar2():
    phi = np.array([0.5, -0.3])
    # exact AR(2) autocovariances from the Yule-Walker recursion
    rho = np.zeros(10)
    rho[0] = 1.0
    rho[1] = phi[0] / (1 - phi[1])
    for k in range(2, 10):
        rho[k] = phi[0] * rho[k - 1] + phi[1] * rho[k - 2]
    coefs, _ = levinson_durbin(rho, 4)
    np.testing.assert_allclose(coefs[2], phi, atol=1e-12)
    np.testing.assert_allclose(coefs[4][2:], 0.0, atol=1e-12)


def test_mcse_of_mean_matches_closed_form_for_ar1():
    phi, n = 0.5, 200_000
    x = ar1(phi, n, np.random.default_rng(21))
    # n Var(mean) -> sigma^2 / (1 - phi)^2 with unit innovations
    assert ss.mcse(x, method="mean") == pytest.approx(np.sqrt(1 / (1 - phi) ** 2 / n), rel=0.1)
