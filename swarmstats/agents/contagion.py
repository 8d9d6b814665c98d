"""Does a change in one agent's behaviour spread to its partners?  Lead-lag beyond chance.

"One agent decided to stop working and convinced its partner" (the multi-agent seed).  From
one behaviour series per agent (effort, cooperation rate, acceptance rate ...) on shared steps,
:func:`contagion` asks, for every pair, whether one agent's changes are followed by the same
changes in the other 1 to ``max_lag`` steps later rather than before: the lead asymmetry of
their changes (first differences after a running median of ``smooth`` steps), the sum over lags
1..K of the cross-correlation at +k minus that at -k.  Agents that change together in the same
step - a common shock - have no lead.

Chance is judged by rotating one series against the other (a circular shift): every rotation
keeps both agents' own autocorrelation - the reason a naive correlation test calls two slowly
wandering agents linked - and breaks any alignment, so the observed asymmetry is one draw among
the n rotations and its p-value is its rank; pairs are adjusted together (Holm).  A pair's
p-value cannot go much below ``2 max_lag / n`` (the rotations next to the true alignment still
hold the lead, in one window or the other), so with many agents and short series no single pair can be shown; the
population test - the mean |asymmetry| over all pairs against every agent rotated by its own
random shift - has no such floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt
from ..errors import InputError, check_level
from ._input import agent_series

__all__ = ["ContagionResult", "contagion"]

#: steps needed per lag tried: fewer and the rotations that stay clear of the true alignment run out
STEPS_PER_LAG = 4
#: at least this many steps of changes in any case
MIN_STEPS = 20


@dataclass(frozen=True, repr=False)
class ContagionResult(Result):
    """Lead-lag between agents: per ordered pair, and for the population."""

    verdict: str                 # "contagion", "spread" (population only) or "none_shown"
    reason: str
    pairs: pd.DataFrame          # leader, follower, lag, asymmetry, p, p_holm (strongest first)
    population_statistic: float  # mean |lead asymmetry| over pairs
    population_p: float
    n_agents: int
    n_steps: int
    max_lag: int
    smooth: int
    alpha: float
    notes: list = field(default_factory=list)
    _private_fields = ("_names", "_steps", "_values")
    _names: list = field(default=None, repr=False)
    _steps: np.ndarray = field(default=None, repr=False)
    _values: np.ndarray = field(default=None, repr=False)

    @property
    def significant_pairs(self) -> pd.DataFrame:
        return self.pairs[self.pairs["p_holm"] < self.alpha]

    def to_frame(self) -> pd.DataFrame:
        return self.pairs

    def summary(self) -> str:
        lines = [f"contagion: {self.verdict} - {self.reason}",
                 f"  population: mean |lead asymmetry| {fmt(self.population_statistic, 3)} over "
                 f"{len(self.pairs)} pairs, p = {fmt(self.population_p, 3)} (every agent rotated independently); "
                 f"{self.n_steps} steps, lags 1-{self.max_lag}, running median of {self.smooth}"]
        for row in self.pairs.head(5).itertuples():
            lines.append(f"  {row.leader} -> {row.follower}: lead asymmetry {fmt(row.asymmetry, 3)}, strongest at "
                         f"lag {row.lag}, p = {fmt(row.p, 3)} (Holm {fmt(row.p_holm, 3)})")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def contagion(series, *, max_lag: int = 5, smooth: int = 5, alpha: float = 0.05, n_perm: int = 999,
              random_state=0, agent: str = "agent", step: str = "step", value: str | None = None) -> ContagionResult:
    """Lead-lag between agents' behaviour series (see the module docstring).

    ``series``: a wide frame (a column per agent, steps in the index or a ``step`` column), a
    ``{agent: values}`` mapping, or a long frame with ``agent``, ``step`` and ``value`` columns.
    Every agent needs a value at every step.  ``smooth``: the running median's width before
    the changes are taken (1: none).  ``n_perm``: random rotations for the population test (the
    pairs' tests use every rotation).

    >>> rng = np.random.default_rng(1)
    >>> effort = np.repeat(rng.integers(0, 2, 40), 5).astype(float)        # switches every few steps
    >>> follower = np.r_[np.ones(3), effort[:-3]]                          # copies it 3 steps later
    >>> result = contagion({"a": effort + 0.2 * rng.normal(size=200),
    ...                     "b": follower + 0.2 * rng.normal(size=200)})
    >>> row = result.pairs.iloc[0]
    >>> result.verdict, row.leader, row.follower, int(row.lag)
    ('contagion', 'a', 'b', 3)
    """
    from .._input.random_state import resolve_rng
    from .._kernels.lead_lag import (
        circular_cross_correlations,
        lead_asymmetry,
        lead_lag,
        rotation_pvalues,
        standardised_changes,
    )
    from .._kernels.multiplicity import holm_adjusted

    alpha = check_level(alpha, "alpha")
    if not isinstance(max_lag, (int, np.integer)) or isinstance(max_lag, bool) or max_lag < 1:
        raise InputError(f"max_lag must be a whole number of steps >= 1, got {max_lag!r}")
    if not isinstance(n_perm, (int, np.integer)) or n_perm < 99:
        raise InputError(f"n_perm must be an integer >= 99 (the population p-value's resolution), got {n_perm!r}")
    if not isinstance(smooth, (int, np.integer)) or isinstance(smooth, bool) or smooth < 1:
        raise InputError(f"smooth must be a whole number of steps >= 1 (1: no running median), got {smooth!r}")
    data = agent_series(series, agent=agent, step=step, value=value)
    notes = []
    n_changes = data.values.shape[1] - 1
    needed = max(MIN_STEPS, STEPS_PER_LAG * max_lag)
    if n_changes < needed:
        raise InputError(f"{data.values.shape[1]} steps; lags up to {max_lag} need at least {needed + 1} "
                         f"(a shorter max_lag needs fewer)")
    z = standardised_changes(data.values, smooth)
    changing = np.any(z != 0, axis=1)
    if (~changing).any():
        notes.append(f"{', '.join(np.array(data.names)[~changing])} never changed: no lead or follow to measure")
    names = [name for name, keep in zip(data.names, changing) if keep]
    if len(names) < 2:
        raise InputError(f"{len(names)} agent(s) whose behaviour changes; lead-lag needs at least two")
    correlations = circular_cross_correlations(z[changing])
    asymmetry = lead_asymmetry(correlations, max_lag)
    first, second = np.triu_indices(len(names), k=1)
    observed = asymmetry[first, second, 0]
    leads = observed >= 0
    leader = np.where(leads, first, second)
    follower = np.where(leads, second, first)
    lags = lead_lag(correlations, max_lag)
    pairs = pd.DataFrame({"leader": np.array(names)[leader], "follower": np.array(names)[follower],
                          "lag": lags[leader, follower], "asymmetry": np.abs(observed),
                          "p": rotation_pvalues(asymmetry[first, second])})
    pairs["p_holm"] = holm_adjusted(pairs["p"].to_numpy())
    pairs = pairs.sort_values(["p", "asymmetry"], ascending=[True, False], kind="stable").reset_index(drop=True)
    statistic = float(np.abs(observed).mean())
    population_p = _population_pvalue(asymmetry, statistic, n_perm, resolve_rng(random_state))
    n = z.shape[1]
    # the 2 K rotations next to a true lead (K each side) hold it too: p cannot go below ~2 K / n
    floor = 2.0 * max_lag / n
    if floor > alpha / len(pairs):
        notes.append(f"with {n} changes and lags up to {max_lag}, a pair's p-value cannot go much below "
                     f"{floor:.2g}, and {'Holm over ' + str(len(pairs)) + ' pairs needs' if len(pairs) > 1 else 'alpha is'} "
                     f"{alpha / len(pairs):.2g}: a single pair can be shown from about "
                     f"{int(np.ceil(2 * max_lag * len(pairs) / alpha))} steps; the population test has no such floor")
    verdict, reason = _verdict(pairs, population_p, alpha, max_lag)
    return ContagionResult(verdict=verdict, reason=reason, pairs=pairs, population_statistic=statistic,
                           population_p=population_p, n_agents=len(names), n_steps=data.values.shape[1],
                           max_lag=int(max_lag), smooth=int(smooth), alpha=alpha, notes=notes, _names=names,
                           _steps=data.steps, _values=data.values[changing])


def _population_pvalue(asymmetry, statistic, n_perm, rng, chunk=200) -> float:
    """The mean |lead asymmetry| over pairs when each agent is rotated by its own uniform
    random shift (rotating a by o_a and b by o_b moves their alignment by o_a - o_b)."""
    agents, n = asymmetry.shape[0], asymmetry.shape[-1]
    first, second = np.triu_indices(agents, k=1)
    pair_asymmetry = np.abs(asymmetry[first, second])              # pairs x rotations
    exceed = 0
    for start in range(0, n_perm, chunk):
        offsets = rng.integers(0, n, size=(min(chunk, n_perm - start), agents))
        shift = (offsets[:, first] - offsets[:, second]) % n         # draws x pairs
        null = np.take_along_axis(pair_asymmetry[None, :, :], shift[:, :, None], axis=-1)[..., 0].mean(axis=1)
        exceed += int(np.sum(null >= statistic - 1e-12))
    return (1 + exceed) / (1 + n_perm)


def _verdict(pairs, population_p, alpha, max_lag):
    shown = pairs[pairs["p_holm"] < alpha]
    if len(shown):
        top = shown.iloc[0]
        more = f"; {len(shown) - 1} more pair(s)" if len(shown) > 1 else ""
        return "contagion", (f"changes in {top.leader} are followed by the same changes in {top.follower}, "
                             f"strongest {int(top.lag)} step(s) later (lead asymmetry {top.asymmetry:.2f}, rotation "
                             f"p = {top.p:.2g}, {top.p_holm:.2g} after Holm over {len(pairs)} pairs){more}")
    if population_p < alpha:
        top = pairs.iloc[0]
        return "spread", (f"across the population, agents' changes lead or follow each other's within {max_lag} "
                          f"steps more than chance allows (p = {population_p:.2g}), though no single pair is "
                          f"shown after adjustment (the strongest: {top.leader} -> {top.follower}, p = {top.p:.2g} "
                          "before it)")
    return "none_shown", (f"no agent's changes lead another's within {max_lag} steps beyond chance "
                          f"(population p = {population_p:.2g}; smallest pair p {pairs['p'].min():.2g} before "
                          "adjustment); longer series would show a weaker link")
