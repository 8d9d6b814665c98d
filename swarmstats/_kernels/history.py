"""The whole history of a stream in a few dozen block means, for trends slower than a window.

A window of a few hundred points cannot see a trend of half a noise SD per 5,000 steps: the
rise within it is a twentieth of the noise.  :class:`BlockHistory` keeps the stream since a
given start as the means of equal blocks - when there are ``4 * MIN_BLOCKS`` of them,
neighbours merge and the block doubles, so ``2 * MIN_BLOCKS`` or more are always judged - so
memory is bounded and an update costs O(1) amortised, however long the stream.

:func:`block_trend` fits the OLS line to the last k block means (k from :func:`span_blocks`,
on a grid up to all of them).  Each slope is judged twice, and a caller asks for both:

* against the noise scale of the caller (``scale`` = sigma * sqrt(g), the long-run SD of one
  point; a block mean of b points then has variance scale^2 / b);
* against the scatter of the block means around their own line (batch means, Student's t on
  k - 2 degrees of freedom), which needs no autocorrelation estimate at all once blocks are
  long against the noise's memory, and widens by itself when they are not.

numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: 4x this many blocks trigger a merge into 2x this many
MIN_BLOCKS = 16
#: spans judged, in blocks, besides "all of them"
SPAN_BLOCKS = (16, 24, 32, 48)


def span_blocks(count: int) -> list[int]:
    """The spans judged when ``count`` blocks are kept: the grid's that fit, and all of them.

    >>> span_blocks(40)
    [16, 24, 32, 40]
    """
    return sorted({k for k in SPAN_BLOCKS if k < count} | {count})


class BlockHistory:
    """Block means of a stream since ``start``, first block ``block`` points long.

    >>> history = BlockHistory(block=2)
    >>> for x in range(140):
    ...     _ = history.add(float(x))
    >>> history.block, history.count, history.means()[:3].tolist()   # 64 blocks of 2 merged
    (4, 35, [1.5, 5.5, 9.5])
    """

    def __init__(self, block: int, start: int = 0):
        self.block = int(block)
        self.start = int(start)      # stream index of the first point of the first block
        self._sums: list[float] = []
        self._partial = 0.0
        self._filled = 0

    @property
    def count(self) -> int:
        """Complete blocks."""
        return len(self._sums)

    @property
    def points(self) -> int:
        """Points in complete blocks."""
        return len(self._sums) * self.block

    def add(self, value: float) -> bool:
        """Add one point; True when it completed a block."""
        self._partial += value
        self._filled += 1
        if self._filled < self.block:
            return False
        self._sums.append(self._partial)
        self._partial, self._filled = 0.0, 0
        if len(self._sums) == 4 * MIN_BLOCKS:
            # merge neighbours: the history stays 2*MIN_BLOCKS..4*MIN_BLOCKS blocks long
            sums = np.asarray(self._sums)
            self._sums = (sums[0::2] + sums[1::2]).tolist()
            self.block *= 2
        return True

    def means(self) -> np.ndarray:
        return np.asarray(self._sums) / self.block


@dataclass(frozen=True)
class BlockTrend:
    """The line fitted to the last ``blocks`` block means (slopes per point, not per block)."""

    blocks: int
    block: int
    span: int               # points covered
    slope: float
    t_scale: float          # against the caller's noise scale
    t_batch: float          # against the block means' own scatter (k - 2 degrees of freedom)
    mean: float             # of the span: the line's value at its centre

    def level(self, after: float, scale: float) -> tuple[float, float]:
        """(value, standard error) of the line ``after`` points past the span's last point,
        from the caller's noise scale."""
        k, block = self.blocks, self.block
        # in block units, the distance from the span's centre (the centre of its points)
        distance = ((self.span - 1) / 2.0 + after) / block
        sxx = k * (k * k - 1) / 12.0
        return (self.mean + self.slope * ((self.span - 1) / 2.0 + after),
                scale / math.sqrt(block) * math.sqrt(1.0 / k + distance * distance / sxx))


def block_trend(means: np.ndarray, blocks: int, block: int, scale: float) -> BlockTrend:
    """The OLS line through the last ``blocks`` block means (each the mean of ``block`` points).

    >>> means = np.arange(20.0) + np.tile([0.5, -0.5, -0.5, 0.5], 5)
    >>> trend = block_trend(means, 20, block=10, scale=1.0)
    >>> trend.span, round(trend.slope, 3)   # one per block of 10 points
    (200, 0.1)
    >>> round(trend.level(0, 1.0)[0], 2)   # the line at the last point: 19 + 0.45
    19.45
    """
    k = int(blocks)
    if not 3 <= k <= len(means):
        raise ValueError(f"need 3 to {len(means)} blocks, got {k}")
    part = means[-k:]
    x = np.arange(k) - (k - 1) / 2.0
    sxx = k * (k * k - 1) / 12.0
    slope_blocks = float(x @ part) / sxx
    mean = float(part.mean())
    residuals = part - mean - slope_blocks * x
    spread = math.sqrt(float(residuals @ residuals) / (k - 2))
    t_scale = slope_blocks * math.sqrt(sxx * block) / scale if scale > 0 else math.inf
    t_batch = (slope_blocks * math.sqrt(sxx) / spread if spread > 0
               else math.copysign(math.inf, slope_blocks))
    return BlockTrend(blocks=k, block=block, span=k * block, slope=slope_blocks / block,
                      t_scale=t_scale, t_batch=t_batch, mean=mean)
