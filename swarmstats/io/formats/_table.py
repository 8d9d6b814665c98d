"""The wide table every format parser returns, and small helpers they share."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...errors import InputError

#: columns of a LogTable that are never metrics
AXES = ("run", "step", "wall_time")


@dataclass
class LogTable:
    """A wide log: ``step`` (and ``run``, ``wall_time``) plus one column per metric."""

    frame: pd.DataFrame
    format: str
    source: str
    notes: list = field(default_factory=list)

    @property
    def metrics(self) -> list:
        return [c for c in self.frame.columns if c not in AXES]

    def _replace_format(self, format: str) -> "LogTable":
        self.format = format
        return self


def numeric_frame(frame: pd.DataFrame, name: str, keep=()) -> pd.DataFrame:
    """Numeric metric columns (None/null/NaN empty); non-numeric columns are dropped unless in
    ``keep``; a column mixing numbers and words is an error naming the first bad cell."""
    out = {}
    dtypes = frame.dtypes
    numeric = [c for c, dtype in dtypes.items() if c not in keep
               and pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)]
    # the numeric columns converted in one block, not one pandas call each (a 25-column
    # progress.csv spent 2.5 ms here, five times pandas' own parse)
    block = frame[numeric].to_numpy(dtype=float) if numeric else None
    position = {c: i for i, c in enumerate(numeric)}
    for column in frame.columns:
        if column in position:
            out[column] = block[:, position[column]]
            continue
        series = frame[column]
        if column in keep:
            out[column] = series
            continue
        if pd.api.types.is_bool_dtype(series):
            continue
        present = series.dropna()
        present = present[~present.astype(str).str.strip().str.lower().isin(
            {"", "none", "null", "nan", "na", "n/a"})]
        if present.empty:
            continue
        if present.map(lambda v: isinstance(v, (bool, np.bool_))).all():
            continue
        converted = pd.to_numeric(present.astype(str).str.strip(), errors="coerce")
        if converted.notna().sum() == 0:
            continue  # a text column (names, ids): not a metric
        bad = converted.isna()
        if bad.any():
            row = present.index[bad.to_numpy()][0]
            raise InputError(f"{name}: column {column!r} mixes numbers and text "
                             f"({series.loc[row]!r} at data row {int(row) + 1})")
        out[column] = pd.to_numeric(series.where(series.index.isin(present.index)), errors="coerce")
    return pd.DataFrame(out, index=frame.index)


def numeric_axis(series: pd.Series, name: str, column: str) -> np.ndarray:
    """An axis column (step, epoch) as floats; a cell that is not a number is an error naming
    it (missing cells stay NaN and are dropped by the callers).

    >>> numeric_axis(pd.Series([0, "1", None]), "log.json", "step")
    array([ 0.,  1., nan])
    """
    values = pd.to_numeric(series.map(lambda v: v if isinstance(v, (int, float, str)) or v is None else "?"),
                           errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{name}: {column!r} is not a number at data row {row + 1} "
                         f"({series.iloc[row]!r})")
    return values.to_numpy(dtype=float)


def check_repeated_header(frame: pd.DataFrame, name: str) -> None:
    """A row equal to the header means two logs were appended (or a header rewritten
    mid-file): refuse rather than read strings as numbers."""
    if frame.empty or len(frame.columns) < 2:
        return
    if any(pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns):
        return  # a repeated header row would have made every column text
    text = frame.astype(str)
    matches = np.ones(len(frame), dtype=bool)
    for column in frame.columns:
        matches &= (text[column].str.strip() == str(column)).to_numpy()
    if matches.any():
        row = int(np.flatnonzero(matches)[0])
        raise InputError(f"{name}: the header appears again at data row {row + 1} (two logs appended, "
                         "or a header rewritten mid-file); split the file there")


def sparse_to_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """Rows that each carry some metrics (Lightning, W&B) folded to one row per (run, step)."""
    index = [c for c in ("run", "step") if c in tidy.columns]
    wide = tidy.pivot_table(index=index, columns="metric", values="value", aggfunc="last", sort=True)
    wide.columns.name = None
    return wide.reset_index()
