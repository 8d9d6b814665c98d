"""CUSUM: Siegmund's ARL, thresholds from a target, measured run lengths and delays."""

import math

import numpy as np
import pytest

from swarmstats.errors import InputError
from swarmstats.regimes.cusum import CusumDetector, cusum_arl, cusum_threshold


def test_reference_values():
    assert cusum_arl(5.0, 0.5) == pytest.approx(465, rel=0.02)  # Monte Carlo: 466
    assert cusum_arl(4.0, 0.5) == pytest.approx(168, rel=0.02)
    assert cusum_arl(5.0, 0.5, shift=1.0) == pytest.approx(10.4, rel=0.03)
    # stream-level alpha = 0.05 over 1000 points: ARL0 ~ 19,500, h ~ 8.7
    assert cusum_threshold(-1000 / math.log(0.95), 0.5) == pytest.approx(8.7, abs=0.05)


def first_alarm(detector, stream):
    for i, x in enumerate(stream):
        if detector.update(x).alarm:
            return i + 1
    return None


@pytest.mark.parametrize("target", [100, 400])
def test_measured_in_control_run_length_within_30_percent_of_target(target):
    rng = np.random.default_rng(target)
    reps, cap = 300, 20 * target
    lengths = []
    for _ in range(reps):
        detector = CusumDetector(arl=target, mean=0.0, sd=1.0)
        length = first_alarm(detector, rng.normal(size=cap))
        lengths.append(cap if length is None else length)
    mean = float(np.mean(lengths))
    # run lengths are roughly exponential: the SE of the mean is ~ target / sqrt(reps), ~6%
    assert abs(mean - target) <= 0.3 * target


def test_a_two_sd_shift_is_caught_quickly_at_a_strict_false_alarm_rate():
    rng = np.random.default_rng(5)
    delays = []
    for _ in range(200):
        detector = CusumDetector(mean=0.0, sd=1.0)  # alpha 0.05 over 1000 points
        stream = np.r_[rng.normal(size=300), rng.normal(2.0, 1.0, 200)]
        alarm = first_alarm(detector, stream)
        if alarm is not None and alarm > 300:
            delays.append(alarm - 300)
    assert len(delays) >= 190
    assert np.median(delays) <= 10  # Siegmund: (h + 1.166) / 1.5 ~ 6.6


def test_change_location_estimate_and_scale_invariance():
    stream = np.r_[np.zeros(100), np.full(30, -3.0)] + np.random.default_rng(6).normal(0, 0.1, 130)
    for scale, offset in ((1.0, 0.0), (1000.0, 5e6)):
        detector = CusumDetector(arl=1000, warmup=50)
        detector.update_many(stream * scale + offset)
        alarm, start = detector.alarms[0]
        # the start estimate is the last time the alarming sum was 0: in-control noise can
        # have lifted the sum a few steps before the change
        assert 100 <= alarm <= 106 and abs(start - 100) <= 8


def test_bad_configuration():
    with pytest.raises(InputError):
        CusumDetector(shift=0)
    with pytest.raises(InputError):
        CusumDetector(arl=0.5)
    with pytest.raises(InputError):
        CusumDetector(warmup=2)
    with pytest.raises(InputError):
        CusumDetector(mean=0.0, sd=1.0).update(float("nan"))
