"""Tests on the recent end of a window, for every length on a grid at once.

numpy in, numpy out.  Given a window w (oldest first) and a grid of lengths m,
one pass of cumulative sums gives, for every m,

* the split statistic: how far the mean of the last m points lies from the
  points before them, in units of its standard error.  It is judged against
  their linear trend extrapolated, and must be confirmed, in the same
  direction, either against their mean (full power for a shift after a
  stationary stretch) or against the m points just before (a drop after a
  climb); the statistic is the confirmed evidence, the smaller of the pair.
  A steady trend is then no "change" (the extrapolation absorbs it), and
  neither is a rise that levels off (the extrapolation says down, the mean and
  the recent points say up or nothing);
* the trend statistic: the OLS slope over the last m points in units of its
  standard error.

Both standard errors use ``scale`` = sigma * sqrt(g), the noise SD inflated by
the integrated autocorrelation time, so Var(mean of m points) = scale^2 / m -
with sigma replaced, where larger, by the last m points' own scatter (and, for
the split, the scatter around them): rare far values and bursts of volatility
widen the judgement of the stretch they sit in.  Also here: the level drift
inside a span (where a climb stopped), and the run of identical values at the
end of a window with how often its value repeated before (a score at its cap).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

#: the fewest points whose scatter judges the last m points of a split (see ``statistics``)
LOCAL_POINTS = 64


def length_grid(longest: int, shortest: int = 8) -> np.ndarray:
    """Lengths 8, 12, 16, 24, 32, 48, ... (ratio ~1.5) up to ``longest``.

    >>> length_grid(100).tolist()
    [8, 12, 16, 24, 32, 48, 64, 96]
    """
    lengths, power = [], shortest
    while power <= longest:
        lengths.append(power)
        half = power + power // 2
        if half <= longest:
            lengths.append(half)
        power *= 2
    return np.array(sorted(set(lengths)), dtype=int)


class WindowSums(NamedTuple):
    """A window centred on its mean (``u``) and the cumulative sums of u, j*u and u*u
    (each with a leading 0), as :meth:`RecentPlan.sums` makes them."""

    u: np.ndarray
    c1: np.ndarray
    cj: np.ndarray
    c2: np.ndarray
    #: the cumulative sums of the squared second differences (leading 0; :meth:`RecentPlan.step_t`)
    bends: np.ndarray | None = None


class RecentPlan:
    """Everything about the tests that depends only on the window length and the grid,
    computed once: a window that has reached its maximum length reuses it every step."""

    def __init__(self, n: int, lengths: np.ndarray, min_length: int = 0):
        self.n = n
        self.lengths = lengths
        # the lengths a change may cut off (leaving min_length points before it), and the
        # spans long enough to judge a trend on
        self.splittable = lengths <= n - min_length
        self.can_split = bool(self.splittable.any())
        self.spans = lengths >= min_length
        self.position = {int(m): i for i, m in enumerate(lengths)}
        m = lengths.astype(float)
        self.first = n - lengths
        before = n - m
        self.m = m
        with np.errstate(divide="ignore", invalid="ignore"):
            self.inv_before = np.where(before > 0, 1.0 / before, np.nan)
            centre_before = (before - 1.0) / 2.0
            self.centre_before = centre_before
            self.inv_sxx_before = np.where(before >= 3, 12.0 / (before * (before * before - 1.0)), np.nan)
            self.distance = (self.first + n - 1.0) / 2.0 - centre_before
            self.sxx = m * (m * m - 1.0) / 12.0
            self.usable = before >= 3
            # the m points just before the last m (fewer if the window is short)
            self.recent = np.maximum(np.minimum(lengths, n - lengths), 1)
            # where the stretch whose scatter judges the last m points starts
            self.local_start = np.maximum(n - np.maximum(lengths, LOCAL_POINTS), 0)
            self.quarter, self.half = lengths // 4, lengths // 2
            # for statistics(): the segments whose scatter about their line is read (the
            # last m points, then the points before them back to local_start) in one array,
            # and the terms that depend on the lengths only
            k = len(lengths)
            self.scatter = _LineSegments(np.concatenate([self.first, self.local_start]),
                                         np.concatenate([np.full(k, n), self.first]))
            self.dof_last = np.maximum(m - 2.0, 0.0)
            self.dof_local = self.dof_last + np.maximum(self.first - self.local_start - 2.0, 0.0)
            # the same, 1 where 0 (a segment too short for a line has no scatter: 0 / 1 = 0)
            self.dof_last_safe = np.where(self.dof_last > 0, self.dof_last, 1.0)
            self.dof_local_safe = np.where(self.dof_local > 0, self.dof_local, 1.0)
            self.half_span = (m - 1.0) / 2.0
            self.trend_term = self.distance ** 2 * self.inv_sxx_before
            self.inv_recent = 1.0 / self.recent
            self.recent_start = self.first - self.recent
            self.sqrt_sxx = np.sqrt(self.sxx)
            # for level_drift(): the first quarter's and the recent half's bounds
            self.quarter_end, self.half_start = self.first + self.quarter, n - self.half
            self.quarter_dof = (self.quarter - 1.0) * self.quarter
            self.half_dof = (self.half - 1.0) * self.half
            # for step_t(): the variance of a random walk's OLS slope over m points, per unit
            # step variance, and the degrees of freedom of the step scale
            self.walk_per_bend = walk_slope_variance(m) / (2.0 * (m - 2.0))  # Var(slope) per unit of the bends' sum
            self.step_dof = np.maximum((2 * (lengths - 2)) // 3, 1)
            self.nowhere = np.zeros(len(lengths), dtype=bool)  # read-only: no span
            self._step_limits: dict = {}  # per-test tail -> the step test's limits (step_limits)
        self.positions = np.arange(n, dtype=float)

    def sums(self, window: np.ndarray) -> WindowSums:
        """The cumulative sums both tests read, computed once per window: of u, j*u and u*u,
        with u the window centred on its mean (sums of a few hundred values stay exact enough)."""
        n = self.n
        u = window - window.sum() / n  # the mean, as window.mean() computes it
        sums = np.zeros((4, n + 1))
        u.cumsum(out=sums[0, 1:])
        (self.positions * u).cumsum(out=sums[1, 1:])
        (u * u).cumsum(out=sums[2, 1:])
        if n >= 3:  # bends[k]: the squared second differences of points 0..k+1
            second = window[2:] - 2.0 * window[1:-1] + window[:-2]
            (second * second).cumsum(out=sums[3, 1:n - 1])
        return WindowSums(u, sums[0], sums[1], sums[2], sums[3])

    def step_limits(self, tail: float, isf) -> np.ndarray:
        """The limits of :meth:`step_t` at a per-test ``tail``: ``isf(tail, dof)``, Student's
        quantile, on each length's step degrees of freedom - kept with the plan, which windows
        of one length share, so a window growing through its lengths looks them up once."""
        limits = self._step_limits.get(tail)
        if limits is None:
            limits = self._step_limits[tail] = np.array([isf(tail, int(dof)) for dof in self.step_dof])
        return limits

    def step_t(self, sums: WindowSums, slopes: np.ndarray) -> np.ndarray:
        """For every length m, the slope over the last m points in units of its standard error
        were the series a random walk whose steps scatter as the last m points' steps do.

        The step scale is half the mean square of the second differences: exactly the step
        variance of a random walk, and more than the variance of the steps of white or AR(1)
        noise or a moving average (a smooth curve under the noise adds its bends, which are
        small from one point to the next).  The increments of such noise are never positively
        correlated, so a random walk with the same step scale moves a line's slope at least as
        far: this t is conservative for the noise the window is calibrated on, and needs no
        autocorrelation time.  That is what
        it is for: on a smooth curve the window's own scale counts the curve's departure from
        a quadratic as persistent noise, while the steps see through it (a 1/t loss falling
        65 -> 28 under noise 0.05 read t = -6.6 against an alarm limit of 1,620).  0 where
        the last m points' steps have no scatter at all.

        >>> plan = RecentPlan(40, np.array([16, 32]))
        >>> rng = np.random.default_rng(1)
        >>> curve = 3.0 / (1.0 + np.arange(40) / 5.0) + rng.normal(0, 0.001, 40)
        >>> w = plan.sums(curve)
        >>> plan.step_t(w, plan.statistics(w, 1.0)[1]).round(1).tolist()   # a walk could not fall so far
        [-23.4, -39.6]
        """
        variance = (sums.bends[self.n - 2] - sums.bends[self.first]) * self.walk_per_bend
        if variance.all():
            return slopes / np.sqrt(variance)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(variance > 0, slopes / np.sqrt(variance), 0.0)

    def level_drift(self, sums: WindowSums, g: float) -> np.ndarray:
        """For every length m, how far the mean of the last m points' recent half lies from
        the mean of their first quarter, in standard errors from the two parts' own scatter
        (times the autocorrelation time ``g``).  A span that still holds the end of a rise
        is not flat, however noisy the rise makes the window's scale look: the scatter
        within each part is not inflated by the level moving between them.

        >>> plan = RecentPlan(40, np.array([20, 40]))
        >>> w = np.r_[np.zeros(20), np.tile([1.0, 3.0], 10)]
        >>> plan.level_drift(plan.sums(w), 1.0).round(2).tolist()   # the last 20 level; all 40 not
        [0.34, 8.72]
        """
        n, c1, c2 = self.n, sums.c1, sums.c2
        first, quarter, half = self.first, self.quarter, self.half
        quarter_end, half_start = self.quarter_end, self.half_start
        with np.errstate(divide="ignore", invalid="ignore"):
            early_sum = c1[quarter_end] - c1[first]
            late_sum = c1[n] - c1[half_start]
            early_ss = c2[quarter_end] - c2[first] - early_sum * early_sum / quarter
            late_ss = c2[n] - c2[half_start] - late_sum * late_sum / half
            variance = g * (np.maximum(early_ss, 0.0) / self.quarter_dof
                            + np.maximum(late_ss, 0.0) / self.half_dof)
            difference = late_sum / half - early_sum / quarter
            z = difference / np.sqrt(variance)
        degenerate = ~(variance > 0)
        if degenerate.any():  # both parts constant: any difference beyond rounding is a drift
            tiny = 1e-12 * float(np.abs(sums.u).max())  # relative: the window may be 1e-20-sized
            z = np.where(degenerate, np.where(np.abs(difference) > tiny, np.inf, 0.0), z)
        return np.where(quarter >= 2, z, 0.0)

    def statistics(self, sums: WindowSums, scale: float, sigma: float | None = None):
        """(split_z, slope, slope_t) of the window whose ``sums`` are given (see
        :func:`recent_statistics`).

        With ``sigma`` (the window's noise SD, of which ``scale`` is the long-run version),
        the last m points' own scatter about their line counts where it is larger, and for
        the split also the local scatter around them.  A few rare values of skewed or
        heavy-tailed noise, or a burst of volatility, then widen the judgement of the very
        stretch they sit in instead of reading as a shift or a trend against the calmer rest."""
        n, c1, cj = self.n, sums.c1, sums.cj
        first = self.first
        m = self.m
        c1_first, cj_first = c1[first], cj[first]
        with np.errstate(divide="ignore", invalid="ignore"):
            sum_last = c1[n] - c1_first
            mean_last = sum_last / m
            # slope over positions first..n-1: sum (x - xbar) u with x = j - first
            sum_xu = (cj[n] - cj_first) - first * sum_last
            slope = (sum_xu - self.half_span * sum_last) / self.sxx
            spread, line_spread = 1.0, 1.0
            if sigma is not None and sigma > 0:
                # the last m points' scatter about their line, on its own and pooled with that
                # of the points just before them (to LOCAL_POINTS in all) about theirs.  Rare
                # far values show in the first (two failures among eight tries); a burst of
                # volatility in the second (eight points alone say little about how volatile
                # their stretch is); neither a shift between the two parts nor a trend within
                # one is scatter
                scatter = self.scatter.about_line(sums)
                last, before = scatter[:len(m)], scatter[len(m):]
                own = last / self.dof_last_safe
                local = (last + before) / self.dof_local_safe
                variance = sigma * sigma
                spread = np.maximum(np.maximum(own, local) / variance, 1.0)
                line_spread = np.maximum(own / variance, 1.0)
            mean_before = c1_first * self.inv_before
            last_term = spread / m  # the variance of the last m points' mean, in scale^2
            against_mean = (mean_last - mean_before) / (scale * np.sqrt(last_term + self.inv_before))
            # the line fitted to the points before, evaluated at the centre of the last m points
            slope_before = (cj_first - self.centre_before * c1_first) * self.inv_sxx_before
            predicted = mean_before + slope_before * self.distance
            against_trend = (mean_last - predicted) / (scale * np.sqrt(
                last_term + self.inv_before + self.trend_term))
            recent_mean = (c1_first - c1[self.recent_start]) / self.recent
            against_recent = (mean_last - recent_mean) / (scale * np.sqrt(last_term + self.inv_recent))
            split_z = np.where(self.usable, _confirmed(against_trend, against_mean, against_recent), 0.0)
            slope_t = slope * self.sqrt_sxx / (scale * np.sqrt(line_spread))
        return split_z, slope, slope_t


class _LineSegments:
    """Segments start..stop-1 of a window (arrays of them) whose residual sum of squares about
    their least-squares line is read from the window's cumulative sums; what depends on the
    bounds alone is computed once."""

    def __init__(self, start: np.ndarray, stop: np.ndarray):
        self.start, self.stop = start, stop
        count = (stop - start).astype(float)
        self.count = count
        self.count_safe = np.where(count > 0, count, 1.0)  # an empty segment's total is 0: 0 / 1
        self.centre = (start + stop - 1.0) / 2.0
        self.fits_line = count >= 3  # a line fits two points or fewer exactly
        self.sxx = count * (count * count - 1.0) / 12.0
        self.sxx_safe = np.where(self.fits_line, self.sxx, 1.0)

    def about_line(self, sums: WindowSums) -> np.ndarray:
        """The residual sums of squares (0 for segments of two points or fewer).

        >>> u = np.array([0.0, 1.0, 0.0, 3.0, 5.0])
        >>> sums = WindowSums(u, *(np.r_[0.0, np.cumsum(v)] for v in (u, np.arange(5) * u, u * u)))
        >>> round(float(_LineSegments(np.array([1]), np.array([5])).about_line(sums)[0]), 12)  # 1, 0, 3, 5
        3.5
        """
        start, stop = self.start, self.stop
        total = sums.c1[stop] - sums.c1[start]
        about_mean = sums.c2[stop] - sums.c2[start] - total * total / self.count_safe
        cross = (sums.cj[stop] - sums.cj[start]) - self.centre * total
        about = np.where(self.fits_line, about_mean - cross * cross / self.sxx_safe, 0.0)
        return np.maximum(about, 0.0)


def walk_slope_variance(m):
    """The variance of the OLS slope of a random walk over ``m`` points with unit steps.

    Step j (1 <= j < m) moves every point from j on, so it moves the slope by the sum of the
    centred positions from j on, j (m - j) / 2, over Sxx = m (m^2 - 1) / 12; the squares of
    those sums add up to m (m^4 - 1) / 120, which leaves 6 (m^2 + 1) / (5 m (m^2 - 1)):
    6 / (5 m) for a long walk, where independent noise gives 12 / m^3.

    >>> float(walk_slope_variance(2.0))   # two points: the slope is the one step
    1.0
    >>> m = 37; centred = np.arange(m) - (m - 1) / 2; tails = np.cumsum(centred[::-1])[::-1][1:]
    >>> bool(np.isclose(walk_slope_variance(float(m)), (tails @ tails) / (m * (m * m - 1) / 12) ** 2))
    True
    """
    return 6.0 * (m * m + 1.0) / (5.0 * m * (m * m - 1.0))


def _confirmed(primary: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``primary`` confirmed by ``first`` or by ``second``, whichever confirms more: by one that
    points the same way it is shrunk to the weaker of the two, by one that does not it is 0.

    >>> _confirmed(np.array([3.0, -3.0, 2.0]), np.array([1.0, 5.0, -1.0]), np.array([2.0, -1.0, -4.0])).tolist()
    [2.0, -1.0, 0.0]
    """
    direction, size = np.sign(primary), np.abs(primary)
    by_first = np.where(np.sign(first) == direction, np.minimum(size, np.abs(first)), 0.0)
    by_second = np.where(np.sign(second) == direction, np.minimum(size, np.abs(second)), 0.0)
    return direction * np.maximum(by_first, by_second)


def recent_statistics(window: np.ndarray, lengths: np.ndarray, scale: float):
    """(split_z, slope, slope_t) for the last m points of ``window``, m in ``lengths``.

    ``split_z[i]`` is 0 where the two judgements disagree and NaN where fewer
    than 3 points precede the last m.

    >>> w = np.r_[np.zeros(50), np.ones(10)]
    >>> z, slope, t = recent_statistics(w, np.array([10]), 0.5)
    >>> round(float(z[0]), 3)  # against the trend of a flat past: 1 / (0.5 sqrt(1/10 + 1/50 + 30^2/10412.5))
    4.402
    >>> z, _, _ = recent_statistics(np.arange(60.0), np.array([10]), 0.5)
    >>> float(z[0])  # a steady trend is no change
    0.0
    """
    plan = RecentPlan(len(window), lengths)
    return plan.statistics(plan.sums(window), scale)


def slope_and_t(window: np.ndarray, scale: float) -> tuple[float, float]:
    """OLS slope of ``window`` on 0..n-1 and its t statistic with noise scale ``scale``.

    >>> slope_and_t(np.arange(10.0), 1.0)[0]
    1.0
    """
    n = len(window)
    centred = np.arange(n) - (n - 1) / 2.0
    sxx = n * (n * n - 1.0) / 12.0
    slope = float(centred @ window) / sxx
    return slope, slope * math.sqrt(sxx) / scale


def trailing_run(window: np.ndarray) -> int:
    """How many values at the end of ``window`` equal its last one.

    >>> trailing_run(np.array([3.0, 1.0, 2.0, 2.0, 2.0]))
    3
    """
    if len(window) < 2 or window[-2] != window[-1]:
        return min(len(window), 1)
    differ = np.flatnonzero(window != window[-1])
    return len(window) - int(differ[-1]) - 1 if len(differ) else len(window)


def repeat_counts(before: np.ndarray, value: float) -> tuple[int, int, bool]:
    """(repeats, chances, own) of ``value`` in ``before``: how often a ``value`` was followed by
    another, out of the ``value``s that had a successor there.  When ``value`` never had one,
    the same for any value (how often anything repeated its predecessor; ``own`` False): a
    value new to the stream is judged by how often the stream's values repeat at all.

    >>> repeat_counts(np.array([5.0, 5.0, 1.0, 5.0, 2.0]), 5.0)   # 5 -> 5, 5 -> 1, 5 -> 2
    (1, 3, True)
    >>> repeat_counts(np.array([0.1, 0.7, 0.3, 0.3]), 9.0)       # any value: 1 repeat in 3
    (1, 3, False)
    """
    at_value = before[:-1] == value
    chances = int(at_value.sum())
    if chances:
        return int((before[1:][at_value] == value).sum()), chances, True
    return int((before[1:] == before[:-1]).sum()), len(before) - 1, False
