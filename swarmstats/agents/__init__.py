"""Multi-agent coupling: statistics that only exist when agents interact.

- :func:`contagion` - does a change in one agent's behaviour precede the same change in its
  partners', beyond chance?
- :func:`equilibria` - how many distinct equilibria did the seeds reach, and which went where?
"""

from .contagion import ContagionResult, contagion
from .equilibria import EquilibriaResult, equilibria

__all__ = ["ContagionResult", "EquilibriaResult", "contagion", "equilibria"]
