"""Changes judged against the noise of the regimes either side (swarmstats.regimes.local_noise):
a stretch that scatters ten times more than the rest is not cut into "regimes", and a change's z
is Welch's, not a multiple of the quiet part's noise."""

import numpy as np
import pytest

import swarmstats as ss
from swarmstats.regimes.costs import MeanCost
from swarmstats.regimes.local_noise import LocalNoise, merge_within_local_noise
from swarmstats.regimes.offline import detect_regimes

from .test_real_logs import REAL


def _burst(rng, n=1000, start=600, end=700, factor=10.0):
    y = rng.normal(size=n)
    y[start:end] *= factor
    return y


@pytest.mark.parametrize("length", [10, 100])
def test_the_local_noise_is_a_lower_95_percent_bound_of_the_true_variance(length):
    # white noise of variance 1: the bound should exceed 1 in 5% of regimes (one-sided);
    # measured 5.5% at 10 points, 4.1% at 100, 6.7% at 1,000 (1,000 series each)
    rng = np.random.default_rng(170 + length)
    reps = 400
    above = sum(LocalNoise(y, None, 1e-12).regime_variance(300, 300 + length) > 1.0
                for y in rng.normal(size=(reps, 800)))
    se = np.sqrt(0.05 * 0.95 / reps)
    assert 0.05 - 3 * se <= above / reps <= 0.05 + 3 * se, above / reps


def test_a_burst_is_measured_as_its_own_noise_and_regimes_combine_as_in_welch():
    rng = np.random.default_rng(171)
    y = _burst(rng)
    noise = LocalNoise(y, MeanCost(y), floor=1.0)
    quiet, burst = noise.regime_variance(0, 600), noise.regime_variance(600, 700)
    assert noise.regime_variance(0, 500) == 1.0  # the floor: never below the series-wide noise
    assert 1.0 <= quiet < 2.0  # 15 of its points see the burst in their window
    assert 50 < burst < 100  # variance 100, at its lower 95% bound
    # a short noisy regime after a long quiet one: v (1/600 + 1/100) = v_quiet/600 + v_burst/100
    assert noise.variance(0, 600, 700) == pytest.approx((quiet * 100 + burst * 600) / 700)
    # a short regime inside the burst gets the burst's noise from the points around it
    assert noise.regime_variance(640, 646) > 30


@pytest.mark.parametrize("model, before, most", [("trend", 3.08, 1.1), ("mean", 11.4, 0.7)])
def test_a_burst_of_scatter_is_not_cut_into_regimes(model, before, most):
    # white noise whose SD is 10 for 100 of 1,000 points: no change of level anywhere.  One
    # series-wide noise scale cut it 3.08 (trend) and 11.4 (mean) times per series (60 series);
    # now 0.72 and 0.30 (SDs 0.95 and 0.80; none in 35 and 52 of the 60), mostly the burst's
    # edges as one regime.  The bounds are the means plus 2.5 standard errors of 40 series
    rng = np.random.default_rng(160)
    counts = np.array([len(detect_regimes(_burst(rng), model=model).changepoints) for _ in range(40)])
    assert counts.mean() <= most, (counts.mean(), before)


def test_a_real_shift_inside_a_burst_is_still_found():
    # a 10-SD shift in the middle of a burst of SD 5 is 2 of the burst's SDs: found within
    # 10 points in 97.5% of 200 series, before and after judging changes locally
    rng = np.random.default_rng(161)
    found = 0
    for _ in range(40):
        y = _burst(rng, factor=5.0)
        y[650:] += 10
        found += any(abs(c - 650) <= 10 for c in detect_regimes(y).changepoints)
    assert found >= 34, found  # P(< 34 of 40) < 1% at a 97.5% rate


