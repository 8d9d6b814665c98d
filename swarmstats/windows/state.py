"""The window's state after one update, and every state of a stream kept compactly."""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from .._base import Trace

#: "rising" and "falling" are the trends of a diagnostic with no better side (a gradient norm,
#: an episode length: :func:`swarmstats.direction.guessed_direction`)
STATUSES = ("improving", "degrading", "rising", "falling", "stable", "uncertain")
@dataclass(frozen=True)
class WindowState:
    """The window after one update (see :class:`AdaptiveWindow`)."""

    step: float | int
    length: int
    start: float | int
    mean: float
    ci_low: float
    ci_high: float
    slope: float
    slope_t: float
    status: str
    reason: str
    change: bool
    level: float = math.nan       # where the curve is now: the trend line at this step, or the mean
    level_low: float = math.nan
    level_high: float = math.nan


class StateRecord:
    """Every :class:`WindowState` of a stream, kept column by column: numbers in growing float
    arrays, the status and reason as codes into their distinct values.  A list of the state
    objects themselves cost ~1 KB per step (a dict and a boxed float per field), and a string
    column ~100 B per step for the reason, although a long stream repeats a few hundred of them."""

    NUMBERS = ("step", "length", "start", "mean", "ci_low", "ci_high", "slope", "slope_t",
               "level", "level_low", "level_high")

    def __init__(self, capacity: int = 256):
        self._numbers = {name: Trace(capacity) for name in self.NUMBERS}
        self._status = bytearray()
        self._reason = array("i")
        self._reasons: dict = {}       # each distinct reason -> its code, in order of first use
        self._change = bytearray()

    def __len__(self) -> int:
        return len(self._status)

    def append(self, state: WindowState) -> None:
        for name, trace in self._numbers.items():
            trace.append(getattr(state, name))
        self._status.append(STATUSES.index(state.status))
        self._reason.append(self._reasons.setdefault(state.reason, len(self._reasons)))
        self._change.append(state.change)

    def frame(self, values: np.ndarray, *, handover: bool = False) -> pd.DataFrame:
        """One row per state, ``values`` (the series) beside the step, the columns in
        WindowState's order; whole-number steps, starts and lengths as integers (as the states
        hold them); the status and reason categorical (the status's categories are always
        :data:`STATUSES`).  ``handover=True`` gives the table the record's own arrays instead of
        copies: only for a record that is never appended to again (a finished ``fit``)."""
        columns = {}
        for name in (f.name for f in fields(WindowState)):
            if name in self._numbers:
                # one column at a time, so a fit's peak is its record plus one column
                numbers = self._numbers[name].release() if handover else self._numbers[name].values.copy()
                if name in ("step", "length", "start") and np.all(np.mod(numbers, 1) == 0):
                    numbers = numbers.astype(np.int64)
                columns[name] = numbers
            elif name == "status":
                codes = np.array(self._status, dtype=np.int8)  # a copy: the record may grow on
                columns[name] = pd.Categorical.from_codes(codes, categories=list(STATUSES))
            elif name == "reason":
                codes = np.array(self._reason, dtype=np.int32)
                columns[name] = pd.Categorical.from_codes(codes, categories=list(self._reasons))
            else:
                columns[name] = np.array(self._change, dtype=bool)
            if name == "step":
                columns["value"] = values
        return pd.DataFrame(columns, copy=False)
