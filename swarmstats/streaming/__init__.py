"""Streaming: the convergence verdict of one stream (:class:`ConvergenceMonitor`) and the
trainer-facing :class:`Monitor` that runs one per logged metric."""

from .convergence_monitor import ConvergenceMonitor, MonitorState
from .monitor import Monitor, MonitorReport

__all__ = ["ConvergenceMonitor", "MonitorState", "Monitor", "MonitorReport"]
