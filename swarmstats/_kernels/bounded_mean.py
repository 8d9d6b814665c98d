"""Score interval of the mean of values known to lie within bounds (shares, errors, scores
of a capped metric), for a few values or many.

Values in [0, 1] with mean mu vary at most mu (1 - mu).  Taking their variance as
phi mu (1 - mu), phi read from the sample (a quasi-binomial mean), the interval holds the
means whose own standard error puts the sample mean within Student's t of them: Wilson's
interval with n / phi trials, t for z (for 0/1 values exactly Wilson's on n - 1 trials).
A mean near a bound from a few values then gets the room a proportion gets there, where
Student's t, symmetric about the mean, runs short on the far side: with 3-20 values of a
skewed p (Beta(1.3, 0.3)) it covered 81-92%, the score interval 89-94%, and both ~95% on
Beta(2, 2) (20,000 samples of each size).  Where it serves: docs/quality.md (a side's mean,
the gap), docs/proxy.md (E[p] - E[y]), docs/describe.md (a success rate's mean).
"""

from __future__ import annotations

import math

import numpy as np

from .distributions import norm_ppf, t_ppf


def bounded_mean_interval(values, level: float, bounds=(0.0, 1.0)) -> tuple[float, float]:
    """Score interval of the mean of ``values`` (each within ``bounds``); (nan, nan) with fewer
    than 2 values.  Every value the same: at a bound (0 of 3 successes), Wilson's interval on
    the normal quantile - the variance at its largest, phi = 1, known rather than read -, and
    elsewhere (mean, mean), no spread to read.

    >>> [round(x, 4) for x in bounded_mean_interval(np.array([0.2, 0.4, 0.6]), 0.95)]  # pulled towards 1/2
    [0.0982, 0.8032]
    >>> [round(x, 4) for x in bounded_mean_interval(np.array([-0.2, 0.0, 0.6]), 0.95, (-1.0, 1.0))]
    [-0.6551, 0.7828]
    >>> [round(x, 4) for x in bounded_mean_interval(np.zeros(3), 0.95)]   # Wilson's 0 of 3
    [0.0, 0.5615]
    """
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return math.nan, math.nan
    mean = float(values.mean())
    half = t_ppf(0.5 + level / 2, len(values) - 1) * float(values.std(ddof=1)) / math.sqrt(len(values))
    return bounded_score_interval(mean, half, len(values), level, bounds)


def bounded_score_interval(mean: float, half: float, count: float, level: float,
                           bounds=(0.0, 1.0)) -> tuple[float, float]:
    """The score form of the symmetric interval ``mean`` +- ``half`` of a mean of values within
    ``bounds``: with the values' variance taken as phi mu (1 - mu) on the [0, 1] scale, the means
    mu whose own half-width, half * sqrt(mu (1 - mu) / (m (1 - m))), reaches the sample mean m.
    ``half`` may come from Student's t on n values or from an effective sample size and a
    long-run variance: the form only moves where the variance is read.  ``mean`` at a bound (every
    value there): Wilson's interval for 0 of ``count`` on the normal quantile.

    >>> [round(x, 4) for x in bounded_score_interval(0.95, 0.1, 20, 0.95)]   # t's [0.85, 1.05]
    [0.7518, 0.9917]
    >>> [round(x, 4) for x in bounded_score_interval(1.0, 0.0, 20, 0.95)]    # Wilson's 20 of 20
    [0.8389, 1.0]
    """
    low, high = bounds
    width = high - low
    share, reach = (mean - low) / width, half / width
    spread = share * (1.0 - share)
    if not spread > 0:  # every value at one bound: a proportion of 0 or n successes
        z = norm_ppf(0.5 + level / 2)
        far = z * z / (count + z * z)  # Wilson's far end for 0 of n
        return (low, low + width * far) if share <= 0 else (high - width * far, high)
    if not reach > 0:
        return mean, mean  # no spread to read, inside the bounds
    c = reach * reach / spread  # Wilson's z^2 / n, with n / phi trials
    centre = (share + c / 2) / (1 + c)
    wing = math.sqrt(c * spread + c * c / 4) / (1 + c)
    return low + width * max(centre - wing, 0.0), low + width * min(centre + wing, 1.0)


def difference_of_intervals(first: tuple, second: tuple, correlation: float = 0.0) -> tuple[float, float]:
    """Interval of a - b from each one's estimate and interval, ``first`` = (a, low, high) and
    ``second`` = (b, low, high): Newcombe's (1998) combination of two Wilson intervals, the
    "method of variance estimates recovery" (Zou & Donner 2008), which keeps each interval's
    asymmetry; ``correlation`` between the two estimates (paired data) as Zou & Donner's
    dependent form takes it.

    >>> # 56/70 - 48/80 from their Wilson intervals: Newcombe (1998), method 10, as published
    >>> [round(x, 4) for x in difference_of_intervals((0.8, 0.69183, 0.87695), (0.6, 0.49045, 0.70038))]
    [0.0524, 0.3339]
    """
    (a, low_a, high_a), (b, low_b, high_b) = first, second
    below, above = a - low_a, high_b - b  # how far a may be lower, b higher
    lower = below * below + above * above - 2 * correlation * below * above
    below, above = high_a - a, b - low_b
    upper = below * below + above * above - 2 * correlation * below * above
    return a - b - math.sqrt(max(lower, 0.0)), a - b + math.sqrt(max(upper, 0.0))
