"""SWARM interaction records -> one row per interaction with ``p`` and ``accepted``.

Reads plain interaction tables (CSV/TSV/JSONL with p and accepted columns),
SWARM's history JSON (a dict holding epoch snapshots, agent snapshots and a
list of interaction events) and SWARM's append-only event log (JSON Lines
as SWARM writes it: an interaction's proposal, completion and payoff_computed events
joined by interaction_id, the observed p and accept flag taken from the payoff
components).  Unknown event types are skipped; log-formats.md section 10.
"""

from __future__ import annotations

import os

import pandas as pd

from ..errors import InputError
from .columnar import columnar_kind
from .formats.swarm_logs import interaction_events
from .tabular import (
    BytesSource,
    decode_text,
    parse_json,
    read_source,
    read_table,
    sniff_layout,
)

#: the fields of a payload that are lifted to top-level columns
_PAYLOAD_PREFIX = "payload/"


def read_interactions(source, *, format: str | None = None, p: str = "p",
                      accepted: str | None = "accepted") -> pd.DataFrame:
    """Interaction rows of a SWARM export or any table with ``p`` / ``accepted`` columns
    (``accepted=None``: only ``p`` is required).

    >>> import io
    >>> text = ('{"event_type": "interaction_proposed", "interaction_id": "a", "epoch": 0, '
    ...         '"payload": {"p": 0.5}}\\n'
    ...         '{"event_type": "interaction_completed", "interaction_id": "a", "epoch": 0, '
    ...         '"payload": {"accepted": true}}\\n'
    ...         '{"event_type": "payoff_computed", "interaction_id": "a", "epoch": 0, '
    ...         '"payload": {"components": {"p": 0.72, "accepted": true}}}\\n')
    >>> read_interactions(io.StringIO(text))[["epoch", "p", "accepted"]].to_dict("records")
    [{'epoch': 0, 'p': 0.72, 'accepted': True}]
    """
    if format is None or format == "json":
        name, data = read_source(source)
        columnar = format is None and columnar_kind(data[:8]) is not None  # Parquet / Arrow
        text = decode_text(name, data) if data and not columnar else ""
        if format == "json" or (text.strip() and sniff_layout(name, text[:65536]) == "json"):
            frame = _from_history(name, text)
            return _select(frame, name, "json", p, accepted)
        if not isinstance(source, (str, os.PathLike)) or source == "-":
            source = BytesSource(name, data)  # a stream can be read only once
    frame = read_table(source, format=format)
    return _select(frame, frame.attrs.get("source"), frame.attrs.get("format"), p, accepted)


def _from_history(name: str, text: str) -> pd.DataFrame:
    payload = parse_json(name, text)
    if isinstance(payload, list):
        records = payload
    elif isinstance(payload, dict):
        candidates = {key: value for key, value in payload.items()
                      if isinstance(value, list) and value and isinstance(value[0], dict)
                      and any(_looks_like_interaction(item) for item in value[:50])}
        if not candidates:
            raise InputError(f"{name}: no list of interaction records (objects with p); "
                             f"top-level keys: {', '.join(map(str, payload)) or 'none'}")
        if len(candidates) > 1:
            raise InputError(f"{name}: several lists hold interaction records "
                             f"({', '.join(candidates)}); export one of them")
        records = next(iter(candidates.values()))
    else:
        raise InputError(f"{name}: expected a JSON object or list of records")
    if not all(isinstance(r, dict) for r in records):
        raise InputError(f"{name}: expected a list of JSON objects")
    frame = pd.json_normalize(records, sep="/")
    frame.attrs["source"] = name
    return frame


def _looks_like_interaction(item) -> bool:
    if not isinstance(item, dict):
        return False
    body = item.get("payload") if isinstance(item.get("payload"), dict) else item
    return "p" in body


def _select(frame: pd.DataFrame, name, format, p: str, accepted: str) -> pd.DataFrame:
    """Join an event log's interactions, lift payload fields, check the columns."""
    from_events = "event_type" in frame.columns
    joined = interaction_events(frame) if from_events else None
    if joined is not None:  # SWARM's event log: one row per completed interaction
        frame = joined
    lifted = {c: c[len(_PAYLOAD_PREFIX):] for c in frame.columns
              if c.startswith(_PAYLOAD_PREFIX) and c[len(_PAYLOAD_PREFIX):] not in frame.columns}
    frame = frame.rename(columns=lifted)
    required = [c for c in (p, accepted) if c is not None]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(f"{name}: no column {missing[0]!r} (use --p / --accepted to name the "
                         f"columns); columns are {', '.join(map(str, frame.columns[:20]))}")
    if from_events:
        # an interaction whose score or outcome was never logged is skipped, not guessed
        frame = frame[frame[required].notna().all(axis=1)]
        if frame.empty:
            raise InputError(f"{name}: no interaction events with {' and '.join(required)}")
    frame = frame.reset_index(drop=True)
    frame.attrs.update(source=name, format=format)
    return frame
