"""Heavy tails of the scores within keys: one kurtosis for all keys, from the fourth-power sums
each key keeps, and what it does to how much a key's own variance says about its noise.

A key's sample variance s^2 on n scores varies, around sigma^2, by

    Var(s^2) / sigma^4 = 2 / (n - 1) + kappa / n,

kappa the scores' excess kurtosis (0 for normal noise).  The noise prior reads each key's s^2
as sigma^2 chi^2_d / d with d = n - 1: under heavy tails that trusts a short key's own spread
too much.  A key that drew five close scores while its agent sometimes scores 0 (a failed
episode, a timeout) looks precise, and its wrong-side probability was too low: in a population
whose scores were 0 one time in ten, keys of 5 scores given 1-5% were wrong 8.7% of the time.
Matching the variance of s^2 instead, d = 2 / (2 / (n - 1) + kappa / n) (a scaled chi^2 with
the right first two moments), makes such a key lean on what the other keys say of the noise.

One kurtosis K = kappa + 3 serves all keys, solved by the method of moments: for n independent
scores with variance sigma^2 and kurtosis K, around their own mean,

    E[M4]   = sigma^4 ((n - 1)(n^2 - 3n + 3) K + 3 (n - 1)(2n - 3)) / n^2,
    E[M2^2] = sigma^4 (n - 1)^2 (K / n + 1 - (n - 3) / (n (n - 1))),

so sum(M4) = sum(M2^2 E[M4] / E[M2^2]) is an unbiased estimating equation for K whatever each
key's sigma.  Keys of 2 or 3 scores say nothing of K (both sides move together) and are left
out.  The standard error comes from a grouped jackknife over keys; the excess kurtosis used is
the estimate less one standard error, never below 0, as the persistence is (a few short keys
of normal noise are judged as before).

numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the kurtosis values the moment equation is solved over (log-spaced from the smallest any
#: distribution has, a coin's 1, to a rare event's: a score that is 0 one time in a thousand
#: has K ~ 1,000)
KURTOSIS_GRID = np.geomspace(1.0, 2000.0, 600)
#: the fewest scores a key needs for its fourth moment to say anything of the kurtosis
MIN_SCORES = 4
#: key groups of the jackknife that gives the estimate's standard error
JACKKNIFE_GROUPS = 20


def expected_fourth(kurtosis, n) -> tuple[np.ndarray, np.ndarray]:
    """(E[M4], E[M2^2]) at unit variance for ``n`` independent scores of kurtosis ``kurtosis``,
    each sum of powers of deviations from the scores' own mean.

    >>> [round(float(v), 6) for v in expected_fourth(3.0, 10)]   # normal: E[M2^2] = (n^2 - 1)
    [24.3, 99.0]
    """
    kurtosis, n = np.asarray(kurtosis, float), np.asarray(n, float)
    fourth = ((n - 1) * (n * n - 3 * n + 3) * kurtosis + 3 * (n - 1) * (2 * n - 3)) / (n * n)
    squared = (n - 1) ** 2 * (kurtosis / n + 1 - (n - 3) / (n * (n - 1)))
    return fourth, squared


def _solve(fourth_by_length: np.ndarray, squared_by_length: np.ndarray, ratios: np.ndarray) -> float:
    """K solving sum(M4) = sum over lengths of sum(M2^2) E[M4] / E[M2^2], where ``ratios`` holds
    E[M4] / E[M2^2] on :data:`KURTOSIS_GRID` x lengths (interpolated on the grid; its ends when
    the sums lie beyond what any K gives)."""
    total = float(squared_by_length.sum())
    if not total > 0:
        return math.nan
    model = ratios @ (squared_by_length / total)
    return float(np.interp(float(fourth_by_length.sum()) / total, model, KURTOSIS_GRID))


def pooled_kurtosis(fourth: np.ndarray, squares: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """(K, its standard error) of the scores within keys, from each key's sum of fourth powers
    ``fourth`` (M4) and of squares ``squares`` (M2) of deviations from its own mean, and its
    length ``n``; K is 3 for normal noise.  (nan, nan) when no key has :data:`MIN_SCORES`.

    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((4000, 10)) < 0.1) * 1.0      # a 1 one time in ten: K = 0.73 / 0.09
    >>> d = x - x.mean(axis=1, keepdims=True)
    >>> k, se = pooled_kurtosis((d ** 4).sum(1), (d ** 2).sum(1), np.full(4000, 10))
    >>> abs(k - 0.73 / 0.09) < 3 * se, se < 0.5
    (True, True)
    """
    fourth, squares, n = (np.asarray(a, float) for a in (fourth, squares, n))
    used = (n >= MIN_SCORES) & np.isfinite(fourth) & np.isfinite(squares) & (squares > 0)
    if not used.any():
        return math.nan, math.nan
    fourth, squared, n = fourth[used], squares[used] ** 2, n[used]
    lengths, which = np.unique(n, return_inverse=True)
    # each group of keys' sums per length: the estimate from all, and without each group
    groups = np.arange(len(n)) % JACKKNIFE_GROUPS
    cells = groups * len(lengths) + which
    size = JACKKNIFE_GROUPS * len(lengths)
    fourth_cells = np.bincount(cells, weights=fourth, minlength=size).reshape(JACKKNIFE_GROUPS, -1)
    squared_cells = np.bincount(cells, weights=squared, minlength=size).reshape(JACKKNIFE_GROUPS, -1)
    expected_fourth_sums, expected_squared = expected_fourth(KURTOSIS_GRID[:, None], lengths[None, :])
    ratios = expected_fourth_sums / expected_squared  # the same for the estimate and each group left out
    kurtosis = _solve(fourth_cells.sum(0), squared_cells.sum(0), ratios)
    present = np.flatnonzero(squared_cells.sum(1) > 0)
    if len(present) < 2:
        return kurtosis, math.inf
    left_out = np.array([_solve(fourth_cells.sum(0) - fourth_cells[g], squared_cells.sum(0) - squared_cells[g],
                                ratios) for g in present])
    left_out = left_out[np.isfinite(left_out)]
    g = len(left_out)
    se = math.sqrt((g - 1) / g * float(((left_out - left_out.mean()) ** 2).sum())) if g > 1 else math.inf
    return kurtosis, se


@dataclass(frozen=True)
class HeavyTails:
    """The scores' pooled kurtosis within keys: ``kurtosis`` and its standard error ``se`` (nan
    when no key has :data:`MIN_SCORES` scores), and ``excess_used``, what the key table applies:
    the kurtosis less one standard error, less 3 (normal), never below 0."""

    kurtosis: float
    se: float
    excess_used: float
    keys: int  # keys with MIN_SCORES or more scores, which the estimate rests on

    @classmethod
    def of(cls, fourth, squares, n) -> "HeavyTails":
        kurtosis, se = pooled_kurtosis(fourth, squares, n)
        used = max(kurtosis - se - 3.0, 0.0) if math.isfinite(kurtosis) and math.isfinite(se) else 0.0
        return cls(kurtosis, se, used, int(np.sum(np.asarray(n) >= MIN_SCORES)))


def variance_dofs(dofs, excess: float, n) -> np.ndarray:
    """The degrees of freedom a key's sample variance is worth, ``dofs`` for normal scores,
    under excess kurtosis ``excess``: 2 / (2 / dofs + excess / n), at least 1.

    >>> [round(float(d), 3) for d in variance_dofs(np.array([4.0, 29.0]), 5.0, np.array([5, 30]))]
    [1.333, 8.488]
    """
    dofs, n = np.asarray(dofs, float), np.asarray(n, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        adjusted = 2.0 / (2.0 / dofs + excess / np.maximum(n, 1.0))
    return np.maximum(np.where(dofs > 0, adjusted, dofs), 1.0)
