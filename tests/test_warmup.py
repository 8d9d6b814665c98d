"""Warm-up detection: the reference scenarios, MSER against its definition, edge cases."""

import numpy as np
import pytest

import swarmstats as ss
from swarmstats._kernels.truncation import (
    SuffixBartlett,
    bartlett_mean_variance,
    mser_curve,
    origin_grid,
)
from swarmstats.errors import InputError

from .conftest import ar1


def test_mser_curve_matches_the_definition():
    rng = np.random.default_rng(1)
    means = rng.normal(size=60) + 1e6  # large offset: no cancellation allowed
    direct = np.array([np.sum((means[d:] - means[d:].mean()) ** 2) / (60 - d) ** 2
                       for d in range(60)])
    np.testing.assert_allclose(mser_curve(means), direct, rtol=1e-9)


@pytest.mark.parametrize("kind", ["white", "ar0.9", "transient", "t2", "three values", "offset 1e6",
                                  "capped tail", "1e-9-sized"])
@pytest.mark.parametrize("n", [12, 300, 5000])
def test_the_suffix_sums_give_the_bartlett_variance_of_the_mean_at_every_origin(kind, n):
    # the warm-up search reads bartlett_mean_variance at 50-80 origins from sums made once
    rng = np.random.default_rng(n)
    noise = rng.normal(size=n)
    x = {"white": noise, "ar0.9": ar1(0.9, n, rng), "transient": 5 * np.exp(-np.arange(n) / (0.1 * n)) + noise,
         "t2": rng.standard_t(2, n), "three values": rng.integers(0, 3, n).astype(float),
         "offset 1e6": 1e6 + noise, "capped tail": np.r_[noise[:n // 2], np.full(n - n // 2, 500.0)],
         "1e-9-sized": 1e-9 * noise}[kind]
    suffixes = SuffixBartlett(x)
    for origin in origin_grid(n - 4):
        expected = bartlett_mean_variance(x, int(origin))
        got = suffixes(int(origin))
        # the offset series loses ~1e-10 to its own centring in the reference
        assert got == pytest.approx(expected, rel=1e-9, abs=0.0), origin
        assert (got == 0.0) == (expected == 0.0)  # a constant suffix is exactly 0 in both


@pytest.mark.parametrize("method", ["variance", "ess", "mser"])
def test_a_wild_first_sample_is_discarded(method):
    for seed in range(10):
        y = ar1(0.5, 1000, np.random.default_rng(seed))
        y[0] = 50.0
        assert ss.detect_warmup(y, method=method).index >= 1


def test_a_constant_tail_is_cut_at_its_start_whatever_the_round_off():
    # standardised, the tail's variance comes out of the transform as ~1e-35 at some origins
    # and 0 at others; the rule took whichever was exactly 0 (20 here, 40 in the verdict)
    y = np.r_[34.0, 172.0, np.full(98, 200.0)]
    for values in (y, (y - y.mean()) / y.std(), y * 1e-300, y + 1e9):
        assert ss.detect_warmup(values).index == 2


def test_slow_drift_hidden_in_noise_is_cut_later_than_the_anchors():
    # AR(1)(0.5) + 3 exp(-t/400), n = 4000: the bias is below 0.1 sigma only after ~1300 steps.
    # Measured medians: MSER-5 ~550, max-ESS ~750, the default ~800 (docs/convergence.md).
    drift = 3 * np.exp(-np.arange(4000) / 400)
    series = [ar1(0.5, 4000, np.random.default_rng(s)) + drift for s in range(12)]
    cuts = {method: np.median([ss.detect_warmup(y, method=method).index for y in series])
            for method in ("variance", "ess", "mser")}
    assert cuts["variance"] >= 700
    assert cuts["variance"] > cuts["mser"] + 150
    assert cuts["variance"] >= cuts["ess"]


def test_transient_over_first_tenth_is_found():
    rng = np.random.default_rng(3)
    y = ar1(0.5, 2000, rng, reps=40)
    y[:, :200] += np.linspace(3, 0, 200) * y.std()
    cuts = np.array([ss.detect_warmup(row).index for row in y])
    assert np.mean(np.abs(cuts - 200) <= 100) >= 0.85


def test_stationary_series_keeps_almost_everything():
    cuts = [ss.detect_warmup(ar1(0.5, 2000, np.random.default_rng(s))).fraction for s in range(20)]
    assert np.median(cuts) < 0.05


def test_logistic_rise_then_plateau():
    # whole-series ESS is tiny; after the cut the halves agree (split R-hat near 1)
    t = np.arange(3000)
    y = 1 / (1 + np.exp(-(t - 300) / 60)) + 0.05 * ar1(0.3, 3000, np.random.default_rng(4))
    cut = ss.detect_warmup(y).index
    assert ss.ess(y, method="bulk") < 50
    assert 450 <= cut <= 1500
    assert ss.rhat(y[cut:]) < 1.05


def test_cap_and_at_cap_flag():
    y = np.linspace(0, 10, 1000) + np.random.default_rng(5).normal(0, 0.1, 1000)
    result = ss.detect_warmup(y, max_fraction=0.3)
    assert result.index <= 300
    assert result.at_cap


def test_constant_and_tiny_series():
    assert ss.detect_warmup(np.full(100, 1.0)).index == 0
    assert ss.detect_warmup([1.0, 2.0, 3.0]).index == 0


def test_step_axis_is_reported():
    import pandas as pd

    y = pd.Series(np.r_[np.full(100, 5.0), np.zeros(900)] + np.random.default_rng(6).normal(size=1000),
                  index=np.arange(1000) * 10)
    result = ss.detect_warmup(y)
    assert result.step == result.index * 10


def test_million_points_is_an_ordinary_input():
    y = np.random.default_rng(7).normal(size=1_000_000)
    y[:20_000] += 3
    result = ss.detect_warmup(y)
    assert 19_000 <= result.index <= 40_000
    assert result.resolution == 200


def test_bad_arguments():
    with pytest.raises(InputError, match="method"):
        ss.detect_warmup(np.arange(10.0), method="nope")
    with pytest.raises(InputError, match="max_fraction"):
        ss.detect_warmup(np.arange(10.0), max_fraction=1.5)


def test_all_origins_zero_crossing_curve_equals_per_origin_estimates():
    from swarmstats._kernels.autocorr import zero_crossing_tau
    from swarmstats._kernels.truncation import zero_crossing_ess_all_origins

    y = ar1(0.6, 400, np.random.default_rng(12)) + 3.0 * (np.arange(400) < 40)
    curve = zero_crossing_ess_all_origins(y, 200)
    direct = np.array([(400 - t + 1) / zero_crossing_tau(y[t:]) for t in range(201)])
    np.testing.assert_allclose(curve, direct, rtol=1e-10)


@pytest.mark.parametrize("phi", [0.0, 0.5])
def test_zero_crossing_mode_reproduces_pymbar(phi):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timeseries = pytest.importorskip("pymbar.timeseries")
    from swarmstats._kernels.autocorr import zero_crossing_tau

    for seed in range(3):
        y = ar1(phi, 1500, np.random.default_rng(seed)) + 4.0 * (np.arange(1500) < 80)
        assert zero_crossing_tau(y[100:]) == pytest.approx(
            timeseries.statistical_inefficiency(y[100:], fast=True), rel=1e-10)
        ours = ss.detect_warmup(y, method="ess", tau_method="zero-crossing").index
        assert ours == int(timeseries.detect_equilibration(y)[0])
