"""A run resumed from a checkpoint, appended to its own log: the rows it replaces are dropped.

A trainer that crashed at step 730 and resumed from its checkpoint at step 500 logs steps
500, 510, ... again into the same file.  Read as written, the step axis goes back and the log
looked like two runs ("#1" and "#2", "the runs disagree: R-hat = 1.18") where there is one.
TensorBoard's rule for such orphaned data is followed: the rows logged before at or past the
step the run resumed from are superseded by the resumed run's, and dropped with a note.

A step that goes back to where the run began (its first step, or before it) is a new run,
left to the run key (:func:`swarmstats.io.runs.find_runs`).  So is a resume that would drop
half or more of the rows before it: a new run whose first logged step is a little later than
the last run's (an evaluation at step 0 in one, none in the other), or two runs flushed into one
file in turns (0-9 of a, 0-9 of b, 10-19 of a, 10-19 of b), must never erase one.

>>> import pandas as pd
>>> frame = pd.DataFrame({"step": [0, 10, 20, 30, 40, 30, 40, 50], "reward": [1, 2, 3, 4, 9, 4.5, 5, 6]})
>>> kept, note = drop_superseded(frame, "step")
>>> kept["reward"].tolist()
[1.0, 2.0, 3.0, 4.5, 5.0, 6.0]
>>> note
'resumed at step 30 after step 40 (1 time): the 2 row(s) logged before at or past the step it resumed from are replaced by the resumed run'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .runs import find_runs


def drop_superseded(frame: pd.DataFrame, step: str, exclude=()) -> tuple[pd.DataFrame, str | None]:
    """``frame`` without the rows a resumed run superseded (see the module docstring), and a note
    saying what was dropped (None when nothing was).  Runs named by a column (``seed``,
    ``run``: :func:`~swarmstats.io.runs.find_runs`) are looked at one by one."""
    steps = pd.to_numeric(frame[step], errors="coerce").to_numpy(dtype=float)
    present = steps[~np.isnan(steps)]
    if not (np.diff(present) < 0).any():
        return frame, None  # the common case, decided in one pass
    key = find_runs(frame, exclude=(step, *exclude))  # runs named by columns; restarts left aside
    groups = key.labels if key.labels is not None else np.zeros(len(frame), dtype=object)
    superseded = np.zeros(len(frame), dtype=bool)
    resumes = []
    # each run's rows in order, from one stable sort (a comparison of every row with each run's
    # name cost a Mesa batch run of 2,020 agents' series 5.6 s)
    codes = pd.factorize(groups)[0]
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    for rows in np.split(order, bounds):
        within = steps[rows]
        if not (np.diff(within[~np.isnan(within)]) < 0).any():
            continue  # runs named by a column, each in order: a row at a time in _resumes cost ~0.4 ms a run
        resumes += _resumes(steps, rows, superseded)
    if not resumes:
        return frame, None
    first = resumes[0]
    more = f" ({len(resumes)} times)" if len(resumes) > 1 else " (1 time)"
    note = (f"resumed at step {_plain(first[0])} after step {_plain(first[1])}{more}: the "
            f"{int(superseded.sum())} row(s) logged before at or past the step it resumed from are "
            "replaced by the resumed run")
    return frame.loc[~superseded].reset_index(drop=True), note


def _resumes(steps: np.ndarray, rows: np.ndarray, superseded: np.ndarray) -> list:
    """Mark in ``superseded`` the rows of one run that a resume replaced; (resumed at, after) each."""
    found = []
    begin = 0  # where the current segment (run) starts, in positions of ``rows``
    last = np.nan
    for position, row in enumerate(rows):
        value = steps[row]
        if np.isnan(value):
            continue
        if not np.isnan(last) and value < last:
            segment = rows[begin:position]
            earlier = steps[segment]
            live = ~superseded[segment] & ~np.isnan(earlier)
            if is_resume(earlier[live], value):
                superseded[segment[live & (earlier >= value)]] = True
                found.append((value, last))
            else:
                begin = position  # a new run: the run key splits it
        last = value
    return found


def is_resume(earlier: np.ndarray, step: float) -> bool:
    """Is a step back to ``step``, in a run that has logged the steps ``earlier``, a resume
    from a checkpoint (see the module docstring) rather than a new run?

    >>> is_resume(np.array([0, 10, 20, 30, 40]), 30), is_resume(np.array([0, 10, 20, 30]), 0)
    (True, False)
    >>> is_resume(np.array([0, 10, 20, 30]), 10)   # would replace half the rows: a new run
    False
    """
    return bool(len(earlier) and step > earlier.min() and np.count_nonzero(earlier >= step) < len(earlier) / 2)


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
