"""Changes of spread (swarmstats.regimes.spread): where the noise around the regimes grows or
shrinks, told from volatility that merely comes and goes.

A public Spinning Up log showed the need: a PPO run's DeltaLossPi scatters three to four times
more after epoch 280 than before, and the regimes said only "a jump: 1.59 noise SDs".
The rates asserted here are those of ``benchmarks/calibration_spread.py`` (docs/regimes.md);
each bound is the rate measured there plus three binomial standard errors of this test's
sample, on fixed seeds."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import swarmstats as ss
from swarmstats.regimes.offline import detect_regimes
from swarmstats.regimes.spread import (
    LEVEL,
    QUANTILES,
    RATIO,
    TRIM,
    _large_enough,
    pvalue,
    self_normalised_profile,
    spread_changes,
)

from .conftest import ar1
from .test_real_logs import REAL

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from scenarios import garch  # noqa: E402


def _by_definition(s, k):
    """Shao & Zhang's statistic at the split after k values, term by term."""
    n = len(s)
    centred = s - s.mean()
    partial = np.cumsum(centred)
    left = sum((partial[t - 1] - t / k * partial[k - 1]) ** 2 for t in range(1, k + 1))
    from_end = [centred[t - 1:].sum() for t in range(1, n + 1)]  # sum of s_t .. s_n, centred
    right = sum((from_end[t - 1] - (n - t + 1) / (n - k) * from_end[k]) ** 2 for t in range(k + 1, n + 1))
    return n * partial[k - 1] ** 2 / (left + right)


def test_profile_equals_the_definition():
    rng = np.random.default_rng(0)
    for s in (rng.normal(size=41), rng.exponential(size=17), np.r_[np.zeros(10), np.ones(12)] + rng.normal(size=22)):
        profile = self_normalised_profile(s)
        expected = [_by_definition(s, k) for k in range(1, len(s))]
        np.testing.assert_allclose(profile, expected, rtol=1e-9)


def test_null_quantiles_hold_at_a_finite_length():
    # the tabulated quantiles are the limit's (10^6 draws at n = 1,000); at n = 400 the share of
    # i.i.d. series beyond the 5% and 1% quantiles is within 3 binomial SEs of 5% and 1%
    rng = np.random.default_rng(1)
    n, reps = 400, 3000
    low = int(TRIM * n)
    sups = np.array([self_normalised_profile(row)[low - 1:n - low].max() for row in rng.normal(size=(reps, n))])
    for p in (0.05, 0.01):
        share = np.mean(sups > QUANTILES[p])
        assert abs(share - p) <= 3 * math.sqrt(p * (1 - p) / reps), (p, share)


def test_pvalue_is_monotone_and_bounded():
    statistics = np.linspace(0, 500, 101)
    ps = [pvalue(s) for s in statistics]
    assert all(a >= b for a, b in zip(ps, ps[1:]))
    assert ps[0] == 1.0 and ps[-1] < min(QUANTILES)  # beyond the table: the power law
    assert pvalue(QUANTILES[LEVEL]) == pytest.approx(LEVEL)


def _rate(make, reps=500, n=300, seed=0, given=()):
    rng = np.random.default_rng(seed)
    steps = np.arange(n, dtype=float)
    return np.mean([len(spread_changes(y, steps, list(given))) > 0 for y in make(rng, reps, n)])


NO_CHANGE = {
    "white": lambda rng, reps, n: rng.normal(size=(reps, n)),
    "t(1.5)": lambda rng, reps, n: rng.standard_t(1.5, size=(reps, n)),
    "AR(0.9)": lambda rng, reps, n: ar1(0.9, n, rng, reps),
    "AR(0.99)": lambda rng, reps, n: ar1(0.99, n, rng, reps),
    # a learning curve: second differences cancel its line, and its curvature is small
    "climb": lambda rng, reps, n: 5 * (1 - np.exp(-np.arange(n) / (n / 5))) + rng.normal(size=(reps, n)),
}


@pytest.mark.parametrize("kind", NO_CHANGE)
def test_no_change_of_spread_reported_where_there_is_none(kind):
    # measured 0-0.8% on 600 series of each kind at n = 100-3,000 (t(1.5) at n = 300: 0.8%)
    rate = _rate(NO_CHANGE[kind], seed=len(kind))
    assert rate <= 0.008 + 3 * math.sqrt(0.008 * 0.992 / 500), (kind, rate)


