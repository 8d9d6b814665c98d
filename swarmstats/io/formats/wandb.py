"""Weights & Biases exports: run history, chart-panel CSV (several runs), runs table (refused)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import LogTable, numeric_columns, numeric_frame, sparse_to_wide

RUNS_TABLE = {"Name", "State", "Created", "Runtime"}
_SERIES = re.compile(r"^(?P<run>.+?) - (?P<metric>.+?)(?P<band>__MIN|__MAX)?$")


def is_runs_table(columns) -> bool:
    return len(RUNS_TABLE & set(map(str, columns))) >= 3


def refuse_runs_table(name: str):
    raise InputError(f"{name} is a W&B runs table (one row per run, not a time series); export a "
                     "run's history (run.history() / scan_history()) or a chart panel's CSV instead")


def is_chart(columns) -> bool:
    series = [c for c in columns[1:] if _SERIES.match(str(c))]
    return len(series) >= 1 and len(series) == len(columns) - 1


def read_history(frame: pd.DataFrame, name: str) -> LogTable:
    frame = frame.drop(columns=[c for c in frame.columns if str(c).startswith("Unnamed:") or c == ""])
    numbers = numeric_frame(frame, name)
    numbers = numbers.rename(columns={"_step": "step", "_timestamp": "wall_time"})
    numbers = numbers.drop(columns=[c for c in ("_runtime",) if c in numbers])
    return LogTable(numbers, "wandb-history", name)


def read_chart(frame: pd.DataFrame, name: str) -> LogTable:
    """Wide ``<run> - <metric>`` columns -> runs; the __MIN/__MAX bands are dropped (noted).

    The series are stacked with numpy into one tidy frame (a DataFrame and a ``dropna`` per
    column cost 10x ``read_csv`` of a real 93 KB export of 8 runs)."""
    x_axis = frame.columns[0]
    numbers = numeric_columns(frame, name)
    if x_axis not in numbers:
        raise InputError(f"{name}: the x-axis column {x_axis!r} is not numeric")
    series, bands = [], 0
    for column in frame.columns[1:]:
        match = _SERIES.match(str(column))
        if match.group("band"):
            bands += 1
        elif column in numbers:
            series.append((np.asarray(numbers[column], dtype=float), match.group("run"), match.group("metric")))
    step = np.asarray(numbers[x_axis], dtype=float)
    values = np.concatenate([values for values, _, _ in series]) if series else np.empty(0)
    steps = np.tile(step, len(series))
    keep = ~np.isnan(values) & ~np.isnan(steps)
    if not keep.any():
        raise InputError(f"{name}: the chart export has no values")
    labels = {key: np.repeat(np.array([part[i] for part in series], dtype=object), len(step))[keep]
              for key, i in (("run", 1), ("metric", 2))}
    tidy = pd.DataFrame({"run": labels["run"], "step": steps[keep], "metric": labels["metric"],
                         "value": values[keep]})
    notes = [f"x-axis = {x_axis}"] + ([f"{bands} __MIN/__MAX band column(s) dropped"] if bands else [])
    return LogTable(sparse_to_wide(tidy), "wandb-chart", name, notes)
