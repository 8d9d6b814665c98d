"""A lone far value is an outlier, not a regime (swarmstats.regimes.spikes): the trend model's
changes must pay their penalty with such values pulled in.

Two public logs showed the need: a PPO run's DeltaLossPi (Spinning Up) near -0.03 but +0.184
at epoch 382 was read as a five-epoch regime with two jumps of 17.6 noise SDs, and QR-DQN's
Breakout episode lengths (~10,000) with one episode at the 400,000-step cap as a five-episode
regime of mean 95,000."""

import numpy as np
import pytest

import swarmstats as ss
from swarmstats.regimes.costs import MeanCost
from swarmstats.regimes.offline import detect_regimes
from swarmstats.regimes.spikes import (
    MAX_CLIPPED,
    PULLED_TO,
    SPIKE,
    defuse_spikes,
    merge_spike_carried,
)

from .conftest import ar1
from .test_real_logs import REAL


def _shortest_regime(result):
    return int(result.segments["n"].min())


def test_spinning_up_delta_loss_spike_is_an_outlier_not_a_five_epoch_regime():
    table = ss.read_log(REAL / "spinningup" / "ppo-cost5" / "progress.txt", wide=True)
    result = detect_regimes(table["DeltaLossPi"])
    # before: changes at 378 and 383 round the spike at epoch 382, a "trend of 3.9 per 100 epochs"
    assert _shortest_regime(result) >= 50, result.summary()
    assert not any(370 <= c <= 390 for c in result.changepoints), result.changepoints
    note = next(note for note in result.notes if "lone value" in note)
    assert "step 382: 0.1842" in note and "not a regime" in note and "1 change that paid only with it" in note


def test_breakout_episodes_stopped_at_the_cap_are_not_a_regime():
    log = ss.read_log(REAL / "sb3-long" / "qrdqn-Breakout-v4.monitor.csv", wide=True)
    lengths = log["l"].to_numpy(float)
    assert (lengths == 400_000).sum() == 2  # two episodes at the cap among lengths of ~10,000
    result = detect_regimes(lengths)
    # before: a regime of episodes 6011-6015, mean 95,230 [-100,900, 291,400]
    assert _shortest_regime(result) >= 100, result.summary()
    assert result.segments["mean"].max() < 20_000
    # the reward of the same run is read as before: a climb from ~0 to ~400 in three bends
    assert len(detect_regimes(log["r"].to_numpy(float)).changepoints) == 3


def test_lone_far_values_are_pulled_in_and_nothing_else():
    rng = np.random.default_rng(190)
    y = rng.normal(size=400)
    y[[50, 200, 201, 330]] += [30.0, -25.0, -25.0, 12.0]  # two and a pair of lone far values
    y[100:105] += 30.0  # a run of min_size: a regime the search may place
    pulled, where, sizes = defuse_spikes(y, 5)
    assert where.tolist() == [50, 200, 201, 330]
    assert (sizes > SPIKE).all()
    untouched = np.setdiff1d(np.arange(400), where)
    np.testing.assert_array_equal(pulled[untouched], y[untouched])
    # pulled to PULLED_TO robust SDs on the side they lay: still out, no longer far
    assert pulled[50] > np.median(y[46:55]) and pulled[200] < np.median(y[196:205])
    assert abs(pulled[50] - np.median(y[46:55])) < 2 * PULLED_TO


@pytest.mark.parametrize("case", ["tied", "two_modes", "one_point_regimes", "short"])
def test_where_no_value_is_a_spike(case):
    rng = np.random.default_rng(191)
    if case == "tied":  # a reward at its floor: the rare value off it is the signal
        y = np.where(rng.random(300) < 0.03, -110.0, -200.0)
        size = 5
    elif case == "two_modes":  # 30% of episodes fall: a second mode, not outliers
        y = np.where(rng.random(300) < 0.3, 20 + rng.normal(size=300), 990 + rng.normal(size=300))
        size = 5
    elif case == "one_point_regimes":  # min_size 1: a single value may be a regime
        y, size = np.r_[rng.normal(size=50), 40.0, rng.normal(size=50)], 1
    else:
        y, size = np.array([0.0, 0.1, 50.0, 0.2]), 5
    pulled, where, _ = defuse_spikes(y, size)
    assert len(where) == 0
    assert pulled is y or np.array_equal(pulled, y)
    if case == "two_modes":
        assert ((np.abs(y - np.median(y)) > 10).mean()) > MAX_CLIPPED


