"""Soft-versus-hard quality-gap metrics (SWARM's definitions) with intervals."""

from .._base import renamed_names
from .by_group import quality_by
from .early_warning import EarlyWarningResult, early_warning
from .metrics import Estimate, QualityResult, quality_metrics
from .payoff import PayoffConfig
from .selection_test import SelectionTestResult, adverse_selection_test
from .sigmoid import count_signal, inverse_sigmoid, sigmoid, swarm_proxy

__all__ = ["quality_metrics", "QualityResult", "Estimate", "PayoffConfig", "quality_by",
           "adverse_selection_test", "SelectionTestResult", "early_warning", "EarlyWarningResult",
           "sigmoid", "inverse_sigmoid", "swarm_proxy", "count_signal"]


__getattr__ = renamed_names(__name__, {"QualityReport": lambda: QualityResult})
