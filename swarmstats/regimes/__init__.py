"""Changepoint-based regime detection.

Offline: :func:`detect_regimes` / :class:`RegimeDetector` (exact PELT with
O(1) segment costs, BIC/MBIC penalties on a robust, autocorrelation-aware
noise scale, merging of practically small changes).  :mod:`.metrics`: F1 with
a margin and segmentation covering.  Still to come (issue 3): the kernel
model and ruptures' other searches, the penalty path, the online detectors
(BOCPD, CUSUM) and the ``swarmstats regimes`` command.
"""

from . import metrics
from .offline import MODELS, PENALTIES, RegimeDetector, RegimeResult, detect_regimes

__all__ = ["detect_regimes", "RegimeDetector", "RegimeResult", "MODELS", "PENALTIES", "metrics"]
