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


def agent_table(data, *, agent: str = "agent", step: str = "step", value: str | None = None,
                argname: str = "series") -> pd.DataFrame:
    """Steps x agents, as given (no conversion; missing where an agent has no value), sorted by
    step, from a wide frame (a column per agent, the index or a ``step`` column the steps), a
    steps x agents array, an ``{agent: values}`` mapping (arrays or Series indexed by step), or
    a long frame with ``agent``, ``step`` and ``value`` columns.

    >>> long = pd.DataFrame({"agent": ["a", "b", "a"], "step": [1, 0, 0], "vote": ["x", "y", "y"]})
    >>> agent_table(long).to_dict("list")
    {'a': ['y', 'x'], 'b': ['y', nan]}
    """
    if isinstance(data, dict):
        frame = pd.DataFrame({str(k): (v if isinstance(v, pd.Series) else pd.Series(list(v))) for k, v in data.items()})
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
    elif isinstance(data, np.ndarray) and data.ndim == 2:
        frame = pd.DataFrame(data)
    else:
        raise InputError(f"{argname}: expected a frame (wide, or long with an {agent!r} column), a steps x agents "
                         f"array or an {{agent: values}} mapping, got {type(data).__name__}")
    if frame.shape[1] < 2:
        raise InputError(f"{argname}: {frame.shape[1]} agent(s); the agents' interplay needs at least two")
    frame = frame.sort_index()
    frame.columns = [str(c) for c in frame.columns]
    return frame


def step_axis(frame: pd.DataFrame) -> np.ndarray:
    """The frame's index as numbers, or positions when it is not numeric."""
    steps = pd.to_numeric(pd.Series(frame.index), errors="coerce").to_numpy(dtype=float)
    return steps if np.isfinite(steps).all() else np.arange(len(frame), dtype=float)


def agent_series(data, *, agent: str = "agent", step: str = "step", value: str | None = None,
                 argname: str = "series") -> AgentSeries:
    """Numeric per-agent series with a value at every step (see :func:`agent_table` for the
    layouts).

    >>> long = pd.DataFrame({"agent": ["a", "a", "b", "b"], "step": [0, 1, 0, 1], "effort": [1, 0, 1, 1]})
    >>> got = agent_series(long, value="effort")
    >>> got.names, got.values.tolist()
    (['a', 'b'], [[1.0, 0.0], [1.0, 1.0]])
    """
    frame = agent_table(data, agent=agent, step=step, value=value, argname=argname)
    numbers = frame.apply(pd.to_numeric, errors="coerce")
    words = numbers.isna() & frame.notna()
    if words.any().any():
        example = frame[words].stack().iloc[0]
        raise InputError(f"{argname}: {int(words.to_numpy().sum())} value(s) are not numbers (e.g. {example!r}); "
                         "for actions or strategies use swarmstats.agreement")
    frame = numbers
    missing = frame.isna()
    if missing.any().any():
        worst = missing.sum().idxmax()
        raise InputError(f"{argname}: {int(missing.to_numpy().sum())} missing value(s) (agent {worst!r} misses "
                         f"{int(missing[worst].sum())}); every agent needs a value at every step - carry a state "
                         "forward or aggregate per period first")
    values = frame.to_numpy(dtype=float).T
    if not np.isfinite(values).all():
        raise InputError(f"{argname}: non-finite value(s)")
    return AgentSeries(list(frame.columns), step_axis(frame), values)
