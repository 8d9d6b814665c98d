"""Intervals of the figures that are means of one side of the decision - E[p | accepted],
E[p | rejected], toxicity, the quality gap and its hard twin - for independent interactions.

Given how many interactions each side holds, each side's mean is an ordinary sample mean, so
its interval is Student's t on the side's own spread (Welch-Satterthwaite's degrees of freedom
for the gap, a difference of two sides), and the hard gap, a difference of two shares, gets
Newcombe's interval from the two sides' Wilson intervals.  The percentile bootstrap these
replaced is about the range of a few values: with 3-9 interactions on the smaller side its
95% interval of the gap covered 78-92% (p ~ Beta(2, 2), rejected with probability
0.2 (1 - p)); Welch's covers 91-96% (2,500 batches of 40 and 1,500 of 200 interactions).
A side of fewer than :data:`MIN_SIDE` interactions gives no interval: with two, Welch's
covered 85-90%, and with one there is no spread to read.

numpy in, numpy out.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels.bootstrap import wilson_interval
from .._kernels.distributions import t_ppf

#: the fewest interactions on a side for an interval of a figure that reads that side's mean
MIN_SIDE = 3
#: fewer on the smaller side than this: the note says the intervals are rough (Welch's covered
#: 91-93% of batches with 3 or 4 rejected interactions; bimodal p, Beta(0.3, 0.3), 84-88%)
ROUGH_SIDE = 5


def side_mean_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """Student's t interval of the mean of ``values`` (a share of [0, 1] each), cut to [0, 1];
    (nan, nan) with fewer than :data:`MIN_SIDE` values.

    >>> [round(x, 4) for x in side_mean_interval(np.array([0.2, 0.4, 0.6]), 0.95)]   # 0.4 -+ t(2) 0.2/sqrt(3)
    [0.0, 0.8968]
    """
    if len(values) < MIN_SIDE:
        return math.nan, math.nan
    centre = float(values.mean())
    half = t_ppf(0.5 + level / 2, len(values) - 1) * float(values.std(ddof=1)) / math.sqrt(len(values))
    return max(centre - half, 0.0), min(centre + half, 1.0)


def difference_interval(first: np.ndarray, second: np.ndarray, level: float) -> tuple[float, float]:
    """Welch's interval of mean(``first``) - mean(``second``), cut to [-1, 1]; (nan, nan) when
    either side has fewer than :data:`MIN_SIDE` values.

    >>> low, high = difference_interval(np.array([0.6, 0.7, 0.8, 0.9]), np.array([0.2, 0.3, 0.4]), 0.95)
    >>> round(low, 4), round(high, 4)
    (0.2268, 0.6732)
    """
    if len(first) < MIN_SIDE or len(second) < MIN_SIDE:
        return math.nan, math.nan
    shares = np.array([first.var(ddof=1) / len(first), second.var(ddof=1) / len(second)])
    variance = float(shares.sum())
    centre = float(first.mean() - second.mean())
    if not variance > 0:
        return centre, centre  # every value the same on each side
    dof = variance ** 2 / float(shares[0] ** 2 / (len(first) - 1) + shares[1] ** 2 / (len(second) - 1))
    half = t_ppf(0.5 + level / 2, dof) * math.sqrt(variance)
    return max(centre - half, -1.0), min(centre + half, 1.0)


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
    share1, share2 = successes[0] / trials[0], successes[1] / trials[1]
    centre = share1 - share2
    return (centre - math.sqrt((share1 - low1) ** 2 + (high2 - share2) ** 2),
            centre + math.sqrt((high1 - share1) ** 2 + (share2 - low2) ** 2))


def side_intervals(p: np.ndarray, accepted: np.ndarray, threshold: float, level: float) -> dict:
    """The intervals of ``accepted_quality``, ``rejected_quality``, ``toxicity``,
    ``quality_gap`` and ``hard_quality_gap`` for independent interactions (``accepted`` boolean).

    >>> out = side_intervals(np.array([0.9, 0.8, 0.7, 0.3, 0.2, 0.1]), np.array([1, 1, 1, 0, 0, 0], bool), 0.5, 0.95)
    >>> [round(x, 4) for x in out["quality_gap"]]
    [0.3733, 0.8267]
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
    }
