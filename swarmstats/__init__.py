"""swarmstats: honest statistics for noisy reward and score time series.

>>> import numpy as np, swarmstats
>>> rng = np.random.default_rng(0)
>>> swarmstats.check_convergence(rng.normal(size=500)).verdict
'converged'
"""

from ._base import renamed_names
from .compare import CompareResult, compare_runs
from .convergence.stationarity import (
    GewekeResult,
    HeidelbergerWelchResult,
    VarianceStabilityResult,
    geweke,
    heidelberger_welch,
    variance_stability,
)
from .convergence.trend import TrendResult, trend_test
from .convergence.verdict import (
    VERDICTS,
    ConvergenceResult,
    ConvergenceTest,
    MultiRunConvergenceResult,
    check_convergence,
)
from .convergence.warmup import WarmupResult, detect_warmup
from .describe import DescribeResult, describe
from .diagnostics import acf, ess, integrated_autocorr_time, mcse, rhat
from .errors import InputError, MissingDependency, SwarmstatsError
from .io import read_log, read_table
from .proxy import KeyState, ProxyResult, ProxyVarianceTracker
from .quality import (
    EarlyWarningResult,
    Estimate,
    PayoffConfig,
    QualityResult,
    SelectionTestResult,
    adverse_selection_test,
    early_warning,
    inverse_sigmoid,
    quality_by,
    quality_metrics,
    sigmoid,
    swarm_proxy,
)
from .regimes import (
    CusumDetector,
    CusumResult,
    CusumState,
    OnlineRegimeDetector,
    OnlineRegimeResult,
    OnlineRegimeState,
    RegimeDetector,
    RegimePath,
    RegimeResult,
    detect_regimes,
    regime_path,
)
from .streaming.convergence_monitor import ConvergenceMonitor, MonitorState
from .streaming.monitor import Monitor, MonitorStatus
from .sweeps import RegimeRules, SweepResult, sweep
from .windows import AdaptiveWindow, WindowResult, WindowState

__version__ = "0.1.0"

__all__ = [
    "acf", "integrated_autocorr_time", "ess", "rhat", "mcse",
    "detect_warmup", "WarmupResult",
    "trend_test", "TrendResult",
    "geweke", "heidelberger_welch", "variance_stability",
    "GewekeResult", "HeidelbergerWelchResult", "VarianceStabilityResult",
    "check_convergence", "ConvergenceTest", "ConvergenceResult", "MultiRunConvergenceResult",
    "VERDICTS", "ConvergenceMonitor", "MonitorState",
    "detect_regimes", "RegimeDetector", "RegimeResult", "OnlineRegimeDetector", "CusumDetector",
    "OnlineRegimeState", "OnlineRegimeResult", "CusumState", "CusumResult",
    "regime_path", "RegimePath",
    "quality_metrics", "QualityResult", "Estimate", "PayoffConfig", "quality_by",
    "adverse_selection_test", "SelectionTestResult", "early_warning", "EarlyWarningResult",
    "sigmoid", "inverse_sigmoid", "swarm_proxy",
    "describe", "DescribeResult", "compare_runs", "CompareResult",
    "ProxyVarianceTracker", "ProxyResult", "KeyState",
    "AdaptiveWindow", "WindowResult", "WindowState",
    "sweep", "SweepResult", "RegimeRules",
    "read_table", "read_log", "Monitor", "MonitorStatus", "InputError", "SwarmstatsError",
    "MissingDependency",
]


# the results' old names, for one release
__getattr__ = renamed_names("swarmstats", {"ProxyReport": lambda: ProxyResult,
                                           "QualityReport": lambda: QualityResult,
                                           "MonitorReport": lambda: MonitorStatus})
