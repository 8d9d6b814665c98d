"""SWARM exports as time series: epoch CSVs, history JSON epoch snapshots, event logs and
sweep CSVs (one row per run).  Interaction records for quality metrics: io.swarm."""

from __future__ import annotations

import numpy as np
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


#: what one interaction of SWARM's event log carries, once its events are joined
INTERACTION_FIELDS = ("p", "v_hat", "tau", "accepted", "payoff_initiator", "payoff_counterparty")
_IDS = ("interaction_id", "epoch", "step", "initiator_id", "counterparty_id")


def interaction_events(frame: pd.DataFrame) -> pd.DataFrame | None:
    """One row per interaction of an event log as SWARM writes it, or None if it has none.

    SWARM spreads an interaction over several events joined by ``interaction_id``: the
    proposal (its payload ``p`` / ``v_hat`` are placeholders, 0.5 and 0.0), the completion
    (``accepted``, payoffs) and ``payoff_computed``, whose ``components`` hold the observed
    ``p``, ``v_hat``, ``tau`` and ``accepted``.  The last is the record; without it the
    completion is joined to its proposal.  A log whose completions carry ``p`` themselves
    (a simplified form) is read as it is.
    """
    if "event_type" not in frame.columns:
        return None
    kind = frame["event_type"].astype(str)

    def fields(rows: pd.DataFrame, prefix: str) -> pd.DataFrame:
        lifted = {c: c[len(prefix):] for c in rows.columns
                  if c.startswith(prefix) and c[len(prefix):] in INTERACTION_FIELDS}
        return rows[[c for c in _IDS if c in rows.columns] + list(lifted)].rename(columns=lifted)

    payoffs = frame[kind == "payoff_computed"]
    if len(payoffs) and "payload/components/p" in frame.columns:
        out = fields(payoffs, "payload/components/")
        extra = fields(payoffs, "payload/")  # the payoffs sit beside the components
        for column in ("payoff_initiator", "payoff_counterparty"):
            if column in extra and column not in out:
                out[column] = extra[column]
        return _complete_accepted(out, frame, kind)
    completed = frame[kind == "interaction_completed"]
    if not len(completed):
        return None
    out = fields(completed, "payload/")
    proposed = frame[kind == "interaction_proposed"]
    if "p" not in out and len(proposed) and "interaction_id" in frame.columns:
        lifted = fields(proposed, "payload/")
        scores = lifted[["interaction_id"] + [c for c in ("p", "v_hat") if c in lifted]]
        out = out.drop(columns=[c for c in ("initiator_id", "counterparty_id") if c in out])
        ids = proposed[[c for c in ("interaction_id", "initiator_id", "counterparty_id") if c in proposed]]
        out = out.merge(scores.merge(ids, on="interaction_id"), on="interaction_id", how="left")
    return out.reset_index(drop=True)


def _complete_accepted(out: pd.DataFrame, frame: pd.DataFrame, kind: pd.Series) -> pd.DataFrame:
    """``accepted`` from the completion events where payoff_computed lacks it."""
    if "accepted" in out and out["accepted"].notna().all():
        return out.reset_index(drop=True)
    completed = frame[(kind == "interaction_completed")]
    if "interaction_id" in out and "payload/accepted" in completed:
        flags = completed[["interaction_id", "payload/accepted"]].rename(columns={"payload/accepted": "done"})
        out = out.merge(flags, on="interaction_id", how="left")
        out["accepted"] = out["accepted"].fillna(out.pop("done")) if "accepted" in out else out.pop("done")
    return out.reset_index(drop=True)


def read_events(frame: pd.DataFrame, name: str) -> LogTable:
    """SWARM's append-only event log as a series of interactions: p, v_hat, tau, accepted and
    the payoffs of each completed interaction, one step per interaction in log order (SWARM's
    own step restarts every epoch and holds several interactions; the epoch is kept)."""
    rows = interaction_events(frame)
    notes = []
    if rows is None:
        payload = [c for c in frame.columns if str(c).startswith("payload/")]
        if not payload:
            raise InputError(f"{name}: SWARM events carry their values under 'payload'")
        rows = frame[payload].rename(columns=lambda c: c[len("payload/"):])
        rows = rows.assign(**{c: frame[c] for c in ("epoch",) if c in frame})
    else:
        notes.append(f"{len(rows)} interactions (SWARM's events joined by interaction_id); "
                     "step = the interaction's position in the log")
    metrics = [c for c in rows.columns if c not in _IDS]
    numbers = numeric_frame(rows[metrics].astype({c: float for c in ("accepted",) if c in rows}), name)
    numbers = numbers.dropna(how="all").reset_index(drop=True)
    if "epoch" in rows and len(numbers) == len(rows):
        numbers.insert(0, "epoch", pd.to_numeric(rows["epoch"], errors="coerce").to_numpy())
    numbers.insert(0, "step", np.arange(len(numbers), dtype=float))
    return LogTable(numbers, "swarm-events", name, notes)


def read_sweep(frame: pd.DataFrame, name: str) -> LogTable:
    """One row per run: run = run_index, a single step (0); parameters stay as metrics."""
    check_repeated_header(frame, name)
    numbers = numeric_frame(frame, name)
    run = numbers.pop("run_index").astype("Int64").astype(str)
    numbers.insert(0, "step", 0)
    numbers.insert(0, "run", run.to_numpy())
    return LogTable(numbers, "swarm-sweep", name, ["a sweep CSV has one row per run: not a time series"])