def test_a_level_shift_given_as_a_change_is_not_a_change_of_spread():
    shift = lambda rng, reps, n: rng.normal(size=(reps, n)) + 3.0 * (np.arange(n) >= n // 2)  # noqa: E731
    assert _rate(shift, given=[150]) <= 0.01
    # not given, the two second differences that straddle it are the largest: still alike spreads
    assert _rate(shift) <= 0.01


def test_volatility_clustering_is_reported_at_the_rate_the_docs_say():
    # GARCH(1, 1) keeps calm and busy stretches for tens of steps: some are reported (measured
    # 10% at n = 300 and 16% at n = 1,000 for a = 0.15, b = 0.84; 0-1.2% for a = 0.1, b = 0.8)
    busy = _rate(lambda rng, reps, n: garch(n, rng, reps, omega=0.01, a=0.15, b=0.84), reps=400, seed=3)
    assert busy <= 0.10 + 3 * math.sqrt(0.10 * 0.90 / 400), busy
    mild = _rate(lambda rng, reps, n: garch(n, rng, reps, omega=0.1, a=0.1, b=0.8), reps=400, seed=4)
    assert mild <= 0.012 + 3 * math.sqrt(0.012 * 0.988 / 400), mild


def test_a_burst_is_not_a_change_when_the_spreads_out_to_the_next_changes_agree():
    # persistent GARCH (a = 0.05, b = 0.94) on 3,000 points: measured 2.5-5% with the ratio
    # floor judged near the change and wide, 16-18% judged near only (a burst's edge is a large
    # change near it; out to the next changes the spreads barely differ)
    reps = 200
    long_run = _rate(lambda rng, r, n: garch(n, rng, r), reps=reps, n=3000, seed=8)
    assert long_run <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps), long_run


def test_the_ratio_floor_is_judged_near_the_change_and_wide():
    # absolute second differences: 1 for 1,000, 3 for 100 (a burst), then 1.2 for 1,000; a
    # cut at 1,000 found by the interval [900, 1,100) reads x3 near it, x1.2 out to the ends
    size = np.r_[np.ones(1000), np.full(100, 3.0), np.full(1000, 1.2)]
    assert _large_enough(size, {1000: (500.0, 900, 1100)}) == {}
    # a change that holds out to the ends is kept
    size = np.r_[np.ones(1000), np.full(1100, 3.0)]
    assert list(_large_enough(size, {1000: (500.0, 900, 1100)})) == [1000]


