"""Segment costs with O(1) evaluation from prefix sums.

A cost object is built once on the series; ``cost(starts, end)`` then gives
the cost of the segments y[s:end] for an array of starts s at once - what a
PELT step needs.  All costs are additive over segments and satisfy
C(a, b) + C(b, c) <= C(a, c) (fitted-parameter likelihood costs), so PELT may
prune with K = 0.  The series is centred before the prefix sums are formed,
which keeps sum(y^2) - (sum y)^2 / l free of cancellation on large offsets.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class SegmentCost(ABC):
    """Base class: prefix sums of the centred series; subclasses define ``cost``."""

    #: the smallest segment the cost is defined for
    min_size = 1
    #: K in C(a, b) + C(b, c) <= C(a, c) + K: what PELT may add before pruning
    pruning_constant = 0.0

    def __init__(self, y: np.ndarray):
        y = np.asarray(y, dtype=np.float64)
        self.n = len(y)
        centred = y - y.mean()
        self._s1 = np.concatenate([[0.0], np.cumsum(centred)])
        self._s2 = np.concatenate([[0.0], np.cumsum(centred * centred)])

    @classmethod
    def on_sums_of(cls, other: "SegmentCost") -> "SegmentCost":
        """This cost on the prefix sums ``other`` already holds (the same series)."""
        cost = cls.__new__(cls)
        cost.n, cost._s1, cost._s2 = other.n, other._s1, other._s2
        return cost

    def _sums(self, starts, end):
        # np.take: 2-3x faster than fancy indexing for the millions of lookups of a seeded layer
        length = end - starts
        return (length, np.take(self._s1, end) - np.take(self._s1, starts),
                np.take(self._s2, end) - np.take(self._s2, starts))

    @abstractmethod
    def cost(self, starts: np.ndarray, end: int) -> np.ndarray:
        """Costs of the segments y[s:end] for every s in ``starts``."""

    def total(self, changepoints) -> float:
        """Unpenalised cost of the segmentation with these changepoints."""
        bounds = [0, *changepoints, self.n]
        return float(sum(self.cost(np.array([a]), b)[0] for a, b in zip(bounds[:-1], bounds[1:])))


class MeanCost(SegmentCost):
    """Normal mean, known variance: the residual sum of squares (ruptures' ``l2``).

    >>> MeanCost(np.array([0.0, 0.0, 2.0, 2.0])).cost(np.array([0, 2]), 4)
    array([4., 0.])
    """

    def cost(self, starts, end):
        length, s1, s2 = self._sums(starts, end)
        return np.maximum(s2 - s1 * s1 / length, 0.0)


class MeanVarCost(SegmentCost):
    """Normal mean and variance: l log(sigma^2), sigma^2 = RSS / l, floored.

    The floor (1e-8 of the global variance) stops a run of equal values from
    costing -inf and attracting changes.  Segments need at least 2 points.
    """

    min_size = 2

    def __init__(self, y):
        super().__init__(y)
        self._floor = 1e-8 * max(self._s2[-1] / max(self.n, 1), np.finfo(float).tiny)

    def cost(self, starts, end):
        length, s1, s2 = self._sums(starts, end)
        variance = np.maximum(s2 - s1 * s1 / length, 0.0) / length
        return length * np.log(np.maximum(variance, self._floor))


class LinearCost(SegmentCost):
    """Piecewise (discontinuous) linear trend: RSS of y on t within each segment.

    Time is the position 0..n-1, so a segment's centred time moments are exact: sum (t - t̄)^2
    = l (l^2 - 1) / 12, and sum (t - t̄) y = sum t y - t̄ sum y needs one prefix sum of t y.
    (Prefix sums of t and t^2 reach ~10^17 at 10^6 points, where their differences for a
    short segment kept no correct digit, and cost two more arrays.)  Segments need at least 3
    points (two are fitted exactly).

    >>> float(LinearCost(np.array([0.0, 1.0, 2.0, 3.0, 0.0])).cost(np.array([0]), 4)[0])  # a line
    0.0
    """

    min_size = 3

    def __init__(self, y):
        super().__init__(y)
        y = np.asarray(y, dtype=np.float64)
        t = np.arange(self.n, dtype=np.float64) - (self.n - 1) / 2.0
        self._sty = np.concatenate([[0.0], np.cumsum(t * (y - y.mean()))])

    def cost(self, starts, end):
        length, s1, s2 = self._sums(starts, end)
        sty = np.take(self._sty, end) - np.take(self._sty, starts)
        centre = (starts + end - 1) / 2.0 - (self.n - 1) / 2.0  # the segment's mean time
        syy_c = s2 - s1 * s1 / length
        stt_c = length * (length * length - 1.0) / 12.0
        sty_c = sty - centre * s1
        with np.errstate(divide="ignore", invalid="ignore"):
            explained = np.where(stt_c > 0, sty_c * sty_c / stt_c, 0.0)
        return np.maximum(syy_c - explained, 0.0)


class LevelOrTrendCost(SegmentCost):
    """Each segment a level or a straight line, whichever is cheaper once the
    slope pays ``slope_penalty``: min(RSS of the mean, RSS of the line + penalty).

    A flat stretch then costs what it costs under ``MeanCost`` (no power lost
    to a slope it does not need) and a steady climb is one segment, not a
    staircase.  Splitting a line into two lines can save at most one slope
    penalty, so PELT prunes with K = ``slope_penalty``.

    >>> cost = LevelOrTrendCost(np.arange(10.0), slope_penalty=1.0)
    >>> float(cost.cost(np.array([0]), 10)[0])   # a line: RSS 0 + the slope's penalty
    1.0
    """

    min_size = 3

    def __init__(self, y, slope_penalty: float):
        # one set of prefix sums for the level, the line and this cost (three sets took 72 MB
        # at 10^6 points, for each persistence the trend model tries)
        self.line = LinearCost(y)
        self.level = MeanCost.on_sums_of(self.line)
        self.n, self._s1, self._s2 = self.line.n, self.line._s1, self.line._s2
        self.slope_penalty = self.pruning_constant = float(slope_penalty)

    def cost(self, starts, end):
        return np.minimum(self.level.cost(starts, end), self.line.cost(starts, end) + self.slope_penalty)

    def sloped(self, start: int, end: int) -> bool:
        """Whether the segment y[start:end] is fitted by a line rather than a level."""
        one = np.array([start])
        return bool(self.line.cost(one, end)[0] + self.slope_penalty < self.level.cost(one, end)[0])


class KernelCost(SegmentCost):
    """The Gaussian-kernel (rbf, bandwidth 1) cost of standardised data, in O(1) per segment.

    The exact cost of y[s:e], l - (1/l) sum_ij exp(-(y_i - y_j)^2 / 2) (ruptures'
    ``KernelCPD(kernel="rbf", params={"gamma": 0.5})``), needs all pairs: PELT on it is
    quadratic on a plateau (8,000 points took a second, 10^5 would take minutes).  Here the
    kernel is written as its Fourier integral, exp(-d^2/2) = E[cos(w d)] with w ~ N(0, 1),
    and the integral is taken by the trapezoid rule on a fixed frequency grid.  Each
    node gives two features (cos w y, sin w y) whose prefix sums make the cost
    l k(0) - |sum of features|^2 / l, an ordinary squared-error cost in 25 dimensions.

    The trapezoid rule on a grid of spacing h is exact up to aliasing: it returns
    sum_m k(d + 2 pi m / h), so distances must stay well below 2 pi / h.  The data are
    clipped to +-``CLIP`` (noise SDs from the median; the kernel between such points and
    the bulk is below exp(-8) = 3e-4 either way), the grid's period is 14 and it stops at
    |w| = 5.3: the kernel is then reproduced within 3e-8 at every distance up to 8
    (tests/test_regimes_kernel.py checks it against the closed form).

    >>> cost = KernelCost(np.r_[np.zeros(5), np.full(5, 3.0)])
    >>> round(float(cost.cost(np.array([0]), 5)[0]), 6)      # identical points: no cost
    0.0
    >>> bool(cost.cost(np.array([0]), 10)[0] > 4)          # two clusters 3 SDs apart
    True
    """

    #: standardised values are clipped to this many noise SDs
    CLIP = 4.0
    #: the trapezoid grid: period 2 pi / h and the largest frequency
    PERIOD, HIGHEST = 14.0, 5.3
    pruning_constant = 0.0

    def __init__(self, z):
        z = np.clip(np.asarray(z, dtype=np.float64), -self.CLIP, self.CLIP)
        self.n = len(z)
        frequencies, weights = self.grid()
        self._k0 = float(weights.sum())
        roots = np.sqrt(weights)
        # one row per feature, each a prefix sum (rows contiguous: a segment's sums are two gathers)
        rows = [np.full(self.n, roots[0])]
        for w, root in zip(frequencies[1:], roots[1:]):
            rows += [root * np.cos(w * z), root * np.sin(w * z)]
        self._prefix = np.zeros((len(rows), self.n + 1))
        np.cumsum(np.array(rows), axis=1, out=self._prefix[:, 1:])

    @classmethod
    def grid(cls):
        """(frequencies w_j = j h, weights): h phi(0) at 0, 2 h phi(w_j) beyond (cos is even)."""
        step = 2 * np.pi / cls.PERIOD
        frequencies = step * np.arange(int(np.ceil(cls.HIGHEST / step)) + 1)
        weights = 2 * step * np.exp(-frequencies**2 / 2) / np.sqrt(2 * np.pi)
        weights[0] /= 2
        return frequencies, weights

    @classmethod
    def kernel(cls, distance):
        """The kernel the features reproduce, at these distances (for checking the grid)."""
        frequencies, weights = cls.grid()
        return np.cos(np.multiply.outer(np.asarray(distance, dtype=float), frequencies)) @ weights

    def cost(self, starts, end):
        starts, end = np.broadcast_arrays(starts, end)
        length = end - starts
        squared = np.zeros(length.shape)
        for row in self._prefix:  # feature by feature: no (segments x 25) temporary
            difference = np.take(row, end) - np.take(row, starts)
            squared += difference * difference
        return np.maximum(length * self._k0 - squared / length, 0.0)


COSTS = {"mean": MeanCost, "meanvar": MeanVarCost, "linear": LinearCost}
