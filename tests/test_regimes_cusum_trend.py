"""CUSUM with a line as its in-control reference (model="trend"): a steady climb is one regime,
an alarm a change of level or slope, and the false-alarm rate the one promised."""

import numpy as np
import pytest

from swarmstats.errors import InputError
from swarmstats.regimes import CusumDetector
from swarmstats.regimes.line_reference import LineReference

from .conftest import ar1


def test_recursive_residuals_of_a_line_are_standard_and_the_slope_is_learnt():
    # under a line plus white noise the recursive residuals are independent N(0, 1) (Brown,
    # Durbin & Evans 1975); the persistence taken at its upper standard error over-whitens a
    # little, so the lag-1 correlation is slightly negative, never positive
    rng = np.random.default_rng(180)
    z, slopes = [], []
    for _ in range(20):
        y = 3.0 + 0.05 * np.arange(1100) + rng.normal(0, 2.0, 1100)
        reference = LineReference(y[:100])
        z.append([reference.innovation(value, before) for value, before in zip(y[100:], y[99:-1])])
        slopes.append(reference.slope)
    z = np.asarray(z)
    assert abs(z.mean()) < 0.03 and 0.95 < z.std() < 1.1  # 20,000 residuals: SE of the mean 0.007
    lag1 = np.mean(z[:, 1:] * z[:, :-1])
    assert -0.2 < lag1 < 0.03
    assert np.mean(slopes) == pytest.approx(0.05, abs=0.002)


def test_the_false_alarm_rate_is_the_promised_one_on_persistent_and_heavy_tailed_noise():
    # ARL0 ~19,500: ~10.3 false alarms expected in 20 streams of 10,000 points at the promised
    # rate; measured 1-3 per kind.  Poisson(10.3) exceeds 18 with probability < 1%.
    rng = np.random.default_rng(181)
    promised = 20 * 10_000 / CusumDetector().target_arl
    kinds = {"normal": rng.normal(size=(20, 10_000)), "AR(0.5)": ar1(0.5, 10_000, rng, 20),
             "t(3)": rng.standard_t(3, size=(20, 10_000))}
    for kind, streams in kinds.items():
        alarms = sum(len(CusumDetector(model="trend").fit(y).alarms) for y in streams)
        assert alarms <= promised + 2.5 * np.sqrt(promised), (kind, alarms, promised)


def test_a_steady_drift_is_one_regime_not_a_staircase():
    # 0.002 and 0.02 noise SDs per step: a level reference alarms every few hundred points
    # (25 and 73 per 10,000 measured); a line followed since the last change, ~0.1
    rng = np.random.default_rng(182)
    for rate in (0.002, 0.02):
        streams = rate * np.arange(10_000) + rng.normal(size=(5, 10_000))
        level = sum(len(CusumDetector().fit(y).alarms) for y in streams)
        trend = sum(len(CusumDetector(model="trend").fit(y).alarms) for y in streams)
        assert level >= 5 * 10 and trend <= 3, (rate, level, trend)
    # a learning curve 3 (1 - exp(-t / 200)) in AR(0.5) noise: 0.05 alarms per 1,000-point
    # series measured (a level reference: 1.1)
    curve = 3 * (1 - np.exp(-np.arange(1000) / 200)) + ar1(0.5, 1000, rng, 20) * np.sqrt(0.75)
    assert sum(len(CusumDetector(model="trend").fit(y).alarms) for y in curve) <= 4


def test_a_change_of_slope_and_a_shift_of_level_are_caught():
    rng = np.random.default_rng(183)
    marginal = 1 / np.sqrt(0.75)  # AR(0.5) with unit innovations
    caught = 0
    for y in ar1(0.5, 2000, rng, 40):
        y[1000:] += marginal * 0.01 * np.arange(1000)  # 0 -> 1 SD per 100 steps
        caught += any(1000 <= a["index"] < 1300 for a in CusumDetector(model="trend").fit(y).alarms)
    assert caught >= 32, caught  # 92-94% measured; 3 binomial SEs below is 80%
    caught = 0
    for y in ar1(0.5, 1200, rng, 20):
        y[600:] += 2 * marginal
        caught += any(600 <= a["index"] < 700 for a in CusumDetector(model="trend").fit(y).alarms)
    assert caught >= 19, caught  # 99-100% measured (a level reference: 100%)


def test_a_warm_up_that_mostly_ties_gets_a_flat_line():
    # an evaluation stuck at -100 in 97% of its episodes: a line through the ties has residuals
    # with a robust scale near 0, and every value off it alarmed
    rng = np.random.default_rng(184)
    y = np.where(rng.random(3000) < 0.03, 0.0, -100.0)
    reference = LineReference(y[:100])
    assert reference.tied and reference.slope == 0.0 and reference.scale > 1
    assert CusumDetector(model="trend").fit(y).alarms == []


def test_a_perfect_line_is_one_regime_until_its_slope_changes():
    # a counter or a schedule: the residuals are rounding only, and each rounding error alarmed
    # (9 alarms in 3,000 points); the scale is floored at a billionth of the values' size
    y = 0.1 * np.arange(3000) + 7.0
    reference = LineReference(y[:100])
    assert reference.slope == pytest.approx(0.1) and not reference.tied
    assert CusumDetector(model="trend").fit(y).alarms == []
    y[2000:] += 0.1 * np.arange(1000)  # twice as steep from 2,000 on
    assert [a["start"] for a in CusumDetector(model="trend").fit(y).alarms] == [2001]


def test_bad_configuration():
    with pytest.raises(InputError, match="model"):
        CusumDetector(model="slope")
    with pytest.raises(InputError, match="give neither mean nor sd"):
        CusumDetector(model="trend", mean=0.0, sd=1.0)
    assert "along a line" in CusumDetector(model="trend").fit(np.arange(300.0) * 0.1).summary()
