"""Per-agent series on one step grid: the shape every multi-agent estimator starts from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError


@dataclass(frozen=True)
class AgentSeries:
    """One behaviour series per agent (rows), on shared steps (columns)."""

    names: list
    steps: np.ndarray
    values: np.ndarray   # agents x steps, finite


def agent_series(data, *, agent: str = "agent", step: str = "step", value: str | None = None,
                 argname: str = "series") -> AgentSeries:
    """Per-agent series from a wide frame (one column per agent, the index or a ``step``
    column the steps), a ``{agent: values}`` mapping (values: arrays or Series indexed by step),
    or a long frame with ``agent``, ``step`` and ``value`` columns.

    >>> long = pd.DataFrame({"agent": ["a", "a", "b", "b"], "step": [0, 1, 0, 1], "effort": [1, 0, 1, 1]})
    >>> got = agent_series(long, value="effort")
    >>> got.names, got.values.tolist()
    (['a', 'b'], [[1.0, 0.0], [1.0, 1.0]])
    """
    if isinstance(data, dict):
        frame = pd.DataFrame({str(k): (v if isinstance(v, pd.Series) else pd.Series(np.asarray(v, dtype=float)))
                              for k, v in data.items()})
    elif isinstance(data, pd.DataFrame) and agent in data.columns:
        if value is None:
            others = [c for c in data.columns if c not in (agent, step)]
            if len(others) != 1:
                raise InputError(f"{argname}: a long table needs value= (one of {', '.join(map(str, others))})")
            value = others[0]
        for column in (step, value):
            if column not in data.columns:
                raise InputError(f"{argname}: no {column!r} column (columns: {', '.join(map(str, data.columns))})")
        if data.duplicated([agent, step]).any():
            raise InputError(f"{argname}: an agent has two values at one step; aggregate them first")
        frame = data.pivot(index=step, columns=agent, values=value)
    elif isinstance(data, pd.DataFrame):
        frame = data.set_index(step) if step in data.columns else data
    else:
        raise InputError(f"{argname}: expected a frame (wide, or long with an {agent!r} column) or a "
                         f"{{agent: values}} mapping, got {type(data).__name__}")
    frame = frame.apply(pd.to_numeric, errors="coerce").sort_index()
    if frame.shape[1] < 2:
        raise InputError(f"{argname}: {frame.shape[1]} agent(s); the agents' interplay needs at least two")
    missing = frame.isna()
    if missing.any().any():
        worst = missing.sum().idxmax()
        raise InputError(f"{argname}: {int(missing.to_numpy().sum())} missing value(s) (agent {worst!r} misses "
                         f"{int(missing[worst].sum())}); every agent needs a value at every step - carry a state "
                         "forward or aggregate per period first")
    values = frame.to_numpy(dtype=float).T
    if not np.isfinite(values).all():
        raise InputError(f"{argname}: non-finite value(s)")
    steps = pd.to_numeric(pd.Series(frame.index), errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(steps).all():
        steps = np.arange(frame.shape[0], dtype=float)
    return AgentSeries([str(c) for c in frame.columns], steps, values)
