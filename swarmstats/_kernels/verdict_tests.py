"""The tests inside the convergence verdict, on batch means (numpy in, numpy out).

Each is a fixed-b test: batches of at least 5 integrated autocorrelation
times make the batch means nearly independent, so plain t laws apply without
estimating a long-run variance - the property that keeps the verdict's
false-alarm rate near alpha even for strongly autocorrelated series.

1. ``kept_trend``: OLS slope of the batch means after the warm-up.
2. ``continued_drift``: the slope over the whole series, counted only when
   the slope after the warm-up is consistent with it.  A transient ends, so
   what follows it is flat; a drift continues.  Without this test a cut into
   a slow drift would leave too little data to see the drift.
3. ``late_change``: the last 5%, 10% and 20% of the kept part against the
   points before them (a pooled two-sample t test on batch means).  A trend
   fitted to the whole kept part barely moves for a step in its last tenth;
   this test sees it directly.
4. ``variance_shift``: the spread within batches of the last 5%, 10% and 25%
   of the kept part against the batches of its second half before them (the
   seeds' "has the trailing variance stabilised"), with batches long enough for
   the persistence of the squares: under volatility clustering the squares are
   far more persistent than the level.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .autocorr import block_means, integrated_time
from .distributions import average_ranks, norm_ppf, norm_sf, t_sf
from .stationary_tests import batch_count, batch_level_shift, batch_slope, late_shift

#: Batches of squared deviations are this many of their integrated times long: the squares
#: of a volatility-clustering series decay slowly from a small first autocorrelation.
SQUARES_PER_TAU = 15.0

#: Differences below this (in standardised units: the verdict runs on data of SD 1) are
#: floating-point rounding, not evidence: a perfectly periodic series has batch means equal
#: to the last bit, and their 1e-32 differences must not become "significant".
ROUNDING = 1e-9

#: At most this many batches for a slope (Schmeiser 1982: 10 to 30): more degrees of
#: freedom make the small levels of a live monitor's flatness claims affordable.
SLOPE_BATCHES = 30

#: Level of the test that moves a warm-up cut on while the start of the kept part still
#: differs from its end (generous: a missed transient biases the mean and its interval).
SETTLE_LEVEL = 0.1

#: Level of the rank test that a warm-up cut must pass: what it sets aside must sit apart
#: from what it keeps (see ``cut_sets_apart``).
TRANSIENT_LEVEL = 0.05
#: Cuts of at most this many points are kept without the test (it has no power on them,
#: and a wild first sample or two is what a minimum-variance rule is meant to drop).
FEW_POINTS = 5

#: Above this many points the rank test runs on about ``RANK_BLOCKS`` block means.
RANK_POINTS = 20_000
RANK_BLOCKS = 5_000

#: The stretches at the end of the kept part that ``late_change`` tests.
LATE_FRACTIONS = (0.05, 0.1, 0.2)

#: The stretches at the end of the kept part whose spread ``variance_shift`` tests: a burst
#: in the last tenth is 40% of a quarter, and a quarter alone diluted it below notice.
VARIANCE_FRACTIONS = (0.05, 0.1, 0.25)


@dataclass(frozen=True)
class TestOutcome:
    name: str
    statistic: float
    pvalue: float
    estimate: float  # slope per step, variance ratio, or difference of means
    change: float  # slopes: estimate over the span tested; late change: the difference
    se: float = float("nan")  # standard error of ``estimate``
    dof: int = 0
    length: int = 0  # late change, variance change: points in the stretch tested
    applies: bool = True  # drift: the kept part continues the whole run's slope
    comparisons: int = 1  # late change: the stretches tested (its p-value is Bonferroni's over them)


def widened(outcome: TestOutcome, factor: float) -> TestOutcome:
    """``outcome`` with its standard error ``factor`` times larger and its p-value read again
    (Bonferroni's over the stretches a late change tested, as before).

    >>> base = TestOutcome("trend", 4.0, float(2 * t_sf(4.0, 20)), 0.4, 40.0, 0.1, 20)
    >>> wide = widened(base, 2.0)
    >>> wide.statistic, round(wide.se, 3), round(wide.pvalue, 3)
    (2.0, 0.2, 0.059)
    """
    if not (outcome.se > 0 and math.isfinite(outcome.se)) or outcome.pvalue >= 1.0:
        return outcome
    statistic = outcome.statistic / factor
    pvalue = min(1.0, float(2.0 * t_sf(abs(statistic), max(outcome.dof, 1))) * outcome.comparisons)
    return dataclasses.replace(outcome, statistic=statistic, pvalue=pvalue, se=outcome.se * factor)


def series_tau(x: np.ndarray) -> float:
    """Geyer's g, or 1 where no autocorrelation is defined (too short, constant, or no
    spread left in floating point: a variance that underflows to 0)."""
    if len(x) < 4 or np.ptp(x) == 0:
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = integrated_time(x)
    return float(tau) if np.isfinite(tau) else 1.0


def _slope_outcome(name: str, x: np.ndarray, steps: np.ndarray, tau: float) -> TestOutcome:
    slope, se, dof = batch_slope(x, batch_count(len(x), tau, high=SLOPE_BATCHES), steps)
    span = float(steps[-1] - steps[0])
    if abs(slope) * span < ROUNDING:
        slope = 0.0
    if se * span < ROUNDING:  # the batch means lie on a line to the last bit
        t, p = (math.inf if slope else 0.0), (0.0 if slope else 1.0)
    else:
        t = slope / se
        p = float(2.0 * t_sf(abs(t), dof))
    return TestOutcome(name, t, p, slope, slope * span, se, dof)


def kept_trend(kept: np.ndarray, steps: np.ndarray, tau: float) -> TestOutcome:
    return _slope_outcome("trend", kept, steps, tau)


def continued_drift(whole: np.ndarray, steps: np.ndarray, tau: float,
                    kept: TestOutcome, level: float) -> TestOutcome:
    """Whole-series trend; ``applies`` only when the kept part's slope is consistent with
    it (within z_{1 - level/2} of its standard error), else its p-value is set to 1."""
    whole_slope = _slope_outcome("drift", whole, steps, tau)
    kept_se = kept.se if kept.se > 0 else math.inf
    consistent = abs(kept.estimate - whole_slope.estimate) <= norm_ppf(1 - level / 2) * kept_se
    if consistent:
        return whole_slope
    return TestOutcome("drift", whole_slope.statistic, 1.0, whole_slope.estimate,
                       whole_slope.change, whole_slope.se, whole_slope.dof, applies=False)


def cut_sets_apart(x: np.ndarray, cut: int, cap: int,
                   level: float = TRANSIENT_LEVEL, tau: float | None = None) -> tuple[bool, float]:
    """Whether the first ``cut`` points sit apart in location from the rest: a rank-sum
    comparison (mean ranks; the spread of all ranks and the integrated time of the kept
    part's), judged as the largest of such comparisons over every cut the warm-up rule could
    have chosen (``FEW_POINTS`` + 1 to ``cap``), because the rule chose this one.  Returns
    (shown, p), p from that largest comparison's law.  ``tau``: the persistence to size it by
    (in points), in place of the kept part's own.

    A minimum-variance warm-up rule drops whatever prefix lowers the variance of the kept
    mean, and on skewed noise that is a prefix holding a few rare values (a failure in a
    success rate, a crash landing): the kept mean is biased toward the bulk by ~0.35 of
    its standard error and its interval narrowed.  A transient moves the whole distribution;
    rare values barely move the ranks, and a chance cluster of them is what a choice among
    many cuts finds.  Cuts of ``FEW_POINTS`` or fewer pass (blocks, above ``RANK_POINTS``).

    >>> rng = np.random.default_rng(0)
    >>> success = (rng.random(200) < 0.97).astype(float)
    >>> success[:30] = 1.0; success[[5, 17]] = 0.0     # two early failures
    >>> cut_sets_apart(success, 30, 100)[0]
    False
    >>> rising = np.r_[np.linspace(-3, 0, 40), np.zeros(160)] + rng.normal(size=200)
    >>> cut_sets_apart(rising, 40, 100)[0]
    True
    """
    if len(x) > RANK_POINTS:
        # the warm-up search itself runs on block means this long and resolves its cut to
        # one block; ranking 10^6 points would cost more than the whole verdict
        size = int(math.ceil(len(x) / RANK_BLOCKS))
        x, cut, cap = block_means(x, size, align="start"), cut // size, cap // size
        tau = None if tau is None else max(tau / size, 1.0)
    if cut <= FEW_POINTS:
        return True, 0.0
    ranks = average_ranks(x) / len(x)
    before, kept = ranks[:cut], ranks[cut:]
    # the spread of all ranks: what it is when nothing sets the first points apart (a kept
    # part that is one tied value, a streak, has none of its own)
    spread = float(ranks.std(ddof=1))
    # the noise's persistence, not the kept part's own trend (a loss still falling after
    # its steep start would make the ranks look persistent and hide the start)
    if tau is None:
        residuals = _detrended(kept)
        tau = max(series_tau(residuals), 1.0) if np.std(residuals) > ROUNDING else 1.0
    se = spread * math.sqrt(tau * (1.0 / len(before) + 1.0 / len(kept)))
    z = abs(float(kept.mean() - before.mean())) / se
    p = min(1.0, _largest_split_tail(z, (FEW_POINTS + 1) / len(x), max(cap, cut) / len(x)))
    return bool(p < level), float(p)


def _detrended(x: np.ndarray) -> np.ndarray:
    """Residuals of an OLS line through ``x`` against its index."""
    t = np.arange(len(x)) - (len(x) - 1) / 2.0
    return x - x.mean() - t * (float(t @ x) / float(t @ t)) if len(x) > 2 else x - x.mean()


def _largest_split_tail(z: float, first: float, last: float) -> float:
    """P(the largest standardised two-sample comparison over splits at fractions
    ``first``..``last`` of a stationary series exceeds ``z``): the sup of a Brownian bridge
    over sqrt(t (1 - t)), in the approximation of Andrews (1993) and Estrella (2003).  It
    errs on the safe side: 3.055 for 5% over 6..250 of 500 points, where 500-point bridges
    give 2.93.

    >>> round(_largest_split_tail(3.055, 6 / 500, 0.5), 3)
    0.05
    """
    if last <= first:
        return 2.0 * norm_sf(z)
    if z <= 1.0:  # the approximation is for the far tail; this close, nothing is shown
        return 1.0
    density = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    span = math.log(last * (1.0 - first) / (first * (1.0 - last)))
    return max(z * density * span * (1.0 - 1.0 / (z * z)) + 4.0 * density / z, 2.0 * norm_sf(z))


def settle_cut(x: np.ndarray, cut: int, cap: int, level: float = SETTLE_LEVEL) -> tuple[int, float]:
    """Move a warm-up cut on by a fortieth of the kept part at a time while the first tenth
    of what is kept differs from its last half (Geweke's comparison on batch means, two-sided
    at ``level``), never past ``cap``: Heidelberger and Welch's sequential discarding.
    Minimum-variance rules stop inside the tail of an exponential transient, where the
    remaining bias is below the noise of one point but not below the noise of the mean.
    Returns the cut and the integrated time g of what it keeps.

    >>> x = 3 * np.exp(-np.arange(4000) / 400) + np.random.default_rng(0).normal(size=4000)
    >>> settle_cut(x, 600, 2000)[0] > 600
    True
    """
    while True:
        kept = x[cut:]
        tau = series_tau(kept)
        size = max(1, int(math.ceil(5.0 * tau)))
        count = len(kept) // size
        step = max(1, len(kept) // 40)  # a quarter of the stretch tested: no overshoot
        if int(round(0.1 * count)) < 2 or cut + step > cap:
            return cut, tau
        _, _, p = batch_level_shift(kept, count, first=0.1, last=0.5)
        if p >= level:
            return cut, tau
        cut += step


def late_change(kept: np.ndarray, tau: float) -> TestOutcome:
    """The end of the kept part against the points before it, for each stretch in
    ``LATE_FRACTIONS`` that holds at least two batches; the most significant one, its
    p-value Bonferroni-adjusted over the stretches tested.

    >>> x = np.r_[np.zeros(900), np.ones(100)] + np.random.default_rng(0).normal(0, 0.5, 1000)
    >>> outcome = late_change(x, 1.0)
    >>> outcome.length, 0.8 < outcome.estimate < 1.2, outcome.pvalue < 1e-6
    (100, True, True)
    """
    m = len(kept)
    size = max(1, int(math.ceil(5.0 * tau)))
    tested = []
    means = block_means(kept, size)  # aligned at the end: the last batches are the stretch
    for fraction in LATE_FRACTIONS:
        stretch = int(round(fraction * m))
        late_batches = stretch // size
        early_batches = (m - late_batches * size) // size
        if late_batches < 2 or early_batches < 2:
            continue
        difference, t, p, se, dof = late_shift(means[-late_batches:], means[:-late_batches])
        if abs(difference) < ROUNDING:
            difference, t, p = 0.0, 0.0, 1.0
        tested.append((p, t, difference, se, dof, late_batches * size))
    if not tested:
        return TestOutcome("late", 0.0, 1.0, 0.0, 0.0, float("nan"), 0, 0)
    p, t, difference, se, dof, length = min(tested)
    return TestOutcome("late", t, min(1.0, p * len(tested)), difference, difference, se, dof, length,
                       comparisons=len(tested))


def squares_tau(squared: np.ndarray) -> float:
    """A conservative integrated time of squared deviations: the largest of Geyer's and
    the batch-means estimates at 16, 8 and 4 blocks.  Geyer's sum stops early when the
    squares' autocorrelation is small but long-lived (GARCH-like volatility clustering).

    Long inputs are first reduced to 2^14 block means of equal length (the last points),
    from which every estimate follows: the 16, 8 and 4 blocks are unions of them.
    """
    variance = float(np.var(squared))
    if not variance > 0:
        return 1.0
    base = 1
    if len(squared) >= 2 * _SQUARES_BLOCKS:
        base = len(squared) // _SQUARES_BLOCKS
        squared = block_means(squared, base)
        # Var(mean) = var g / n = Var(block means) g_blocks / K (what integrated_time uses)
        estimates = [base * float(np.var(squared)) * series_tau(squared) / variance]
    else:
        estimates = [series_tau(squared)]
    for blocks in (16, 8, 4):
        size = len(squared) // blocks
        if size >= 2:
            means = block_means(squared, size)
            estimates.append(base * size * float(np.var(means, ddof=1)) / variance)
    return max(estimates)


_SQUARES_BLOCKS = 2 ** 14


def variance_shift(kept: np.ndarray) -> TestOutcome:
    """Has the spread settled?  Each of the last 5%, 10% and 25% of the kept part that holds
    two batches against the batches of its second half before it: the variance within each
    batch (around the batch's own mean, so that a slow drift or a step of the level is not
    read as noise), compared by its cube root (Wilson-Hilferty: nearly normal for a
    chi-square, and zero for a constant batch of a 0/1 score) in :func:`late_shift`'s t test.
    The most significant stretch is reported, its p-value Bonferroni-adjusted over the
    stretches tested; ``estimate`` is the ratio of the stretch's mean within-batch variance
    to the earlier batches', ``length`` the stretch's points.

    Batches are ``SQUARES_PER_TAU`` times the squares' integrated time, measured on the kept
    part before its last quarter (a real change must not lengthen its own batches).  When no
    stretch holds two such batches with two before it in the second half, the volatility
    clusters are too long to judge on this run: the test abstains (p = 1, ``applies`` False).

    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=1000)
    >>> x[-100:] *= 5                      # the last tenth five times as noisy
    >>> outcome = variance_shift(x)
    >>> outcome.length, round(outcome.estimate), outcome.pvalue < 1e-3   # two batches of 47
    (94, 14, True)
    """
    m = len(kept)
    quiet = TestOutcome("variance", 0.0, 1.0, 1.0, float("nan"))
    if m < 16 or np.ptp(kept) == 0:
        return quiet
    reference = kept[: 3 * m // 4]
    tau = squares_tau((reference - reference.mean()) ** 2)
    size = max(2, int(math.ceil(SQUARES_PER_TAU * tau)))
    count = m // size
    within = kept[m - count * size:].reshape(count, size).var(axis=1)  # aligned at the end
    within[within < ROUNDING ** 2] = 0.0  # a constant batch, to the last bit of its level
    spread = np.cbrt(within)
    in_half = (m // 2) // size
    tested = []
    for fraction in VARIANCE_FRACTIONS:
        late = int(round(fraction * m)) // size
        early = in_half - late
        if late < 2 or early < 2:
            continue
        before = within[-late - early:-late].mean()
        ratio = float(within[-late:].mean() / before) if before > 0 else float("inf")
        difference, t, p, _, dof = late_shift(spread[-late:], spread[-late - early:-late])
        if abs(difference) < ROUNDING:
            t, p = 0.0, 1.0
        tested.append((p, t, ratio, dof, late * size))
    if not tested:
        return TestOutcome("variance", 0.0, 1.0, 1.0, float("nan"), applies=False)
    p, statistic, ratio, dof, length = min(tested)
    return TestOutcome("variance", statistic, min(1.0, p * len(tested)), ratio, float("nan"),
                       dof=dof, length=length)
