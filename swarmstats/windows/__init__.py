"""Adaptive evaluation windows: long when the score is noisy, short when it trends or changes.

A fixed window fails both ways: a short one calls an improving-but-oscillating
agent "degrading" during a normal dip; a long one reacts late to a real change.
:class:`AdaptiveWindow` keeps, at every step, the window that answers "where is
this score now, and where is it going?":

1. **Change**: the mean of the last m points is compared with the mean of the
   window before them, for every m on a grid (8, 12, 16, 24, ...).  When the
   difference exceeds ``c`` standard errors - the noise SD inflated by the
   integrated autocorrelation time - the window is cut to the post-change part.
2. **Trend**: the OLS slope over the last m points, for every m on the grid; a
   slope beyond ``c`` standard errors keeps the window to that span.  The slope is
   also measured against a random walk that steps as those m points do (a smooth
   curve that a quadratic misses would otherwise pass for persistent noise), and
   the stronger of the two, each against its own limit, counts.
3. **Precision**: otherwise the window grows to n = g (z sigma / precision)^2
   points (within ``min_length``..``max_length``), the length at which the
   autocorrelation-aware interval of the mean reaches ``precision``.

``c`` is set so that the chance of any false change or trend call in
``horizon`` steps of a stationary series is at most ``alpha`` (a Bonferroni
bound over the grid and the steps; the real rate is far lower).  The noise
scale comes from the residuals of a quadratic fit to the current regime, so
neither a trend nor a rise that levels off counts as noise, while an
oscillation does (and keeps the tests modest).  Cost per update is
O(max_length), whatever the length of the stream.

The modules: :mod:`.window` (the estimator and its rules), :mod:`.state` (one update's state and
a stream's record of them), :mod:`.result` (a whole series' table and summary), :mod:`.noise`
(sigma and g of what the window's shape leaves), :mod:`.limits` (Student's quantiles and the test
plans, shared), :mod:`.reasons` (the words of "uncertain" and constant-stretch reasons) and
:mod:`.long_series` (block means for a series too long to replay step by step).
"""

from .long_series import WINDOW_POINTS, window_input
from .noise import LONG_RUN_BIAS, MAX_INFLATION, scale_dof, short_window_inflation
from .result import WindowResult
from .state import STATUSES, StateRecord, WindowState
from .window import (
    DEFAULT_PRECISION_SDS,
    HOLD_HALF_T,
    HOLD_LEVEL,
    HOLD_LIMIT_SHARE,
    AdaptiveWindow,
)

__all__ = ["AdaptiveWindow", "WindowState", "WindowResult", "StateRecord", "STATUSES",
           "DEFAULT_PRECISION_SDS", "HOLD_LEVEL", "HOLD_HALF_T", "HOLD_LIMIT_SHARE", "LONG_RUN_BIAS",
           "MAX_INFLATION",
           "short_window_inflation", "scale_dof", "WINDOW_POINTS", "window_input"]
