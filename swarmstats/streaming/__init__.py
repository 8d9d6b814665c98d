"""Streaming: the convergence verdict of one stream (:class:`ConvergenceMonitor`) and the
trainer-facing :class:`Monitor` that runs one per logged metric."""

from .._base import renamed_names
from .convergence_monitor import ConvergenceMonitor, MonitorState
from .monitor import Monitor, MonitorStatus

__all__ = ["ConvergenceMonitor", "MonitorState", "Monitor", "MonitorStatus"]

__getattr__ = renamed_names(__name__, {"MonitorReport": lambda: MonitorStatus})
