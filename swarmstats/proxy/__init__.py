"""Proxy variance tracking and calibration: is a score too noisy for a hard decision?"""

from .._base import renamed_names
from .result import ProxyResult
from .tracker import KeyState, ProxyVarianceTracker

__all__ = ["ProxyVarianceTracker", "ProxyResult", "KeyState"]


__getattr__ = renamed_names(__name__, {"ProxyReport": lambda: ProxyResult})
