"""Weights & Biases exports: run history, chart-panel CSV (several runs), runs table (refused)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import LogTable, fold_columns, numeric_columns, shadowed_axes_note

RUNS_TABLE = {"Name", "State", "Created", "Runtime"}
_SERIES = re.compile(r"^(?P<run>.+?) - (?P<metric>.+?)(?P<band>__MIN|__MAX)?$")


def is_runs_table(columns) -> bool:
    return len(RUNS_TABLE & set(map(str, columns))) >= 3


def refuse_runs_table(name: str):
    raise InputError(f"{name} is a W&B runs table (one row per run, not a time series); export a "
                     "run's history (run.history() / scan_history()) or a chart panel's CSV instead")


def is_chart(columns) -> bool:
    # every column after the x-axis a series, the first that is not ending the test
    return len(columns) >= 2 and all(_SERIES.match(str(c)) for c in list(columns)[1:])


#: the history's own columns read as a LogTable's axes
HISTORY_AXES = {"step": "_step", "wall_time": "_timestamp"}


def read_history(frame: pd.DataFrame, name: str) -> LogTable:
    """A run's history (``run.history()``, the run page's CSV): step = ``_step``, wall_time =
    ``_timestamp``.  A logged value named like one of those axes (``wandb.log({"step": i})``)
    is left out with a note: the axis is W&B's.  Assembled as numpy columns (a DataFrame of
    them, renamed, cost a real 70-column export 1.4x its ``read_csv``)."""
    names = frame.columns.tolist()
    unnamed = [c for c in names if str(c).startswith("Unnamed:") or c == ""]
    shadowed = [c for c in names if c in HISTORY_AXES and HISTORY_AXES[c] in names]
    numbers = numeric_columns(frame, name, skip=unnamed + shadowed + ["_runtime"])
    rename = {source: axis for axis, source in HISTORY_AXES.items()}
    arrays = {rename.get(c, c): np.asarray(v, dtype=float) for c, v in numbers.items()}
    return LogTable(None, "wandb-history", name, shadowed_axes_note(shadowed, HISTORY_AXES, "W&B"),
                    arrays=arrays)


def read_chart(frame: pd.DataFrame, name: str) -> LogTable:
    """Wide ``<run> - <metric>`` columns -> runs; the __MIN/__MAX bands are dropped (noted).

    Each run's series are folded on the shared x-axis by :func:`fold_columns` and the runs
    put one after another (sorted by name), as numpy columns: the table :func:`sparse_to_wide`
    makes of their tidy rows, without those rows (a tidy frame and its fold cost a real 93 KB
    export of 8 runs 4.6x its ``read_csv``)."""
    x_axis = frame.columns[0]
    numbers = numeric_columns(frame, name)
    if x_axis not in numbers:
        raise InputError(f"{name}: the x-axis column {x_axis!r} is not numeric")
    runs, bands = {}, 0
    for column in frame.columns[1:]:
        match = _SERIES.match(str(column))
        if match.group("band"):
            bands += 1
        elif column in numbers:
            # (a metric named like an axis is renamed by fold_columns, as in every reader)
            runs.setdefault(match.group("run"), {})[match.group("metric")] = np.asarray(numbers[column], dtype=float)
    step = np.asarray(numbers[x_axis], dtype=float)
    folded = {run: fold_columns(step, runs[run]) for run in sorted(runs)}
    folded = {run: table for run, table in folded.items() if len(table["step"])}
    if not folded:
        raise InputError(f"{name}: the chart export has no values")
    sizes = [len(table["step"]) for table in folded.values()]
    arrays = {"run": np.repeat(np.array(list(folded), dtype=object), sizes),
              "step": np.concatenate([table["step"] for table in folded.values()])}
    for metric in sorted({metric for table in folded.values() for metric in table if metric != "step"}):
        arrays[metric] = np.concatenate([table.get(metric, np.full(size, np.nan))
                                         for table, size in zip(folded.values(), sizes)])
    notes = [f"x-axis = {x_axis}"] + ([f"{bands} __MIN/__MAX band column(s) dropped"] if bands else [])
    return LogTable(None, "wandb-chart", name, notes, arrays=arrays)
