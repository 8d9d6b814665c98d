"""The standard error of a mean that an interval can be trusted with.

Two estimates, the larger kept: Geyer's g (sd * sqrt(g / n)) and batch means
(5-20 batches of at least 5 g points, sd of the batch means / sqrt(K)).  Geyer's
truncated sum is biased low when n / g is small, and selecting a warm-up on the
same data biases it lower; batch means see the slow part of the autocorrelation
that the truncated sum misses.  The interval uses a t law on K - 1 df.

Long memory (variance of the mean decaying slower than 1/n) shows as a batch-means
variance b * Var(batch means) that keeps growing with the batch length b; it is
measured at 1, 2, 4 and 8 times the base batch length (while at least 8 batches
remain) and, when it has at least doubled, the standard error is taken from the
longest batches.  numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .autocorr import block_means
from .stationarity import batch_count

#: Growth of b * Var(batch means) from the shortest to the longest batch length that
#: is read as long memory (short-memory series stay near 1).
LONG_MEMORY_GROWTH = 2.0


@dataclass(frozen=True)
class MeanPrecision:
    mcse: float
    dof: int
    long_memory: bool
    growth: float  # b * Var(batch means), longest batches over shortest


def batch_variance(x: np.ndarray, size: int) -> float:
    """size * Var(means of batches of ``size``): n Var(mean) as batches of that length see it."""
    means = block_means(x, size)
    return size * float(np.var(means, ddof=1)) if len(means) > 1 else float("nan")


def mean_precision(x: np.ndarray, tau: float) -> MeanPrecision:
    """MCSE of the mean of ``x`` given Geyer's integrated time ``tau``.

    >>> rng = np.random.default_rng(0)
    >>> p = mean_precision(rng.normal(size=2000), 1.0)
    >>> round(p.mcse, 3), p.dof, p.long_memory
    (0.022, 19, False)
    """
    n = len(x)
    sd = float(np.std(x, ddof=1))
    geyer = sd * math.sqrt(tau / n)
    count = batch_count(n, tau)
    size = n // count
    base = batch_variance(x, size)
    batched = math.sqrt(base / n) if math.isfinite(base) else 0.0
    growth, longest = 1.0, base
    multiple = 2
    while n // (size * multiple) >= 8:
        longest = batch_variance(x, size * multiple)
        multiple *= 2
    if multiple > 4 and base > 0:  # at least two doublings measured
        growth = longest / base
    long_memory = bool(growth >= LONG_MEMORY_GROWTH)
    mcse = max(geyer, batched)
    if long_memory:
        mcse = max(mcse, math.sqrt(longest / n))
    return MeanPrecision(mcse=mcse, dof=max(count - 1, 1), long_memory=long_memory,
                         growth=float(growth))
