"""SWARM exports as time series: epoch CSVs, history JSON epoch snapshots, event logs and
sweep CSVs (one row per run).  Interaction records for quality metrics: io.swarm."""

from __future__ import annotations

import pandas as pd

from ...errors import InputError
from ._table import LogTable, check_repeated_header, numeric_frame

EPOCH_KEYS = {"epoch", "toxicity_rate", "quality_gap"}
SWEEP_KEYS = {"run_index", "seed"}
_SWEEP_METRICS = {"toxicity_rate", "avg_toxicity", "quality_gap", "avg_quality_gap", "welfare",
                  "total_welfare"}


def is_epochs(columns) -> bool:
    return EPOCH_KEYS <= set(map(str, columns))


def is_sweep(columns) -> bool:
    columns = set(map(str, columns))
    return SWEEP_KEYS <= columns and bool(columns & _SWEEP_METRICS)


def read_epochs(frame: pd.DataFrame, name: str) -> LogTable:
    check_repeated_header(frame, name)
    numbers = numeric_frame(frame.drop(columns=[c for c in ("timestamp",) if c in frame]), name)
    table = numbers.rename(columns={"epoch": "step"})
    if "simulation_id" in frame and frame["simulation_id"].nunique() > 1:
        table.insert(0, "run", frame["simulation_id"].astype(str).to_numpy())
    return LogTable(table, "swarm-epochs", name)


def epoch_snapshots(payload: dict):
    """The list of epoch snapshots inside a SWARM history JSON, or None."""
    for value in payload.values():
        if isinstance(value, list) and value and isinstance(value[0], dict) and is_epochs(value[0]):
            return value
    return None


def read_history(payload: dict, name: str) -> LogTable:
    snapshots = epoch_snapshots(payload)
    if snapshots is None:
        raise InputError(f"{name}: no epoch snapshots (records with epoch, toxicity_rate, quality_gap)")
    return read_epochs(pd.json_normalize(snapshots, sep="/"), name)._replace_format("swarm-history")


def read_events(frame: pd.DataFrame, name: str) -> LogTable:
    """Numeric payload fields of every event (p, v_hat, tau, payoffs ...), step = the event's step."""
    payload = [c for c in frame.columns if str(c).startswith("payload/")]
    if not payload:
        raise InputError(f"{name}: SWARM events carry their values under 'payload'")
    numbers = numeric_frame(frame[payload].rename(columns=lambda c: c[len("payload/"):]), name)
    step = frame["step"] if "step" in frame else pd.Series(range(len(frame)))
    numbers.insert(0, "step", pd.to_numeric(step, errors="coerce").to_numpy())
    numbers = numbers.dropna(how="all", subset=[c for c in numbers.columns if c != "step"])
    return LogTable(numbers, "swarm-events", name)


def read_sweep(frame: pd.DataFrame, name: str) -> LogTable:
    """One row per run: run = run_index, a single step (0); parameters stay as metrics."""
    check_repeated_header(frame, name)
    numbers = numeric_frame(frame, name)
    run = numbers.pop("run_index").astype("Int64").astype(str)
    numbers.insert(0, "step", 0)
    numbers.insert(0, "run", run.to_numpy())
    return LogTable(numbers, "swarm-sweep", name, ["a sweep CSV has one row per run: not a time series"])
