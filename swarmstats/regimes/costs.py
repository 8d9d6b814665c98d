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

    def _sums(self, starts, end):
        length = end - starts
        return length, self._s1[end] - self._s1[starts], self._s2[end] - self._s2[starts]

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

    Time is centred on the series so that the moments stay well conditioned.
    Segments need at least 3 points (two are fitted exactly).
    """

    min_size = 3

    def __init__(self, y):
        super().__init__(y)
        y = np.asarray(y, dtype=np.float64)
        t = np.arange(self.n, dtype=np.float64) - (self.n - 1) / 2.0
        centred = y - y.mean()
        self._st = np.concatenate([[0.0], np.cumsum(t)])
        self._stt = np.concatenate([[0.0], np.cumsum(t * t)])
        self._sty = np.concatenate([[0.0], np.cumsum(t * centred)])

    def cost(self, starts, end):
        length, s1, s2 = self._sums(starts, end)
        st = self._st[end] - self._st[starts]
        stt = self._stt[end] - self._stt[starts]
        sty = self._sty[end] - self._sty[starts]
        syy_c = s2 - s1 * s1 / length
        stt_c = stt - st * st / length
        sty_c = sty - st * s1 / length
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
        super().__init__(y)
        self.level, self.line = MeanCost(y), LinearCost(y)
        self.slope_penalty = self.pruning_constant = float(slope_penalty)

    def cost(self, starts, end):
        return np.minimum(self.level.cost(starts, end), self.line.cost(starts, end) + self.slope_penalty)

    def sloped(self, start: int, end: int) -> bool:
        """Whether the segment y[start:end] is fitted by a line rather than a level."""
        one = np.array([start])
        return bool(self.line.cost(one, end)[0] + self.slope_penalty < self.level.cost(one, end)[0])


COSTS = {"mean": MeanCost, "meanvar": MeanVarCost, "linear": LinearCost}
