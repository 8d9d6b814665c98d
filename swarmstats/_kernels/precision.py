"""The standard error of a mean that an interval can be trusted with.

Two estimates, the larger kept: Geyer's g (sd * sqrt(g / n)) and batch means
(5-20 batches of at least 10 g points, sd of the batch means / sqrt(K)).  Geyer's
truncated sum is biased low when n / g is small, and selecting a warm-up on the
same data biases it lower; batch means see the slow part of the autocorrelation
that the truncated sum misses.  The interval uses a t law on K - 1 df.

Long memory (variance of the mean decaying slower than 1/n, e.g. fractionally
integrated noise) shows as a batch-means variance v(b) = b * Var(batch means)
that keeps growing with the batch length b instead of levelling off.  v(b) is
measured on a ladder b0 = 3 g, 2 b0, 4 b0, ... while at least 8 batches remain
(the aggregated-variance method); with 3 or more rungs, a log-log slope above
``LONG_MEMORY_SLOPE`` and a total growth above both ``LONG_MEMORY_GROWTH`` and
the 99% point of the F law that the growth follows under short memory read as
long memory.  The standard error is then extrapolated along that slope to a
single batch of all n points, v(n) = v(b_max) (n / b_max)^slope: still an
estimate, but no longer one that assumes the growth has stopped.  Short-memory
series are flagged now and then (0-2% of AR(1) and ARMA runs at n = 800-5000);
their interval is then wider than it needs to be.

The ladder needs about 100 autocorrelation times to see anything, so the spectrum is
asked too (:mod:`.long_memory`): when a fractionally integrated model fits clearly
better than any short-memory one, the standard error is at least the one that model
implies.  So it is when ARMA(1,1) is the
best short-memory model: a slow component under fast noise, whose small, long-lasting
autocorrelations neither Geyer's sum nor batches shorter than its memory see.
numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .autocorr import block_means
from .distributions import f_ppf
from .long_memory import STRONG_EVIDENCE, spectral_memory
from .robust import square_safe_scale
from .stationary_tests import batch_count

#: Batches for the mean are this many integrated times long (at least 5 of them): Geyer's g
#: is biased low when n / g is small, and batches of 5 g then leave the means correlated.
BATCH_PER_TAU = 10.0

#: What a slow component is, in words (describe and the convergence verdict say it).
SLOW_COMPONENT = ("ARMA(1,1) fits the spectrum better than white noise or AR(1), a slow wander "
                  "whose small, lasting autocorrelations the autocorrelation sum misses")

#: Log-log slope of v(b) against b above which growth is read as long memory (2d for
#: fractionally integrated noise of order d; short memory levels off at 0).
LONG_MEMORY_SLOPE = 0.3
#: ... together with at least this much growth from the shortest to the longest batches.
LONG_MEMORY_GROWTH = 1.5


@dataclass(frozen=True)
class MeanPrecision:
    mcse: float
    dof: int
    long_memory: bool
    growth: float  # v(b), longest batches over shortest
    inflation: float  # on the short-memory standard error (1 unless long memory or a slow component)
    #: the fractional order d of the best long-memory model fitted to the spectrum, and by
    #: how much lower its BIC is than the best short-memory model's (nan: not fitted - fewer
    #: than 200 points, or constant); above STRONG_EVIDENCE it is long memory
    spectral_d: float = math.nan
    spectral_evidence: float = math.nan
    #: log-log slope of the batch-means ladder v(b) (2d under long memory; nan: too short)
    ladder_slope: float = math.nan

    @property
    def memory_order(self) -> float:
        """The fractional order d by which the error of the mean shrinks as n^(d - 1/2): 0
        without long memory; the spectral fit's d when its evidence is strong, else half the
        ladder's slope.  0.5 or more: more data does not shrink it at all."""
        if not self.long_memory:
            return 0.0
        if self.spectral_evidence > STRONG_EVIDENCE:
            return max(float(self.spectral_d), 0.0)
        return max(0.5 * float(self.ladder_slope), 0.0) if math.isfinite(self.ladder_slope) else 0.5

    @property
    def slow_component(self) -> bool:
        """Widened without long memory: ARMA(1,1) fits the spectrum best, a slow component
        under fast noise that Geyer's sum and the batches miss."""
        return not self.long_memory and self.inflation > 1.0

    def memory_evidence(self) -> str:
        """How the long memory showed, in words (empty without long memory)."""
        if not self.long_memory:
            return ""
        if self.spectral_evidence > STRONG_EVIDENCE:
            return (f"a fractionally integrated model (d = {self.spectral_d:.2f}) fits the spectrum "
                    f"better than any short-memory one (BIC lower by {self.spectral_evidence:.0f})")
        return (f"the variance of batch means keeps growing with their length ({self.growth:.3g}x "
                "from the shortest to the longest batches)")

    def length_factor(self, shrink: float) -> float:
        """By how many times the length must grow for the error of the mean to shrink
        ``shrink``-fold: shrink^2 under short memory, shrink^(1 / (1/2 - d)) under long
        memory of order d (inf when d >= 1/2).

        >>> MeanPrecision(1.0, 9, False, 1.0, 1.0).length_factor(2.0)
        4.0
        >>> round(MeanPrecision(1.0, 9, True, 1.0, 2.0, 0.25, 30.0).length_factor(2.0), 6)
        16.0
        """
        return growth_factor(shrink, self.memory_order)


