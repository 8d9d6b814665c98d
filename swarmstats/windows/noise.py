"""How noisy the window is: sigma and the autocorrelation time g of what its shape leaves,
corrected for the window's shortness, and the degrees of freedom of that scale."""

from __future__ import annotations

import numpy as np

from .._kernels.autocorr import integrated_time
from .._kernels.pooled_noise import line_residuals
from .._kernels.precision import mean_precision
from .._kernels.shape_residuals import shape_residuals

#: the bias of the long-run variance sigma^2 g estimated on a window of n points (residuals
#: of a quadratic, Geyer's sequence): E[estimate] ~ truth * (1 - LONG_RUN_BIAS * (g - 1) / n),
#: measured for AR(1) noise, phi 0.5-0.95, n = 100-500 (benchmarks/calibration_windows.py).
#: Fitting the window and estimating the autocorrelations both eat the slow part of the noise.
LONG_RUN_BIAS = 15.0
#: the largest correction applied: beyond it the window is too short to say how noisy it is
MAX_INFLATION = 2.0


def short_window_inflation(g: float, n: int) -> float:
    """The factor that undoes the measured downward bias of sigma^2 g on ``n`` points.

    At g ~ 20 on 500 points the estimate is ~40% low; on i.i.d. noise nothing changes.

    >>> short_window_inflation(1.0, 500)
    1.0
    >>> round(short_window_inflation(13.4, 500), 2)   # AR(0.9): estimated 13.4, truth 19
    1.59
    """
    return 1.0 / max(1.0 - LONG_RUN_BIAS * (g - 1.0) / n, 1.0 / MAX_INFLATION)


def scale_dof(length: int, g: float) -> int:
    """Degrees of freedom of a noise scale sigma*sqrt(g) estimated from ``length`` points with
    autocorrelation time ``g``: ~length/(2g) (a lag-window estimate of the long-run variance
    has ~1.5 n / bandwidth, and Geyer's sum reaches ~3 g; Priestley 1981, 6.2.4), at least 1.

    >>> scale_dof(500, 1.0), scale_dof(100, 10.4), scale_dof(20, 30.0)
    (250, 4, 1)
    """
    return max(int(length / (2.0 * g)), 1)


def floored_time(residuals: np.ndarray) -> float:
    """The integrated autocorrelation time of ``residuals``, never below 1: an anti-correlated
    estimate on a short window would make every test bolder than the data allow."""
    g = float(integrated_time(residuals))
    return max(g, 1.0) if np.isfinite(g) else 1.0


def memory_notes(regime: np.ndarray) -> list:
    """A note when the current regime's noise has long memory: the window's intervals assume
    the noise forgets within the window, and then they are too narrow."""
    if len(regime) < 200 or np.ptp(regime) == 0:
        return []
    precision = mean_precision(regime, float(integrated_time(regime)))
    if not precision.long_memory:
        return []
    return [f"long memory: {precision.memory_evidence()}, so the noise does not forget within "
            "a window; the level's interval is too narrow and the precision of a mean is uncertain"]


def shape_noise(window: np.ndarray) -> tuple[float, float]:
    """(sigma, g) of the residuals of a quadratic fit to ``window`` (and of a step, when the
    window holds one), g corrected for the window's length.

    A trend, and a rise that levels off, are not noise; an oscillation stays in the residuals
    and keeps the tests modest.  A level shift inside the window is taken out too when it
    earns its place (:func:`shape_residuals`): left in, it inflated the scale and the alarm
    limit until the shift itself was never called."""
    residuals = shape_residuals(window)
    sigma = float(residuals.std(ddof=3)) if len(window) > 3 else 0.0
    g = floored_time(residuals) if sigma > 0 else 1.0
    return sigma, g * short_window_inflation(g, len(window))


def part_noise(part: np.ndarray) -> tuple[float, float]:
    """(sigma, g) of the residuals of ``part`` about its own line, g corrected for the
    part's length as the window's own is."""
    residuals = line_residuals(part)
    sigma = float(np.sqrt(residuals @ residuals / (len(part) - 2)))
    if sigma == 0:
        return 0.0, 1.0
    g = floored_time(residuals)
    return sigma, g * short_window_inflation(g, len(part))
