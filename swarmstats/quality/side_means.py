"""Intervals of the figures that are means of one side of the decision - E[p | accepted],
E[p | rejected], toxicity, the quality gap and its hard twin - for independent interactions.

Given how many interactions each side holds, each side's mean is an ordinary sample mean of
values in [0, 1], so its interval is a score interval on the side's own spread, as for a
quasi-binomial mean (Wilson's with n / phi trials, Student's t for z); the gap, a difference
of two sides, and the hard gap, a difference of two shares, combine the two sides' intervals
as Newcombe (1998) does Wilson's.  The percentile bootstrap these replaced is about the range
of a few values: with 3-9 interactions on the smaller side its 95% interval of the gap covered
78-92% (p ~ Beta(2, 2), rejected with probability 0.2 (1 - p)).  Student's t and Welch's,
which followed (2026-12-03), are symmetric where a side's mean near 0 or 1 is not: with 3-9
on one side Welch's gap covered 87-94%, Student's t of that side's mean 82-96% (bimodal p
lowest); the score intervals 92-97% and 89-97% (docs/quality.md).  A side of fewer than
:data:`MIN_SIDE` interactions gives no interval: with two, Welch's covered 85-90%, and with
one there is no spread to read.

numpy in, numpy out.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels.bootstrap import wilson_interval
from .._kernels.bounded_mean import bounded_mean_interval, difference_of_intervals

#: the fewest interactions on a side for an interval of a figure that reads that side's mean
MIN_SIDE = 3
#: fewer on the smaller side than this: the note says the intervals are rough (the gap's covered
#: 92-97% of batches with 3 or 4 on a side, that side's mean 89-97%, bimodal p the lowest)
ROUGH_SIDE = 5


def side_mean_interval(values: np.ndarray, level: float, bounds=(0.0, 1.0)) -> tuple[float, float]:
    """:func:`~swarmstats._kernels.bounded_mean.bounded_mean_interval` of one side's values (each
    within ``bounds``, a share of [0, 1] by default); (nan, nan) with fewer than
    :data:`MIN_SIDE` values.

    >>> [round(x, 4) for x in side_mean_interval(np.array([0.2, 0.4, 0.6]), 0.95)]  # pulled towards 1/2
    [0.0982, 0.8032]
    """
    if len(values) < MIN_SIDE:
        return math.nan, math.nan
    return bounded_mean_interval(values, level, bounds)


def difference_interval(first: np.ndarray, second: np.ndarray, level: float) -> tuple[float, float]:
    """Interval of mean(``first``) - mean(``second``) (shares in [0, 1]) from the two sides'
    score intervals, combined as Newcombe combines Wilson's for a difference of shares (the
    "method of variance estimates recovery", Zou & Donner 2008); (nan, nan) when either side
    has fewer than :data:`MIN_SIDE` values.  Welch's interval, used before, covered 87-93% with
    3 or 4 values on the smaller side (bimodal p the low end); this one 92-97%.

    >>> low, high = difference_interval(np.array([0.6, 0.7, 0.8, 0.9]), np.array([0.2, 0.3, 0.4]), 0.95)
    >>> round(low, 4), round(high, 4)
    (0.0918, 0.6795)
    """
    if len(first) < MIN_SIDE or len(second) < MIN_SIDE:
        return math.nan, math.nan
    low, high = difference_of_intervals((float(first.mean()), *side_mean_interval(first, level)),
                                        (float(second.mean()), *side_mean_interval(second, level)))
    return max(low, -1.0), min(high, 1.0)


def share_difference_interval(successes: tuple, trials: tuple, level: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of a difference of two independent shares,
    successes[0]/trials[0] - successes[1]/trials[1], from each share's Wilson interval; (nan,
    nan) when either side has fewer than :data:`MIN_SIDE` trials.

    >>> [round(x, 4) for x in share_difference_interval((56, 48), (70, 80), 0.95)]   # Newcombe (1998), method 10
    [0.0524, 0.3339]
    """
    if min(trials) < MIN_SIDE:
        return math.nan, math.nan
    (low1, low2), (high1, high2) = wilson_interval(np.array(successes), np.array(trials), level)
    return difference_of_intervals((successes[0] / trials[0], float(low1), float(high1)),
                                   (successes[1] / trials[1], float(low2), float(high2)))


def side_intervals(p: np.ndarray, accepted: np.ndarray, threshold: float, level: float) -> dict:
    """The intervals of ``accepted_quality``, ``rejected_quality``, ``toxicity``,
    ``quality_gap``, ``hard_quality_gap`` and ``toxicity_difference`` (soft minus hard toxicity,
    the accepted interactions' mean of (1 - p) - [p < threshold]) for independent interactions
    (``accepted`` boolean).

    >>> out = side_intervals(np.array([0.9, 0.8, 0.7, 0.3, 0.2, 0.1]), np.array([1, 1, 1, 0, 0, 0], bool), 0.5, 0.95)
    >>> [round(x, 4) for x in out["quality_gap"]]
    [0.161, 0.8029]
    """
    taken, left = p[accepted], p[~accepted]
    accepted_quality = side_mean_interval(taken, level)
    high_taken = int(np.count_nonzero(taken >= threshold))
    high_left = int(np.count_nonzero(left >= threshold))
    return {
        "accepted_quality": accepted_quality,
        "rejected_quality": side_mean_interval(left, level),
        "toxicity": (1.0 - accepted_quality[1], 1.0 - accepted_quality[0]),
        "quality_gap": difference_interval(taken, left, level),
        "hard_quality_gap": share_difference_interval((high_taken, high_left), (len(taken), len(left)), level),
        # a mean over the accepted side too: the percentile bootstrap covered it 85% with ~5
        # accepted interactions and 92% with ~10, the score interval 90-97%
        "toxicity_difference": side_mean_interval((1.0 - taken) - (taken < threshold), level,
                                                  (-threshold, 1.0 - threshold)),
    }
