"""The three tests inside the convergence verdict, on batch means.

Each is a fixed-b test: batches of at least 5 integrated autocorrelation
times make the batch means nearly independent, so plain t laws apply without
estimating a long-run variance - the property that keeps the verdict's
false-alarm rate near alpha even for strongly autocorrelated series.

1. ``kept_trend``: OLS slope of the batch means after the warm-up.
2. ``continued_drift``: the slope over the whole series, counted only when
   the slope after the warm-up is consistent with it.  A transient ends, so
   what follows it is flat; a drift continues.  Without this test a cut into
   a slow drift would leave too little data to see the drift.
3. ``variance_shift``: the mean squared deviation of the last quarter against
   the quarter before it (the seeds' "has the trailing variance stabilised").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .autocorr import integrated_time
from .stationarity import batch_count, batch_level_shift, batch_trend


@dataclass(frozen=True)
class TestOutcome:
    name: str
    statistic: float
    pvalue: float
    estimate: float  # slope per step, or variance ratio
    change: float  # estimate over the span tested (for slopes)


def series_tau(x: np.ndarray) -> float:
    if len(x) < 4 or np.ptp(x) == 0:
        return 1.0
    return integrated_time(x)


def kept_trend(kept: np.ndarray, steps: np.ndarray, tau: float) -> TestOutcome:
    n_batches = batch_count(len(kept), tau)
    slope, t, p = batch_trend(kept, n_batches, steps)
    return TestOutcome("trend", t, p, slope, slope * float(steps[-1] - steps[0]))


def continued_drift(whole: np.ndarray, steps: np.ndarray, tau: float,
                    kept: TestOutcome, alpha: float) -> TestOutcome:
    """Whole-series trend, discounted (p = 1) when the kept part is not consistent with it."""
    n_batches = batch_count(len(whole), tau)
    slope, t, p = batch_trend(whole, n_batches, steps)
    kept_se = abs(kept.estimate / kept.statistic) if kept.statistic else np.inf
    consistent = abs(kept.estimate - slope) <= stats.norm.ppf(1 - alpha / 4) * kept_se
    return TestOutcome("drift", t, p if consistent else 1.0, slope,
                       slope * float(steps[-1] - steps[0]))


def variance_shift(kept: np.ndarray) -> TestOutcome:
    """Last quarter's mean squared deviation against the quarter before."""
    half = kept[len(kept) // 2 :]
    squared = (half - half.mean()) ** 2
    quarter = len(half) // 2
    earlier, later = squared[:quarter].mean(), squared[-quarter:].mean()
    ratio = float(later / earlier) if earlier > 0 else float("nan")
    if len(half) < 8 or np.ptp(squared) == 0:
        return TestOutcome("variance", 0.0, 1.0, ratio, float("nan"))
    n_batches = batch_count(len(squared), series_tau(squared), low=4)
    n_batches -= n_batches % 2  # equal numbers of batches in each quarter
    _, t, p = batch_level_shift(squared, n_batches, first=0.5, last=0.5)
    return TestOutcome("variance", -t, p, ratio, float("nan"))
