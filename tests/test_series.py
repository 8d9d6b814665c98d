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


def test_runs_that_are_ragged_nested_lists_are_named_not_a_traceback():
    # np.ndim on a ragged run raised numpy's "inhomogeneous shape" ValueError
    with pytest.raises(InputError, match=r"runs\[0\]: could not read it"):
        as_runs([[[1, 2], [3]], [[1, 2], [3]]])


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


def test_steps_whose_squares_overflow_or_that_are_not_numbers_are_refused():
    # a slope's sum of squared steps overflowed on an axis running to 3e304: the verdict read
    # "the projected change is 0 (at most 0 either way)" over "the next 2,959,...,000 steps"
    with pytest.raises(InputError, match="steps: values as large as 3e\\+304 .* rescale the step axis"):
        as_series([0.1, 0.2, 0.3], steps=[0.0, 1e304, 3e304])
    with pytest.raises(InputError, match="not a finite number \\(inf\\) at position 1"):
        as_series([0.1, 0.2, 0.3], steps=[0.0, np.inf, 2.0])
    assert as_series([0.1, 0.2], steps=[1e70, 2e70]).steps.tolist() == [1e70, 2e70]
    index = pd.Index([0.0, 1e300, 2e300], name="step")
    with pytest.raises(InputError, match="rescale the step axis"):
        as_series(pd.Series([0.1, 0.2, 0.3], index=index))
