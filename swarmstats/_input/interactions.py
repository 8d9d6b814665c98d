"""Validation of interaction batches: p in [0, 1], a boolean-like accept flag."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._result import plain_number
from ..errors import InputError
from .series import check_nan_policy

_TRUE = {"true", "t", "yes", "y", "1", "1.0", "accepted", "accept"}
_FALSE = {"false", "f", "no", "n", "0", "0.0", "rejected", "reject"}


def refuse_outside_unit(values: np.ndarray, argname: str = "p") -> None:
    """InputError when a (non-NaN) value lies outside [0, 1], naming how many and the first,
    as a plain number (``1.5``, not numpy's ``np.float64(1.5)``).

    >>> refuse_outside_unit(np.array([0.2, 1.5, np.nan, -1.0]))
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: p must lie in [0, 1]; 2 value(s) do not (first: 1.5, position 1)
    """
    outside = (values < 0) | (values > 1)
    if outside.any():
        where = int(np.flatnonzero(outside)[0])
        raise InputError(f"{argname} must lie in [0, 1]; {int(outside.sum())} value(s) do not "
                         f"(first: {float(values[where])!r}, position {where})")


def as_probabilities(p, *, argname: str = "p") -> np.ndarray:
    """Float64 copy of ``p`` (1-D); NaN kept for the caller's NaN policy.

    >>> as_probabilities(["0.5", None, 1]).tolist()
    [0.5, nan, 1.0]
    >>> as_probabilities(["0.5", "high"])
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: p: expected numbers in [0, 1]; 'high' (position 1) is not a number
    """
    original = p
    try:
        if isinstance(p, (pd.Series, pd.Index)):
            numeric = pd.api.types.is_numeric_dtype(p.dtype) and not pd.api.types.is_bool_dtype(p.dtype)
            p = p.to_numpy(dtype=float, na_value=np.nan) if numeric else p.to_numpy(dtype=object)
        values = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        cells = pd.Series(np.asarray(original, dtype=object).ravel())
        bad = pd.to_numeric(cells, errors="coerce").isna() & cells.notna()
        where = int(np.flatnonzero(bad.to_numpy())[0]) if bad.any() else 0
        raise InputError(f"{argname}: expected numbers in [0, 1]; {cells.iloc[where]!r} (position {where}) "
                         "is not a number") from None
    if values.ndim != 1:
        values = values.ravel() if values.ndim == 2 and 1 in values.shape else values
    if values.ndim != 1:
        raise InputError(f"{argname}: expected a 1-D array, got shape {values.shape}")
    return values


def as_accept_flags(accepted, *, argname: str = "accepted") -> np.ndarray:
    """Float copy of a boolean-like column: 1.0, 0.0, or NaN where missing.

    Accepts booleans, 0/1 numbers and the strings true/false, yes/no, 1/0
    (any case).  Anything else is an error naming the first offending value.

    >>> as_accept_flags(["True", "no", 1, 0.0]).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    if isinstance(accepted, (pd.Series, pd.Index)):
        if pd.api.types.is_bool_dtype(accepted.dtype) and not accepted.hasnans:
            accepted = accepted.to_numpy(dtype=bool)
        elif pd.api.types.is_numeric_dtype(accepted.dtype) and not pd.api.types.is_bool_dtype(accepted.dtype):
            accepted = accepted.to_numpy(dtype=float, na_value=np.nan)
        else:
            accepted = accepted.to_numpy(dtype=object)
    try:
        array = np.asarray(accepted)
    except ValueError:  # ragged lists
        raise InputError(f"{argname}: expected one flag per interaction (a 1-D sequence), got nested "
                         "lists of different lengths") from None
    if array.ndim != 1:
        array = array.ravel() if array.ndim == 2 and 1 in array.shape else array
    if array.ndim != 1:
        raise InputError(f"{argname}: expected a 1-D array, got shape {array.shape}")
    if array.dtype == bool:
        return array.astype(float)
    if np.issubdtype(array.dtype, np.number):
        flags = array.astype(float)
        bad = np.isfinite(flags) & (flags != 0) & (flags != 1)
        if bad.any():
            hint = ("; SWARM's ground_truth is +1/-1: pass (ground_truth + 1) / 2"
                    if (flags[bad] == -1).all() else "")
            raise InputError(f"{argname}: expected booleans or 0/1, found {plain_number(flags[bad][0])!r} "
                             f"({int(bad.sum())} such value(s)){hint}")
        flags[~np.isfinite(flags)] = np.nan
        return flags
    flags = np.empty(len(array))
    for i, item in enumerate(array):
        flags[i] = _one_flag(item, argname)
    return flags


def _one_flag(item, argname: str) -> float:
    if item is None or (isinstance(item, float) and np.isnan(item)) or item is pd.NA:
        return np.nan
    if isinstance(item, (bool, np.bool_)):
        return float(item)
    if isinstance(item, (int, float, np.integer, np.floating)) and item in (0, 1):
        return float(item)
    text = str(item).strip().lower()
    if text in _TRUE:
        return 1.0
    if text in _FALSE:
        return 0.0
    if text in ("", "nan", "none", "null", "na"):
        return np.nan
    hint = "; SWARM's ground_truth is +1/-1: pass (ground_truth + 1) / 2" if text in ("-1", "-1.0") else ""
    raise InputError(f"{argname}: expected booleans (true/false, 1/0), found {item!r}{hint}")


def interaction_arrays(p, accepted, *, nan_policy: str = "raise", extras: dict | None = None,
                       labels: dict | None = None):
    """Validated (p, accepted, extras, labels) with rows missing any value handled by ``nan_policy``.

    ``extras`` are numeric columns (payoff terms); ``labels`` are columns of names or ids
    (cluster labels), returned as integer codes 0..k-1.

    >>> p, a, _, codes = interaction_arrays([0.2, 0.9, 0.5], [False, True, 1], labels={"agent": ["b", "a", "b"]})
    >>> p.tolist(), a.tolist(), codes["agent"].tolist()
    ([0.2, 0.9, 0.5], [False, True, True], [1, 0, 1])
    """
    check_nan_policy(nan_policy)
    p_values = as_probabilities(p)
    flags = as_accept_flags(accepted)
    extras = {name: as_probabilities(values, argname=name) for name, values in (extras or {}).items()
              if values is not None}
    labels = {name: _label_array(values, name) for name, values in (labels or {}).items()}
    for name, values in {"accepted": flags, **extras, **labels}.items():
        if len(values) != len(p_values):
            raise InputError(f"{name} has {len(values)} values but p has {len(p_values)}; "
                             "they must be the same length")
    missing = ~np.isfinite(p_values) | np.isnan(flags)
    for values in extras.values():
        missing |= ~np.isfinite(values)
    for values in labels.values():
        missing |= pd.isna(values)
    if missing.any():
        if nan_policy == "raise":
            where = np.flatnonzero(missing)
            raise InputError(
                f"{int(missing.sum())} interaction(s) have a missing or non-finite p, accepted, "
                f"payoff term or cluster label (first at position {int(where[0])}); pass "
                "nan_policy='omit' (command line: --nan-policy omit) to drop them")
        keep = ~missing
        p_values, flags = p_values[keep], flags[keep]
        extras = {name: values[keep] for name, values in extras.items()}
        labels = {name: values[keep] for name, values in labels.items()}
    labels = {name: pd.factorize(values, sort=True)[0] for name, values in labels.items()}
    refuse_outside_unit(p_values)
    if len(p_values) == 0:
        raise InputError("no interactions to analyse (empty batch)")
    return p_values, flags.astype(bool), extras, labels


def _label_array(values, argname: str) -> np.ndarray:
    """A 1-D object array of labels (strings, ints ...); missing ones stay missing."""
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy(dtype=object)
    array = np.asarray(values, dtype=object)
    if array.ndim != 1:
        raise InputError(f"{argname}: expected one label per interaction (1-D), got shape {array.shape}")
    return array


#: columns naming who took part in an interaction, as SWARM and common exports spell them:
#: (initiator, counterparty) pairs first, then a single agent column
AGENT_COLUMN_PAIRS = (("initiator_id", "counterparty_id"), ("initiator", "counterparty"))
AGENT_COLUMNS = ("agent_id", "agent")


def agent_columns(frame: pd.DataFrame) -> tuple | None:
    """The columns of ``frame`` that name the agents behind each interaction, or None.

    >>> agent_columns(pd.DataFrame(columns=["p", "accepted", "initiator_id", "counterparty_id"]))
    ('initiator_id', 'counterparty_id')
    >>> agent_columns(pd.DataFrame(columns=["p", "accepted", "agent"]))
    ('agent',)
    >>> agent_columns(pd.DataFrame(columns=["Step", "AgentID", "p"]))   # as Mesa names its agents
    ('AgentID',)
    """
    for pair in AGENT_COLUMN_PAIRS:
        if all(column in frame.columns for column in pair):
            return pair
    for column in AGENT_COLUMNS:
        if column in frame.columns:
            return (column,)
    # (imported only when the plain names miss: the io package is not light)
    from ..io.runs import AGENT_NAMES, normalise

    return next(((column,) for column in frame.columns if normalise(column) in AGENT_NAMES), None)


def cluster_option(frame: pd.DataFrame, columns) -> tuple:
    """(the ``clusters`` argument of quality_metrics, the column names used) for a frame.

    ``columns``: "auto" (the agent columns when the table names them), None (independent
    interactions), one column name, or a pair of them (initiator, counterparty).

    >>> frame = pd.DataFrame({"p": [0.2, 0.8], "accepted": [0, 1], "agent": ["a", "b"]})
    >>> cluster_option(frame, "auto")[1], cluster_option(frame, None)
    (('agent',), (None, ()))
    """
    if columns is None:
        return None, ()
    if isinstance(columns, str) and columns == "auto":
        # found, not asked for: a column naming a single agent has nothing to resample
        columns = tuple(c for c in agent_columns(frame) or () if frame[c].nunique() >= 2)
    elif isinstance(columns, str):
        columns = (columns,)
    columns = tuple(columns)
    if len(columns) > 2:
        raise InputError(f"clusters: one column (the agent) or two (initiator, counterparty), "
                         f"got {len(columns)}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"no column {missing[0]!r} for the clusters; columns are "
                         f"{', '.join(map(str, frame.columns))}")
    if not columns:
        return None, ()
    if len(columns) == 1:
        return frame[columns[0]], columns
    return (frame[columns[0]], frame[columns[1]]), columns
