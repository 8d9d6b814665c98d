"""Convergence: the one verdict (:mod:`.verdict`) and the diagnostics it is built from -
warm-up (:mod:`.warmup`), trend (:mod:`.trend`), stationarity (:mod:`.stationarity`)."""

from .stationarity import (
    GewekeResult,
    HeidelbergerWelchResult,
    VarianceStabilityResult,
    geweke,
    heidelberger_welch,
    variance_stability,
)
from .trend import TrendResult, trend_test
from .verdict import (
    VERDICTS,
    ConvergenceResult,
    ConvergenceTest,
    MultiRunConvergenceResult,
    check_convergence,
    with_divergence,
)
from .warmup import WARMUP_METHODS, WarmupResult, detect_warmup

__all__ = ["check_convergence", "ConvergenceTest", "ConvergenceResult", "MultiRunConvergenceResult",
           "VERDICTS", "detect_warmup", "WarmupResult", "WARMUP_METHODS", "trend_test", "TrendResult",
           "geweke", "heidelberger_welch", "variance_stability", "GewekeResult",
           "HeidelbergerWelchResult", "VarianceStabilityResult", "with_divergence"]
