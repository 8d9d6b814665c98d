"""Per-agent series from a SWARM export: the shape the multi-agent estimators start from."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError


def agent_reputations(events: pd.DataFrame) -> pd.DataFrame:
    """One column per agent, one row per SWARM step (epoch x steps per epoch + step, in log
    order), each agent's reputation carried forward from its last update - before its first,
    the value that update started from.  ``events``: SWARM's event log as a table (one row per
    event, the payload flattened to ``payload/...`` columns, as ``swarmstats.io.read_table``
    reads it).

    >>> events = pd.DataFrame({"event_type": ["reputation_updated"] * 3, "agent_id": ["a", "b", "a"],
    ...                        "epoch": [0, 0, 1], "step": [0, 1, 0], "payload/old_reputation": [0.0, 0.0, 0.2],
    ...                        "payload/new_reputation": [0.2, -0.1, 0.5]})
    >>> agent_reputations(events).to_dict("list")
    {'a': [0.2, 0.2, 0.5], 'b': [0.0, -0.1, -0.1]}
    """
    needed = {"event_type", "agent_id", "epoch", "step", "payload/new_reputation"}
    if not needed <= set(events.columns):
        raise InputError("not a SWARM event log with reputation updates (event_type, agent_id, epoch, step and "
                         "payload/new_reputation)")
    updates = events[events["event_type"].astype(str) == "reputation_updated"].copy()
    if updates.empty:
        raise InputError("the SWARM event log holds no reputation_updated events")
    updates["epoch"] = pd.to_numeric(updates["epoch"], errors="coerce")
    updates["step"] = pd.to_numeric(updates["step"], errors="coerce")
    updates = updates.dropna(subset=["epoch", "step"])
    # one row per (epoch, step) that any agent was updated in, in order; the last update wins
    updates["_order"] = np.arange(len(updates))
    grid = updates[["epoch", "step"]].drop_duplicates().sort_values(["epoch", "step"]).reset_index(drop=True)
    key = pd.MultiIndex.from_frame(grid)
    last = updates.sort_values("_order").groupby(["agent_id", "epoch", "step"])["payload/new_reputation"].last()
    wide = last.unstack("agent_id").reindex(key).ffill()
    if "payload/old_reputation" in updates.columns:
        first = updates.sort_values("_order").groupby("agent_id")["payload/old_reputation"].first()
        wide = wide.fillna(first)
    wide = wide.astype(float).reset_index(drop=True)
    wide.columns = [str(c) for c in wide.columns]
    wide.columns.name = None
    return wide
