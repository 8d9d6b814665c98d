"""F1 with a margin and covering: the reference's worked example and conventions."""

import pytest

from swarmstats.errors import InputError
from swarmstats.regimes.scoring import covering, f1_score


def test_worked_example():
    result = f1_score([30, 70], [28, 50, 75], margin=5, n=100)
    assert result.precision == pytest.approx(2 / 3) and result.recall == 1.0
    assert result.f1 == pytest.approx(0.8)
    assert covering([30, 70], [28, 50, 75], 100) == pytest.approx(0.720476, abs=1e-6)


def test_no_change_prediction_and_conventions():
    empty = f1_score([30, 70], [], margin=5)
    assert (empty.precision, empty.recall, empty.f1) == (1.0, 0.0, 0.0)
    assert covering([30, 70], [], 100) == pytest.approx(0.34)
    assert f1_score([], [], margin=5).f1 == 1.0


def test_one_to_one_matching():
    result = f1_score([30, 33], [31], margin=5)
    assert (result.precision, result.recall) == (1.0, 0.5)
    assert result.f1 == pytest.approx(2 / 3)
    two_near_one = f1_score([50], [48, 52], margin=5)
    assert two_near_one.true_positives == 1 and two_near_one.precision == 0.5


def test_several_annotators():
    result = f1_score([[30, 70], [32]], [31, 70], margin=3)
    assert result.precision == 1.0
    assert result.recall == pytest.approx((1.0 + 1.0) / 2)
    assert covering([[30, 70], [30, 70]], [30, 70], 100) == 1.0


def test_bad_points_are_input_errors():
    with pytest.raises(InputError):
        f1_score([0, 10], [5])
    with pytest.raises(InputError):
        covering([10], [120], 100)
