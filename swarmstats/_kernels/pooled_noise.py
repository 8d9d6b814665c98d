"""The noise of many short runs of one process, pooled: residuals around each run's own line,
and one autocorrelation time from their pooled autocovariances.

A run of 20 or 40 values puts its own autocorrelation time far off (AR(0.5) on 40 values: 30%
low); runs of the same process share it, so their autocovariances are summed, weighted by
length, before Geyer's sequence reads it.  numpy in, numpy out.
"""

from __future__ import annotations

import numpy as np

from .autocorr import autocovariance, geyer_tau


def line_residuals(values: np.ndarray) -> np.ndarray:
    """``values`` less their least-squares line: a slow drift is not noise.

    >>> line_residuals(np.array([1.0, 2.0, 3.0, 5.0])).round(2).tolist()
    [0.2, -0.1, -0.4, 0.3]
    """
    position = np.arange(len(values)) - (len(values) - 1) / 2.0
    slope = float(position @ (values - values.mean()) / (position @ position))
    return values - values.mean() - slope * position


def pooled_autocorr_time(residuals: list) -> float:
    """Geyer's g of the autocovariances of ``residuals`` (each a run's, at least 2 values)
    summed with weights their lengths; at least 1.

    >>> rng = np.random.default_rng(0)
    >>> runs = [line_residuals(rng.normal(size=30)) for _ in range(50)]
    >>> round(pooled_autocorr_time(runs), 1)
    1.0
    """
    lags = min(len(r) for r in residuals) - 1
    pooled = sum(autocovariance(r, max_lag=lags) * len(r) for r in residuals)
    return max(geyer_tau(pooled / pooled[0]), 1.0) if pooled[0] > 0 else 1.0


def long_run_variances(runs: list) -> np.ndarray:
    """Each run's long-run variance per value (residual variance around its line times the
    pooled g): the variance of a mean of m of its values is this over m."""
    residuals = [line_residuals(np.asarray(run, dtype=float)) for run in runs]
    g = pooled_autocorr_time(residuals)
    return np.array([float(r @ r) / (len(r) - 2) * g for r in residuals])
