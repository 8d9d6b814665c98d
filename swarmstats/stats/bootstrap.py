"""Resampling kernels: bootstrap counts and indices, percentile and Wilson intervals.

numpy in, numpy out.  Everything is vectorised over replicates (one index or
count matrix and a single gather or matrix product per chunk) and draws from a
``numpy.random.Generator`` the caller passes, so results are reproducible and
nothing reads the global numpy seed.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from ..errors import InputError

#: entries of the largest replicate-by-item matrix built at once (~32 MB of int64)
CHUNK_ENTRIES = 4_000_000
#: above this many replicate x item draws, resampled sums come from their normal limit
EXACT_LIMIT = 25_000_000


def resolve_rng(random_state) -> np.random.Generator:
    """A Generator from None (fresh entropy), an int seed or a Generator.

    >>> int(resolve_rng(3).integers(10)) == int(resolve_rng(3).integers(10))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise InputError(
        f"random_state must be None, an int or a numpy Generator, got {type(random_state).__name__}"
    )


def check_level(level, name: str = "ci") -> float:
    """A confidence level strictly between 0 and 1."""
    try:
        level = float(level)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number between 0 and 1, got {level!r}") from None
    if not 0 < level < 1:
        raise InputError(f"{name} must be strictly between 0 and 1 (e.g. 0.95), got {level}")
    return level


def chunk_sizes(reps: int, items: int):
    """Split ``reps`` replicates into chunks whose reps x items matrix stays small."""
    per_chunk = max(1, CHUNK_ENTRIES // max(items, 1))
    done = 0
    while done < reps:
        size = min(per_chunk, reps - done)
        yield size
        done += size


def bootstrap_counts(rng: np.random.Generator, n: int, reps: int) -> np.ndarray:
    """How often each of ``n`` items is drawn in each of ``reps`` resamples (reps x n).

    A multinomial(n, 1/n) per row, built with one bincount over offset indices,
    so weighted sums of every replicate are a single matrix product.

    >>> counts = bootstrap_counts(np.random.default_rng(0), 5, 3)
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    draws = rng.integers(0, n, size=(reps, n))
    draws += (np.arange(reps) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=reps * n).reshape(reps, n)


def bootstrap_sums(columns: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Column sums of ``reps`` bootstrap resamples of the rows of ``columns`` (reps x k).

    Exact (multinomial resamples) while reps x n <= EXACT_LIMIT.  Beyond, the
    sums are drawn from their normal limit N(n mean, n cov) - the bootstrap's
    own central limit, excellent at such n - so a million-row batch costs
    O(n k^2) instead of O(reps n).  Statistics are still computed from the
    drawn sums, so their non-linearity is kept.
    """
    n = columns.shape[0]
    if reps * n > EXACT_LIMIT:
        return normal_limit_sums(columns, reps, rng)
    out = np.empty((reps, columns.shape[1]))
    start = 0
    for size in chunk_sizes(reps, n):
        out[start:start + size] = bootstrap_counts(rng, n, size) @ columns
        start += size
    return out


def normal_limit_sums(columns: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of the bootstrap column sums from N(n mean, n cov) (population covariance)."""
    centred = columns - columns.mean(axis=0)
    # n times the population covariance of one row is the covariance of the sum
    return rng.multivariate_normal(columns.sum(axis=0), centred.T @ centred, size=reps,
                                   method="eigh")


def percentile_interval(replicates: np.ndarray, level: float, *, min_defined: float = 0.9):
    """Percentile interval of each column of ``replicates`` (reps x k), NaN-aware.

    Replicates where the statistic is undefined (NaN, e.g. no accepted item in
    the resample) are left out; when fewer than ``min_defined`` of them are
    defined the interval is (nan, nan): it would describe a different question.

    >>> low, high = percentile_interval(np.arange(101.0)[:, None], 0.9)
    >>> round(float(low[0]), 9), round(float(high[0]), 9)
    (5.0, 95.0)
    """
    replicates = np.asarray(replicates, dtype=float)
    if replicates.ndim == 1:
        replicates = replicates[:, None]
    tail = (1 - level) / 2
    defined = np.isfinite(replicates).mean(axis=0)
    with warnings.catch_warnings():  # an all-undefined column is expected, not news
        warnings.simplefilter("ignore", RuntimeWarning)
        bounds = np.nanquantile(np.where(np.isfinite(replicates), replicates, np.nan),
                                [tail, 1 - tail], axis=0) if replicates.size else None
    if bounds is None:
        nan = np.full(replicates.shape[1], np.nan)
        return nan, nan.copy()
    low, high = bounds
    too_few = defined < min_defined
    low[too_few] = np.nan
    high[too_few] = np.nan
    return low, high


def wilson_interval(successes, trials, level: float):
    """Wilson score interval of a binomial proportion (nan where there are no trials).

    Honest at 0 and 1, where a percentile bootstrap collapses to a point.

    >>> low, high = wilson_interval(0, 3, 0.95)
    >>> float(low), round(float(high), 4)
    (0.0, 0.5615)
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    z = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(all="ignore"):
        share = successes / trials
        centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
        half = z * np.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
        # exact ends where the closed form leaves rounding dust (0 of n, n of n)
        low = np.where(successes <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(successes >= trials, 1.0, np.clip(centre + half, 0.0, 1.0))
        low = np.where(trials > 0, low, np.nan)
        high = np.where(trials > 0, high, np.nan)
    return low, high


def block_bootstrap_indices(rng: np.random.Generator, n: int, block: int, reps: int) -> np.ndarray:
    """Circular moving-block resamples of positions 0..n-1 (reps x n).

    Blocks of ``block`` consecutive positions (wrapping round the end) keep the
    autocorrelation inside each block; ``block=1`` is the ordinary bootstrap.

    >>> idx = block_bootstrap_indices(np.random.default_rng(1), 6, 3, 2)
    >>> idx.shape, bool(((idx[:, 1] - idx[:, 0]) % 6 == 1).all())
    ((2, 6), True)
    """
    block = int(min(max(block, 1), n))
    n_blocks = -(-n // block)
    starts = rng.integers(0, n, size=(reps, n_blocks))
    offsets = np.arange(block)
    idx = (starts[:, :, None] + offsets[None, None, :]).reshape(reps, n_blocks * block)[:, :n]
    return idx % n
