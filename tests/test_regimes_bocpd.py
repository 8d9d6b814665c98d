"""BOCPD: detection delay, false alarms, streaming equivalence, bounded cost."""

import numpy as np
import pytest

from swarmstats.errors import InputError
from swarmstats.regimes.bocpd import OnlineRegimeDetector


def test_two_sd_shift_median_delay_at_most_10_steps():
    rng = np.random.default_rng(1)
    delays, early = [], 0
    for _ in range(100):
        detector = OnlineRegimeDetector()  # prior from a 20-point warm-up
        detector.update_many(np.r_[rng.normal(size=300), rng.normal(2, 1, 100)])
        early += sum(1 for alarm, _ in detector.alarms if alarm < 300)
        late = [alarm for alarm, _ in detector.alarms if alarm >= 300]
        if late:
            delays.append(late[0] - 300)
    assert len(delays) >= 95
    assert np.median(delays) <= 10  # measured 5
    assert early <= 10  # measured 4 false alarms in 30,000 in-control points


def test_false_alarm_rate_on_a_long_stationary_stream():
    detector = OnlineRegimeDetector(mean=0.0, sd=1.0)
    detector.update_many(np.random.default_rng(2).normal(size=20_000))
    assert len(detector.alarms) <= 10  # measured 1 (0.05 per 1000 points)


def test_change_location_and_scale_free_prior():
    stream = np.r_[np.full(150, 1e6), np.full(60, 1e6 + 500)] + np.random.default_rng(3).normal(0, 100, 210)
    detector = OnlineRegimeDetector()
    detector.update_many(stream)
    alarm, start = detector.alarms[0]
    assert 150 <= alarm <= 160 and abs(start - 150) <= 3


def test_update_many_equals_a_loop_and_pruning_bounds_the_state():
    x = np.r_[np.random.default_rng(4).normal(size=3000), np.random.default_rng(5).normal(3, 1, 500)]
    a, b = OnlineRegimeDetector(), OnlineRegimeDetector()
    for value in x:
        a.update(value)
    b.update_many(x[:1234])
    b.update_many(x[1234:])
    assert a.state == b.state and a.alarms == b.alarms
    assert a.state.active_run_lengths < 400


def test_bad_configuration():
    for kwargs in ({"expected_run": 1}, {"threshold": 1.5}, {"lag": -1}, {"sd": 0.0}, {"warmup": 2}):
        with pytest.raises(InputError):
            OnlineRegimeDetector(**kwargs)
    with pytest.raises(InputError):
        OnlineRegimeDetector(mean=0.0, sd=1.0).update(float("inf"))
