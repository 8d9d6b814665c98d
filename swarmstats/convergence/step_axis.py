"""The step axis a verdict reads a run on: the run's own steps, or row order where they do
not increase; the spacing of its points, and the budget's check."""

from __future__ import annotations

import math

import numpy as np

from .._input.series import Series
from .._result import plain_number
from ..errors import InputError, is_real


def step_axis(series: Series) -> np.ndarray:
    """The run's steps, or its row numbers where the steps do not increase (a restart)."""
    steps = series.steps
    if steps is None or len(steps) != len(series.values) or np.any(np.diff(steps) <= 0):
        return np.arange(len(series.values), dtype=np.float64)
    return steps


def step_axis_note(series: Series, steps: np.ndarray, budget=None) -> list:
    """The note said when row order stood in for the run's steps (and the budget was dropped)."""
    if series.steps is None or steps is series.steps:
        return []
    unused = (f"; the budget (step {plain_number(budget):,}) has no place on row order and was not used"
              if budget is not None else "")
    return ["the step axis is not increasing (a restart, or several runs in one file?); "
            "row order was used - split the runs with group= for a per-run check" + unused]


def check_budget(budget, horizon=None) -> None:
    """InputError unless ``budget`` is None or a finite step number, not given with ``horizon``
    (the verdict's rule; Monitor and the trainer adapters check theirs with it too).

    >>> check_budget(4000)
    >>> check_budget(4000, horizon=100)
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: give horizon (steps ahead) or budget (the step the run ends at), not both
    """
    if budget is None:
        return
    if not (is_real(budget) and math.isfinite(budget)):
        raise InputError(f"budget must be a finite step number, got {budget!r}")
    if horizon is not None:
        raise InputError("give horizon (steps ahead) or budget (the step the run ends at), not both")


def step_spacing(steps: np.ndarray) -> float:
    """Steps per point (1 for row order; the mean spacing of a real step axis)."""
    if len(steps) < 2:
        return 1.0
    return max(float(steps[-1] - steps[0]) / (len(steps) - 1), 1e-300)
