"""Robust location and scale."""

from __future__ import annotations

import math

import numpy as np


def robust_centre_scale(x: np.ndarray) -> tuple[float, float]:
    """The median and a robust SD: 1.4826 MAD (consistent for normal data), or the
    plain SD when more than half the values tie (MAD 0); 0 only for a constant.

    >>> robust_centre_scale(np.array([0.0, 1.0, 2.0, 3.0, 100.0]))
    (2.0, 1.4826)
    """
    centre = float(np.median(x))
    scale = 1.4826 * float(np.median(np.abs(x - centre)))
    if scale <= 0:
        scale = float(np.std(x))
    return centre, scale


#: The largest share of the values a clip at a few robust SDs may reach.  Heavy-tailed noise
#: puts 3-8% of its values beyond 3 robust SDs (t(3), t(2.5), rare crashes, log-normal); a
#: reward with two modes - episodes that fall early or run to the end, tasks that fail or
#: succeed - puts 12-36% there (the public SB3 monitors): a second mode, not a tail, which a
#: robust SD of the main mode alone cannot describe.
MAX_CLIPPED = 0.10


def clip_limit(sizes: np.ndarray, robust_limit: float, share: float = MAX_CLIPPED) -> float:
    """``robust_limit``, widened where needed so that at most ``share`` of ``sizes`` (absolute
    deviations) lie beyond it.

    >>> two_modes = np.r_[np.zeros(70), np.full(30, 10.0)]   # 30% at 10: a second mode
    >>> a_tail = np.r_[np.zeros(95), np.full(5, 10.0)]       # 5% at 10: a tail
    >>> clip_limit(two_modes, 3.0), clip_limit(a_tail, 3.0)
    (10.0, 3.0)
    """
    if share >= 1.0 or not len(sizes):
        return robust_limit
    return max(robust_limit, float(np.quantile(sizes, 1.0 - share)))


#: spreads whose squares neither underflow nor overflow in float64, with room for sums
SQUARE_SAFE = (1e-100, 1e100)


def square_safe(x: np.ndarray) -> np.ndarray:
    """``x`` itself, or - when the squares of its deviations would underflow (1e-300-sized
    data) or overflow (1e200) - its deviations from the mean divided by the largest one.
    Shift- and scale-invariant rules (warm-up cuts, ESS) then give the same answer at any
    scale; in the usual range nothing is touched, so no answer moves by a rounding.

    >>> square_safe(np.array([1e-300, 3e-300]))
    array([-1.,  1.])
    >>> square_safe(np.array([1.0, 3.0]))
    array([1., 3.])
    """
    return square_safe_scale(x)[0]


def square_safe_scale(x: np.ndarray) -> tuple[np.ndarray, float]:
    """(:func:`square_safe` of ``x``, the factor that turns its spreads back into ``x``'s):
    1 when ``x`` is returned as it is.

    >>> values, scale = square_safe_scale(np.array([1e-300, 3e-300]))
    >>> np.round(values, 12).tolist(), float(f"{scale:.3g}")
    ([-1.0, 1.0], 1e-300)
    """
    if len(x) == 0 or SQUARE_SAFE[0] < float(np.ptp(x)) < SQUARE_SAFE[1]:
        return x, 1.0  # (the range is within 2x of the largest deviation from the mean)
    centre = float(np.mean(x))
    spread = float(np.max(np.abs(x - centre)))
    if spread == 0 or not np.isfinite(spread) or SQUARE_SAFE[0] < spread < SQUARE_SAFE[1]:
        return x, 1.0
    return (x - centre) / spread, spread


def standard_scale(values: np.ndarray) -> tuple[float, float]:
    """(centre, unit) with (values - centre) / unit of SD 1; unit 0 for a constant.  What
    the tests with fixed rounding floors run on, so 1e-300-sized data behave like 1-sized data.

    Outside 1e-100..1e100 the SD is computed after dividing by the largest deviation, so
    that the squares of tiny (1e-300) or huge (1e70) values stay representable.
    """
    low, high = float(np.min(values)), float(np.max(values))
    if low == high:  # exactly constant (a mean of equal values need not equal them)
        return low, 0.0
    centre = float(np.mean(values))  # any central value will do: the tests are shift-invariant
    spread = max(high - centre, centre - low)
    if spread == 0 or not math.isfinite(spread):
        return centre, 0.0
    if SQUARE_SAFE[0] < spread < SQUARE_SAFE[1]:
        return centre, float(np.std(values, ddof=1))
    return centre, spread * float(np.std((values - centre) / spread, ddof=1))
