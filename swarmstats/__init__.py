"""swarmstats: honest statistics for noisy reward and score time series.

>>> import numpy as np, swarmstats
>>> rng = np.random.default_rng(0)
>>> swarmstats.check_convergence(rng.normal(size=500)).verdict
'converged'

Importing swarmstats imports nothing heavy: each name below is imported from its module the
first time it is used (so ``swarmstats --help`` and a script that needs one estimator do not
pay for scipy.stats, statsmodels and matplotlib up front).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

from ._base import renamed_names

__version__ = "0.1.0"

#: every public name and the module that defines it (the one list: __all__ and the lazy
#: imports below come from it; tests/test_protocol.py checks the TYPE_CHECKING block agrees)
_EXPORTS = {
    "acf": ".diagnostics",
    "integrated_autocorr_time": ".diagnostics",
    "ess": ".diagnostics",
    "rhat": ".diagnostics",
    "mcse": ".diagnostics",
    "detect_warmup": ".convergence.warmup",
    "WarmupResult": ".convergence.warmup",
    "trend_test": ".convergence.trend",
    "TrendResult": ".convergence.trend",
    "geweke": ".convergence.stationarity",
    "heidelberger_welch": ".convergence.stationarity",
    "variance_stability": ".convergence.stationarity",
    "GewekeResult": ".convergence.stationarity",
    "HeidelbergerWelchResult": ".convergence.stationarity",
    "VarianceStabilityResult": ".convergence.stationarity",
    "check_convergence": ".convergence.verdict",
    "ConvergenceTest": ".convergence.verdict",
    "ConvergenceResult": ".convergence.result",
    "MultiRunConvergenceResult": ".convergence.result",
    "VERDICTS": ".convergence.result",
    "ConvergenceMonitor": ".streaming.convergence_monitor",
    "MonitorState": ".streaming.convergence_monitor",
    "detect_regimes": ".regimes",
    "RegimeDetector": ".regimes",
    "RegimeResult": ".regimes",
    "OnlineRegimeDetector": ".regimes",
    "CusumDetector": ".regimes",
    "OnlineRegimeState": ".regimes",
    "OnlineRegimeResult": ".regimes",
    "CusumState": ".regimes",
    "CusumResult": ".regimes",
    "regime_path": ".regimes",
    "RegimePath": ".regimes",
    "quality_metrics": ".quality",
    "QualityResult": ".quality",
    "Estimate": ".quality",
    "PayoffConfig": ".quality",
    "quality_by": ".quality",
    "adverse_selection_test": ".quality",
    "SelectionTestResult": ".quality",
    "early_warning": ".quality",
    "EarlyWarningResult": ".quality",
    "sigmoid": ".quality",
    "inverse_sigmoid": ".quality",
    "swarm_proxy": ".quality",
    "describe": ".description",
    "DescribeResult": ".description",
    "compare_runs": ".compare",
    "learning_curves": ".curves",
    "CurvesResult": ".curves",
    "CompareResult": ".compare",
    "SequentialComparison": ".sequential",
    "SequentialResult": ".sequential",
    "SequentialState": ".sequential",
    "learning_signal": ".signal_health",
    "divergence": ".proxy_outcome",
    "contagion": ".agents",
    "ContagionResult": ".agents",
    "equilibria": ".agents",
    "EquilibriaResult": ".agents",
    "synergy_gap": ".agents",
    "agreement": ".agents",
    "AgreementResult": ".agents",
    "SynergyResult": ".agents",
    "DivergenceResult": ".proxy_outcome",
    "LearningSignalResult": ".signal_health",
    "best_of": ".winners",
    "BestOfResult": ".winners",
    "ProxyVarianceTracker": ".proxy",
    "ProxyResult": ".proxy",
    "KeyState": ".proxy",
    "AdaptiveWindow": ".windows",
    "WindowResult": ".windows",
    "WindowState": ".windows",
    "sweep": ".sweeps",
    "SweepResult": ".sweeps",
    "RegimeRules": ".sweeps",
    "read_table": ".io",
    "read_log": ".io",
    "Monitor": ".streaming.monitor",
    "MonitorStatus": ".streaming.monitor",
    "InputError": ".errors",
    "SwarmstatsError": ".errors",
    "MissingDependency": ".errors",
}

__all__ = list(_EXPORTS)

# the results' old names, for one release
_renamed = renamed_names("swarmstats", {"ProxyReport": lambda: __getattr__("ProxyResult"),
                                        "QualityReport": lambda: __getattr__("QualityResult"),
                                        "MonitorReport": lambda: __getattr__("MonitorStatus")})


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value  # the next access is a plain attribute
        return value
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:  # a subpackage: swarmstats.io
        return importlib.import_module(f".{name}", __name__)
    return _renamed(name)


def __dir__():
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and IDEs read
    from .agents import (  # noqa: F401
        AgreementResult,
        ContagionResult,
        EquilibriaResult,
        SynergyResult,
        agreement,
        contagion,
        equilibria,
        synergy_gap,
    )
    from .compare import CompareResult, compare_runs  # noqa: F401
    from .convergence.result import (  # noqa: F401
        VERDICTS,
        ConvergenceResult,
        MultiRunConvergenceResult,
    )
    from .convergence.stationarity import (  # noqa: F401
        GewekeResult,
        HeidelbergerWelchResult,
        VarianceStabilityResult,
        geweke,
        heidelberger_welch,
        variance_stability,
    )
    from .convergence.trend import TrendResult, trend_test  # noqa: F401
    from .convergence.verdict import ConvergenceTest, check_convergence  # noqa: F401
    from .convergence.warmup import WarmupResult, detect_warmup  # noqa: F401
    from .curves import CurvesResult, learning_curves  # noqa: F401
    from .description import DescribeResult, describe  # noqa: F401
    from .diagnostics import acf, ess, integrated_autocorr_time, mcse, rhat  # noqa: F401
    from .errors import InputError, MissingDependency, SwarmstatsError  # noqa: F401
    from .io import read_log, read_table  # noqa: F401
    from .proxy import KeyState, ProxyResult, ProxyVarianceTracker  # noqa: F401
    from .proxy_outcome import DivergenceResult, divergence  # noqa: F401
    from .quality import (  # noqa: F401
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
    from .regimes import (  # noqa: F401
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
    from .sequential import SequentialComparison, SequentialResult, SequentialState  # noqa: F401
    from .signal_health import LearningSignalResult, learning_signal  # noqa: F401
    from .streaming.convergence_monitor import ConvergenceMonitor, MonitorState  # noqa: F401
    from .streaming.monitor import Monitor, MonitorStatus  # noqa: F401
    from .sweeps import RegimeRules, SweepResult, sweep  # noqa: F401
    from .windows import AdaptiveWindow, WindowResult, WindowState  # noqa: F401
    from .winners import BestOfResult, best_of  # noqa: F401
