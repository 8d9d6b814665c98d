"""The input contract: coercion, NaN policy, shapes, clear errors."""

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats._input.series import as_runs, as_series
from swarmstats.errors import InputError


def test_accepts_lists_arrays_series_and_one_column_frames():
    for y in ([1, 2, 3], np.array([1, 2, 3]), pd.Series([1, 2, 3]), pd.DataFrame({"a": [1, 2, 3]}),
              np.array([[1, 2, 3]])):
        np.testing.assert_array_equal(as_series(y).values, [1.0, 2.0, 3.0])


def test_pandas_index_becomes_the_step_axis():
    series = as_series(pd.Series([1.0, 2.0], index=[10, 20], name="reward"))
    assert series.name == "reward"
    np.testing.assert_array_equal(series.steps, [10.0, 20.0])
    assert as_series(pd.Series([1.0, 2.0])).steps is None


def test_nan_raise_says_how_many_and_where():
    with pytest.raises(InputError, match=r"2 non-finite value\(s\).*position\(s\) 1, 3"):
        as_series([1.0, np.nan, 2.0, np.inf])
    assert len(as_series([1.0, np.nan, 2.0], nan_policy="omit")) == 2
    with pytest.raises(InputError, match="nan_policy"):
        as_series([1.0], nan_policy="drop")


@pytest.mark.parametrize("bad, match", [
    (np.zeros((3, 3)), "1-D"),
    (["a", "b"], "non-numeric"),
    (pd.DataFrame({"a": [1], "b": [2]}), "2 columns"),
    ([[1, 2], [3]], "could not read|non-numeric|1-D"),
])
def test_bad_shapes_and_types_raise_input_error(bad, match):
    with pytest.raises(InputError, match=match):
        as_series(bad)


def test_input_error_is_a_value_error():
    with pytest.raises(ValueError):
        ss.ess("not numbers")


def test_runs_from_every_accepted_shape():
    assert len(as_runs(np.zeros((3, 10)))) == 3
    assert [len(r) for r in as_runs([np.zeros(5), np.zeros(7)])] == [5, 7]
    frame = pd.DataFrame({"g": [1, 1, 2], "v": [0.1, 0.2, 0.3]})
    assert [r.name for r in as_runs(frame, group="g")] == ["1", "2"]
    with pytest.raises(InputError, match="no column 'h'"):
        as_runs(frame, group="h")


def test_values_whose_squares_overflow_are_refused():
    with pytest.raises(InputError, match="rescale"):
        as_series([1e200, -1e200, 0.0])
    assert len(as_series([1e70, -1e70])) == 2
