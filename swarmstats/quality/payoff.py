"""SWARM's payoff model: expected surplus, harm and each side's payoff from p."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class PayoffConfig:
    """Payoff parameters (SWARM's defaults and ranges, swarm-metrics.md section 3).

    ``s_plus`` / ``s_minus``: surplus of a beneficial / harmful interaction;
    ``h``: harm to third parties of a harmful one; ``theta``: initiator's share
    of the surplus; ``rho_a`` / ``rho_b``: share of the harm each side
    internalises; ``w_rep``: weight of the reputation terms.

    >>> PayoffConfig().break_even_social
    0.6
    """

    s_plus: float = 2.0
    s_minus: float = 1.0
    h: float = 2.0
    theta: float = 0.5
    rho_a: float = 0.0
    rho_b: float = 0.0
    w_rep: float = 1.0

    def __post_init__(self):
        for name in ("s_plus", "s_minus", "h"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise InputError(f"PayoffConfig.{name} must be finite and >= 0, got {value}")
        for name in ("theta", "rho_a", "rho_b"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise InputError(f"PayoffConfig.{name} must lie in [0, 1], got {value}")
        if not 0 <= self.w_rep <= 100:
            raise InputError(f"PayoffConfig.w_rep must lie in [0, 100], got {self.w_rep}")

    @property
    def surplus_range(self) -> float:
        """s_plus + s_minus: how much the surplus moves per unit of p."""
        return self.s_plus + self.s_minus

    @property
    def slope_initiator(self) -> float:
        """d pi_a / dp: the initiator's payoff is linear in p with this slope."""
        return self.theta * self.surplus_range + self.rho_a * self.h

    @property
    def slope_counterparty(self) -> float:
        """d pi_b / dp."""
        return (1 - self.theta) * self.surplus_range + self.rho_b * self.h

    @property
    def break_even_private(self) -> float:
        """p at which the expected surplus is zero (0.5 if undefined)."""
        total = self.surplus_range
        return self.s_minus / total if total > 0 else 0.5

    @property
    def break_even_social(self) -> float:
        """p at which surplus minus harm is zero (0.5 if undefined)."""
        total = self.surplus_range + self.h
        return (self.s_minus + self.h) / total if total > 0 else 0.5

    def surplus(self, p):
        """Expected surplus S(p) = p s+ - (1 - p) s-."""
        p = np.asarray(p, dtype=float)
        return p * self.s_plus - (1 - p) * self.s_minus

    def harm(self, p):
        """Expected harm to third parties E(p) = (1 - p) h."""
        return (1 - np.asarray(p, dtype=float)) * self.h

    def payoffs(self, p, *, tau=0.0, c_a=0.0, c_b=0.0, r_a=0.0, r_b=0.0):
        """(pi_a, pi_b): initiator and counterparty payoffs per interaction.

        >>> pa, pb = PayoffConfig().payoffs(0.723122)
        >>> round(float(pa), 4), round(float(pb), 4)
        (0.5847, 0.5847)
        """
        surplus, harm = self.surplus(p), self.harm(p)
        pi_a = self.theta * surplus - tau - c_a - self.rho_a * harm + self.w_rep * np.asarray(r_a)
        pi_b = (1 - self.theta) * surplus + tau - c_b - self.rho_b * harm + self.w_rep * np.asarray(r_b)
        return pi_a, pi_b
