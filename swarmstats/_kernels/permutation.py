"""Permutation null distributions for the quality gap E[p | accepted] - E[p | rejected].

Large batches (reps x n above ``EXACT_LIMIT``) draw all but
``bootstrap.exact_replicates`` of the shuffles from their normal limit (the
permutation central limit theorem, with the exact permutation variance).

Under "acceptance is independent of p" every arrangement of the accept flags
with the same number accepted is equally likely, so the null distribution of
the gap comes from shuffling the flags (within each stratum when there are
several).  Vectorised: a reps x n matrix of shuffled flags per chunk and one
matrix product gives the accepted sums of every shuffle.
"""

from __future__ import annotations

import numpy as np

from . import bootstrap
from .bootstrap import chunk_sizes


def gap_of_sums(accepted_sum, total_sum, n_accepted: int, n: int):
    """The gap from the sum of p over the accepted items and over all items."""
    rejected = n - n_accepted
    return accepted_sum / n_accepted - (total_sum - accepted_sum) / rejected


def permuted_gaps(p: np.ndarray, accepted: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """The gap under ``reps`` random shuffles of the accept flags (nan if one-sided).

    >>> gaps = permuted_gaps(np.array([0.1, 0.9]), np.array([True, False]), 200, np.random.default_rng(0))
    >>> sorted(set(np.round(gaps, 6).tolist()))
    [-0.8, 0.8]
    """
    n, n_accepted = len(p), int(accepted.sum())
    if n_accepted in (0, n):
        return np.full(reps, np.nan)
    exact = bootstrap.exact_replicates(reps, n)
    flags = accepted.astype(float)
    total = float(p.sum())
    out = np.empty(reps)
    start = 0
    for size in chunk_sizes(exact, n):
        shuffled = rng.permuted(np.broadcast_to(flags, (size, n)), axis=1)
        out[start:start + size] = gap_of_sums(shuffled @ p, total, n_accepted, n)
        start += size
    if exact < reps:
        out[exact:] = rng.normal(0.0, permutation_sd(p, n_accepted), size=reps - exact)
    return out


def block_permuted_gaps(p: np.ndarray, accepted: np.ndarray, reps: int, rng: np.random.Generator,
                        length: int) -> np.ndarray:
    """The gap under ``reps`` shuffles of contiguous blocks of ``length`` accept flags against
    p held in place (nan if one-sided): what persists within a block stays, so two series that
    merely drift together in time are not taken for selection.  The first n mod ``length``
    flags stay where they are.  Each shuffle's accepted sum is read off the K x K table of
    p's slot-by-flags' block products (K = n // length, kept to a few hundred by the caller).

    >>> gaps = block_permuted_gaps(np.array([0.1, 0.2, 0.8, 0.9]), np.array([1, 1, 0, 0], bool),
    ...                            100, np.random.default_rng(0), 2)
    >>> sorted(set(np.round(gaps, 6).tolist()))
    [-0.7, 0.7]
    """
    n, n_accepted = len(p), int(accepted.sum())
    if n_accepted in (0, n):
        return np.full(reps, np.nan)
    fixed = n % length
    count = (n - fixed) // length
    flags = accepted.astype(float)
    slots = p[fixed:].reshape(count, length)
    blocks = flags[fixed:].reshape(count, length)
    products = slots @ blocks.T  # [slot, block]: the accepted sum of p if that block sits there
    base = float(p[:fixed] @ flags[:fixed])
    total = float(p.sum())
    out = np.empty(reps)
    rows = np.arange(count)
    start = 0
    for size in chunk_sizes(reps, count):
        order = rng.random((size, count)).argsort(axis=1)
        out[start:start + size] = gap_of_sums(base + products[rows, order].sum(axis=1), total, n_accepted, n)
        start += size
    return out


def permutation_sd(p: np.ndarray, n_accepted: int) -> float:
    """SD of the gap over all shuffles (its mean is exactly 0).

    The accepted sum is a sample without replacement: Var = m (n - m) / (n (n - 1))
    * sum (p - mean)^2, and the gap is that sum times 1/m + 1/(n - m) plus a
    constant.  Used as the normal limit of the shuffles for large batches.
    """
    n, m = len(p), n_accepted
    spread = float(((p - p.mean()) ** 2).sum())
    return float((1 / m + 1 / (n - m)) * np.sqrt(m * (n - m) / (n * (n - 1)) * spread))


def lower_tail_pvalue(observed: float, null: np.ndarray) -> float:
    """P(null <= observed) with the add-one correction, so it is never 0.

    Ties within a relative 1e-12 count as "<=": a shuffle that reproduces the
    observed split must not be lost to rounding.
    """
    null = null[np.isfinite(null)]
    if not np.isfinite(observed) or len(null) == 0:
        return float("nan")
    slack = 1e-12 * max(1.0, abs(observed))
    return float((1 + np.count_nonzero(null <= observed + slack)) / (len(null) + 1))
