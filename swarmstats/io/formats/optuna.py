"""Optuna's trials table: ``study.trials_dataframe()`` saved with ``to_csv``, one row per trial.

The trial's ``number`` is the step and its objective (``value``, or ``values_0``, ``values_1`` …
for several objectives) the metric, beside the numbers the objective stored with
``trial.set_user_attr`` (``user_attrs_<key>``).  Read as a generic table the hyperparameters each
trial sampled (``params_n_layers``) were judged as metrics - "higher is better" - and the values
of pruned trials, each the last intermediate value of a training stopped early, were pooled with
the finished trials' objective.  Here:

* the sampled hyperparameters (``params_*``) and Optuna's own attributes (``system_attrs_*``)
  are left out, with a note: settings of each trial, not what it measured;
* a trial that did not complete (``PRUNED``, ``FAIL``, ``RUNNING``) has no value here, noted;
* ``datetime_complete`` is the wall time;
* the table does not say whether the study minimised or maximised its objective (Optuna
  minimises unless told ``direction="maximize"``): a note says so, and ``--better`` decides.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import LogTable, numeric_axis, numeric_columns

#: an objective's column: one objective's ``value``, several objectives' ``values_<i>``
_OBJECTIVE = re.compile(r"^value$|^values_\d+$")
#: the columns of a trial's bookkeeping, never metrics (the times are read as the wall time)
_BOOKKEEPING = ("number", "state", "datetime_start", "datetime_complete", "duration")


def is_trials_table(names) -> bool:
    """Is this header ``study.trials_dataframe()``'s: the trial ``number``, its ``state`` and an
    objective, with its times or sampled hyperparameters?

    >>> is_trials_table(["number", "value", "datetime_start", "params_lr", "state"])
    True
    >>> is_trials_table(["number", "value", "state"])   # no time, no hyperparameter: any table
    False
    """
    names = [str(name) for name in names]
    return ("number" in names and "state" in names and any(_OBJECTIVE.match(name) for name in names)
            and ("datetime_start" in names or any(name.startswith("params_") for name in names)))


def read_trials(frame: pd.DataFrame, name: str) -> LogTable:
    """The trials as steps (module docstring)."""
    names = [str(column) for column in frame.columns.tolist()]
    settings = [c for c in names if c.startswith("params_")]
    internal = [c for c in names if c.startswith("system_attrs_")]
    numbers = numeric_columns(frame, name, skip=settings + internal + [c for c in _BOOKKEEPING if c in names])
    objectives = [c for c in numbers if _OBJECTIVE.match(c)]
    if not objectives:
        raise InputError(f"{name}: an Optuna trials table without a number in its objective column "
                         f"({', '.join(c for c in names if _OBJECTIVE.match(c))})")
    step = numeric_axis(frame["number"], name, "number")
    states = frame["state"].astype(str).str.rsplit(".", n=1).str[-1].str.upper().to_numpy()  # "TrialState.PRUNED"
    unfinished = states != "COMPLETE"
    arrays = {"step": step}
    for column, values in numbers.items():
        values = np.asarray(values, dtype=float)
        arrays[column] = np.where(unfinished, np.nan, values) if unfinished.any() else values
    if "datetime_complete" in names:
        finished = pd.to_datetime(frame["datetime_complete"], errors="coerce", utc=True)
        seconds = (finished - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy(dtype=float)
        if np.isfinite(seconds).any():
            arrays["wall_time"] = seconds
    return LogTable(None, "optuna-trials", name, _notes(objectives, settings, internal, states, unfinished),
                    arrays=arrays)


def _notes(objectives: list, settings: list, internal: list, states: np.ndarray, unfinished: np.ndarray) -> list:
    notes = [f"{', '.join(objectives)}: the study's objective, over its trials; the table does not say "
             "whether it was minimised or maximised (Optuna minimises unless told direction='maximize'): "
             "say which with --better (better= in Python)"]
    if settings:
        shown = ", ".join(settings[:6]) + (f" and {len(settings) - 6} more" if len(settings) > 6 else "")
        notes.append(f"left out: {shown} (the hyperparameters each trial sampled: settings, not measurements)")
    if internal:
        notes.append(f"left out: {len(internal)} system_attrs_ column(s) (Optuna's own records)")
    if unfinished.any():
        kinds, counts = np.unique(states[unfinished], return_counts=True)
        said = ", ".join(f"{kind} {count}" for kind, count in zip(kinds.tolist(), counts.tolist()))
        notes.append(f"{int(unfinished.sum())} of {len(states)} trials did not complete ({said}): their values are "
                     "left out (a pruned trial's value is the last intermediate value of a training stopped early)")
    return notes
