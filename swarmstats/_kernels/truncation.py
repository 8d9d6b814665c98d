"""Warm-up (truncation point) objectives, without O(n^2) cost.

* MSER-m: MSE(d) = var(batch means after d) / (count after d), all d at once
  from reverse cumulative sums: O(n).
* Suffix criteria (maximum ESS, minimum variance of the mean): evaluated on a
  log- plus linearly-spaced grid of origins, then refined around the best
  origin.  The ESS takes an autocorrelation per origin, O(grid * n log n); the
  variance of the mean reads each origin's lags from reverse cumulative sums
  made once, O(n sqrt(n)) in all (``SuffixBartlett``).
"""

from __future__ import annotations

import numpy as np

from .autocorr import autocovariance, integrated_time, zero_crossing_tau
from .robust import robust_centre_scale


def zero_crossing_ess_all_origins(x: np.ndarray, last_origin: int) -> np.ndarray:
    """pymbar's ESS, (n - t0 + 1) / g(x[t0:]), for every origin 0..last_origin at once.

    g is pymbar's statistical inefficiency (see ``zero_crossing_tau``).  Its lag
    strides 1, 1, 2, 3, ... are the same for every origin, and each suffix's
    lagged sum expands into reverse cumulative sums:

        sum_{i=t0}^{n-1-k} (x_i - m)(x_{i+k} - m)
            = A_k(t0) - m (S(t0) - S(n-k) + S(t0+k)) + (n - k - t0) m^2,

    with A_k the reverse cumsum of x_i x_{i+k} and S that of x.  So every
    origin costs O(1) per lag and the whole curve O(n sqrt(L)) for lags up to
    L, where pymbar recomputes each suffix (O(n^2 K)).
    """
    n = len(x)
    x = x - x.mean()  # centred once: keeps the expanded sums free of cancellation
    origins = np.arange(last_origin + 1)
    kept = (n - origins).astype(np.float64)
    tail = tail_sums(x)  # S(j) = sum_{i>=j} x_i
    tail_sq = tail_sums(x * x)
    mean = tail[origins] / kept
    variance = tail_sq[origins] / kept - mean**2
    g = np.ones(len(origins))
    active = variance > 0
    lag, stride = 1, 1
    while active.any() and lag < n - 1:
        usable = active & (lag < kept - 1)
        if not usable.any():
            break
        which = origins[usable]
        products = tail_sums(x[:-lag] * x[lag:])
        m = mean[usable]
        lagged = (products[which] - m * (tail[which] - tail[n - lag] + tail[which + lag])
                  + (n - lag - which) * m**2)
        corr = lagged / ((kept[usable] - lag) * variance[usable])
        stop = (corr <= 0) & (lag > 3)
        keep_going = ~stop
        g[which[keep_going]] += 2.0 * corr[keep_going] * (1.0 - lag / kept[usable][keep_going]) * stride
        active[which[stop]] = False
        active &= lag + stride < kept - 1
        lag += stride
        stride += 1
    g = np.maximum(g, 1.0)
    ess = (kept + 1.0) / g  # pymbar's numerator, off by one, kept for compatibility
    ess[variance <= 0] = kept[variance <= 0] + 1.0
    return ess


def mser_curve(means: np.ndarray) -> np.ndarray:
    """MSER statistic for every truncation d = 0..len-1 of the batch means."""
    centred = means - means.mean()  # centring keeps the sums free of cancellation
    tail_sum = np.cumsum(centred[::-1])[::-1]
    tail_sq = np.cumsum((centred**2)[::-1])[::-1]
    count = np.arange(len(means), 0, -1, dtype=np.float64)
    variance = np.maximum(tail_sq / count - (tail_sum / count) ** 2, 0.0)
    return variance / count


def suffix_stats(x: np.ndarray, origin: int, tau_method: str = "geyer") -> tuple[float, float]:
    """(g, variance) of x[origin:] - the suffix's integrated time and variance."""
    segment = x[origin:]
    variance = float(np.var(segment))
    if variance <= 0:
        return float("nan"), 0.0
    if tau_method == "zero-crossing":
        return zero_crossing_tau(segment), variance
    return integrated_time(segment), variance


def tail_sums(values: np.ndarray) -> np.ndarray:
    """S(j) = sum of values[j:] for j = 0..len (S(len) = 0).

    >>> tail_sums(np.array([1.0, 2.0, 3.0])).tolist()
    [6.0, 5.0, 3.0, 0.0]
    """
    return np.concatenate([np.cumsum(values[::-1])[::-1], [0.0]])


