"""Soft-versus-hard quality-gap metrics (SWARM's definitions) with intervals."""

from .by_group import quality_by
from .early_warning import EarlyWarningResult, early_warning
from .metrics import Estimate, QualityReport, quality_metrics
from .payoff import PayoffConfig
from .proxy import count_signal, inverse_sigmoid, sigmoid, swarm_proxy
from .selection_test import SelectionTestResult, adverse_selection_test

__all__ = ["quality_metrics", "QualityReport", "Estimate", "PayoffConfig", "quality_by",
           "adverse_selection_test", "SelectionTestResult", "early_warning", "EarlyWarningResult",
           "sigmoid", "inverse_sigmoid", "swarm_proxy", "count_signal"]
