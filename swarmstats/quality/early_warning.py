"""SWARM's early-warning rule on a per-epoch metric, and an interval-aware version.

SWARM reports (as a finding, not code) that a quality gap above 0.15 for three
or more consecutive epochs predicts governance failure.  ``rule="swarm"``
expresses exactly that on the point values.  ``rule="interval"`` asks the
same of the interval: the epoch counts only when its whole confidence
interval lies beyond the level, so one noisy epoch whose point estimate
happens to cross it does not start (or complete) a streak.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt, plain_number
from ..errors import InputError, check_choice

RULES = ("swarm", "interval")
DIRECTIONS = ("above", "below")
MISSING = ("skip", "break")


@dataclass(frozen=True, repr=False)
class EarlyWarningResult(Result):
    """Alarms of :func:`early_warning` in the units of the step (epoch) axis."""

    fired: bool
    first_alarm: float | int | None
    streak_start: float | int | None
    alarms: list
    metric: str
    rule: str
    level: float
    consecutive: int
    direction: str
    notes: list = field(default_factory=list)
    _values: np.ndarray | None = None
    _low: np.ndarray | None = None
    _high: np.ndarray | None = None
    _steps: np.ndarray | None = None

    def summary(self) -> str:
        condition = (f"{self.metric} {'>' if self.direction == 'above' else '<'} {fmt(self.level)} "
                     f"for {self.consecutive} consecutive epochs ({self.rule} rule)")
        if not self.fired:
            return f"no early warning: {condition} never held"
        return (f"early warning at epoch {self.first_alarm}: {condition} held from epoch "
                f"{self.streak_start}; {len(self.alarms)} alarm(s) in all")

def early_warning(values, *, metric: str = "quality_gap", level: float = 0.15, consecutive: int = 3,
                  direction: str = "above", rule: str = "swarm", lower=None, upper=None, steps=None,
                  missing: str = "skip") -> EarlyWarningResult:
    """Fire when ``metric`` is beyond ``level`` for ``consecutive`` epochs in a row.

    ``values`` is a per-epoch series or the table of :func:`quality_by` (then
    ``metric`` names the column, the intervals come from ``<metric>_low`` /
    ``<metric>_high`` and the epochs from its ``by`` column).
    ``rule="interval"`` counts an epoch only when its interval lies entirely
    beyond the level.  Undefined epochs (NaN: a one-sided split) are skipped by
    default - they neither extend nor break a streak; ``missing="break"``
    makes them break it, as SWARM's 0.0 does.  After an alarm the streak
    restarts, so a long excursion raises one alarm every ``consecutive`` epochs.

    >>> gaps = [0.1, 0.2, 0.3, 0.25, 0.1, 0.2]
    >>> early_warning(gaps).first_alarm
    3
    >>> early_warning(gaps, lower=[0.0, 0.1, 0.2, 0.1, 0.0, 0.1], rule="interval").fired
    False
    """
    check_choice("rule", rule, RULES)
    check_choice("direction", direction, DIRECTIONS)
    check_choice("missing", missing, MISSING)
    consecutive = int(consecutive)
    if consecutive < 1:
        raise InputError(f"consecutive must be >= 1, got {consecutive}")
    level = float(level)
    if isinstance(values, pd.DataFrame):
        table = values
        if metric not in table.columns:
            raise InputError(f"no column {metric!r}; columns are {', '.join(map(str, table.columns))}")
        by = table.attrs.get("by")
        steps = table[by].to_numpy() if steps is None and by in table.columns else steps
        lower = table[f"{metric}_low"] if lower is None and f"{metric}_low" in table.columns else lower
        upper = table[f"{metric}_high"] if upper is None and f"{metric}_high" in table.columns else upper
        values = table[metric]
    point = _float_array(values, metric)
    bound = lower if direction == "above" else upper
    if rule == "interval":
        if bound is None:
            which = "lower" if direction == "above" else "upper"
            raise InputError(f"rule='interval' needs the {which} bound of each epoch's interval "
                             f"({which}=..., or a quality_by table)")
        tested = _float_array(bound, "lower" if direction == "above" else "upper")
        if len(tested) != len(point):
            raise InputError(f"the interval bounds have {len(tested)} values but {metric} has {len(point)}")
    else:
        tested = point
    steps = np.arange(len(point)) if steps is None else np.asarray(steps)
    if len(steps) != len(point):
        raise InputError(f"steps has {len(steps)} values but {metric} has {len(point)}")

    beyond = tested > level if direction == "above" else tested < level
    alarms, streak, start = [], 0, None
    for i in range(len(point)):
        if np.isnan(tested[i]):
            if missing == "break":
                streak, start = 0, None
            continue
        if beyond[i]:
            start = i if streak == 0 else start
            streak += 1
            if streak == consecutive:
                alarms.append({"streak_start": plain_number(steps[start]) if _numeric(steps) else steps[start],
                               "alarm": plain_number(steps[i]) if _numeric(steps) else steps[i]})
                streak, start = 0, None
        else:
            streak, start = 0, None
    notes = []
    if np.isnan(tested).any():
        notes.append(f"{int(np.isnan(tested).sum())} undefined epoch(s) were "
                     f"{'skipped' if missing == 'skip' else 'treated as breaking a streak'}")
    return EarlyWarningResult(
        fired=bool(alarms), first_alarm=alarms[0]["alarm"] if alarms else None,
        streak_start=alarms[0]["streak_start"] if alarms else None, alarms=alarms, metric=metric,
        rule=rule, level=level, consecutive=consecutive, direction=direction, notes=notes,
        _values=point, _low=None if lower is None else _float_array(lower, "lower"),
        _high=None if upper is None else _float_array(upper, "upper"), _steps=steps)


def _numeric(steps: np.ndarray) -> bool:
    return np.issubdtype(np.asarray(steps).dtype, np.number)


def _float_array(values, name: str) -> np.ndarray:
    try:
        array = np.asarray(pd.Series(values, dtype=float) if not isinstance(values, np.ndarray) else values,
                           dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected numbers") from None
    if array.ndim != 1:
        raise InputError(f"{name}: expected a 1-D series, got shape {array.shape}")
    if np.isinf(array).any():
        raise InputError(f"{name}: infinite values cannot be compared with a level")
    return array
