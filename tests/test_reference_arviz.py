"""ESS, R-hat and MCSE against ArviZ (the Vehtari et al. 2021 reference implementation)."""

import warnings

import numpy as np
import pytest

import swarmstats as ss

from .conftest import ar1

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    az = pytest.importorskip("arviz")


def _chains(seed, phi=0.7, shape=(4, 1000), offsets=0.05):
    rng = np.random.default_rng(seed)
    x = ar1(phi, shape[1], rng, reps=shape[0])
    return x + np.arange(shape[0])[:, None] * offsets


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method", ["bulk", "tail", "mean"])
def test_ess_matches_arviz(seed, method):
    x = _chains(seed)
    assert ss.ess(x, method=method) == pytest.approx(float(az.ess(x, method=method)), rel=1e-8)


@pytest.mark.parametrize("prob", [0.05, 0.3, 0.5, 0.9])
def test_quantile_ess_and_mcse_match_arviz(prob):
    x = _chains(4)
    assert ss.ess(x, method="quantile", prob=prob) == pytest.approx(
        float(az.ess(x, method="quantile", prob=prob)), rel=1e-8)
    assert ss.mcse(x, method="quantile", prob=prob) == pytest.approx(
        float(az.mcse(x, method="quantile", prob=prob)), rel=1e-8)


@pytest.mark.parametrize("seed", [5, 6])
def test_rhat_and_mcse_match_arviz(seed):
    x = _chains(seed, phi=0.9, offsets=0.3)
    assert ss.rhat(x) == pytest.approx(float(az.rhat(x, method="rank")), rel=1e-10)
    assert ss.rhat(x, method="split") == pytest.approx(float(az.rhat(x, method="split")), rel=1e-10)
    assert ss.mcse(x) == pytest.approx(float(az.mcse(x, method="mean")), rel=1e-8)
    assert ss.mcse(x, method="sd") == pytest.approx(float(az.mcse(x, method="sd")), rel=1e-8)


def test_odd_lengths_and_antithetic_chains_match_arviz():
    x = ar1(-0.6, 1001, np.random.default_rng(8), reps=3)
    for method in ("bulk", "mean", "tail"):
        assert ss.ess(x, method=method) == pytest.approx(float(az.ess(x, method=method)), rel=1e-8)


def test_single_run_rhat_is_defined_where_arviz_gives_nan():
    x = ar1(0.5, 2000, np.random.default_rng(9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(float(az.rhat(x[None, :])))
    assert 0.99 < ss.rhat(x) < 1.02
    trending = x + np.linspace(0, 5, 2000)
    assert ss.rhat(trending) > 1.1  # the halves disagree


def test_unequal_runs_use_their_last_common_stretch():
    rng = np.random.default_rng(10)
    runs = [rng.normal(size=1200), rng.normal(size=900)]
    aligned = np.vstack([runs[0][-900:], runs[1]])
    assert ss.ess(runs) == pytest.approx(ss.ess(aligned))
    assert ss.rhat(runs) == pytest.approx(ss.rhat(aligned))


@pytest.mark.parametrize("scale", [1e-20, 1e-150, 1e50])
def test_ess_rhat_and_mcse_do_not_depend_on_the_scale(scale):
    """An absolute 'constant' floor made every run of 1e-20-sized draws constant: ESS, R-hat
    and MCSE were NaN (ArviZ returns n for its mean and SD ESS there).  Equal up to rounding
    is now relative to the values' size."""
    draws = np.random.default_rng(9).normal(size=(4, 500))
    for method in ("bulk", "tail", "mean", "sd", "plain"):
        assert ss.ess(draws * scale, method=method) == pytest.approx(ss.ess(draws, method=method), rel=1e-9)
    assert ss.rhat(draws * scale) == pytest.approx(ss.rhat(draws), rel=1e-9)
    assert ss.mcse(draws * scale) / scale == pytest.approx(ss.mcse(draws), rel=1e-9)
    assert ss.integrated_autocorr_time(draws[0] * scale) == pytest.approx(ss.integrated_autocorr_time(draws[0]),
                                                                         rel=1e-9)
    assert np.isnan(ss.ess(np.full((2, 100), 1e-20)))  # a constant is still one
