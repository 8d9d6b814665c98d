"""Proxy variance tracking and calibration: is a score too noisy for a hard decision?"""

from .report import ProxyReport
from .tracker import KeyState, ProxyVarianceTracker

__all__ = ["ProxyVarianceTracker", "ProxyReport", "KeyState"]
