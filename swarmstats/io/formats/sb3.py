"""Stable-Baselines3 and OpenAI baselines: monitor.csv, progress.csv."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import LogTable, check_repeated_header, numeric_frame

SB3_STEP = "time/total_timesteps"
BASELINES_STEPS = ("TimestepsSoFar", "total_timesteps", "steps", "timesteps_total", "nupdates")


def read_monitor(files: list[tuple[str, bytes]], source: str) -> LogTable:
    """One or several worker files, merged in time order (t_start + t) and rebased."""
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
        frame = numeric_frame(frame, name)
        text = [c for c in ("r", "l", "t") if c not in frame.columns]
        if text:
            raise InputError(f"{name}: the monitor column(s) {', '.join(text)} hold no numbers")
        frame["wall_time"] = float(header["t_start"]) + frame["t"]
        parts.append(frame)
    if not parts:
        raise InputError(f"{source}: no finished episode in the monitor file(s)")
    merged = pd.concat(parts, ignore_index=True).sort_values("wall_time", kind="stable")
    merged = merged.reset_index(drop=True)
    merged = merged.drop(columns=["t"])  # seconds since each worker's start: the wall time says it
    merged.insert(0, "step", np.arange(len(merged)))  # the episode number, across workers
    merged["timesteps"] = merged["l"].cumsum()
    notes = [f"{len(parts)} worker files merged by time"] if len(parts) > 1 else []
    return LogTable(merged, "monitor", source, notes)


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
    numbers = numeric_frame(frame, name)
    if step is None or step not in numbers:
        numbers.insert(0, "step", np.arange(len(numbers)))
        notes = ["no step column: the row number is the step"]
    else:
        numbers = numbers.rename(columns={step: "step"})
        notes = [f"step = {step}"]
    if format == "baselines-progress":
        notes.append("some baselines forks write 0 as an empty cell; such cells read as missing")
    return LogTable(numbers, format, name, notes)


def is_sb3_progress(columns) -> bool:
    return SB3_STEP in columns or any(str(c).startswith(("rollout/", "train/", "time/")) for c in columns)


def is_baselines_progress(columns) -> bool:
    return any(c in columns for c in BASELINES_STEPS) or any(
        c in columns for c in ("EpRewMean", "eprewmean", "mean 100 episode reward"))
