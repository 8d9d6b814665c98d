"""Multi-agent coupling: statistics that only exist when agents interact.

- :func:`contagion` - does a change in one agent's behaviour precede the same change in its
  partners', beyond chance?
"""

from .contagion import ContagionResult, contagion

__all__ = ["ContagionResult", "contagion"]
