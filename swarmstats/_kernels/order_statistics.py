"""The median's distribution-free interval: order statistics of independent values.

For n independent values of any continuous distribution, the number below the median is
Binomial(n, 1/2), so (x_(j), x_(n+1-j)) holds the median with probability
1 - 2 P(Bin(n, 1/2) < j), whatever the distribution.  A percentile bootstrap of the median of a
few values is far narrower than that: with 5 values it reads (x_(2), x_(4)), which holds the
median 62.5% of the time.

numpy in, numpy out.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def median_binomial_interval(ordered: np.ndarray, level: float) -> tuple:
    """(x_(j), x_(n+1-j)) of the sorted values ``ordered``: the median lies between them with
    probability 1 - 2 P(Bin(n, 1/2) < j) for independent values, whatever their distribution; j
    is the largest keeping that >= level (1 when none does: with 5 values the widest interval
    covers 93.75%).

    >>> median_binomial_interval(np.arange(1.0, 7.0), 0.95)     # 6 values: min and max, 96.9%
    (1.0, 6.0)
    """
    n = len(ordered)
    j = median_rank(n, level)
    return (float(ordered[j - 1]), float(ordered[n - j]))


def median_rank(n: int, level: float) -> int:
    """The j of :func:`median_binomial_interval` for ``n`` values (at least 1).

    >>> median_rank(10, 0.95), median_rank(5, 0.95)    # (x_(2), x_(9)): 97.9%; the range: 93.75%
    (2, 1)
    """
    return max(int(stats.binom.ppf((1 - level) / 2, n, 0.5)), 1)


def median_range_note(n: int, level: float, unit: str = "values") -> str | None:
    """What to say when even the range of ``n`` independent values (``unit``: what they are)
    holds their median less often than ``level`` (fewer than 6 values at 95%), else None.

    >>> median_range_note(3, 0.95)
    "with 3 values even their range holds the median only 75.00% of the time (independent values), not 95%: the median's interval is that range"
    """
    widest = 1 - 2 * 0.5**n  # the chance that the median lies within the range of n values
    if widest >= level:
        return None
    return (f"with {n} {unit} even their range holds the median only {widest:.2%} of the "
            f"time (independent {unit}), not {level:.0%}: the median's interval is that range")
