"""BOCPD with a line as its in-control reference (model="trend"): a steady climb is one regime,
an alarm a change of level or slope, and false alarms as rare as the level model promises
(>= 20,000 points between them).  Full numbers: docs/regimes.md."""

from pathlib import Path

import numpy as np
import pytest

import swarmstats as ss
from swarmstats.errors import InputError
from swarmstats.regimes import OnlineRegimeDetector

from .conftest import ar1


def test_false_alarms_on_persistent_and_heavy_tailed_noise_stay_within_the_stated_rate():
    # stated: <= 0.5 per 10,000 points, ~0.5 expected in 10,000; measured 0.2-0.35 per 10,000
    # over 20 streams of 10,000 each of normal, AR(0.5), t(3), AR(0.9).  Poisson(0.5) exceeds 2
    # with probability 1.4%
    rng = np.random.default_rng(190)
    for kind, streams in {"AR(0.5)": ar1(0.5, 5_000, rng, 2), "t(3)": rng.standard_t(3, size=(2, 5_000))}.items():
        alarms = sum(len(OnlineRegimeDetector(model="trend").fit(y).alarms) for y in streams)
        assert alarms <= 2, (kind, alarms)


def test_a_steady_drift_is_one_regime_not_a_staircase():
    # 0.02 noise SDs per step: the level model alarmed 253 times in 30,000 points (0.002: 64),
    # the line 0 (3)
    rng = np.random.default_rng(191)
    streams = 0.02 * np.arange(5_000) + rng.normal(size=(2, 5_000))
    assert sum(len(OnlineRegimeDetector(model="trend").fit(y).alarms) for y in streams) <= 1


def test_a_shift_of_level_is_caught_soon():
    # 2 SDs in AR(0.5) noise: caught within 200 points in 34 of 40 streams, median delay 19
    # (the level model: 28 of 40, 16)
    rng = np.random.default_rng(192)
    caught = 0
    for y in ar1(0.5, 1_200, rng, 20):
        y[600:] += 2 / np.sqrt(0.75)
        caught += any(600 <= a["index"] < 800 for a in OnlineRegimeDetector(model="trend").fit(y).alarms)
    assert caught >= 12, caught  # 3 binomial SEs below 85%


def test_the_result_says_what_no_change_meant_and_the_options_are_checked():
    y = 0.05 * np.arange(300) + np.random.default_rng(193).normal(size=300)
    result = OnlineRegimeDetector(model="trend").fit(y)
    assert result.model == "trend" and result.alarms == []
    assert "in control along a line since each change" in result.summary()
    assert "along a line" not in OnlineRegimeDetector().fit(y).summary()
    with pytest.raises(InputError, match="neither mean nor sd"):
        OnlineRegimeDetector(model="trend", mean=0.0, sd=1.0)
    with pytest.raises(InputError, match="model"):
        OnlineRegimeDetector(model="slope")


def test_a_climb_on_a_real_curve_is_where_it_levels_off_not_a_staircase():
    # PPO Pendulum, four workers as one run: a climb from ~episode 80 to a plateau near 270.
    # The level model alarms three times on the way up; the line once, where the climb ends
    log = ss.read_log(Path(__file__).resolve().parent / "fixtures" / "real" / "sb3" / "ppo-Pendulum-v1")
    y = log.loc[log["metric"] == "r", "value"].to_numpy(float)
    level = OnlineRegimeDetector().fit(y).alarms
    line = OnlineRegimeDetector(model="trend").fit(y).alarms
    assert len(level) == 3 and len(line) == 1, (level, line)
    assert 200 <= line[0]["start"] <= 300, line


def test_a_stream_bocpd_cannot_judge_points_to_cusum_along_a_line():
    # DQN MountainCar: -200 (the episode cap) in most warm-up episodes
    log = ss.read_log(Path(__file__).resolve().parent / "fixtures" / "real" / "sb3" / "dqn-MountainCar-v0.monitor.csv")
    y = log.loc[log["metric"] == "r", "value"].to_numpy(float)
    assert "--online-method cusum-trend" in OnlineRegimeDetector(model="trend").fit(y).notes[0]
    assert "--online-method cusum)" in OnlineRegimeDetector().fit(y).notes[0]
