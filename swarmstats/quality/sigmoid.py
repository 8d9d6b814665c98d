"""SWARM's observable-to-p transform: signals -> v_hat -> p = sigmoid_k(v_hat).

Lets users reproduce a proxy score from the observables SWARM logs (task
progress, rework, verifier rejections, tool misuse, engagement).  Definitions:
swarm-metrics.md section 2; the defaults are SWARM's code (k = 2.0, weights
0.4 / 0.2 / 0.2 / 0.2, decays 0.3 / 0.4 / 0.5).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._input.series import as_float_array
from ..errors import InputError

DEFAULT_K = 2.0
DEFAULT_WEIGHTS = {"progress": 0.4, "rework": 0.2, "verifier": 0.2, "engagement": 0.2}
#: per-count decay of the signal 2 d**n - 1 (SWARM's constants)
DECAYS = {"rework": 0.3, "rejections": 0.4, "misuse": 0.5}


def _check_k(k) -> float:
    k = float(k)
    if not 0 < k <= 100:
        raise InputError(f"k must lie in (0, 100] (SWARM's range), got {k}")
    return k


def _finite(values, name: str) -> np.ndarray:
    array = as_float_array(values, name)
    if not np.isfinite(array).all():
        raise InputError(f"{name}: {int((~np.isfinite(array)).sum())} non-finite value(s)")
    return array


def sigmoid(v_hat, k: float = DEFAULT_K):
    """p = 1 / (1 + exp(-k v_hat)), evaluated without overflow for any v_hat.

    Unlike SWARM's public helper this neither warns outside [-1, 1] nor clamps
    v_hat to [-10, 10]; the two agree to within 1e-8 for k <= 2.

    >>> [round(float(x), 6) for x in sigmoid([0.0, 0.5, 1.0, -1.0])]
    [0.5, 0.731059, 0.880797, 0.119203]
    >>> round(float(sigmoid(1.0, k=3)), 6)
    0.952574
    """
    result = special.expit(_check_k(k) * _finite(v_hat, "v_hat"))
    return float(result) if np.ndim(result) == 0 else result


def inverse_sigmoid(p, k: float = DEFAULT_K):
    """v_hat = ln(p / (1 - p)) / k for p in (0, 1); the inverse of :func:`sigmoid`.

    >>> round(float(inverse_sigmoid(sigmoid(0.48))), 12)
    0.48
    """
    p = _finite(p, "p")
    if ((p <= 0) | (p >= 1)).any():
        raise InputError("p: the inverse sigmoid needs values strictly between 0 and 1")
    result = special.logit(p) / _check_k(k)
    return float(result) if np.ndim(result) == 0 else result


def count_signal(count, decay: float):
    """A count n >= 0 as a signal in (-1, 1]: 1 if n = 0, else 2 d**n - 1.

    >>> [round(float(x), 3) for x in count_signal([0, 1, 2, 3], 0.3)]
    [1.0, -0.4, -0.82, -0.946]
    """
    if not 0.01 <= decay < 1:
        raise InputError(f"decay must satisfy 0.01 <= decay < 1, got {decay}")
    count = _finite(count, "count")
    if (count < 0).any():
        raise InputError("count: counts must be >= 0")
    result = np.where(count == 0, 1.0, 2.0 * decay ** count - 1.0)
    return float(result) if np.ndim(result) == 0 else result


def _weights(weights) -> dict:
    weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
    unknown = set(weights) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise InputError(f"weights: unknown signal(s) {sorted(unknown)}; "
                         f"expected {sorted(DEFAULT_WEIGHTS)}")
    weights = {name: float(weights.get(name, 0.0)) for name in DEFAULT_WEIGHTS}
    if any(w < 0 or not np.isfinite(w) for w in weights.values()):
        raise InputError(f"weights must be finite and non-negative, got {weights}")
    total = sum(weights.values())
    if total == 0:  # SWARM's rule: no preference means equal weights
        return {name: 0.25 for name in weights}
    return {name: w / total for name, w in weights.items()}


def swarm_proxy(progress, rework=0, rejections=0, misuse=0, engagement=0, *,
                weights=None, k: float = DEFAULT_K, return_v_hat: bool = False):
    """SWARM's proxy score p (and v_hat) from interaction observables.

    ``progress`` and ``engagement`` are deltas (clipped to [-1, 1]); ``rework``,
    ``rejections`` and ``misuse`` are counts.  The verifier signal averages the
    rejection and misuse signals; v_hat is the weighted sum of the progress,
    rework, verifier and engagement signals with ``weights`` normalised to sum
    to 1 (all zero: equal weights); p = sigmoid(v_hat, k).  Arrays broadcast.

    >>> p, v = swarm_proxy(0.7, rework=1, engagement=0.4, return_v_hat=True)
    >>> round(float(v), 6), round(float(p), 6)
    (0.48, 0.723122)
    """
    w = _weights(weights)
    g = np.clip(_finite(progress, "progress"), -1, 1)
    e = np.clip(_finite(engagement, "engagement"), -1, 1)
    s_rework = count_signal(rework, DECAYS["rework"])
    verifier = (count_signal(rejections, DECAYS["rejections"])
                + count_signal(misuse, DECAYS["misuse"])) / 2
    v_hat = (w["progress"] * g + w["rework"] * np.asarray(s_rework)
             + w["verifier"] * np.asarray(verifier) + w["engagement"] * e)
    # normalised weights on signals in [-1, 1] keep v_hat in [-1, 1]; the clip
    # only absorbs rounding
    v_hat = np.clip(v_hat, -1.0, 1.0)
    p = sigmoid(v_hat, k)
    if np.ndim(v_hat) == 0:
        v_hat = float(v_hat)
    return (p, v_hat) if return_v_hat else p
