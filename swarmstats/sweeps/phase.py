"""The critical value of a swept parameter where collapse begins.

SWARM's rule: a value is stable when no seed collapsed; critical = midpoint of (largest stable,
smallest collapsing), or the smallest collapsing value when they overlap; None without a
transition.  The better estimate: a logistic fit of P(collapse) against the parameter, whose
50% point -a/b gets a bootstrap interval (runs resampled within each parameter value).  A small
ridge penalty keeps the fit finite when the sweep separates perfectly.
"""

from __future__ import annotations

import numpy as np

from .._input.random_state import resolve_rng
from .._kernels.bootstrap import percentile_interval

RIDGE = 1e-4


def midpoint_rule(values: np.ndarray, collapsed: np.ndarray) -> float | None:
    """SWARM's critical fraction.

    >>> midpoint_rule(np.array([0.1, 0.1, 0.2, 0.3, 0.3]), np.array([0, 0, 0, 1, 1]))
    0.25
    """
    values = np.round(np.asarray(values, dtype=float), 3)
    collapsed = np.asarray(collapsed, dtype=bool)
    levels = np.unique(values)
    stable = [v for v in levels if not collapsed[values == v].any()]
    collapsing = [v for v in levels if collapsed[values == v].any()]
    if not stable or not collapsing:
        return None
    high_stable, low_collapse = max(stable), min(collapsing)
    if high_stable < low_collapse:
        return float((high_stable + low_collapse) / 2)
    return float(low_collapse)


def logistic_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(a, b) of P(y = 1) = 1 / (1 + exp(-(a + b x))) by Newton's method with a ridge on b.

    >>> a, b = logistic_fit(np.array([0.0, 1, 2, 3, 4, 5]), np.array([0.0, 0, 1, 0, 1, 1]))
    >>> round(-a / b, 6)  # symmetric data: the 50% point is the middle
    2.5
    """
    a, b = logistic_fits(np.asarray(x, dtype=float)[None, :], np.asarray(y, dtype=float)[None, :])
    return float(a[0]), float(b[0])


def logistic_fits(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Many fits at once: rows of ``x`` and ``y`` are separate data sets (bootstrap resamples)."""
    centre = x.mean(axis=1, keepdims=True)
    scale = x.std(axis=1, keepdims=True)
    scale[scale == 0] = 1.0
    z = (x - centre) / scale
    a = np.zeros(len(x))
    b = np.zeros(len(x))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(a[:, None] + b[:, None] * z)))
        w = p * (1.0 - p)
        g_a = np.sum(y - p, axis=1)
        g_b = np.sum((y - p) * z, axis=1) - RIDGE * b
        h_aa = np.sum(w, axis=1) + 1e-12
        h_ab = np.sum(w * z, axis=1)
        h_bb = np.sum(w * z * z, axis=1) + RIDGE
        det = h_aa * h_bb - h_ab * h_ab
        step_a = (h_bb * g_a - h_ab * g_b) / det
        step_b = (h_aa * g_b - h_ab * g_a) / det
        a, b = a + step_a, b + step_b
        if np.max(np.abs(np.r_[step_a, step_b])) < 1e-10:
            break
    # back to the parameter's own units
    centre, scale = centre[:, 0], scale[:, 0]
    return a - b * centre / scale, b / scale


def critical_value(values, collapsed, *, ci: float = 0.95, n_boot: int = 1000, random_state=0) -> dict:
    """Both estimates of the critical value, the logistic one with a bootstrap interval."""
    x = np.asarray(values, dtype=float)
    y = np.asarray(collapsed, dtype=float)
    result = {"midpoint": midpoint_rule(x, y), "logistic": None, "ci": [None, None], "slope": None}
    if y.min() == y.max() or np.unique(x).size < 2:
        return result
    a, b = logistic_fit(x, y)
    if b == 0:
        return result
    result.update(logistic=-a / b, slope=b)
    rng = resolve_rng(random_state)
    # stratified bootstrap: runs resampled within each parameter value, all fits at once
    levels = np.unique(x)
    members = [np.flatnonzero(x == v) for v in levels]
    idx = np.concatenate([m[rng.integers(0, len(m), size=(n_boot, len(m)))] for m in members], axis=1)
    xb, yb = x[idx], y[idx]
    ab, bb = logistic_fits(xb, yb)
    defined = (yb.min(axis=1) != yb.max(axis=1)) & (bb > 0)
    estimates = np.where(defined, -ab / np.where(bb > 0, bb, 1.0), np.nan)
    low, high = percentile_interval(estimates, ci)
    result["ci"] = [float(low[0]), float(high[0])]
    return result
