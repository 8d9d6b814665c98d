"""Stable-Baselines3 and OpenAI baselines: monitor.csv, progress.csv."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import LogTable, check_repeated_header, numeric_columns

SB3_STEP = "time/total_timesteps"
BASELINES_STEPS = ("TimestepsSoFar", "total_timesteps", "steps", "timesteps_total", "nupdates")


def read_monitor(files: list[tuple[str, bytes]], source: str) -> LogTable:
    """One or several worker files, merged in time order (t_start + t) and rebased.

    The table is assembled column by column with numpy and becomes a DataFrame once: on a
    10 KB monitor file the concat, sort, drop and inserts of a pandas assembly cost ~3 ms,
    six times the parse."""
    parts = []
    for name, data in files:
        text = data.decode("utf-8-sig")
        first, _, rest = text.partition("\n")
        if not first.startswith("#"):
            raise InputError(f"{name}: a monitor file starts with a '#{{...}}' JSON line")
        try:
            header = json.loads(first[1:])
        except json.JSONDecodeError as exc:
            raise InputError(f"{name}: the first line is not valid JSON ({exc.msg})") from None
        if not isinstance(header, dict) or "t_start" not in header:
            raise InputError(f"{name}: the first line has no t_start")
        try:
            frame = pd.read_csv(io.StringIO(rest))
        except pd.errors.EmptyDataError:
            continue  # a worker that finished no episode yet
        except pd.errors.ParserError as exc:
            raise InputError(f"{name}: malformed row: {str(exc).strip().splitlines()[-1]}") from None
        missing = [c for c in ("r", "l", "t") if c not in frame.columns]
        if missing:
            raise InputError(f"{name}: a monitor file needs columns r, l, t (missing {', '.join(missing)})")
        check_repeated_header(frame, name)
        columns = {c: np.asarray(v, dtype=float) for c, v in numeric_columns(frame, name).items()}
        text = [c for c in ("r", "l", "t") if c not in columns]
        if text:
            raise InputError(f"{name}: the monitor column(s) {', '.join(text)} hold no numbers")
        columns["wall_time"] = float(header["t_start"]) + columns["t"]
        parts.append(columns)
    if not parts:
        raise InputError(f"{source}: no finished episode in the monitor file(s)")
    wall_time = np.concatenate([part["wall_time"] for part in parts])
    order = np.argsort(wall_time, kind="stable")
    # every worker's columns in the order they first appear (a column one worker lacks is
    # empty there); "t", seconds since each worker's start, is dropped: the wall time says it
    names = list(dict.fromkeys(c for part in parts for c in part if c not in ("t", "wall_time")))
    merged = {"step": np.arange(len(wall_time))}  # the episode number, across workers
    for column in names:
        merged[column] = np.concatenate([part.get(column, np.full(len(part["t"]), np.nan))
                                         for part in parts])[order]
    merged["wall_time"] = wall_time[order]
    merged["timesteps"] = np.cumsum(merged["l"])
    notes = [f"{len(parts)} worker files merged by time"] if len(parts) > 1 else []
    return LogTable(pd.DataFrame(merged, copy=False), "monitor", source, notes)


def monitor_files(directory: str) -> list[str]:
    return sorted(os.path.join(directory, f) for f in os.listdir(directory)
                  if f == "monitor.csv" or f.endswith(".monitor.csv"))


def read_progress(frame: pd.DataFrame, name: str, format: str) -> LogTable:
    """SB3 (namespaced keys, step = time/total_timesteps) or baselines (bare keys)."""
    check_repeated_header(frame, name)
    if format == "sb3-progress":
        step = SB3_STEP
    else:
        step = next((c for c in BASELINES_STEPS if c in frame.columns), None)
    columns = numeric_columns(frame, name)  # one DataFrame at the end: each pandas step costs ~50 us
    if step is None or step not in columns:
        columns = {"step": np.arange(len(frame)), **columns}
        notes = ["no step column: the row number is the step"]
    else:
        columns = {("step" if c == step else c): values for c, values in columns.items()}
        notes = [f"step = {step}"]
    numbers = pd.DataFrame(columns, index=frame.index, copy=False)
    if format == "baselines-progress":
        notes.append("some baselines forks write 0 as an empty cell; such cells read as missing")
    return LogTable(numbers, format, name, notes)


def is_sb3_progress(columns) -> bool:
    return SB3_STEP in columns or any(str(c).startswith(("rollout/", "train/", "time/")) for c in columns)


def is_baselines_progress(columns) -> bool:
    return any(c in columns for c in BASELINES_STEPS) or any(
        c in columns for c in ("EpRewMean", "eprewmean", "mean 100 episode reward"))