def growth_factor(shrink: float, order: float, power: float = 0.5) -> float:
    """How many times longer a series must be for an error that shrinks as n^(order - power)
    to shrink ``shrink``-fold (power 1/2 for a mean, 3/2 for a slope over a fixed span); inf
    when it does not shrink, or the factor overflows.

    >>> growth_factor(3.0, 0.0), growth_factor(2.0, 0.5)
    (9.0, inf)
    """
    rate = power - order
    if shrink <= 1.0:
        return 1.0
    if rate <= 0.0:
        return math.inf
    try:
        return shrink ** (1.0 / rate)
    except OverflowError:
        return math.inf


def batch_variance(x: np.ndarray, size: int) -> float:
    """size * Var(means of batches of ``size``): n Var(mean) as batches of that length see it."""
    means = block_means(x, size)
    return size * float(np.var(means, ddof=1)) if len(means) > 1 else float("nan")


def variance_ladder(x: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Batch lengths b0 = 3 g, doubling while at least 8 batches remain, and v(b) at each.

    Each rung's batch means are the pairwise averages of the previous rung's (aligned at
    the end, as :func:`block_means` aligns them), so the whole ladder costs one pass over x.
    """
    n = len(x)
    size = max(4, int(math.ceil(3.0 * tau)))
    sizes, ladder = [], []
    if n // size < 8:
        return np.array(sizes, dtype=int), np.array(ladder)
    means = block_means(x, size)
    while len(means) >= 8:
        sizes.append(size)
        ladder.append(size * float(np.var(means, ddof=1)))
        means = means[len(means) % 2:]
        means = 0.5 * (means[0::2] + means[1::2])
        size *= 2
    return np.array(sizes, dtype=int), np.array(ladder)


def mean_precision(x: np.ndarray, tau: float) -> MeanPrecision:
    """MCSE of the mean of ``x`` given Geyer's integrated time ``tau`` (the spectral look for
    long memory costs ~3 ms of it at 1,000 points, ~6 ms at 10^6).

    >>> rng = np.random.default_rng(0)
    >>> p = mean_precision(rng.normal(size=2000), 1.0)
    >>> round(p.mcse, 3), p.dof, p.long_memory
    (0.022, 19, False)
    """
    x, unit = square_safe_scale(x)  # every spread below is in these units, then scaled back
    n = len(x)
    sd = float(np.std(x, ddof=1))
    geyer = sd * math.sqrt(tau / n)
    count = batch_count(n, tau, per_tau=BATCH_PER_TAU)
    base = batch_variance(x, n // count)
    batched = math.sqrt(base / n) if math.isfinite(base) and base > 0 else 0.0
    short = mcse = max(geyer, batched)
    sizes, ladder = variance_ladder(x, tau)
    growth, long_memory, slope = 1.0, False, math.nan
    if len(sizes) >= 3 and np.all(ladder > 0):
        slope = float(np.polyfit(np.log(sizes), np.log(ladder), 1)[0])
        growth = float(ladder[-1] / ladder[0])
        # Under short memory v(b) is flat past the correlation length, and the ratio of the
        # longest rung to the first is roughly F(K_top - 1, K_base - 1): growth must beat its
        # 99% point, so that 8 noisy batch means cannot fake long memory on their own.
        top, first = len(x) // int(sizes[-1]), len(x) // int(sizes[0])
        noise = float(f_ppf(0.99, top - 1, first - 1))
        long_memory = (slope > LONG_MEMORY_SLOPE
                       and growth > max(LONG_MEMORY_GROWTH, noise))
        if long_memory:
            extrapolated = ladder[-1] * (n / sizes[-1]) ** slope
            mcse = max(mcse, math.sqrt(extrapolated / n))
    order = evidence = math.nan
    # asked even when the ladder saw long memory: its extrapolation from a few batches
    # covered ~80% of ARFIMA d = 0.3 means at n = 5,000, the fitted model's variance ~95%
    memory = spectral_memory(x)
    if math.isfinite(memory.evidence):  # fitted (200 points or more, not constant)
        order, evidence = memory.d, memory.evidence
    long_memory = long_memory or memory.long_memory
    if math.isfinite(memory.variance_of_mean):  # long memory, or a slow component
        widened = math.sqrt(memory.variance_of_mean)
        if widened > mcse:
            mcse = widened
            # the model's variance is itself uncertain (through d or phi near 1)
            count = min(count, int(memory.dof) + 1)
    inflation = mcse / short if short > 0 else 1.0
    return MeanPrecision(mcse=mcse * unit, dof=max(count - 1, 1), long_memory=bool(long_memory),
                         growth=growth, inflation=inflation, spectral_d=order,
                         spectral_evidence=evidence, ladder_slope=slope)


def autocorrelated_mean(values: np.ndarray) -> tuple[float, float, int]:
    """(mean, autocorrelation-aware standard error, degrees of freedom) of one series: the
    integrated autocorrelation time (at least 1) into :func:`mean_precision`.  Fewer than 4
    values, or no spread, give a standard error of 0 with 1 degree of freedom.

    >>> mean, se, dof = autocorrelated_mean(np.random.default_rng(0).normal(size=2000))
    >>> round(mean, 3), round(se, 3), dof
    (-0.028, 0.023, 19)
    """
    from .autocorr import integrated_time

    mean = float(np.mean(values))
    if len(values) < 4 or np.ptp(values) == 0:
        return mean, 0.0, 1
    precision = mean_precision(values, max(float(integrated_time(values)), 1.0))
    return mean, float(precision.mcse), max(int(precision.dof), 1)


def share_interval(values: np.ndarray, level: float) -> tuple[float, tuple]:
    """The mean of a series of shares with an autocorrelation-aware t interval, clipped to [0, 1].

    >>> share_interval(np.r_[np.zeros(50), np.ones(50)] * 0 + 0.25, 0.95)
    (0.25, (0.25, 0.25))
    """
    from .distributions import t_ppf

    mean, se, dof = autocorrelated_mean(values)
    half = t_ppf(0.5 + level / 2.0, dof) * se
    return mean, (max(mean - half, 0.0), min(mean + half, 1.0))


def transient_allowance(before: np.ndarray, kept: np.ndarray) -> tuple[float, float]:
    """How much further (below, above) the interval of ``kept.mean()`` should reach for the
    tail of a transient that the warm-up cut may have left in ``kept``.

    A cut placed by a minimum-variance rule stops inside the tail of an exponential
    approach, where the tail is below the noise of a point but biases the mean of the kept
    part by about its own standard error toward the side the run came from (``before``, the
    part cut).  Such a tail sits mostly in the first half, so the last half's mean lies
    beyond the kept mean by about that bias: the interval is stretched by that gap, on the
    far side from the transient only, and not at all when the last half lies on the
    transient's side.  On a stationary run the gap is noise of one standard error, half the
    time on the side that stretches: ~5% wider on average.

    >>> rng = np.random.default_rng(0)
    >>> t = np.arange(1600)
    >>> x = 3 * (1 - np.exp(-t / 200)) + rng.normal(0, 0.3, 1600)   # still rising a little
    >>> below, above = transient_allowance(x[:440], x[440:])
    >>> below, round(above, 2)   # the kept mean is 0.057 below the level the run approaches
    (0.0, 0.07)
    """
    if len(before) == 0 or len(kept) < 4:
        return 0.0, 0.0
    side = np.sign(before.mean() - kept.mean())  # where the transient came from
    gap = float(kept[len(kept) // 2:].mean() - kept.mean())
    stretch = float(max(0.0, -side * gap))
    return (stretch, 0.0) if side > 0 else (0.0, stretch)


def within_range(interval: tuple[float, float], low: float, high: float, effective: float = math.inf,
                 level: float = 0.95) -> tuple[float, float]:
    """``interval`` cut to [low, high], the range of the values a mean was estimated from.

    A mean cannot lie beyond every value its process produces, and a stationary stretch
    with a few effective samples has both sides of its mean in it, so the cut loses
    coverage only when every point fell on one side (~2^-ESS).  It keeps a capped score (a
    solved CartPole at 500, Pong at 21, a success rate at 1) from an upper end above its cap.
    With ``effective`` independent values (an ESS, a count of clusters) the cut is made only
    where that chance, 2^(1 - effective), is at most a tenth of the interval's own miss rate
    (1 - ``level``): 9 or more at 95%.  The "95%" interval of 3 values cut so covered 75%, of
    4 values 87.5% (the chance that their mean lies beyond all of them: 25% and 12.5%).

    >>> within_range((0.9506, 1.016), 0.0, 1.0)
    (0.9506, 1.0)
    >>> within_range((0.7, 1.3), 0.8, 1.2, effective=3), within_range((0.7, 1.3), 0.8, 1.2, effective=9)
    ((0.7, 1.3), (0.8, 1.2))
    """
    if not effective >= 1.0 + math.log2(10.0 / (1.0 - level)):  # (a NaN ESS: no cut)
        return interval
    return max(interval[0], low), min(interval[1], high)


#: the fewest values in which an extreme held more than once reads as a cap (:func:`held_range`)
MIN_HELD_VALUES = 10


def held_range(values: np.ndarray, min_values: int = MIN_HELD_VALUES) -> tuple[float, float]:
    """The smallest and largest of ``values`` where each is held more than once - the mark of a
    cap the process cannot pass (Pong's 21, an episode's step limit, a success rate's 1) - else
    -inf and inf.  A mean cannot lie beyond a cap, so an interval is cut there whatever the
    effective count (:func:`within_range` needs 9 effective values to cut at a lone extreme): an
    A2C Pong run with 3 effective samples read "mean -7.5 [-136.8, 121.7]" of scores in [-21, 21].
    Among fewer than ``min_values`` values a small count repeats by chance: 4 draws of a
    Poisson(1.5) count, cut at a held maximum, covered their mean 88% of the time, not 94%
    (1,458 draws; at 6 values 95.7% against 96.7%, at 8 and 10 no change).

    >>> held_range(np.r_[-21.0, -21.0, np.arange(8.0), 21.0, 21.0]), held_range(np.arange(12.0))
    ((-21.0, 21.0), (-inf, inf))
    """
    if len(values) < min_values:
        return -math.inf, math.inf
    low, high = float(values.min()), float(values.max())
    return (low if np.count_nonzero(values == low) > 1 else -math.inf,
            high if np.count_nonzero(values == high) > 1 else math.inf)


def departure_share(length: int, ci: float) -> float:
    """The largest share of departures that ``length`` identical points leave plausible: the
    Clopper-Pearson bound for no event in ``length`` independent trials,
    1 - ((1 - ci) / 2)^(1 / length).

    >>> round(departure_share(100, 0.95), 4)   # 100 successes in a row: failures <= 3.6%
    0.0362
    """
    return 1.0 - ((1.0 - ci) / 2.0) ** (1.0 / length)


def streak_interval(level: float, length: int, low: float, high: float,
                    ci: float) -> tuple[tuple[float, float], float]:
    """The interval of the mean of a stretch of ``length`` points that all equal ``level``,
    when the run also produced values from ``low`` to ``high``; and the share of departures
    it allows.

    A constant stretch after a warm-up is a streak, not a measurement without error: a
    success rate that held at 1 for 34 points after a failure cannot rule out failures in
    ~10% of points.  Departures in up to :func:`departure_share` of the points, as far as
    the farthest value seen, move the mean by that share of the distance.  For 0/1 data this is the exact binomial interval.

    >>> (lo, hi), share = streak_interval(1.0, 34, 0.0, 1.0, 0.95)
    >>> round(lo, 3), hi, round(share, 3)   # 34 successes in a row: Clopper-Pearson
    (0.897, 1.0, 0.103)
    """
    share = departure_share(length, ci)
    return (level - share * (level - low), level + share * (high - level)), share


def streak_length_needed(precision: float, low: float, high: float, level: float, ci: float) -> int:
    """How long a streak at ``level`` must be for :func:`streak_interval`'s wider side to
    reach ``precision`` (0 when no departure was seen): :func:`departure_share` inverted.

    >>> streak_length_needed(0.05, 0.0, 1.0, 1.0, 0.95)   # 72 successes in a row: +-0.05
    72
    """
    reach = max(level - low, high - level)
    if reach <= precision:
        return 0
    return int(math.ceil(math.log((1.0 - ci) / 2.0) / math.log1p(-precision / reach)))
