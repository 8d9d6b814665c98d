"""Validation of interaction batches: p in [0, 1], a boolean-like accept flag."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._series import check_nan_policy
from ..errors import InputError

_TRUE = {"true", "t", "yes", "y", "1", "1.0", "accepted", "accept"}
_FALSE = {"false", "f", "no", "n", "0", "0.0", "rejected", "reject"}


def as_probabilities(p, *, argname: str = "p") -> np.ndarray:
    """Float64 copy of ``p`` (1-D); NaN kept for the caller's NaN policy."""
    if isinstance(p, (pd.Series, pd.Index)):
        p = p.to_numpy(dtype=float, na_value=np.nan) if p.dtype != object else p.to_numpy()
    try:
        values = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{argname}: expected numbers in [0, 1]; some values are not numbers") from None
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
    array = np.asarray(accepted)
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
            raise InputError(f"{argname}: expected booleans or 0/1, found {flags[bad][0]!r} "
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


def interaction_arrays(p, accepted, *, nan_policy: str = "raise", extras: dict | None = None):
    """Validated (p, accepted, extras) with rows missing any value handled by ``nan_policy``.

    >>> p, a, _ = interaction_arrays([0.2, 0.9], [False, True])
    >>> p.tolist(), a.tolist()
    ([0.2, 0.9], [False, True])
    """
    check_nan_policy(nan_policy)
    p_values = as_probabilities(p)
    flags = as_accept_flags(accepted)
    extras = {name: as_probabilities(values, argname=name) for name, values in (extras or {}).items()
              if values is not None}
    for name, values in {"accepted": flags, **extras}.items():
        if len(values) != len(p_values):
            raise InputError(f"{name} has {len(values)} values but p has {len(p_values)}; "
                             "they must be the same length")
    missing = ~np.isfinite(p_values) | np.isnan(flags)
    for values in extras.values():
        missing |= ~np.isfinite(values)
    if missing.any():
        if nan_policy == "raise":
            where = np.flatnonzero(missing)
            raise InputError(
                f"{int(missing.sum())} interaction(s) have a missing or non-finite p, accepted or "
                f"payoff term (first at position {int(where[0])}); pass nan_policy='omit' "
                "(command line: --nan-policy omit) to drop them")
        keep = ~missing
        p_values, flags = p_values[keep], flags[keep]
        extras = {name: values[keep] for name, values in extras.items()}
    outside = (p_values < 0) | (p_values > 1)
    if outside.any():
        raise InputError(f"p must lie in [0, 1]; {int(outside.sum())} value(s) do not "
                         f"(first: {p_values[outside][0]!r})")
    if len(p_values) == 0:
        raise InputError("no interactions to analyse (empty batch)")
    return p_values, flags.astype(bool), extras
