"""Multi-agent coupling: statistics that only exist when agents interact.

- :func:`contagion` - does a change in one agent's behaviour precede the same change in its
  partners', beyond chance?
- :func:`equilibria` - how many distinct equilibria did the seeds reach, and which went where?
- :func:`synergy_gap` - is the team better than its best member, and how does that move with size?
- :func:`agreement` - do the agents agree more and more (pairwise agreement, strategy diversity)?
"""

from .agreement import AgreementResult, agreement
from .contagion import ContagionResult, contagion
from .equilibria import EquilibriaResult, equilibria
from .swarm_export import agent_reputations
from .synergy import SynergyResult, synergy_gap

__all__ = ["AgreementResult", "ContagionResult", "EquilibriaResult", "SynergyResult", "agent_reputations",
           "agreement", "contagion", "equilibria", "synergy_gap"]
