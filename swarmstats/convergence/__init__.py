"""Convergence: the one verdict (:mod:`.verdict`, returning :mod:`.result`'s results; how a
run ended - diverged, stopped, steps skipped - in :mod:`.endings`) and the diagnostics it is
built from - warm-up (:mod:`.warmup`), trend (:mod:`.trend`), stationarity (:mod:`.stationarity`)."""

from .endings import with_divergence
from .result import VERDICTS, ConvergenceResult, MultiRunConvergenceResult
from .stationarity import (
    GewekeResult,
    HeidelbergerWelchResult,
    VarianceStabilityResult,
    geweke,
    heidelberger_welch,
    variance_stability,
)
from .trend import TrendResult, trend_test
from .verdict import ConvergenceTest, check_convergence
from .warmup import WARMUP_METHODS, WarmupResult, detect_warmup

__all__ = ["check_convergence", "ConvergenceTest", "ConvergenceResult", "MultiRunConvergenceResult",
           "VERDICTS", "detect_warmup", "WarmupResult", "WARMUP_METHODS", "trend_test", "TrendResult",
           "geweke", "heidelberger_welch", "variance_stability", "GewekeResult",
           "HeidelbergerWelchResult", "VarianceStabilityResult", "with_divergence"]
