"""Do the agents agree more and more?  Pairwise agreement and strategy diversity over time.

"They tend to agree excessively ... escalating extremism" (the multi-agent seed).  From each
agent's action or strategy at every step (categories: "cooperate", "defect", a vote, a chosen
option), :func:`agreement` measures, per step,

- the **pairwise agreement rate**: the share of pairs of agents that chose the same, and
- the **strategy diversity**: the Shannon entropy of the strategies' shares (in bits) and how
  many distinct strategies were in use,

summarises them per window of steps with autocorrelation-aware intervals, and tests the
agreement rate for a trend: the slope of batch means at least five autocorrelation times long,
with a t law on their count less two (the fixed-b test inside the convergence verdict).  The
agents' persistence makes the rate wander, and a test that underrates it calls the wander an
escalation: Mann-Kendall with Yue & Wang's correction did so in 7.5-13% of stationary runs at
5%, a HAC regression slope in 25-50%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt
from ..errors import InputError, check_level

__all__ = ["AgreementResult", "agreement"]

#: steps needed for a trend test worth reporting
MIN_STEPS = 20


@dataclass(frozen=True, repr=False)
class AgreementResult(Result):
    """The agreement rate and diversity over time, and the agreement rate's trend."""

    verdict: str                 # "escalating", "diversifying", "no trend shown" or "insufficient_data"
    reason: str
    agreement: float             # over all steps
    agreement_ci: tuple
    diversity: float             # mean entropy of the strategies' shares, bits
    trend: float                 # the agreement rate's slope (batch means), per step
    trend_ci: tuple
    trend_p: float
    windows: pd.DataFrame        # start_step, end_step, agreement, low, high, diversity, strategies
    n_agents: int
    n_steps: int
    alpha: float
    ci_level: float
    notes: list = field(default_factory=list)
    _private_fields = ("_steps", "_rates")
    _steps: np.ndarray = field(default=None, repr=False)
    _rates: np.ndarray = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        return self.windows

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        lines = [f"agreement: {self.verdict} - {self.reason}",
                 f"  pairwise agreement {fmt(self.agreement, 3)} [{fmt(self.agreement_ci[0], 3)}, "
                 f"{fmt(self.agreement_ci[1], 3)}] ({level}) over {self.n_steps} steps of {self.n_agents} agents; "
                 f"diversity {fmt(self.diversity, 3)} bits; slope {fmt(100 * self.trend, 3)} per 100 steps "
                 f"[{fmt(100 * self.trend_ci[0], 3)}, {fmt(100 * self.trend_ci[1], 3)}], p = {fmt(self.trend_p, 3)}"]
        for row in self.windows.itertuples():
            lines.append(f"  steps {row.start_step:g}-{row.end_step:g}: agreement {fmt(row.agreement, 3)} "
                         f"[{fmt(row.low, 3)}, {fmt(row.high, 3)}], diversity {fmt(row.diversity, 3)} bits, "
                         f"{fmt(row.strategies, 3)} strategies in use")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def agreement(actions, *, windows: int = 5, alpha: float = 0.05, ci: float = 0.95, agent: str = "agent",
              step: str = "step", value: str | None = None) -> AgreementResult:
    """The agents' pairwise agreement and strategy diversity over time (see the module docstring).

    ``actions``: a wide frame (a column per agent, steps in the index or a ``step`` column), a
    ``{agent: actions}`` mapping, or a long frame with ``agent``, ``step`` and ``value`` columns;
    actions are categories (strings or integers), compared for equality.  A step where an agent
    did not act (missing) counts the pairs among the agents that did.  ``windows``: how many
    consecutive windows the summary table has.

    >>> rng = np.random.default_rng(2)
    >>> steps, agents = 300, 8
    >>> conform = np.linspace(0.0, 0.9, steps)                    # more and more follow the crowd
    >>> choice = rng.integers(0, 3, (steps, agents))
    >>> follow = rng.random((steps, agents)) < conform[:, None]
    >>> result = agreement(pd.DataFrame(np.where(follow, 0, choice)))
    >>> result.verdict, result.windows["agreement"].is_monotonic_increasing
    ('escalating', True)
    """
    from .._kernels.distributions import t_ppf
    from .._kernels.precision import share_interval
    from .._kernels.verdict_tests import kept_trend, series_tau

    level = check_level(ci)
    alpha = check_level(alpha, "alpha")
    if not isinstance(windows, (int, np.integer)) or isinstance(windows, bool) or windows < 1:
        raise InputError(f"windows must be a whole number >= 1, got {windows!r}")
    step_axis, table = _actions(actions, agent, step, value)
    rates, entropy, distinct, acting = _per_step(table)
    keep = acting >= 2
    notes = []
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} step(s) with fewer than two agents acting left out")
    step_axis, rates, entropy, distinct = step_axis[keep], rates[keep], entropy[keep], distinct[keep]
    if len(rates) < MIN_STEPS:
        raise InputError(f"{len(rates)} step(s) with two or more agents acting; a trend needs at least {MIN_STEPS}")
    if table.shape[0] > 0 and _looks_continuous(table):
        notes.append("nearly every action is distinct: actions are compared for equality, so continuous values "
                     "never agree - bin them first")
    overall, overall_ci = share_interval(rates, level)
    tau = 1.0
    if np.ptp(rates) == 0:
        notes.append(f"the agreement rate is {rates[0]:g} at every step: no trend to test")
        trend, trend_ci, p = 0.0, (0.0, 0.0), 1.0
    else:
        # the batches follow the series' own persistence (under no trend, the detrended series
        # looks a little less persistent than it is, and its shorter batches reject too often);
        # whether the series is long enough is judged on the wander around the trend, which a
        # real trend does not inflate
        test = kept_trend(rates, step_axis, series_tau(rates))
        line = np.polyval(np.polyfit(step_axis, rates, 1), step_axis)
        tau = series_tau(rates - line)
        half = t_ppf(0.5 + level / 2.0, test.dof) * test.se
        trend, trend_ci, p = float(test.estimate), (float(test.estimate - half), float(test.estimate + half)), test.pvalue
    # five batches of five autocorrelation times: below that the batch means are correlated and
    # the test calls the rate's own wander a trend (6.5-8% at 5% in the docs' simulations)
    needed = 25.0 * tau if np.ptp(rates) > 0 else 0.0
    table_windows = _windows(step_axis, rates, entropy, distinct, windows, level)
    verdict, reason, moved = _verdict(trend, p, alpha, table_windows)
    if len(rates) < needed:
        verdict = "insufficient_data"
        reason = (f"{len(rates)} steps are short for the agreement rate's persistence (autocorrelation time "
                  f"{tau:.0f} steps): telling a trend from its own wander needs about {math.ceil(needed)} steps; "
                  f"so far {moved}")
    return AgreementResult(verdict=verdict, reason=reason, agreement=overall, agreement_ci=overall_ci,
                           diversity=float(entropy.mean()), trend=trend, trend_ci=trend_ci, trend_p=p,
                           windows=table_windows, n_agents=table.shape[1], n_steps=len(rates), alpha=alpha,
                           ci_level=level, notes=notes, _steps=step_axis, _rates=rates)


