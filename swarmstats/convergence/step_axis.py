"""The step axis a verdict reads a run on: the run's own steps, or row order where they do
not increase; the spacing of its points, and the budget's check."""

from __future__ import annotations

import math

import numpy as np

from .._input.series import Series
from .._result import plain_number
from ..errors import InputError, is_real


def step_axis(series: Series) -> np.ndarray:
    """The run's steps (values logged at one step spread over it: :func:`spread_ties`), or its
    row numbers where the steps go down (a restart)."""
    steps = series.steps
    if steps is None or len(steps) != len(series.values):
        return np.arange(len(series.values), dtype=np.float64)
    spread = spread_ties(steps)
    return np.arange(len(series.values), dtype=np.float64) if spread is None else spread


def spread_ties(steps: np.ndarray) -> np.ndarray | None:
    """``steps`` that never go down, with the values logged at one step spread evenly over the
    interval to the next step, in the order written; ``steps`` itself where none repeats, and
    None where a step goes down or every value sits at one step.

    CleanRL logs each finished episode's return at the global step, and the episodes of
    several environments end at one step.  The slope kernels need a step axis that rises, and
    such a run was read on its row numbers while its slope was still quoted "per 100 steps":
    +101 per 100 steps for a return rising 0.4 per 100 steps (the rows were 256 steps apart).
    Spreading moves no value by a whole step.

    >>> spread_ties(np.array([0.0, 10.0, 10.0, 20.0, 30.0, 30.0]))
    array([ 0., 10., 15., 20., 30., 35.])
    >>> spread_ties(np.array([0.0, 10.0, 5.0])) is None
    True
    """
    gaps = np.diff(steps)
    if (gaps < 0).any():
        return None
    if not (gaps == 0).any():
        return steps
    starts = np.flatnonzero(np.concatenate([[True], gaps > 0]))
    if len(starts) < 2:
        return None
    sizes = np.diff(np.append(starts, len(steps)))
    widths = np.diff(steps[starts])
    widths = np.append(widths, widths[-1])  # the last step's values spread as far as the step before
    offsets = np.arange(len(steps)) - np.repeat(starts, sizes)
    return steps + offsets * np.repeat(widths / sizes, sizes)


def step_axis_note(series: Series, steps: np.ndarray, budget=None) -> list:
    """The note said when row order stood in for the run's steps (and the budget was dropped),
    or when values logged at one step were spread over it."""
    if series.steps is None or steps is series.steps:
        return []
    if spread_ties(series.steps) is not None:
        repeated = int(np.count_nonzero(np.diff(series.steps) == 0))
        return [f"{repeated:,} value(s) were logged at a step already holding one (several episodes ending "
                "at one step, or iterations logged within an epoch?): each is kept, spread evenly over the interval to the next step"]
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


def planned_budget(frame, step: str | None) -> tuple[float, str] | None:
    """(the step a log says its run was planned to end at, the note that says so) when the log
    ends before it - a Trainer's ``max_steps``, LLaMA-Factory's ``total_steps``, carried in
    ``frame.attrs["planned_steps"]`` - else None.  A DPO run stopped at step 202 of 5,100, its
    learning rate still warming up and its loss at ln 2, read "converged" over the next 200
    steps: flat so far, not flat to the end of its training.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"step": [1.0, 2.0], "loss": [0.7, 0.69]})
    >>> frame.attrs["planned_steps"] = 100.0
    >>> planned_budget(frame, "step")[0]
    100.0
    """
    planned = frame.attrs.get("planned_steps")
    if planned is None or step is None or step not in frame.columns:
        return None
    steps = np.unique(np.asarray(frame[step], dtype=float))
    steps = steps[np.isfinite(steps)]
    if not len(steps) or not planned - steps[-1] > (np.median(np.diff(steps)) if len(steps) > 1 else 0.0):
        # the run reached its end, or ended within one logging interval of it (a run of 692 steps
        # logging every 100 logs last at 600): nothing ahead to claim
        return None
    last = steps[-1]
    return planned, (f"the run was planned to {plain_number(planned)} steps and its log ends at "
                     f"{plain_number(last)}: converged means flat up to the planned end")


def step_spacing(steps: np.ndarray) -> float:
    """Steps per point (1 for row order; the mean spacing of a real step axis)."""
    if len(steps) < 2:
        return 1.0
    return max(float(steps[-1] - steps[0]) / (len(steps) - 1), 1e-300)
