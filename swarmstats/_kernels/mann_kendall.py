"""Trend kernels in O(n log n) time and O(n) memory.

* Mann-Kendall S = sum_{i<j} sign(x_j - x_i) from Kendall's tau, which scipy
  computes by merge-sort inversion counting (Knight 1966) - never the O(n^2)
  double loop.
* Sen's slope, the median of the n(n-1)/2 pairwise slopes, without
  materialising them: the number of slopes <= s equals the number of
  discordant-or-tied pairs of (t, y - s t), one O(n log n) count.  A random
  sample of pairs guides the search by rank; the last slope is identified as
  the single pair whose order flips between the bracket ends.
"""

from __future__ import annotations

import math

import numpy as np


def tie_group_sizes(x: np.ndarray) -> np.ndarray:
    """Sizes of the groups of equal values (only groups of 2 or more)."""
    ordered = np.sort(x)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1], [True]]))
    counts = np.diff(starts)
    return counts[counts > 1]


def tied_pairs(x: np.ndarray, sizes: np.ndarray | None = None) -> int:
    """Number of tied pairs in x (from its tie group sizes, when already known)."""
    sizes = (tie_group_sizes(x) if sizes is None else sizes).astype(np.int64)
    return int((sizes * (sizes - 1) // 2).sum())


#: up to this many pairs S is counted pair by pair (a few ms); beyond, by scipy's O(n log n)
#: merge count - whose import (scipy.stats, ~0.6 s) would be most of a small log's check
DIRECT_PAIRS = 2_000_000  # n up to 2,000: 1.5 ms against scipy's 0.6 ms, and no 0.6 s import


def kendall_s(t: np.ndarray, y: np.ndarray, ties_y: int | None = None) -> int:
    """S = concordant - discordant pairs of (t, y); t must be strictly increasing.

    ``ties_y``, the number of tied pairs in y, is computed when not given.

    >>> kendall_s(np.arange(4.0), np.array([0.0, 2.0, 1.0, 3.0]))
    4
    """
    n = len(y)
    n_pairs = n * (n - 1) // 2
    if n_pairs <= DIRECT_PAIRS:
        return direct_s(y)
    if ties_y is None:
        ties_y = tied_pairs(y)
    if ties_y == n_pairs:
        return 0
    from scipy import stats

    # tau is symmetric; with the sorted t second, scipy's first sort is trivial
    tau_b = stats.kendalltau(y, t).statistic
    return int(round(tau_b * np.sqrt(float(n_pairs) * float(n_pairs - ties_y))))


def direct_s(y: np.ndarray) -> int:
    """S = sum over i < j of sign(y_j - y_i), without scipy: in blocks of ~sqrt(n) points,
    pairs inside a block compared directly, a block against everything after it by
    binary search in that suffix, sorted (O(n^1.5 log n); ~1 ms at 1,000 points).

    >>> direct_s(np.array([0.0, 2.0, 1.0, 3.0, 3.0]))
    7
    """
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    size = max(64, int(math.isqrt(max(n, 1))))
    total = 0
    suffix = np.zeros(0)  # the points after the current block, sorted
    for start in range(((n - 1) // size) * size, -1, -size):
        block = y[start:start + size]
        inside = np.sign(block[None, :] - block[:, None])  # [i, j]: sign(y_j - y_i)
        total += int(np.triu(inside, 1).sum())
        if len(suffix):
            greater = len(suffix) - np.searchsorted(suffix, block, side="right")
            smaller = np.searchsorted(suffix, block, side="left")
            total += int(greater.sum() - smaller.sum())
        suffix = np.sort(np.concatenate([block, suffix]))
    return total


def mann_kendall_variance(y: np.ndarray, sizes: np.ndarray | None = None) -> float:
    """Var S under independence, with the tie correction."""
    n = len(y)
    sizes = (tie_group_sizes(y) if sizes is None else sizes).astype(np.float64)
    ties = (sizes * (sizes - 1) * (2 * sizes + 5)).sum()
    return (n * (n - 1) * (2 * n + 5) - ties) / 18.0


class SlopeSelector:
    """Order statistics of the pairwise slopes (y_j - y_i)/(t_j - t_i), i < j.

    ``t`` must be strictly increasing.  Each count of slopes <= s costs one
    O(n log n) Kendall count; a sorted random sample of slopes steers the
    search so that a handful of counts suffice.

    >>> sel = SlopeSelector(np.arange(5.0), np.array([0.0, 2.0, 1.0, 3.0, 5.0]))
    >>> sel.kth(0), sel.kth(9)
    (-1.0, 2.0)
    """

    def __init__(self, t: np.ndarray, y: np.ndarray, *, random_state: int = 0, sample_size: int | None = None):
        self.t = np.asarray(t, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        n = len(self.y)
        self.n_pairs = n * (n - 1) // 2
        rng = np.random.default_rng(random_state)
        size = sample_size if sample_size is not None else min(self.n_pairs, max(4 * n, 20_000))
        if self.n_pairs <= size:
            i, j = np.triu_indices(n, k=1)
        else:
            i, j = rng.integers(0, n, (2, size))
            keep = i != j
            i, j = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
        self.sample = np.sort((self.y[j] - self.y[i]) / (self.t[j] - self.t[i]))
        # Tied slopes (which make the search step to the next float below a
        # probe) come from repeated y values or from data on a grid, where the
        # sample then holds far fewer distinct slopes than draws.  A pair drawn
        # twice does not count: it repeats a slope without a tie.
        distinct = 1 + int(np.count_nonzero(self.sample[1:] != self.sample[:-1]))
        self.tied_y = tied_pairs(self.y)  # the pairs whose slope is exactly 0
        self.has_ties = bool(self.tied_y > 0 or distinct < 0.9 * len(self.sample))
        # Below this |s|, y - s t is y itself to the last bits: the count of slopes <= s would
        # take every tied pair for one of its own, whatever the sign of s, and a series of
        # integers (counts, 0/1 successes) had its Sen slope come out as -2e-19, an interval
        # of +-1e-19 about it, where every slope is 0 or at least 1/n.  No slope other than 0
        # lies this close to 0 unless the values differ in their last bits.
        span = float(self.t[-1] - self.t[0]) if n > 1 else 0.0
        top = float(np.max(np.abs(self.y))) if n else 0.0
        self.zero_band = 64 * np.finfo(np.float64).eps * top / span if span > 0 else 0.0
        self.exact_sample = self.n_pairs <= size
        # Known (slope, count_le) points, so repeated queries reuse earlier counts.
        self._known = {-np.inf: 0, np.inf: self.n_pairs}
        self._tie_checked = set()  # bracket ends whose value just below has been counted
        self._enumerated = None
        self.enumerable = 200_000  # slopes in a bracket worth trying to enumerate
        self.enumeration_budget = 40 * max(n, 1_000) * 64  # element comparisons
        self.counts_done = 0

    def count_le(self, s: float) -> int:
        """Number of pairwise slopes <= s."""
        if s in self._known:
            return self._known[s]
        if s != 0 and abs(s) < self.zero_band:
            at_zero = self.count_le(0.0)
            count = at_zero if s > 0 else at_zero - self.tied_y
            self._known[s] = count
            return count
        z = self.y - s * self.t
        ties = tied_pairs(z)
        count = (self.n_pairs + ties - kendall_s(self.t, z, ties)) // 2
        self._known[s] = count
        self.counts_done += 1
        return count

    def know(self, s: float, count: int) -> None:
        """Record a count of slopes <= s obtained elsewhere (e.g. from Mann-Kendall's S at 0)."""
        self._known[float(s)] = int(count)

    def _bracket(self, k: int):
        cached = self._enumerated
        if cached is not None and self._known[cached[0]] <= k < self._known[cached[1]]:
            return cached[0], self._known[cached[0]], cached[1], self._known[cached[1]]
        lo = max((s for s, c in self._known.items() if c <= k), default=-np.inf)
        hi = min((s for s, c in self._known.items() if c >= k + 1), default=np.inf)
        return lo, self._known[lo], hi, self._known[hi]

    def kth(self, k: int) -> float:
        """The k-th smallest slope (0-based)."""
        if not 0 <= k < self.n_pairs:
            raise IndexError(k)
        if self.exact_sample:
            return float(self.sample[k])
        while True:
            lo, c_lo, hi, c_hi = self._bracket(k)
            if self.has_ties and np.isfinite(hi) and hi not in self._tie_checked:
                # a mass of slopes tied at hi (0 for a 0/1 series: most of its pairs) is the
                # answer if nothing lies just below; without this one count the probes crept
                # up on it from below through -1/d for d = 1, 2, ... (3,000 counts, 3 s at n =
                # 1,000).  The value below is marked too, or a hi without a mass would step
                # down one ulp per count.
                below = float(np.nextafter(hi, -np.inf))
                self._tie_checked.update((hi, below))
                if below not in self._known:
                    self.count_le(below)
                    continue
            if np.isfinite(lo) and np.isfinite(hi):
                if c_hi - c_lo <= self.enumerable:
                    inside = self._slopes_between(lo, hi, c_hi - c_lo)
                    if inside is not None:
                        rank = k - c_lo
                        return float(np.partition(inside, rank)[rank])
                if np.nextafter(lo, np.inf) >= hi:
                    return float(hi)
            for probe in self._probes(k, lo, c_lo, hi, c_hi):
                if self.count_le(probe) >= k + 1 and self.has_ties:
                    # Tied slopes: if nothing lies just below this slope value,
                    # it is the answer (saves a bisection down to one ulp).
                    self.count_le(np.nextafter(probe, -np.inf))

    def _probes(self, k, lo, c_lo, hi, c_hi) -> list[float]:
        """Two probes that bracket the k-th slope with high probability.

        Inside the sampled range, sample order statistics a few standard
        errors either side of the interpolated rank; past it, values either
        side of the linear interpolation (slopes are locally near-uniform).
        """
        frac = (k + 0.5 - c_lo) / (c_hi - c_lo)
        inside = self.sample[(self.sample > lo) & (self.sample < hi)]
        if inside.size >= 64:
            centre = frac * (inside.size - 1)
            margin = 2.5 * np.sqrt(inside.size * frac * (1 - frac)) + 1.0
            # A side already within two margins of the target (or whose pick
            # would fall past the sample) is tight enough: skip its probe.
            picks = []
            if centre > 2 * margin:
                picks.append(int(np.floor(centre - margin)))
            if (inside.size - 1) - centre > 2 * margin:
                picks.append(int(np.ceil(centre + margin)))
            if not picks:
                picks = [int(round(centre))]
            return [float(inside[i]) for i in picks]
        if not np.isfinite(lo) or not np.isfinite(hi):
            # Outside the sampled range: step outwards geometrically.
            anchor = hi if np.isfinite(hi) else lo
            step = max(abs(anchor), 1.0)
            return [anchor - step if np.isfinite(hi) else anchor + step]
        margin = 3.0 / np.sqrt(c_hi - c_lo)
        probes = []
        for f in (frac - margin, frac + margin):
            if 0.0 < f < 1.0:
                value = lo + (hi - lo) * f
                if lo < value < hi:
                    probes.append(value)
        return probes or [0.5 * (lo + hi)]

    def _orders(self, lo: float, hi: float):
        """Orderings by (y - s t, -t) at both bracket ends (ties broken by later time first)."""
        return self._ordering(self.y - lo * self.t), self._ordering(self.y - hi * self.t)

    @staticmethod
    def _ordering(z: np.ndarray) -> np.ndarray:
        """Indices sorted by (z, -index).  A bracket end is usually a sampled slope,
        so its own pair ties in z: the SIMD argsort is kept and only the few tied
        runs are put in descending index order."""
        order = np.argsort(z)
        ordered = z[order]
        tied = np.flatnonzero(ordered[1:] == ordered[:-1])
        if tied.size:
            # runs of equal values: [start, end] position ranges in the sorted order
            breaks = np.flatnonzero(np.diff(tied) > 1)
            starts = np.concatenate([[tied[0]], tied[breaks + 1]])
            ends = np.concatenate([tied[breaks], [tied[-1]]]) + 1
            for start, end in zip(starts, ends):
                order[start : end + 1] = np.sort(order[start : end + 1])[::-1]
        return order

    def _slopes_between(self, lo: float, hi: float, expected: int) -> np.ndarray | None:
        """The slopes in (lo, hi] (unsorted), found as the pairs whose order flips.

        Ordering by (y - s t, -t) puts a pair in time order exactly when its
        slope exceeds s, so the pairs with slopes in (lo, hi] are the
        inversions between the two orderings.  If no element moves more than
        D places between them, two members of a flipped pair are fewer than
        2D places apart in the first ordering, so 2D vectorised passes find
        them all.  Returns None when that would cost too much.
        """
        cached = self._enumerated
        if cached is not None and cached[0] == lo and cached[1] == hi:
            return cached[2]
        order_lo, order_hi = self._orders(lo, hi)
        n = len(order_lo)
        position_hi = np.empty(n, dtype=np.int64)
        position_hi[order_hi] = np.arange(n)
        sequence = position_hi[order_lo]
        reach = 2 * int(np.abs(sequence - np.arange(n)).max())
        if reach * n > self.enumeration_budget:
            return None
        firsts, seconds = [], []
        for distance in range(1, min(reach, n - 1) + 1):
            where = np.flatnonzero(sequence[:-distance] > sequence[distance:])
            if where.size:
                firsts.append(order_lo[where])
                seconds.append(order_lo[where + distance])
        found = sum(len(f) for f in firsts)
        if found != expected:
            return None  # rounding made the counts disagree; keep searching
        a = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
        b = np.concatenate(seconds) if seconds else np.zeros(0, dtype=np.int64)
        slopes = (self.y[b] - self.y[a]) / (self.t[b] - self.t[a])
        self._enumerated = (lo, hi, slopes)
        return slopes

    def median(self) -> float:
        middle = (self.n_pairs - 1) // 2
        if self.n_pairs % 2:
            return self.kth(middle)
        return 0.5 * (self.kth(middle) + self.kth(middle + 1))


def hac_ols_slope(t: np.ndarray, y: np.ndarray, lags: int | None = None):
    """OLS slope of y on t with a Newey-West (Bartlett) HAC standard error.

    Returns ``(slope, intercept, se, lags)``; the default bandwidth is
    floor(4 (n/100)^(2/9)) (Newey & West 1994).
    """
    n = len(y)
    if lags is None:
        lags = int(np.floor(4.0 * (n / 100.0) ** (2.0 / 9.0)))
    lags = int(min(max(lags, 0), n - 2))
    t_centred = t - t.mean()
    sxx = float(t_centred @ t_centred)
    slope = float(t_centred @ (y - y.mean())) / sxx
    intercept = float(y.mean() - slope * t.mean())
    scores = t_centred * (y - intercept - slope * t)
    omega = float(scores @ scores)
    for lag in range(1, lags + 1):
        weight = 1.0 - lag / (lags + 1.0)
        omega += 2.0 * weight * float(scores[lag:] @ scores[:-lag])
    return slope, intercept, float(np.sqrt(max(omega, 0.0)) / sxx), lags
