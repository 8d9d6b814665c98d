"""How the kept part moves since its last regime began, against its slope as a whole: the
"now slower", "now faster", "no trend since" of a verdict's first reason, and the "worsening
now" of a run whose kept part shows no slope as a whole."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._kernels.verdict_tests import kept_trend
from .trend import rank_trend, trend_test

#: the fewest points of a last regime whose own slope is told beside the kept part's
PACE_POINTS = 10
#: the share of the verdict's level at which a last regime's own slope fails the check where
#: the kept part shows none (:func:`moving_now`): a stricter test, as that regime's start was
#: chosen by the regime search
NOW_LEVEL_SHARE = 0.25


@dataclass(frozen=True)
class RecentPace:
    """The slope since the kept part's last regime began, where it differs from the kept
    part's own: ``kind`` "none" (no trend shown, and a slope shown less than the kept
    part's), "slower" or "faster" (a trend the same way, shown less or more steep),
    "reversed" (a trend the other way); "now" (a trend shown in the regime itself, where the
    kept part as a whole shows none: :func:`moving_now`), "wander" (such a trend, in a kept
    part too persistent for it to count: ``kept_effective``).  ``first`` is where the regime
    begins in the whole series; Sen's slope, its interval and the regime's mean [interval] are
    in standardised units, ``pvalue`` Mann-Kendall's over the regime."""

    kind: str
    first: int
    count: int
    slope: float
    interval: tuple[float, float]
    mean: tuple[float, float, float]
    #: the smallest step between the regime's distinct values, where Sen's interval is a
    #: single point: values rounded that coarsely hide any finer slope (0 otherwise)
    resolution: float = 0.0
    #: the regime's one value, where every value in it is the same (None otherwise)
    held: float | None = None
    pvalue: float = math.nan
    #: the kept part's effective samples by its ranks (:func:`~.trend.rank_trend`), where
    #: :func:`moving_now` read them (NaN otherwise)
    kept_effective: float = math.nan


def recent_pace(kept: np.ndarray, steps: np.ndarray, start: int, regimes, reference,
                 ci: float) -> RecentPace | None:
    """How the kept part moves since its last regime (``regimes``: :func:`~swarmstats.convergence.regime_check.tests_tau`'s)
    began, against its slope as a whole (``reference``, a trend outcome): None when that
    regime is the whole kept part, shorter than :data:`PACE_POINTS`, or Sen's ``ci``
    interval of its slope holds the kept part's slope.  A run that jumped and has held
    level since shows a trend over the kept part; the regime tells that the movement is
    over, or slowing.

    Read by Mann-Kendall and Sen's slope (:func:`trend_test`, its autocorrelation
    correction), not by the kept part's batch-means least squares: rewards with a heavy
    lower tail (a crash landing among good episodes) hide a climb of the bulk from a line's
    fit - a public SAC LunarLander log's last 219 episodes, medians rising 258 -> 280:
    least squares +10.6 per 100 [-3.7, 26.2], Sen +8.2 [3.1, 13.3] (p = 0.002)."""
    if not reference.estimate:
        return None
    found = _last_regime_trend(kept, steps, regimes, ci)
    if found is None:
        return None
    first, recent, interval = found
    sign = math.copysign(1.0, reference.estimate)
    low, high = sorted(sign * end for end in interval)  # along the kept part's direction
    going = sign * recent.sen_slope
    pace = abs(reference.estimate)
    if recent.pvalue >= 1.0 - ci:
        if high >= pace:
            return None
        kind = "none"
    elif going < 0:
        kind = "reversed"
    elif high < pace:
        kind = "slower"
    elif low > pace:
        kind = "faster"
    else:
        return None
    return _pace(kind, kept, start, first, regimes, recent, interval)


