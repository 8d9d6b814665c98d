"""Changes of spread: where the noise around the regimes grows or shrinks.

Why: the regimes' models (``trend``, ``mean``, ``linear``) cut a series where its level or its
slope changes, on one noise variance.  A public Spinning Up log (tests/fixtures/real) shows what
that misses: the PPO surrogate's ``DeltaLossPi`` scatters with an SD of ~0.005 for 280 epochs and
~0.015 after - the run changed there - and the regimes read "a jump: 1.59 noise SDs", the
tripled noise said nowhere.  A spread that changes within one level was not reported at all.

How: the size of the noise at each point is read from the series' second differences,
``|y[t+1] - 2 y[t] + y[t-1]|``: a level or a straight line cancels out of them, so a regime's
trend does not pass for noise, and those that straddle a change of the regimes are left out.
Their ranks (a lone far value counts as the largest, not by how far: heavy tails and spikes do
not make a change) go through a self-normalised CUSUM test (Shao & Zhang 2010, "Testing for
change points in time series", JASA 105: 1228-1240): the partial sums' largest excursion
over a normaliser built from the same partial sums, so the noise's autocorrelation, whatever
its strength, cancels out of the statistic with no bandwidth to choose.  Its null law
is pivotal; its quantiles (:data:`QUANTILES`) were simulated once
(``benchmarks/calibration_spread.py --table``).  The normaliser also holds any other change
of the stretch tested, so the test is run on seeded intervals (lengths n, n/2, n/4, n/8,
half-overlapping, as :mod:`.seeded`): the most significant split of all, if its p-value times
the number of intervals (Bonferroni) is below ``LEVEL``, is a change, and each side is searched
again with the intervals that lie in it.  Searched over the whole series only, a noisy middle
stretch (SD 1, 4, 1 over 400 points each) was not found at all.  A change is reported when the
ratio of the spreads either side is at least ``RATIO`` (on 10^4 points a 10% change is
significant but not worth a line), read both near it (the mean absolute second differences up
to the neighbouring changes, or the ends of the interval that found it) and wide (up to the
neighbouring changes or the series' ends): a burst of volatility is a large change near its
edge, but the spreads out to the next changes barely differ.

What it cannot tell: volatility that comes and goes (GARCH-like noise) has real calm and busy
stretches, and some of them are reported as changes - the rates are in docs/regimes.md.  A
spread that grows slowly over a whole run (TD3 Humanoid's, as its reward grows) is a gradual
change no single split describes, and is often not reported.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._result import fmt, plain_number
from .seeded import seeded_intervals

#: the level of the search, over all its intervals: 0.001 because volatility clustering
#: (GARCH(1, 1) with persistence 0.95-0.99) reads as changes far more often at 0.01 (4-14% of
#: series of 100-300 points with the whole series tested alone, docs/regimes.md)
LEVEL = 0.001
#: the smallest ratio of spreads (larger over smaller) reported, near the change and wide
#: (:func:`_large_enough`); judged near only, GARCH(1, 1) noise with a = 0.05, b = 0.94 read as
#: changing in 18% of 3,000-point series, 5% judged both ways, with the power unchanged
RATIO = 1.5
#: second differences each side of a change at least (a spread read from fewer is too rough),
#: and the share of a stretch each side at least (the trimming the quantiles were simulated with)
SIDE, TRIM = 20, 0.1
#: the shortest interval tested, in sides, and the most halvings of the series: n / 8 at the
#: shortest.  Down to n / 512, GARCH(1, 1) noise with a = 0.15, b = 0.84 read as changing in
#: 21% of 3,000-point series with the sides out to the neighbouring changes, at n / 8 in 12%;
#: with the sides within the interval that found a change (:func:`_sides`), 24% at n / 8
SHORTEST_SIDES, LAYERS_SPAN = 3, 8
#: a change of spread this close to a change of the regimes (or min_size, if larger) is that change
SNAP = 10
#: upper quantiles of sup_{0.1 <= r <= 0.9} G(r) under no change, by upper-tail probability:
#: 5,000,000 series of 500 i.i.d. normal values (``benchmarks/calibration_spread.py --table``;
#: 500,000 of 1,000 agreed within their sampling error: 71.65 at 1%, 125.6 at 0.1%)
QUANTILES = {0.5: 7.62, 0.2: 18.98, 0.1: 29.28, 0.05: 40.67, 0.02: 57.49, 0.01: 71.62, 0.005: 86.91,
             0.002: 108.74, 0.001: 126.63, 0.0005: 145.28, 0.0002: 171.11, 0.0001: 192.15, 5e-05: 214.43,
             2e-05: 245.23, 1e-05: 268.75, 5e-06: 299.22, 2e-06: 333.62}
#: E|d| / sd of a second difference of white normal noise: sqrt(6) * sqrt(2 / pi)
_WHITE_ABS = math.sqrt(12 / math.pi)

COLUMNS = ["changepoint", "step", "sd_before", "sd_after", "ratio", "statistic", "pvalue", "at_change"]


def self_normalised_profile(s: np.ndarray) -> np.ndarray:
    """Shao & Zhang's G(k) = T(k)^2 / V(k) for each split after ``k = 1 .. n - 1`` values of
    ``s``: T the centred partial sum over sqrt(n), V the squared deviations of each side's
    partial sums from their straight line, over n^2.  O(n) by prefix sums; a split whose V is
    zero (each side's partial sums exactly straight) gets 0.

    >>> s = np.r_[np.zeros(30), np.ones(30)] + np.random.default_rng(0).normal(0, 0.2, 60)
    >>> int(np.argmax(self_normalised_profile(s))) + 1   # the split after 30 values
    30
    """
    s = np.asarray(s, dtype=np.float64)
    n = len(s)
    partial = np.cumsum(s - s.mean())  # S_1 .. S_n, S_n = 0
    t = np.arange(1, n + 1, dtype=np.float64)
    sum0, sum1, sum2 = np.cumsum(partial), np.cumsum(t * partial), np.cumsum(partial * partial)
    k = np.arange(1, n, dtype=np.float64)
    at = partial[:-1]  # S_k
    left = sum2[:-1] - 2 * (at / k) * sum1[:-1] + (at / k) ** 2 * (k * (k + 1) * (2 * k + 1) / 6)
    m = n - k
    # the right side's partial sums from its end: sum over j = k .. n-1 of S_j
    before = np.r_[0.0, sum2[:-2]], np.r_[0.0, sum0[:-2]], np.r_[0.0, sum1[:-2]]
    tail2, tail0, tail1 = sum2[n - 2] - before[0], sum0[n - 2] - before[1], sum1[n - 2] - before[2]
    right = tail2 - 2 * (at / m) * (n * tail0 - tail1) + (at / m) ** 2 * (m * (m + 1) * (2 * m + 1) / 6)
    normaliser = left + right
    scale = float(np.max(np.abs(partial))) ** 2 or 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        profile = np.where(normaliser > 1e-12 * scale * n, n * at * at / normaliser, 0.0)
    return profile


def pvalue(statistic: float) -> float:
    """The upper-tail probability of the sup statistic: log p interpolated in log G between
    the simulated quantiles, 1 below the median (never reported), and beyond the last a power
    law through the last two (the tail's log-log slope still flattens there - a lighter tail
    than the law's - so the p given is if anything too large; the Bonferroni count of
    :func:`_select` needs p below the table).

    >>> round(pvalue(QUANTILES[0.001]), 6), pvalue(2 * max(QUANTILES.values())) < min(QUANTILES)
    (0.001, True)
    """
    probabilities = np.log(np.array(list(QUANTILES)))
    values = np.log(np.array(list(QUANTILES.values())))
    if statistic < QUANTILES[0.5]:
        return 1.0
    where = math.log(statistic)
    if where <= values[-1]:
        return float(np.exp(np.interp(where, values, probabilities)))
    slope = (probabilities[-1] - probabilities[-2]) / (values[-1] - values[-2])
    return float(np.exp(probabilities[-1] + slope * (where - values[-1])))


def spread_changes(values: np.ndarray, steps: np.ndarray, changepoints, min_size: int = 5) -> pd.DataFrame:
    """Where the spread of the noise changes (see the module): one row per change, its first
    index (``changepoint``) and ``step``, the noise SD either side up to the neighbouring
    change of spread or the end of the interval that found it (read from the second differences as white noise would give them:
    compare them, not their units), their ``ratio`` (after over before), the test's
    ``statistic`` and ``pvalue`` (times the number of intervals tested: at most ``LEVEL``), and ``at_change``: whether it falls on one of ``changepoints`` (within
    ``SNAP`` or ``min_size`` points: it is then placed there).

    >>> rng = np.random.default_rng(1)
    >>> y = rng.normal(size=600) * np.r_[np.ones(300), np.full(300, 3.0)]
    >>> spread_changes(y, np.arange(600.0), [])[["changepoint", "ratio"]].round(1).to_dict("records")
    [{'changepoint': 296, 'ratio': 2.9}]
    """
    from scipy.stats import rankdata

    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    side = max(SIDE, int(min_size))
    if n < 2 * side + 2:
        return pd.DataFrame(columns=COLUMNS)
    size = np.abs(values[2:] - 2 * values[1:-1] + values[:-2])
    centre = np.arange(1, n - 1)
    keep = np.ones(n - 2, dtype=bool)
    for point in changepoints:  # the two second differences that hold values of both regimes
        keep[max(point - 2, 0):min(point, n - 2)] = False
    size, centre = size[keep], centre[keep]
    # ranked once: any fixed increasing transform of a stretch of alike spreads is alike too,
    # so each interval's test may use the whole series' ranks (one sort, not one per interval)
    tested = _tested_intervals(size, rankdata(size), side)
    cuts = {}
    _select(tested, 0, len(size), len(tested), cuts)
    cuts = _large_enough(size, cuts)
    points = sorted(changepoints)
    rows = []
    for cut, (before, after) in _sides(size, cuts).items():
        index = int(centre[cut])
        # a spread's change is placed less sharply than a level's (DeltaLossPi's noise grows
        # over epochs 271-280, its level jumps at 280): within SNAP points it is that change
        near = [p for p in points if abs(p - index) <= max(int(min_size), SNAP)]
        if near:
            index = min(near, key=lambda p: abs(p - index))
        statistic = cuts[cut][0]
        rows.append({"changepoint": index, "step": plain_number(steps[index]),
                     "sd_before": before / _WHITE_ABS, "sd_after": after / _WHITE_ABS,
                     "ratio": after / before if before > 0 else math.inf,
                     "statistic": statistic, "pvalue": min(1.0, pvalue(statistic) * len(tested)),
                     "at_change": bool(near)})
    return pd.DataFrame(rows, columns=COLUMNS)


def _tested_intervals(size, ranks, side):
    """(start, end, cut, statistic) of each seeded interval's best split (see :func:`_select`);
    intervals down to ``SHORTEST_SIDES * side`` values, or n / ``LAYERS_SPAN`` on long series."""
    n = len(size)
    shortest = max(SHORTEST_SIDES * side, n // LAYERS_SPAN)
    tested = []
    for starts, length in seeded_intervals(n, shortest):
        low = max(side, math.ceil(TRIM * length))
        if length - low < low:
            continue
        for start in starts.tolist():
            part = ranks[start:start + length]
            if part.min() == part.max():  # every spread alike
                continue
            profile = self_normalised_profile(part)[low - 1:length - low]
            best = int(np.argmax(profile))
            tested.append((start, start + length, start + low + best, float(profile[best])))
    return tested


def _select(tested, start, end, count, cuts):
    """Seeded binary segmentation: within ``[start, end)``, the interval whose best split is
    the most significant, if it is at ``LEVEL`` once multiplied by the ``count`` of intervals
    tested (Bonferroni), gives a change; both sides are then searched with the intervals that
    lie wholly in them."""
    inside = [t for t in tested if t[0] >= start and t[1] <= end and start < t[2] < end]
    if not inside:
        return
    best = max(inside, key=lambda t: t[3])
    if pvalue(best[3]) * count > LEVEL:
        return
    cuts[best[2]] = (best[3], best[0], best[1])
    _select(tested, start, best[2], count, cuts)
    _select(tested, best[2], end, count, cuts)


def _sides(size, cuts, near=True):
    """The mean spread (absolute second difference) each side of each cut, in order: from the
    neighbouring cut or, ``near``, the end of the interval that found it, whichever is nearer
    (without ``near``: the neighbouring cut or the series' end).  Reported near: TD3 Humanoid's
    reward scatters ~60 for 450 episodes, ~1 for the next 450, then more and more; only the fall
    was found, and its after-side run to the series' end read "x9.3"."""
    order = sorted(cuts)
    sides = {}
    for i, cut in enumerate(order):
        _, low, high = cuts[cut] if near else (None, 0, len(size))
        start = max(low, order[i - 1] if i else 0)
        end = min(high, order[i + 1] if i + 1 < len(order) else len(size))
        sides[cut] = (float(size[start:cut].mean()), float(size[cut:end].mean()))
    return sides


def _large_enough(size, cuts):
    """The changes whose ratio of spreads (:func:`_sides`) is at least ``RATIO`` both near
    and wide: the smallest dropped first, the ratios then read again."""
    cuts = dict(cuts)
    while cuts:
        near, wide = _sides(size, cuts), _sides(size, cuts, near=False)
        ratios = {cut: min(_ratio(*near[cut]), _ratio(*wide[cut])) for cut in cuts}
        weakest = min(ratios, key=ratios.get)
        if ratios[weakest] >= RATIO:
            break
        del cuts[weakest]
    return cuts


def _ratio(before, after):
    """The larger spread over the smaller; infinite when one side has none."""
    return max(before, after) / min(before, after) if min(before, after) > 0 else math.inf


def ratio_text(row: dict) -> str:
    """``x3`` for one row of :func:`spread_changes`; ``to none`` or ``from none`` where one side
    has no scatter at all (a ratio of 0 or infinity says less)."""
    if row["sd_after"] == 0:
        return "to none"
    if row["sd_before"] == 0:
        return "from none"
    return f"x{fmt(row['ratio'], 2)}"


def spread_text(row: dict) -> str:
    """``the noise SD x3 (about 0.0052 -> 0.016; p = 0.00086 adjusted)`` for one row of
    :func:`spread_changes`."""
    sds = f"about {fmt(row['sd_before'], 2)} -> {fmt(row['sd_after'], 2)}; p = {fmt(row['pvalue'], 2)} adjusted"
    if row["sd_after"] == 0:  # a score that reached its cap: no scatter left (A2C CartPole at 500)
        return f"the noise vanishes ({sds})"
    if row["sd_before"] == 0:
        return f"noise appears ({sds})"
    return f"the noise SD x{fmt(row['ratio'], 2)} ({sds})"