class SuffixBartlett:
    """:func:`bartlett_mean_variance` of one series at any origin, from reverse cumulative
    sums computed once (the expansion of :func:`zero_crossing_ess_all_origins`, for the
    lags below the widest window, sqrt(n)): O(sqrt(n)) per origin, where each call of the
    function centres its suffix and sums its lags afresh (~40 us for 1,000 points, ~0.3 ms
    for 20,000, and a warm-up search evaluates 50-80 origins).  Equal to it to rounding
    (tested: ~1e-13 relative, ~1e-10 for values offset by 1e6, where the direct
    function's own centring loses those digits).

    >>> x = np.random.default_rng(0).normal(size=300)
    >>> suffixes = SuffixBartlett(x)
    >>> bool(np.isclose(suffixes(40), bartlett_mean_variance(x, 40), rtol=1e-9))
    True
    """

    def __init__(self, x: np.ndarray):
        x = np.asarray(x, dtype=np.float64)
        n = self.n = len(x)
        centred = x - x.mean()  # keeps the expanded sums free of cancellation
        self.tail = tail_sums(centred)
        lags = max(1, int(np.sqrt(n)))
        # row k: reverse cumulative sums of centred[i] * centred[i + k], zero past n - k
        # (summed in place, in reverse: no temporary per lag)
        self.lagged = np.zeros((lags, n + 1))
        for k in range(lags):
            row = self.lagged[k, :n - k]
            np.multiply(centred[:n - k], centred[k:], out=row)
            backwards = row[::-1]
            np.cumsum(backwards, out=backwards)
        # a constant suffix is exactly 0, as in bartlett_mean_variance
        self.tail_max = np.maximum.accumulate(x[::-1])[::-1]
        self.tail_min = np.minimum.accumulate(x[::-1])[::-1]

    def __call__(self, origin: int) -> float:
        n, m = self.n, self.n - origin
        if self.tail_max[origin] == self.tail_min[origin]:
            return 0.0
        width = max(1, int(np.sqrt(m)))
        k = np.arange(width)
        total = self.tail[origin]
        mean = total / m
        # sum over i = origin..n-1-k of (x_i - mean)(x_{i+k} - mean), expanded
        lagged = (self.lagged[k, origin] - mean * (total - self.tail[n - k] + self.tail[origin + k])
                  + (m - k) * mean * mean)
        acov = lagged / m
        weights = 1.0 - k / width
        long_run = acov[0] + 2.0 * float(weights[1:] @ acov[1:])
        return max(long_run, 0.0) / m


def bartlett_mean_variance(x: np.ndarray, origin: int) -> float:
    """Variance of the mean of x[origin:] with a Bartlett window of width sqrt(m).

    The window is Clark, Cole & Michel's (2024) default for autocorrelation-
    aware MSER; unlike Geyer's truncation it keeps the long positive
    correlation of a slow drift even when the noise's correlations have died.
    """
    segment = x[origin:]
    m = len(segment)
    if segment.max() == segment.min():
        # exactly 0: a transform's round-off (~1e-35) would otherwise rank the origins of a
        # constant tail at random, and the rule would cut at one of them, not the first
        return 0.0
    width = max(1, int(np.sqrt(m)))
    acov = autocovariance(segment, max_lag=width - 1)
    weights = 1.0 - np.arange(width) / width
    long_run = acov[0] + 2.0 * float(weights[1:] @ acov[1:])
    return max(long_run, 0.0) / m


def origin_grid(cap: int, points: int = 24) -> np.ndarray:
    """Candidate origins 0..cap: log-spaced near 0, linear further out."""
    if cap <= 2 * points:
        return np.arange(cap + 1)
    logs = np.geomspace(1, cap, points)
    lines = np.linspace(0, cap, points)
    return np.unique(np.concatenate([[0], np.round(logs), np.round(lines)]).astype(int))


def search_origin(objective, cap: int, *, minimum: int = 0, rounds: int = 6, points: int = 17):
    """Minimise objective(origin) over minimum..cap: grid, then local refinement.

    Returns ``(best_origin, evaluated)`` where ``evaluated`` maps origins to values.
    """
    evaluated: dict[int, float] = {}

    def value(origin: int) -> float:
        if origin not in evaluated:
            evaluated[origin] = objective(origin)
        return evaluated[origin]

    grid = origin_grid(cap - minimum) + minimum
    for _ in range(rounds):
        values = np.array([value(int(o)) for o in grid])
        values = np.where(np.isfinite(values), values, np.inf)
        best = int(np.argmin(values))
        left = grid[max(best - 1, 0)]
        right = grid[min(best + 1, len(grid) - 1)]
        if right - left <= 2:
            for origin in range(int(left), int(right) + 1):
                value(origin)
            break
        grid = np.unique(np.round(np.linspace(left, right, points)).astype(int))
    finite = {o: v for o, v in evaluated.items() if np.isfinite(v)}
    if not finite:
        return minimum, evaluated
    return min(finite, key=lambda o: (finite[o], o)), evaluated


def leading_outliers(x: np.ndarray, threshold: float = 8.0) -> int:
    """Number of leading points further than ``threshold`` robust SDs from the
    bulk of the second half.  A wild first sample inflates the variance so
    much that suffix criteria keep it; every real transient would be cut past
    these points anyway, so excluding them as origins is safe.
    """
    centre, scale = robust_centre_scale(x[len(x) // 2 :])
    if scale <= 0:
        return 0
    outlying = np.abs(x - centre) > threshold * scale
    if not outlying[0]:
        return 0
    first_inlier = np.argmin(outlying)
    return int(first_inlier) if not outlying.all() else 0
