"""A noise scale for changepoint penalties, robust to shifts, trends, outliers and
honest about autocorrelation.

Residuals around a running median (which keeps level shifts sharp and follows
smooth trends) give the noise: its SD from the MAD, and its integrated
autocorrelation time g from Geyer's sequence on the winsorised residuals.  A
mean shift is judged against the long-run variance sd^2 g, not sd^2: with
sd^2 alone, a stationary but autocorrelated reward series is cut into many
"regimes" (the most damaging failure in the reference's list).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from .._kernels.autocorr import integrated_time
from .._kernels.robust import clip_limit, robust_centre_scale


@dataclass(frozen=True)
class NoiseScale:
    sd: float  # marginal SD of the noise
    autocorr_time: float  # g >= 1 (floored: anti-correlation does not lower a penalty)
    window: int  # running-median window used

    @property
    def long_run_variance(self) -> float:
        return self.sd**2 * self.autocorr_time


def noise_scale(y: np.ndarray, *, window: int | None = None) -> NoiseScale:
    """Robust noise SD and autocorrelation time of ``y`` around a running median.

    >>> rng = np.random.default_rng(0)
    >>> scale = noise_scale(np.r_[np.zeros(500), np.full(500, 5.0)] + rng.normal(size=1000))
    >>> 0.9 < scale.sd < 1.1 and scale.autocorr_time < 1.3
    True
    """
    n = len(y)
    if window is None:
        window = int(min(max(n // 20, 11), 101))
    window = max(3, window | 1)  # odd
    smooth = ndimage.median_filter(y, size=window, mode="nearest")
    residuals = y - smooth
    centre, sd = robust_centre_scale(residuals)
    if sd <= 0:
        return NoiseScale(sd=0.0, autocorr_time=1.0, window=window)
    if clip_limit(np.abs(residuals - centre), 4 * sd) > 4 * sd:
        # a second mode (episodes that fall early, tasks that fail): the MAD is the main
        # mode's alone, and penalties on it cut a stationary mixture every few points
        sd = float(np.std(residuals))
    clipped = np.clip(residuals, centre - 4 * sd, centre + 4 * sd)
    tau = integrated_time(clipped) if n >= 8 and np.ptp(clipped) > 0 else 1.0
    return NoiseScale(sd=sd, autocorr_time=max(float(tau) if np.isfinite(tau) else 1.0, 1.0),
                      window=window)