def moving_now(kept: np.ndarray, steps: np.ndarray, start: int, regimes, tau: float, level: float,
               ci: float, min_effective: float) -> RecentPace | None:
    """The last regime's own trend, for a kept part whose slope as a whole shows none, after
    a warm-up (``start`` > 0); None when there is no such regime (as :func:`recent_pace`) or
    its slope is not shown both by the batch-means slope test sized by ``tau`` (the time the
    tests that show movement use) and by Mann-Kendall, each at :data:`NOW_LEVEL_SHARE` of
    ``level``.  Its kind is "now", or "wander" where the kept part's ranks
    (:func:`~.trend.rank_trend`) hold fewer than ``min_effective`` effective samples: the
    move is then not claimed.

    Why: a run that climbed and then fell has a kept part whose rise and fall cancel in a
    slope fitted to it all, and whose autocorrelation time is mostly the tent itself.  A
    climb for 230 steps, then a fall of ~4 noise SDs over the last 70 (AR(0.3) noise) read
    "only 5 effective samples: insufficient data" in 56 of 60 seeds, while the regime search
    the verdict runs anyway had found the turn.  The regimes are only searched (and so this
    only applies) where the kept part holds fewer than 50 effective samples
    (:func:`~swarmstats.convergence.regime_check.tests_tau`), and that search is calibrated to
    find no change in stationary persistent noise.  But a slow wander under fast noise is
    cut into "regimes" all the same, and the last of them moves with the wander: tested by
    Mann-Kendall alone (its own correction, read within that regime, misses the wander) this
    called 20 of 200 stationary ARMA(1,1) runs (phi 0.9, theta -0.5, n = 300) moving, where
    the other tests call 5.  Three guards keep it near size: the batch-means slope test
    sized by the noise time around the regimes beside Mann-Kendall (13 of 200); a level of a
    quarter of the other tests' (the regime tested was chosen by the search: 8); and a kept
    part that follows a warm-up, i.e. a run shown to have moved before it (stationary runs
    rarely have a cut: the rank test guarding it rejects chance cuts): 5 of 200, as without
    this test (seed 1002; more in docs/convergence.md).  The climb-then-fall above is caught
    in 39 of 60 seeds.

    In a short, strongly persistent run the search still cuts a wander where it turns, and
    the last piece's slope, read by both tests, was the largest part of what such runs were
    still wrongly called moving for: it fired in 47 of 7,500 stationary AR(0.9-0.99) runs and
    running means of 40-300 points.  The kept part's ranks (less a quadratic and a step, as
    :func:`~.trend.rank_trend` reads them) held 1-17 effective samples in those (median ~4);
    the climb-then-fall's 17-59 in every seed caught.  Below ``min_effective`` (the verdict's
    ``min_ess``) the end of a wander and a move cannot be told apart, and the regime's slope is
    only noted."""
    if start == 0:
        return None
    found = _last_regime_trend(kept, steps, regimes, ci)
    level *= NOW_LEVEL_SHARE
    if found is None or not found[1].pvalue < level:
        return None
    first, recent, interval = found
    if not kept_trend(kept[first:], steps[first:], tau).pvalue < level:
        return None
    effective = rank_trend(kept, steps)[1]
    pace = _pace("now" if effective >= min_effective else "wander", kept, start, first, regimes,
                 recent, interval)
    return dataclasses.replace(pace, kept_effective=effective)


def _last_regime_trend(kept, steps, regimes, ci):
    """(where the last regime begins in the kept part, its trend test, Sen's ``ci`` interval),
    or None when there are no regimes, the last is the whole kept part or shorter than
    :data:`PACE_POINTS`, or the interval is not finite."""
    if regimes is None:
        return None
    last = regimes.segments.iloc[-1]
    first, count = int(last["start"]), int(last["n"])
    if first == 0 or count < PACE_POINTS:
        return None
    recent = trend_test(pd.Series(kept[first:], index=steps[first:]), alpha=1.0 - ci)
    interval = tuple(float(end) for end in recent.sen_ci)
    if not all(map(math.isfinite, interval)):
        return None
    return first, recent, interval


def _pace(kind: str, kept, start: int, first: int, regimes, recent, interval) -> RecentPace:
    last = regimes.segments.iloc[-1]
    resolution, held = 0.0, None
    if interval[0] == interval[1]:  # most pairs tie: a log rounded to a few decimals
        distinct = np.unique(kept[first:])
        if len(distinct) > 1:
            resolution = float(np.diff(distinct).min())
        else:
            held = float(distinct[0])
    return RecentPace(kind, start + first, int(last["n"]), recent.sen_slope, interval,
                      tuple(float(last[key]) for key in ("mean", "ci_low", "ci_high")), resolution, held,
                      float(recent.pvalue))