def test_only_changes_that_pay_thanks_to_a_spike_are_merged():
    rng = np.random.default_rng(192)
    y = np.r_[rng.normal(size=150), rng.normal(3.0, 1.0, size=150)]
    y[60] = 40.0
    pulled, _, _ = defuse_spikes(y, 5)
    penalty = 3 * np.log(len(y))
    # round the spike: both merged; the real shift at 150 stays
    assert merge_spike_carried([56, 61, 150], MeanCost(y), MeanCost(pulled), penalty) == ([150], 2)
    # one that pays without the spike stays
    assert merge_spike_carried([150], MeanCost(y), MeanCost(pulled), penalty) == ([150], 0)
    # one the search kept although it never paid on the series itself is left alone
    flat = np.r_[y[:150], y[:150]]
    flat_pulled, _, _ = defuse_spikes(flat, 5)
    assert merge_spike_carried([100], MeanCost(flat), MeanCost(flat_pulled), penalty) == ([100], 0)
    assert merge_spike_carried([], MeanCost(y), MeanCost(pulled), penalty) == ([], 0)


def test_contaminated_noise_gives_no_regimes_and_a_real_short_regime_is_kept():
    # 1% of the values 20 SDs out, white and AR(0.5): 0.015 and 0.06 spurious changes per
    # 500-point series before (200 series each), 0 and 0.005 now; a 5-point regime of +6 SD
    # is found at both ends (within 2) in 87% of 200 series before and after
    rng = np.random.default_rng(193)
    reps = 60

    def contaminated(phi):
        e = rng.normal(size=500)
        y = np.empty(500)
        y[0] = e[0]
        for t in range(1, 500):
            y[t] = phi * y[t - 1] + np.sqrt(1 - phi * phi) * e[t]
        hit = rng.random(500) < 0.01
        y[hit] += 20.0 * rng.choice([-1.0, 1.0], hit.sum())
        return y

    spurious = [len(detect_regimes(contaminated(phi)).changepoints) for phi in (0.0, 0.5) for _ in range(reps)]
    # at the measured rate (~0.3%), 3 series or more of 120 with a change has P < 1%
    assert np.count_nonzero(spurious) <= 2, np.count_nonzero(spurious)
    found = 0
    for _ in range(reps):
        y = rng.normal(size=500)
        y[200:205] += 6.0
        changes = detect_regimes(y).changepoints
        found += any(abs(c - 200) <= 2 for c in changes) and any(abs(c - 205) <= 2 for c in changes)
    assert found >= 45, found  # P(< 45 of 60) ~ 1% at 87%


def test_a_first_value_far_from_the_rest_is_said_as_a_start():
    # verl's GSM8K validation score: 0.22 at step 0 (before training), ~0.88 from step 5 on;
    # one point is shorter than a regime, and the start was said nowhere
    table = ss.read_log(REAL / "verl" / "qwen2-7b_math.log", wide=True)
    score = table.set_index("step")["val-core/openai/gsm8k/reward/mean@1"].dropna()
    result = detect_regimes(score)
    note = [n for n in result.notes if n.startswith("the first value (step 0: 0.221")]
    assert len(note) == 1 and "a start of its own" in note[0], result.notes
    # a last value far out: an outlier, or the first of a change not yet a regime
    rng = np.random.default_rng(191)
    y = np.r_[rng.normal(size=80), 30.0]
    assert any(n.startswith("the last value (step 80: 30") for n in detect_regimes(y).notes)


@pytest.mark.parametrize("kind", ["t(3)", "AR(0.9)"])
def test_stationary_noise_rarely_has_a_first_or_last_value_said_apart(kind):
    # measured on 300 series each at 50 and 300 points: white 0%, t(3) 0-0.7%, AR(0.9)
    # 0-0.7%, GARCH 0%; t(1.5), whose variance is infinite, 2-4% (its far values are real)
    rng = np.random.default_rng(192)
    series = rng.standard_t(3, size=(300, 50)) if kind == "t(3)" else ar1(0.9, 50, rng, 300)
    said = sum(any(" value (step " in note for note in detect_regimes(y).notes) for y in series)
    assert said <= 6, said  # 2%: P(> 6 of 300) < 1% at 0.7%
