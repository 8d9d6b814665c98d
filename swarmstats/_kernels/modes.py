"""Two modes in a sample's density: where a score's values gather in two places (an agent's
falls and its full runs, the levels before and after it learned), told apart from a long tail.

numpy in, numpy out.  Sarle's bimodality coefficient cannot tell them apart: it rises with
skewness, so above its 5/9 it flagged 95% of log-normal samples and 77-88% of exponential ones
(400 each, n = 35-500), and it stays below 5/9 for an even mix of two normals 3 SD apart at any
n.  Here the density itself is read: a Gaussian kernel estimate at Silverman's normal-reference
bandwidth, 0.9 SD n^(-1/5) (the SD, not the IQR: the IQR's narrower width broke a skewed
sample's tail into bumps - log-normal, n = 200: 9% against 0%), never narrower than the
spacing of the values (a score that takes a few values is not a mode at each).  Two modes are
claimed when two of its peaks each gather at least :data:`MODE_SHARE` of the values (and
:data:`MODE_POINTS` of them) and the density between them falls to :data:`VALLEY` of the lower
peak or less.

Measured (200 samples per cell, n = 50 / 200 / 1,000): normal, log-normal, exponential,
Student t(1.5) and rounded normal samples are called two-moded in at most 1% of cells, AR(0.9)
in 3% / 0.5% / 0%, AR(0.99) in 11% / 27% / 13% (a persistent series whose sample dwelt at two
levels: in the sample, it did), a 0/1 score never (its two values are one lattice step apart);
a 10% share 6 SD away 2.5% / 99.5% / 98.5%, a 20% share 4 SD away 10% / 38% / 70%, an even mix
3 SD apart 5% / 6.5% / 19% (the normal-reference width smooths close modes together: the claim
is made when the data show it plainly, and rarely otherwise).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: points of the density's grid
GRID = 512
#: the least share of the values each of the two modes must gather ...
MODE_SHARE = 0.05
#: ... and the fewest values
MODE_POINTS = 10
#: the density between two modes must fall to this share of the lower peak or below
VALLEY = 0.7
#: the values' spacing (a lattice's step) is read from at most this many of them, evenly spread
SPACING_SAMPLE = 65_536


class TwoModes(NamedTuple):
    """Where a density's two modes are (lower first), and the share of the values on each side
    of the lowest point between them."""

    low: float
    high: float
    low_share: float
    high_share: float


def peaks_of(density: np.ndarray) -> np.ndarray:
    """The indices of ``density``'s local maxima.  A flat stretch takes the slope before it,
    so a top spanning equal cells is a peak (at its last cell), not missed for want of a strict
    fall on both sides.

    >>> peaks_of(np.array([0, 1, 3, 3, 1, 0, 0, 2, 1.0])).tolist()
    [3, 7]
    """
    slope = np.sign(np.diff(density))
    slope = slope[np.maximum.accumulate(np.where(slope != 0, np.arange(len(slope)), 0))]
    return np.flatnonzero((np.r_[1.0, slope] > 0) & (np.r_[slope, -1.0] < 0))


def two_modes(values: np.ndarray, sd: float | None = None) -> TwoModes | None:
    """The two modes of ``values``' density (lower first) and the share of the values on each
    side of the valley between them, or None when it shows one mode.

    Of several qualifying pairs of neighbouring modes, the one with the deepest valley.
    ``sd``: the values' SD, when the caller has it (one pass fewer at 10^7 values).

    >>> rng = np.random.default_rng(0)
    >>> falls_and_runs = np.r_[rng.normal(50, 20, 300), rng.normal(990, 5, 600)]
    >>> modes = two_modes(falls_and_runs)
    >>> round(modes.low, -1), round(modes.high, -1), round(modes.low_share, 2)
    (50.0, 990.0, 0.33)
    >>> two_modes(rng.lognormal(size=1000)) is None   # a long tail is not a second mode
    True
    >>> two_modes(np.r_[np.full(50, 45.0), np.full(50, 45.0 + 1e-14)]) is None  # rounding apart
    True
    """
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n < 2 * MODE_POINTS:
        return None
    sd = float(x.std(ddof=1)) if sd is None else float(sd)
    if not sd > 0 or not np.isfinite(sd):
        return None
    # sorting every value cost 0.36 s at 10^7; a lattice's step shows in a sample of them
    distinct = np.unique(x[::max(1, n // SPACING_SAMPLE)])
    spacing = float(np.diff(distinct).min()) if len(distinct) > 1 else 0.0
    width = max(0.9 * sd * n ** -0.2, spacing)
    low, high = float(x.min()) - 3 * width, float(x.max()) + 3 * width
    if not high - low > 4 * GRID * np.spacing(max(abs(low), abs(high))):
        return None  # values apart only in their last digits (45 and 45 + 1e-14): no grid fits
    counts, edges = np.histogram(x, bins=GRID, range=(low, high))
    step = edges[1] - edges[0]
    half = int(4 * width / step) + 1
    offsets = np.arange(-half, half + 1) * step
    density = np.convolve(counts, np.exp(-0.5 * (offsets / width) ** 2), mode="same")
    peaks = peaks_of(density)
    if len(peaks) < 2:
        return None
    # each peak's basin runs to the lowest point between it and its neighbours
    cuts = [a + int(np.argmin(density[a:b + 1])) for a, b in zip(peaks[:-1], peaks[1:])]
    bounds = np.r_[0, cuts, GRID]
    gathered = np.add.reduceat(counts, bounds[:-1])
    large = np.flatnonzero((gathered >= MODE_SHARE * n) & (gathered >= MODE_POINTS))
    best = None
    for i, j in zip(large[:-1], large[1:]):
        a, b = peaks[i], peaks[j]
        depth = float(density[a:b + 1].min()) / min(float(density[a]), float(density[b]))
        if depth <= VALLEY and (best is None or depth < best[0]):
            best = (depth, a, b)
    if best is None:
        return None
    _, a, b = best
    valley = a + int(np.argmin(density[a:b + 1]))
    below = float(counts[:valley].sum()) / n
    return TwoModes(float(edges[a] + step / 2), float(edges[b] + step / 2), below, 1.0 - below)
