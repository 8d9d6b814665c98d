"""The input contract: turn whatever the user passed into clean float64 arrays.

Every public estimator goes through :func:`as_series` (one run) or
:func:`as_runs` (several runs), so the rules live in one place:

* anything ``numpy.asarray`` takes is accepted; a pandas Series keeps its
  numeric index as the step axis;
* non-finite values raise :class:`InputError` (``nan_policy="raise"``) with how
  many there are and where, or are dropped (``nan_policy="omit"``);
* wrong shape, non-numeric data and too few points raise :class:`InputError`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._result import plain_number
from ..errors import InputError, check_choice
from .foreign import from_foreign

NAN_POLICIES = ("raise", "omit")


def unit_of(name: str) -> str:
    """What one step of an axis named ``name`` is, for "per 100 <unit>": a word in the plural.

    >>> unit_of("epoch"), unit_of("iterations"), unit_of("total_timesteps")
    ('epochs', 'iterations', 'total_timesteps')
    """
    return name + "s" if name.isalpha() and not name.endswith("s") else name  # epoch -> epochs


@dataclass(frozen=True)
class Series:
    """One validated run: finite float64 ``values`` and optional ``steps``."""

    values: np.ndarray
    steps: np.ndarray | None = None
    name: str | None = None
    step_name: str | None = None  # the step axis' column or index name, for "per 100 <unit>"

    @property
    def step_unit(self) -> str:
        """What a step is, for sentences: "steps", or the step axis' own name ("epochs",
        "total_timesteps") when it has one."""
        name = self.step_name if self.steps is not None else None
        if not name or name.strip("_").lower() in ("step", "steps", "global_step", "index"):
            return "steps"
        return unit_of(name)

    def __len__(self) -> int:
        return len(self.values)

    def step_of(self, index: int | None) -> float | int | None:
        """The step at position ``index`` (the index itself without a step axis)."""
        if index is None:
            return None
        if self.steps is None:
            return int(index)
        if index >= len(self.steps):
            return None
        return plain_number(self.steps[index])

    def tail(self, start: int) -> "Series":
        steps = None if self.steps is None else self.steps[start:]
        return Series(self.values[start:], steps, self.name, self.step_name)


def check_nan_policy(nan_policy: str) -> None:
    check_choice("nan_policy", nan_policy, NAN_POLICIES)


def as_float_array(y, argname: str) -> np.ndarray:
    """``y`` as a float64 array of any shape (booleans as 0/1, numbers written as text read);
    InputError naming ``argname`` for words, ragged lists and the like."""
    try:
        array = np.asarray(y)
    except Exception as exc:  # ragged lists and the like
        raise InputError(f"{argname}: could not read it as an array ({exc})") from None
    if array.dtype == object or array.dtype.kind in "US":
        try:
            array = array.astype(float)
        except (TypeError, ValueError):
            raise InputError(
                f"{argname}: expected numbers, got non-numeric values "
                f"(e.g. {_first_non_numeric(array)!r})"
            ) from None
    if array.dtype.kind == "b":
        array = array.astype(float)
    if array.dtype.kind not in "iuf":
        raise InputError(f"{argname}: expected numbers, got dtype {array.dtype}")
    return array.astype(np.float64, copy=False)


def _first_non_numeric(array: np.ndarray):
    for item in array.ravel():
        try:
            float(item)
        except (TypeError, ValueError):
            return item
    return None


def _steps_from_index(index: pd.Index) -> np.ndarray | None:
    """A pandas index becomes the step axis only when it carries information."""
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return None
    if index.dtype.kind in "iuf":
        return np.asarray(index, dtype=np.float64)
    if index.dtype.kind == "M":  # datetimes: seconds since the first one
        values = np.asarray(index.asi8, dtype=np.float64) / 1e9
        return values - values[0] if len(values) else values
    return None


def _apply_nan_policy(values, steps, nan_policy, argname):
    finite = np.isfinite(values)
    if finite.all():
        return values, steps
    bad = np.flatnonzero(~finite)
    if nan_policy == "raise":
        where = ", ".join(str(i) for i in bad[:5]) + (" ..." if len(bad) > 5 else "")
        raise InputError(
            f"{argname}: {len(bad)} non-finite value(s) (NaN or inf) at position(s) {where}; "
            "pass nan_policy='omit' to drop them"
        )
    return values[finite], None if steps is None else steps[finite]


# Fourth powers (the spread of squared deviations, in the variance test and the
# MCSE of the SD) overflow float64 beyond ~1e77; keep room for sums of them.
MAX_MAGNITUDE = 1e75


def _check_scale(values: np.ndarray, argname: str, what: str = "the series") -> None:
    """Refuse values whose squares would overflow: a silent inf is a wrong number.  Steps too:
    a slope's sum of squared steps overflowed on an axis running to 3e304, and the verdict read
    "the projected change is 0 (at most 0 either way)"."""
    if len(values) and np.abs(values).max() > MAX_MAGNITUDE:
        raise InputError(
            f"{argname}: values as large as {np.abs(values).max():.3g} cannot be analysed in "
            f"float64 without overflow; rescale {what}"
        )


def as_series(
    y,
    *,
    argname: str = "y",
    nan_policy: str = "raise",
    min_length: int = 1,
    name: str | None = None,
    steps=None,
) -> Series:
    """Validate one run; ``steps`` (or a pandas Series' index) is its step axis.

    >>> as_series([1, 2, 3]).values
    array([1., 2., 3.])
    >>> as_series(pd.Series([0.5, 0.6], index=pd.Index([10, 20], name="epoch"))).step_unit
    'epochs'
    >>> as_series([1.0, float("nan"), 3.0], nan_policy="omit").values
    array([1., 3.])
    """
    check_nan_policy(nan_policy)
    y = from_foreign(y, argname)  # pyarrow, polars, xarray, ArviZ: as numpy / pandas
    given_steps, steps, step_name = steps, None, None
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise InputError(
                f"{argname}: expected one series, got a DataFrame with {y.shape[1]} columns "
                f"({', '.join(map(str, y.columns[:6]))}); pick one column"
            )
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series):
        name = name if name is not None else (None if y.name is None else str(y.name))
        steps = _steps_from_index(y.index)
        step_name = None if steps is None or y.index.name is None else str(y.index.name)
        y = y.to_numpy()
    values = as_float_array(y, argname)
    if values.ndim == 2 and 1 in values.shape:
        values = values.ravel()
    if values.ndim != 1:
        raise InputError(f"{argname}: expected a 1-D series, got an array of shape {values.shape}")
    if given_steps is not None:
        steps = as_float_array(given_steps, "steps").ravel()
        step_name = str(getattr(given_steps, "name", None) or "") or None
        if len(steps) != len(values):
            raise InputError(f"steps: {len(steps)} values for a series of {len(values)}")
    if steps is not None and len(steps) != len(values):
        steps = None
    values, steps = _apply_nan_policy(values, steps, nan_policy, argname)
    _check_scale(values, argname)
    if steps is not None:
        if not np.isfinite(steps).all():
            bad = int(np.flatnonzero(~np.isfinite(steps))[0])
            raise InputError(f"steps: a step that is not a finite number ({steps[bad]}) at position {bad}")
        _check_scale(steps, "steps", "the step axis")
    if len(values) < min_length:
        raise InputError(
            f"{argname}: needs at least {min_length} finite value(s), got {len(values)}"
        )
    return Series(np.ascontiguousarray(values), steps, name, step_name)


def as_runs(
    y,
    *,
    argname: str = "runs",
    nan_policy: str = "raise",
    min_length: int = 1,
    group: str | None = None,
    value: str | None = None,
    step: str | None = None,
) -> list[Series]:
    """Validate several runs (seeds).

    Accepts a 2-D array (runs x steps), a list of 1-D arrays of unequal
    length, a wide DataFrame (one column per run) or a long DataFrame with a
    ``group=`` column (and ``value=`` naming the metric column).

    >>> [len(r) for r in as_runs([[1, 2, 3], [4, 5]])]
    [3, 2]
    """
    check_nan_policy(nan_policy)
    y = from_foreign(y, argname)  # a table: one column per run; (chain, draw): chains x draws
    if isinstance(y, pd.DataFrame):
        if group is not None:
            return _runs_from_long_frame(y, argname, nan_policy, min_length, group, value, step)
        return [
            as_series(y[column], argname=f"{argname}[{column!r}]", nan_policy=nan_policy,
                      min_length=min_length, name=str(column))
            for column in y.columns
        ]
    if isinstance(y, np.ndarray) and y.dtype != object:
        values = as_float_array(y, argname)
        if values.ndim == 1:
            values = values[None, :]
        if values.ndim != 2:
            raise InputError(f"{argname}: expected runs x steps, got shape {values.shape}")
        items = list(values)
    elif isinstance(y, (list, tuple)) and y and all(_is_sequence(item) for item in y):
        items = list(y)
    else:
        items = [y]
    if not items:
        raise InputError(f"{argname}: no runs given")
    return [
        as_series(item, argname=f"{argname}[{i}]", nan_policy=nan_policy, min_length=min_length,
                  name=None if getattr(item, "name", None) is not None else f"run {i}")
        for i, item in enumerate(items)
    ]


def _is_sequence(item) -> bool:
    try:
        return np.ndim(item) >= 1
    except ValueError:  # ragged nested lists: a run, which as_series then names as unreadable
        return True


def _runs_from_long_frame(frame, argname, nan_policy, min_length, group, value, step):
    missing = [c for c in (group, value, step) if c is not None and c not in frame.columns]
    if missing:
        raise InputError(
            f"{argname}: no column {missing[0]!r}; columns are {', '.join(map(str, frame.columns))}"
        )
    if value is None:
        candidates = [c for c in frame.columns if c not in (group, step)
                      and pd.api.types.is_numeric_dtype(frame[c])]
        if len(candidates) != 1:
            raise InputError(
                f"{argname}: pass value= to name the metric column "
                f"(numeric columns: {', '.join(map(str, candidates)) or 'none'})"
            )
        value = candidates[0]
    runs = []
    for key, part in frame.groupby(group, sort=True):
        if step is not None:
            part = part.sort_values(step, kind="stable")
            series = pd.Series(part[value].to_numpy(), index=part[step].to_numpy())
        else:
            series = part[value].reset_index(drop=True)
        runs.append(as_series(series, argname=f"{argname}[{group}={key!r}]",
                              nan_policy=nan_policy, min_length=min_length, name=str(key)))
    if not runs:
        raise InputError(f"{argname}: the frame has no rows")
    return runs


def is_multi_run(y) -> bool:
    """True when ``y`` holds several runs (2-D with more than one row, a list of arrays, a
    table of several columns, or an xarray / ArviZ variable with several chains)."""
    y = from_foreign(y, "y")
    if isinstance(y, pd.DataFrame):
        return y.shape[1] > 1
    if isinstance(y, pd.Series):
        return False
    if isinstance(y, (list, tuple)):
        return bool(y) and all(np.ndim(item) >= 1 for item in y) and len(y) > 1
    array = np.asarray(y) if not isinstance(y, np.ndarray) else y
    return array.ndim == 2 and array.shape[0] > 1 and array.shape[1] > 1