def test_a_change_into_a_noisy_regime_has_welchs_z_not_the_quiet_parts():
    # 0 (SD 1) for 500 points, 8 (SD 10) for 100, 0 (SD 1) after: Welch's z for the change at
    # 500 is 8 / sqrt(1/500 + 100/100) = 8.0.  Against the series' noise the change read
    # z = 29 (3.7x Welch's, median of 36 series); now 0.94x (10%-90%: 0.79-1.13)
    rng = np.random.default_rng(162)
    ratios = []
    for _ in range(30):
        y = np.r_[rng.normal(0, 1, 500), rng.normal(8, 10, 100), rng.normal(0, 1, 400)]
        strengths = detect_regimes(y).strengths
        row = strengths[(strengths["changepoint"] - 500).abs() <= 5]
        if len(row):
            ratios.append(abs(row["z"].iloc[0]) / (8 / np.sqrt(1 / 500 + 100 / 100)))
    assert len(ratios) >= 20
    assert 0.7 < np.median(ratios) < 1.3, np.median(ratios)


def test_merging_stops_where_the_local_noise_is_the_series_own():
    # homoscedastic shifts: the local pass removes nothing (every change pays at the floor)
    rng = np.random.default_rng(163)
    y = np.repeat([0.0, 3.0, 0.0, 2.0], 150) + rng.normal(size=600)
    noise = LocalNoise(y, MeanCost(y), floor=1.0)
    assert merge_within_local_noise([150, 300, 450], noise, 3 * np.log(600)) == ([150, 300, 450], 0)
    assert merge_within_local_noise([], noise, 3 * np.log(600)) == ([], 0)


def test_min_effect_zero_keeps_every_change_the_search_found():
    y = _burst(np.random.default_rng(165))
    merged = detect_regimes(y)
    raw = detect_regimes(y, min_effect=0)
    assert len(raw.changepoints) > len(merged.changepoints)
    assert not any("scatter" in note for note in raw.notes)
    assert any("scatter of the regimes either side" in note for note in merged.notes)


def test_hoppers_noisy_last_episodes_are_not_five_regimes_at_z_37():
    # PPO on Hopper ends with 250 episodes that fall early or run long (60-2,900) after 5,000
    # within ~50 of 30.  One noise SD for the whole series (79) made five regimes of them
    # (changes at 10525, 10564, 10581, 10735, 10755, z = 26-66); the burst starts, a calm
    # stretch near 400 from 10581, the burst again: now two changes, at z ~ 5.5 - 6
    log = ss.read_log(REAL / "sb3-long" / "ppo-Hopper-v3.monitor.csv")
    result = detect_regimes(log.loc[log["metric"] == "r", "value"].to_numpy(float))
    late = result.strengths[result.strengths["changepoint"] >= 10_400]
    assert 1 <= len(late) <= 3, result.summary()
    assert any(10_500 <= c <= 10_550 for c in late["changepoint"])  # where the burst starts
    assert (late["z"].abs() < 10).all(), late
    # the early part is untouched: the bursts near 1,000 between stretches near 0 stay changes
    early = result.strengths[result.strengths["changepoint"] < 2_100]
    assert len(early) >= 5 and (early["z"].abs() > 5).all()


@pytest.mark.parametrize("model", ["mean", "linear"])
def test_the_local_check_is_scale_free(model):
    # the shortfall was saved * floor / local / penalty: at 1e-150 the product underflowed to
    # 0 and every change was merged away
    rng = np.random.default_rng(166)
    y = np.r_[np.zeros(200), np.full(200, 3.0)] + rng.normal(size=400)
    y[300:330] *= 8
    found = detect_regimes(y, model=model).changepoints
    assert 200 in found
    assert detect_regimes(y * 1e-150, model=model).changepoints == found


def test_a_zero_penalty_keeps_every_change_it_asks_for():
    rng = np.random.default_rng(167)
    y = np.r_[np.zeros(50), np.full(50, 3.0)] + rng.normal(size=100)
    y[60:80] *= 8
    result = detect_regimes(y, model="mean", penalty=0, min_effect=1.0)
    assert len(result.changepoints) >= 5  # (was a ZeroDivisionError)
    noise = LocalNoise(y, MeanCost(y), floor=1.0)
    assert merge_within_local_noise([50, 60, 80], noise, 0.0) == ([50, 60, 80], 0)
