"""What the regimes leave: the noise around each regime's level or line, and whether that
noise has long memory - in which case the "regimes" may be its wander, not changes."""

from __future__ import annotations

import math

import numpy as np

from .._kernels.long_memory import (
    MIN_POINTS,
    POSSIBLE_EVIDENCE,
    SpectralMemory,
    mean_variance,
    spectral_memory,
)
from .._kernels.pooled_noise import line_residuals


def around_regimes(values: np.ndarray, segments) -> np.ndarray:
    """``values`` less each regime's mean, or its least-squares line where the regime is
    sloped (``segments``: :attr:`RegimeResult.segments` of ``values``; its start, end and
    sloped columns).

    >>> import pandas as pd
    >>> table = pd.DataFrame({"start": [0, 3], "end": [3, 6], "sloped": [False, True]})
    >>> around_regimes(np.array([0.0, 1, 2, 3, 5, 7]), table).tolist()
    [-1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    """
    values = np.asarray(values, dtype=float)
    residuals = np.empty_like(values)
    # only the "trend" model marks sloped regimes; the others fit levels
    sloped_by = segments["sloped"] if "sloped" in segments else [False] * len(segments)
    for start, end, sloped in zip(segments["start"], segments["end"], sloped_by):
        part = values[start:end]
        residuals[start:end] = line_residuals(part) if sloped else part - part.mean()
    return residuals


def memory_around(values: np.ndarray, segments) -> SpectralMemory | None:
    """The long-memory reading of the noise around the regimes (:func:`around_regimes`), when
    a long-memory model fits it better than any short-memory one by at least
    :data:`~swarmstats._kernels.long_memory.POSSIBLE_EVIDENCE` (BIC); None otherwise, and
    below :data:`~swarmstats._kernels.long_memory.MIN_POINTS` points.

    Stationary long-memory noise wanders in stretches that a changepoint search cuts into
    "regimes" (ARFIMA d = 0.3, 2,000 points: 1.7 changes per series), and what those regimes
    leave still has long memory: measured, the BIC evidence of the residuals exceeded 2 in 18
    of 23 such series that showed changes (d = 0.2: 7 of 8).  Around real changes the noise is
    short-memory: -4.4 or lower in every one of 60 series with a 1-SD step or five levels in
    white or AR(0.5) noise, or a learning curve in AR(0.5) noise.

    >>> rng = np.random.default_rng(0)
    >>> steps = np.repeat([0.0, 2.0, -1.0], 300) + rng.normal(size=900)
    >>> table = {"start": [0, 300, 600], "end": [300, 600, 900], "sloped": [False] * 3}
    >>> memory_around(steps, table) is None
    True
    """
    if len(values) < MIN_POINTS:
        return None
    memory = spectral_memory(around_regimes(values, segments))
    return memory if memory.evidence > POSSIBLE_EVIDENCE and math.isfinite(memory.long_scale) else None


#: a change whose level difference is within this many standard deviations of what the
#: long-memory noise's own model gives the difference of two segment means is "wander"
WANDER_Z = 4.0


def wander_changes(segments, memory: SpectralMemory) -> list:
    """The positions (in ``segments``' order: change i between regime i and i + 1) of the
    changes whose difference of regime means is within :data:`WANDER_Z` standard deviations
    of that difference under ``memory``'s long-memory model, with no change at all.

    Var(mean A - mean B) for adjacent stretches of a and b points is Var(A) + Var(B) -
    2 Cov(A, B), the covariance from the variance of their union's mean; under long memory
    adjacent means are positively correlated.  Measured on the changes the search found in
    stationary ARFIMA noise whose residuals have long memory: z below 3 for nearly all (5 of
    ~45 between 3.2 and 4.6, each in a series cut into several); a 3-SD step in the same
    noise: 8-22; real jumps in public RL curves: 9.8-44 (A2C Pong, PPO Pong, TD3 Humanoid).
    """
    theta, scale = np.array(memory.long_theta), memory.long_scale
    sizes, means = segments["n"].to_numpy(), segments["mean"].to_numpy(dtype=float)
    within = []
    for i in range(len(sizes) - 1):
        a, b = int(sizes[i]), int(sizes[i + 1])
        var_a, var_b, var_ab = (mean_variance(theta, scale, k) for k in (a, b, a + b))
        covariance = ((a + b) ** 2 * var_ab - a * a * var_a - b * b * var_b) / (2.0 * a * b)
        spread = math.sqrt(max(var_a + var_b - 2.0 * covariance, 0.0))
        if abs(means[i + 1] - means[i]) < WANDER_Z * spread:
            within.append(i)
    return within