@pytest.mark.parametrize("factor, n, measured", [(3.0, 300, 0.84), (0.5, 1000, 0.91), (2.0, 1000, 0.883)])
def test_power_against_a_change_of_spread_halfway(factor, n, measured):
    def make(rng, reps, length):
        return rng.normal(size=(reps, length)) * np.where(np.arange(length) >= length // 2, factor, 1.0)
    reps = 300
    power = _rate(make, reps=reps, n=n, seed=int(10 * factor))
    assert power >= measured - 3 * math.sqrt(measured * (1 - measured) / reps), power


def test_placed_near_where_it_happens_and_sized():
    rng = np.random.default_rng(5)
    steps = np.arange(600.0)
    errors, ratios, afters, missed, extra = [], [], [], 0, 0
    for _ in range(100):
        y = rng.normal(size=600) * np.where(np.arange(600) >= 400, 3.0, 1.0)
        found = spread_changes(y, steps, [])
        if found.empty:
            missed += 1
            continue
        # a second change in the white stretch: short intervals' second differences (MA(2))
        # reach the far tail 2-3x as often as the limit says (1 series of these 100)
        extra += len(found) - 1
        nearest = found.iloc[int(np.argmin(np.abs(found["changepoint"] - 400)))]
        errors.append(abs(nearest["changepoint"] - 400))
        ratios.append(nearest["ratio"])
        afters.append(nearest["sd_after"])
    assert missed <= 13  # power ~94% here (x3 at n = 300 halfway: 88%); 3 binomial SEs of 100
    assert extra <= 3
    assert np.median(errors) <= 5 and np.quantile(errors, 0.9) <= 25, errors
    assert np.median(ratios) == pytest.approx(3.0, rel=0.1)
    assert np.median(afters) == pytest.approx(3.0, rel=0.1)  # white noise: its own SD


def test_a_small_change_on_a_long_series_is_not_worth_a_line():
    rng = np.random.default_rng(6)
    y = rng.normal(size=20_000) * np.where(np.arange(20_000) >= 10_000, 1.2, 1.0)
    assert len(spread_changes(y, np.arange(20_000.0), [])) == 0  # significant, but x1.2 < RATIO
    assert RATIO > 1.2


def test_two_changes_found_by_searching_each_side_again():
    rng = np.random.default_rng(7)
    scale = np.r_[np.ones(400), np.full(400, 4.0), np.ones(400)]
    found = spread_changes(rng.normal(size=1200) * scale, np.arange(1200.0), [])
    assert len(found) == 2
    assert abs(found["changepoint"].iloc[0] - 400) <= 15 and abs(found["changepoint"].iloc[1] - 800) <= 15
    assert found["ratio"].iloc[0] > 3 and found["ratio"].iloc[1] < 1 / 3


def test_short_constant_and_tied_series_give_no_change():
    steps = np.arange(300.0)
    assert spread_changes(np.zeros(300), steps, []).empty
    assert spread_changes(np.arange(300.0), steps, []).empty  # a line: every second difference 0
    assert spread_changes(np.random.default_rng(0).normal(size=41), steps[:41], []).empty


def test_real_delta_loss_pi_says_its_noise_grew_where_its_level_moved():
    table = ss.read_log(REAL / "spinningup" / "ppo-cost5" / "progress.txt", wide=True)
    result = detect_regimes(table["DeltaLossPi"])
    assert result.changepoints == [280]
    row = result.spread_changes.to_dict("records")
    assert len(row) == 1 and row[0]["at_change"] and row[0]["changepoint"] == 280
    assert 3 <= row[0]["ratio"] <= 6  # an SD of ~0.005 before, ~0.015-0.02 after
    text = result.summary()
    assert "the noise's spread changes at 280 (x" in text.splitlines()[0]
    assert "change at 280: a jump" in text and "and the noise SD x" in text


def test_real_cartpole_at_its_cap_says_the_noise_vanishes():
    log = ss.read_log(REAL / "sb3" / "a2c-CartPole-v1.monitor.csv", wide=True)
    result = detect_regimes(log["r"])
    text = result.summary()
    assert "(to none)" in text.splitlines()[0] and "the noise vanishes" in text


@pytest.mark.parametrize("name", ["zoo-benchmark-ppo-LunarLander-v2", "dqn-Acrobot-v1", "ppo-Pong-v4"])
def test_real_runs_with_one_kind_of_noise_report_no_change_of_spread(name):
    # a trained agent evaluated; a fast learner flat for 950 episodes; Pong's cap with rare 19s
    log = ss.read_log(REAL / "sb3" / f"{name}.monitor.csv", wide=True)
    assert detect_regimes(log["r"]).spread_changes.empty


def test_models_of_spread_and_the_json_form():
    rng = np.random.default_rng(8)
    y = rng.normal(size=600) * np.where(np.arange(600) >= 300, 3.0, 1.0)
    assert detect_regimes(y, model="meanvar").spread_changes.empty  # its regimes are the spreads
    mean = detect_regimes(y, model="mean")
    assert len(mean.spread_changes) == 1
    assert "one regime, no change of level found" in mean.summary() or mean.changepoints
    payload = detect_regimes(y).to_dict()["spread_changes"]
    assert len(payload) == 1 and set(payload[0]) >= {"step", "ratio", "pvalue", "at_change"}


def test_plot_marks_a_change_of_spread_within_a_regime():
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(9)
    y = rng.normal(size=600) * np.where(np.arange(600) >= 300, 3.0, 1.0)
    result = detect_regimes(y)
    assert result.changepoints == [] and len(result.spread_changes) == 1
    ax = result.plot()
    dash_dotted = [line for line in ax.get_lines() if line.get_linestyle() == "-."]
    assert len(dash_dotted) == 1
    assert dash_dotted[0].get_xdata()[0] == result.spread_changes["step"].iloc[0]
    assert "spread changes at" in ax.get_title()


def test_a_series_that_is_its_cycle_exactly_is_one_regime():
    # a 21 with a 19 every 50th step: the seasonal cycle removed leaves rounding, whose
    # "changes" read 1.6e15 noise SDs before
    y = np.where(np.arange(300) % 50 == 0, 19.0, 21.0)
    result = detect_regimes(y)
    assert result.changepoints == []
    assert any("repeats a cycle of period 50 exactly" in note for note in result.notes)
