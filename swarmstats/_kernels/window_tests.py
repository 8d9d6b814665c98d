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
the integrated autocorrelation time, so Var(mean of m points) = scale^2 / m.
"""

from __future__ import annotations

import math

import numpy as np


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


class RecentPlan:
    """Everything about the tests that depends only on the window length and the grid,
    computed once: a window that has reached its maximum length reuses it every step."""

    def __init__(self, n: int, lengths: np.ndarray):
        self.n = n
        self.lengths = lengths
        self.position = {int(m): i for i, m in enumerate(lengths)}
        m = lengths.astype(float)
        self.first = n - lengths
        before = n - m
        self.m = m
        with np.errstate(divide="ignore", invalid="ignore"):
            self.inv_before = np.where(before > 0, 1.0 / before, np.nan)
            self.mean_se = np.sqrt(1.0 / m + self.inv_before)
            centre_before = (before - 1.0) / 2.0
            self.centre_before = centre_before
            self.inv_sxx_before = np.where(before >= 3, 12.0 / (before * (before * before - 1.0)), np.nan)
            self.distance = (self.first + n - 1.0) / 2.0 - centre_before
            self.trend_se = np.sqrt(1.0 / m + self.inv_before + self.distance ** 2 * self.inv_sxx_before)
            self.sxx = m * (m * m - 1.0) / 12.0
            self.usable = before >= 3
            # the m points just before the last m (fewer if the window is short)
            self.recent = np.maximum(np.minimum(lengths, n - lengths), 1)
            self.recent_se = np.sqrt(1.0 / m + 1.0 / self.recent)
        self.positions = np.arange(n, dtype=float)

    def statistics(self, window: np.ndarray, scale: float):
        """(split_z, slope, slope_t) of ``window`` (see :func:`recent_statistics`)."""
        n = self.n
        u = window - window.mean()  # centred: sums of a few hundred values stay exact enough
        c1 = np.zeros(n + 1)
        np.cumsum(u, out=c1[1:])
        cj = np.zeros(n + 1)
        np.cumsum(self.positions * u, out=cj[1:])
        first = self.first
        sum_last = c1[n] - c1[first]
        mean_last = sum_last / self.m
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_before = c1[first] * self.inv_before
            against_mean = (mean_last - mean_before) / (scale * self.mean_se)
            # the line fitted to the points before, evaluated at the centre of the last m points
            slope_before = (cj[first] - self.centre_before * c1[first]) * self.inv_sxx_before
            predicted = mean_before + slope_before * self.distance
            against_trend = (mean_last - predicted) / (scale * self.trend_se)
            recent_mean = (c1[first] - c1[first - self.recent]) / self.recent
            against_recent = (mean_last - recent_mean) / (scale * self.recent_se)
            split_z = np.where(self.usable, _stronger(_confirmed(against_trend, against_mean),
                                                      _confirmed(against_trend, against_recent)), 0.0)
            # slope over positions first..n-1: sum (x - xbar) u with x = j - first
            sum_xu = (cj[n] - cj[first]) - first * sum_last
            slope = (sum_xu - (self.m - 1.0) / 2.0 * sum_last) / self.sxx
            slope_t = slope * np.sqrt(self.sxx) / scale
        return split_z, slope, slope_t


def _confirmed(primary: np.ndarray, confirmation: np.ndarray) -> np.ndarray:
    """``primary`` where ``confirmation`` points the same way, shrunk to the weaker of the two;
    0 where they disagree."""
    agree = np.sign(primary) == np.sign(confirmation)
    return np.where(agree, np.sign(primary) * np.minimum(np.abs(primary), np.abs(confirmation)), 0.0)


def _stronger(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise the one of ``a`` and ``b`` with the larger magnitude."""
    return np.where(np.abs(a) >= np.abs(b), a, b)


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
    return RecentPlan(len(window), lengths).statistics(window, scale)


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
