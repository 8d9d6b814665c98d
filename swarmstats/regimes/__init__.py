"""Changepoint-based regime detection.

Offline: :func:`detect_regimes` / :class:`RegimeDetector` (exact PELT with
O(1) segment costs, BIC/MBIC penalties on a robust, autocorrelation-aware
noise scale, merging of practically small changes).  Online:
:class:`OnlineRegimeDetector` (BOCPD with run-length pruning) and
:class:`CusumDetector` (threshold from a target false-alarm rate).
:mod:`.scoring`: F1 with a margin and segmentation covering.
Also :func:`regime_path`: every optimal segmentation over a penalty range
(CROPS) with an elbow choice.
"""

from .._base import renamed_names
from . import scoring
from .bocpd import OnlineRegimeDetector, OnlineRegimeResult, OnlineRegimeState
from .cusum import CusumDetector, CusumResult, CusumState
from .offline import MODELS, PENALTIES, RegimeDetector, RegimeResult, detect_regimes
from .path import RegimePath, regime_path

__all__ = ["detect_regimes", "RegimeDetector", "RegimeResult", "MODELS", "PENALTIES",
           "regime_path", "RegimePath",
           "OnlineRegimeDetector", "OnlineRegimeState", "OnlineRegimeResult", "CusumDetector",
           "CusumState", "CusumResult", "scoring"]

# regimes.metrics is regimes.scoring, for one release
__getattr__ = renamed_names(__name__, {"metrics": lambda: scoring})