def _actions(actions, agent, step, value) -> tuple[np.ndarray, pd.DataFrame]:
    """(steps, steps x agents frame of actions, missing where an agent did not act)."""
    from ._input import agent_table, step_axis

    frame = agent_table(actions, agent=agent, step=step, value=value, argname="actions")
    return step_axis(frame), frame


def _per_step(table: pd.DataFrame):
    """Per step: the pairwise agreement rate, the entropy of the shares (bits), the number of
    distinct actions, and the number of agents acting."""
    codes = np.full(table.shape, -1, dtype=np.int64)
    present = table.notna().to_numpy()
    stacked = table.stack()
    if len(stacked):
        labels, uniques = pd.factorize(stacked.astype(str))
        rows = table.index.get_indexer(stacked.index.get_level_values(0))
        columns = table.columns.get_indexer(stacked.index.get_level_values(1))
        codes[rows, columns] = labels
        categories = len(uniques)
    else:
        categories = 0
    counts = np.zeros((table.shape[0], max(categories, 1)))
    for j in range(table.shape[1]):
        acted = present[:, j]
        np.add.at(counts, (np.flatnonzero(acted), codes[acted, j]), 1.0)
    acting = present.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = (counts * (counts - 1)).sum(axis=1) / (acting * (acting - 1))
        shares = counts / acting[:, None]
        entropy = -np.nansum(np.where(shares > 0, shares * np.log2(shares), 0.0), axis=1)
    return rates, entropy, (counts > 0).sum(axis=1), acting


def _looks_continuous(table: pd.DataFrame) -> bool:
    values = table.stack()
    return len(values) >= 50 and values.nunique() > 0.5 * len(values)


def _windows(steps, rates, entropy, distinct, count, level) -> pd.DataFrame:
    from .._kernels.precision import share_interval

    rows = []
    for part in np.array_split(np.arange(len(rates)), min(count, len(rates) // 4 or 1)):
        mean, (low, high) = share_interval(rates[part], level)
        rows.append({"start_step": float(steps[part[0]]), "end_step": float(steps[part[-1]]), "agreement": mean,
                     "low": low, "high": high, "diversity": float(entropy[part].mean()),
                     "strategies": float(distinct[part].mean())})
    return pd.DataFrame(rows)


def _verdict(trend, p, alpha, windows):
    """(verdict, reason, what moved - the reason's neutral part)."""
    first, last = windows.iloc[0], windows.iloc[-1]
    moved = (f"from {first.agreement:.2f} (steps {first.start_step:g}-{first.end_step:g}) to {last.agreement:.2f} "
             f"(steps {last.start_step:g}-{last.end_step:g})")
    per_100 = f"{100 * trend:+.3g} per 100 steps (batch-means slope, p = {p:.2g})"
    said = f"pairwise agreement {moved}, {per_100}"
    if p < alpha and trend > 0:
        return "escalating", f"the agents agree more and more: {said}", said
    if p < alpha and trend < 0:
        return "diversifying", f"the agents agree less and less: {said}", said
    return "no trend shown", (f"pairwise agreement {moved}; no trend beyond the series' own wander "
                              f"({per_100})"), said
