"""Changes judged against the noise where they are, not only the series' overall noise.

A reward can scatter far more in one stretch than elsewhere.  PPO on Hopper
(tests/fixtures/real/sb3-long) ends with 250 episodes that either fall early
or run long (60 to 2,900) after 5,000 episodes within ~50 of 30.  The penalty
and the change strengths use one noise scale for the whole series (a robust
one: most of the series sets it), so inside the noisy stretch the means of any
few dozen episodes differ by "dozens of noise SDs": five regimes in its last
250 episodes, the weakest at z = -26 for means of 1,472 and 1,252 whose SDs are
850 and 1,056 (against their own scatter, z = 0.8).

So each change is re-judged against the noise of its two neighbouring regimes:

- the series **whitened** at its persistence - the wander the trend model
  already allows for is not extra noise (an earlier try on the spread around
  each regime's fit removed real changes from persistent TCPD series: a
  currency's devaluation, a slump);
- the variance of its **differences** (over 2) in a window of ``WINDOW`` points
  around each point: a level or a line drops out, and so does most of a curve a
  line fits badly (Japan's GDP climbing ever faster to 1994 read as a noisy
  regime from its residuals around one line).  Each difference is first
  clipped at ``CLIP`` robust SDs of the differences near it, so that a heavy
  tail's rare outlier does not make its window "noisy"; a burst or a second
  mode is not clipped away (the MAD alone is no measure there: of rewards that
  are either ~30 or ~990, half of all differences are ~0 and half ~960, and its
  scale is either);
- a regime's noise is the **mean of that profile** over it (what the variance of
  its mean adds up to when the noise varies within it), so a short regime inside
  a burst gets the burst's noise, and a long one that is quiet except for a
  burst gets its share of the burst;
- two regimes' noises combine as in **Welch's** standard error, v (1/l1 + 1/l2)
  = v1/l1 + v2/l2: a short noisy regime after a long quiet one is judged by its
  own scatter;
- each regime's noise is taken at its **lower 95% confidence bound**, and used
  only where it is **larger** than the series-wide noise: chance scatter must not
  make a regime look noisier than the series, and a quiet regime never makes a
  change easier to call.

A change whose saved cost no longer pays the penalty at that local scale is
removed, the weakest first, and its new neighbours are judged again.  Where
the noise is the same everywhere the local scale is the series' own and
nothing changes.  The trend model's search runs on the whitened, winsorised
series, and some changes it keeps save less than the penalty on the series
itself (on persistent TCPD series: real ones); those are overridden only in a
stretch clearly noisier than the series (``NOISIER``: a variance four times
the series', twice its SD) - inside a burst they are the burst's noise.

Measured (``benchmarks/regimes_real.py``, docs/regimes.md): on the annotated RL
curves F1 0.809 -> 0.813 (Hopper's last 250 episodes: 5 changes -> 2); TCPD F1
0.802 either way, covering 0.720 -> 0.724; white noise with a 100-point burst
of 10x the SD: 3.08 "changes" per series -> 0.72.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import ndimage, stats

from .costs import SegmentCost

#: the points (differences) a point's local noise is measured on, centred on it
WINDOW = 31
#: differences are clipped at this many robust SDs of those in their window
CLIP = 4.0
#: the mean of the local variance profile over m points of normal noise is worth about
#: 0.6 max(m, WINDOW) degrees of freedom (2 E[v]^2 / Var(v) by simulation: 0.63-0.77 from
#: a few points to 1,000; differences of white noise are correlated, -0.5 at lag 1)
PROFILE_FREEDOM = 0.6
#: the local noise is taken at this lower confidence bound
LOWER_BOUND = 0.05
#: a change that does not pay its penalty at the series' noise either is only removed where
#: the local noise is at least this many times the series' (TCPD: 2 and 4 score alike; 8 and
#: more keep the short changes inside a burst)
NOISIER = 4.0


class LocalNoise:
    """The long-run noise variance near each change, for a cost and a segmentation.

    ``persistence``: the AR(1) phi the series is whitened with (the trend model's, capped at
    0.99; 0 for the fixed-scale models); ``inflation``: what turns the whitened variance into
    a long-run one - by default 1 / (1 - phi)^2, the AR(1)'s; the fixed-scale models pass
    their autocorrelation time g.  ``floor``: the series-wide long-run variance, below which a
    local value is never taken.
    """

    def __init__(self, y: np.ndarray, cost: SegmentCost, floor: float, *, persistence: float = 0.0,
                 inflation: float | None = None):
        self.y = np.asarray(y, dtype=np.float64)
        self.cost = cost
        self.floor = float(floor)
        self.persistence = min(float(persistence), 0.99)
        self.inflation = 1.0 / (1.0 - self.persistence) ** 2 if inflation is None else float(inflation)
        self._sums = None  # prefix sums of the local variance profile, made on first use

    def variance(self, start: int, middle: int, end: int) -> float:
        """The long-run variance that judges a change at ``middle`` between the regimes
        y[start:middle] and y[middle:end]: each regime's own, weighted by the other's length
        (Welch's standard error of two means)."""
        left, right = self.regime_variance(start, middle), self.regime_variance(middle, end)
        return (left * (end - middle) + right * (middle - start)) / (end - start)

    def regime_variance(self, start: int, end: int) -> float:
        """The long-run variance of y[start:end]: the lower confidence bound of its local
        noise profile's mean, never below the floor."""
        if self._sums is None:
            self._sums = np.concatenate([[0.0], np.cumsum(self._profile())])
        length = end - start
        if length <= 0 or len(self._sums) <= 1:
            return self.floor
        mean = (self._sums[end] - self._sums[start]) / length
        freedom = PROFILE_FREEDOM * max(length, WINDOW)
        lower = mean * freedom / float(stats.chi2.ppf(1.0 - LOWER_BOUND, freedom))
        return max(self.floor, lower * self.inflation)

    def _profile(self) -> np.ndarray:
        """The noise variance of the whitened series near each point of y (see the module)."""
        n = len(self.y)
        whitened = self.y[1:] - self.persistence * self.y[:-1]
        differences = np.diff(whitened)  # differences[i] spans y[i:i + 3]: placed at i + 1
        if len(differences) < 3:
            return np.zeros(n)
        window = min(WINDOW, len(differences) | 1)
        centre = ndimage.median_filter(differences, size=window, mode="nearest")
        deviations = differences - centre
        limit = CLIP * 1.4826 * ndimage.median_filter(np.abs(deviations), size=window, mode="nearest")
        clipped = np.clip(deviations, -limit, limit)
        variance = ndimage.uniform_filter1d(clipped * clipped / 2.0, size=window, mode="nearest")
        return np.pad(variance, (1, 1), mode="edge")

    def saved(self, start: int, middle: int, end: int) -> float:
        """What the split at ``middle`` saves of the cost of y[start:end] as one regime."""
        return saved_cost(self.cost, start, middle, end)


def saved_cost(cost: SegmentCost, start: int, middle: int, end: int) -> float:
    """What a split at ``middle`` saves of ``cost`` of [start, end) as one regime."""
    one = np.array([start])
    return float(cost.cost(one, end)[0] - cost.cost(one, middle)[0] - cost.cost(np.array([middle]), end)[0])


def merge_within_local_noise(changepoints, noise: LocalNoise, penalty: float) -> tuple[list, int]:
    """Remove, weakest first, each change that does not pay ``penalty`` (in the cost's
    units, at the series-wide noise) once judged against its regimes' own noise.

    Only the local scale decides here: a change that would not pay the penalty at the
    series-wide noise either (one a search kept for reasons of its own) is left alone
    unless its regimes are ``NOISIER`` times the series-wide noise.

    >>> from swarmstats.regimes.costs import MeanCost
    >>> rng = np.random.default_rng(1)
    >>> y = np.r_[rng.normal(0, 1, 300), rng.normal(40, 30, 60), rng.normal(0, 1, 300)]
    >>> noise = LocalNoise(y, MeanCost(y), floor=1.0)
    >>> merge_within_local_noise([300, 330, 360], noise, 3 * math.log(len(y)))
    ([300, 360], 1)
    """
    points = list(changepoints)
    if not points or not penalty > 0 or not 0 < noise.floor < math.inf:  # (a zero penalty asks for them all)
        return points, 0

    def shortfall(i):
        """How far short of the penalty change i falls at the local noise (<= 0: it pays)."""
        start = points[i - 1] if i else 0
        end = points[i + 1] if i + 1 < len(points) else len(noise.y)
        saved = noise.saved(start, points[i], end)
        local = noise.variance(start, points[i], end)
        if local <= noise.floor or (saved < penalty and local < NOISIER * noise.floor):
            return 0.0
        return 1.0 - (saved / penalty) * (noise.floor / local)  # two ratios: 1e-150-sized data underflow

    return points, merge_weakest_first(points, shortfall)


def merge_weakest_first(points: list, shortfall, touched: set | None = None) -> int:
    """Remove from ``points`` (in place), the largest first, each change whose ``shortfall(i)``
    (a function of its index in ``points``) is positive, judging the neighbours of each removed
    change again (and adding them to ``touched`` when given); how many were removed."""
    gaps = [shortfall(i) for i in range(len(points))]
    merged = 0
    while points:
        worst = int(np.argmax(gaps))
        if gaps[worst] <= 0:
            break
        del points[worst], gaps[worst]
        merged += 1
        for neighbour in (worst - 1, worst):  # the regimes either side changed
            if 0 <= neighbour < len(points):
                if touched is not None:
                    touched.add(points[neighbour])
                gaps[neighbour] = shortfall(neighbour)
    return merged
