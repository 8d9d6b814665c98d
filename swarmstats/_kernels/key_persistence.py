"""Persistence of the scores within keys: one AR(1) coefficient for all keys, from the lag-1
sums each key keeps, and what it does to a key's mean.

A key's scores arrive in time order (an agent's rounds, a checkpoint's evaluations).  When
they are persistent, the sample mean carries less information than ``n`` independent scores
and the sample variance around it is too small; a wrong-side probability computed as if they
were independent is overconfident: keys whose scores followed an AR(0.5) process and were
given a wrong-side probability near 2.5% were on the wrong side 10-12% of the time (near
7%: 17-25%; AR(0.8): 25-40%).

The lag-1 ratio of one short key is mostly noise and biased toward -1/n, so the coefficient is
pooled over keys and solved by the method of moments: the pooled ratio sum(C1) / sum(M2) is set
equal to its expectation under AR(1) with each key centred on its own mean,

    E[M2] = n - V / n,
    E[C1] = (n - 1) rho - 2 (V - a) / n + (n - 1) V / n^2,

where V = sum over s, t of rho^|s - t| and a = (1 - rho^n) / (1 - rho) (closed forms), summed
over keys.  One standard error is taken off the solution before use, so that a few short keys
with no persistence are still judged as independent.

numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the AR(1) coefficients the moment equation is solved over (a fine grid: it is evaluated at
#: every point for each distinct key length, and interpolated)
RHO_GRID = np.linspace(-0.95, 0.995, 400)
#: the coefficient used is at most this (beyond it a key's mean is hardly informative at all)
MAX_RHO = 0.99


def ar1_sum(rho, n) -> np.ndarray:
    """V = sum over s, t < n of rho^|s - t| (so Var(mean of n) = V / n^2 at unit variance).

    >>> float(ar1_sum(0.0, 10)), float(ar1_sum(0.5, 2))
    (10.0, 3.0)
    """
    rho, n = np.asarray(rho, float), np.asarray(n, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        geometric = n * (1 + rho) / (1 - rho) - 2 * rho * (1 - rho ** n) / (1 - rho) ** 2
    return np.where(np.abs(rho) < 1e-12, n, geometric)


def expected_sums(rho, n) -> tuple[np.ndarray, np.ndarray]:
    """(E[M2], E[C1]) of n points of a unit-variance AR(1), each centred on its own mean:
    the sum of squared deviations and of lag-1 products of deviations."""
    rho, n = np.asarray(rho, float), np.asarray(n, float)
    total = ar1_sum(rho, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        edge = np.where(np.abs(rho) < 1e-12, 1.0, (1 - rho ** n) / (1 - rho))
    squares = n - total / n
    lagged = (n - 1) * rho - 2 * (total - edge) / n + (n - 1) * total / n ** 2
    return squares, lagged


def pooled_rho(lagged: np.ndarray, squares: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """(rho, its standard error) of one AR(1) for every key from the keys' lag-1 sums
    ``lagged`` (C1), squared deviations ``squares`` (M2) and lengths ``n`` (keys with three
    or more scores count).  (nan, nan) when nothing can be said.

    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros((2000, 20))
    >>> x[:, 0] = rng.normal(size=2000)
    >>> for t in range(1, 20):
    ...     x[:, t] = 0.5 * x[:, t - 1] + np.sqrt(0.75) * rng.normal(size=2000)
    >>> d = x - x.mean(axis=1, keepdims=True)
    >>> rho, se = pooled_rho((d[:, 1:] * d[:, :-1]).sum(1), (d ** 2).sum(1), np.full(2000, 20))
    >>> abs(rho - 0.5) < 0.03, se < 0.01   # the pooled ratio itself expects 0.39 here
    (True, True)
    """
    lagged, squares, n = (np.asarray(a, float) for a in (lagged, squares, n))
    used = (n >= 3) & np.isfinite(lagged) & np.isfinite(squares)
    total_squares = float(squares[used].sum())
    if not total_squares > 0:
        return math.nan, math.nan
    ratio = float(lagged[used].sum()) / total_squares
    lengths = np.unique(n[used])
    # each key's expected sums are proportional to its variance; weighting keys by their
    # share of the squares makes keys of different noise count as they do in the ratio
    weights = np.bincount(np.searchsorted(lengths, n[used]), weights=squares[used]) / total_squares
    expected_squares, expected_lagged = expected_sums(RHO_GRID[:, None], lengths[None, :])
    per_unit = weights / np.maximum(expected_squares, 1e-12)  # variance each length implies
    model = (expected_lagged * per_unit).sum(axis=1) / (expected_squares * per_unit).sum(axis=1)
    increasing = np.maximum.accumulate(model)
    rho = float(np.interp(ratio, increasing, RHO_GRID))
    slope = float(np.interp(rho, RHO_GRID[1:], np.diff(model) / np.diff(RHO_GRID)))
    pairs = float((n[used] - 1).sum())
    se = math.sqrt(max(1 - rho ** 2, 1e-6) / pairs) / max(slope, 1e-6)
    return rho, se


@dataclass(frozen=True)
class Persistence:
    """The keys' pooled AR(1) coefficient: ``rho`` and its standard error ``se`` (nan when no
    key has three scores), and ``used``, what the key table applies: rho less one standard
    error, at least 0 (independent), at most ``MAX_RHO``."""

    rho: float
    se: float
    used: float
    keys: int  # keys with three or more scores, which the estimate rests on

    @classmethod
    def of(cls, lagged, squares, n) -> "Persistence":
        rho, se = pooled_rho(lagged, squares, n)
        used = min(max(rho - se, 0.0), MAX_RHO) if math.isfinite(rho) else 0.0
        return cls(rho, se, used, int(np.sum(np.asarray(n) >= 3)))


def mean_inflation(rho: float, n) -> np.ndarray:
    """Var(mean of n AR(1) points) / (sigma^2 / n): how many independent scores one counts as
    the inverse of (1 at rho = 0)."""
    n = np.asarray(n, float)
    return ar1_sum(rho, n) / np.maximum(n, 1.0)


def variance_correction(rho: float, n) -> np.ndarray:
    """sigma^2 / E[s^2] for n AR(1) points: a sample variance around its own mean misses the
    variance of that mean (large for short persistent keys)."""
    n = np.asarray(n, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (n - ar1_sum(rho, n) / n) / (n - 1)
    return np.where(n > 1, 1.0 / np.maximum(expected, 1.0 / np.maximum(n, 1.0)), 1.0)
