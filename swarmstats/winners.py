"""The best of N without the winner's curse: the selected arm's value, adjusted for the selection.

Pick the best of N seeds, checkpoints or agents by their measured scores and the winner's score
overstates its true value: among N equally good arms the largest of N noisy estimates sits about
sigma * E[max of N normals] above the truth (1.54 sigma for N = 10), and its naive 95% interval
covers the truth far less often than 95% of the time.

:func:`best_of` reports, beside the naive figures,

- the **hybrid conditional interval and median-unbiased estimate** of Andrews, Kitagawa and
  McCloskey (2024, "Inference on winners", QJE): the winner's estimate, given the others' and
  given that it won, follows a normal truncated at the runner-up; inverting that law gives an
  interval with the right coverage whichever arms are truly best.  The purely conditional
  interval grows without bound when the top two are close; the hybrid one intersects it with
  a simultaneous (projection) interval at a small share of alpha (a tenth by default), so it
  never is wider than that, and covers at least 1 - alpha;
- the **probability that the winner is truly the best**, from an empirical-Bayes normal model
  of the arms' true values (their spread estimated from the data, method of moments): the
  share of posterior draws in which the winner's true value is the largest.

Scores are means of each arm's observations (episodes, scenarios: independent by default; the
values of a run over time with ``autocorrelated=True``, the noise's autocorrelation pooled over
the arms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._input.random_state import resolve_rng
from ._kernels.bootstrap import chunk_sizes
from ._result import Result, fmt
from .errors import InputError, check_choice, check_level

__all__ = ["BestOfResult", "best_of"]

#: the share of alpha the hybrid interval spends on its projection (simultaneous) part
HYBRID_SHARE = 0.1
#: candidate true values examined across the projection interval before the ends are refined
GRID_POINTS = 801


@dataclass(frozen=True, repr=False)
class BestOfResult(Result):
    """The winner among several arms, its naive and selection-adjusted figures."""

    best: str
    n_arms: int
    better: str
    estimate: float            # median-unbiased given the selection (hybrid)
    ci: tuple                  # hybrid conditional interval
    naive_estimate: float      # the winner's measured score
    naive_ci: tuple
    p_best: float              # P(the winner is truly the best), empirical Bayes
    runner_up: str
    gap_se: float              # winner minus runner-up, in the winner's standard errors
    ci_level: float
    table: pd.DataFrame        # every arm: n, mean, se, naive interval, p_best
    method: str = "hybrid conditional (Andrews, Kitagawa & McCloskey 2024)"
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        lines = [f"best of {self.n_arms}: {self.best} ({self.better} is better), measured "
                 f"{fmt(self.naive_estimate)} [naive {level}: {fmt(self.naive_ci[0])}, {fmt(self.naive_ci[1])}]",
                 f"  adjusted for picking the best: {fmt(self.estimate)} [{fmt(self.ci[0])}, {fmt(self.ci[1])}] "
                 f"({self.method})",
                 f"  P(truly the best) = {fmt(self.p_best, 3)}; runner-up {self.runner_up}, "
                 f"{fmt(self.gap_se, 3)} standard errors behind"]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def best_of(scores, *, better: str = "higher", ci: float = 0.95, autocorrelated: bool = False,
            n_draws: int = 20_000, random_state=0) -> BestOfResult:
    """The best arm of ``scores`` with its selection-adjusted estimate, interval and the
    probability that it is truly the best (see the module docstring).

    ``scores``: {arm: observations} (at least 2 per arm, 2 or more arms), or a 2-D array of
    arms x observations.  ``better``: "higher" or "lower".

    >>> rng = np.random.default_rng(1)
    >>> arms = {f"seed-{i}": rng.normal(0.0, 1.0, 20) for i in range(16)}   # all equally good
    >>> result = best_of(arms, random_state=0)
    >>> result.estimate < result.naive_estimate, result.ci[0] < 0 < result.ci[1]   # the truth is 0
    (True, True)
    """
    level = check_level(ci)
    check_choice("better", better, ("higher", "lower"))
    names, samples = _arms(scores)
    if not isinstance(autocorrelated, bool):
        raise InputError(f"autocorrelated must be True or False, got {autocorrelated!r}")
    means = np.array([s.mean() for s in samples])
    counts = np.array([len(s) for s in samples])
    if autocorrelated:
        from ._kernels.pooled_noise import long_run_variances

        variances = long_run_variances(samples)
    else:
        variances = np.array([s.var(ddof=1) for s in samples])
    ses = np.sqrt(variances / counts)
    if not np.all(ses > 0):
        flat = names[int(np.flatnonzero(~(ses > 0))[0])]
        raise InputError(f"{flat}: every observation is the same; a standard error needs spread")
    # A winner can be picked for the bad draws it happened not to have - a seed none of whose
    # 20 episodes crashed, where one in twenty crashes - and its own spread cannot show what it
    # escaped: with 5% of episodes at -10 among otherwise normal ones, the adjusted interval
    # covered 60.5% (equal arms, 400 replicates).  No arm's standard error is taken below what
    # the arms' pooled variance gives it: 96.3% there, and equal normal arms 93.5 -> 95.5%.
    pooled = float(np.sum(variances * (counts - 1)) / np.sum(counts - 1))
    judged = np.sqrt(np.maximum(variances, pooled) / counts)
    sign = 1.0 if better == "higher" else -1.0
    oriented = sign * means  # work as if higher were better
    order = np.argsort(-oriented, kind="stable")
    winner, second = int(order[0]), int(order[1])
    alpha = 1.0 - level
    # a standard error from few observations is itself uncertain: widen it by the ratio of the
    # t to the normal quantile (with 5 observations the normal-theory interval covered 84-89%)
    from scipy import special, stats

    t = stats.t.ppf(1.0 - alpha / 2.0, counts - 1)  # each arm's naive interval's quantile
    widen = float(t[winner] / special.ndtri(1.0 - alpha / 2.0))
    low, high, estimate = _hybrid(oriented[winner], judged[winner] * widen, oriented[second], len(names), alpha)
    if sign < 0:
        low, high, estimate = -high, -low, -estimate
    naive = (float(means[winner] - t[winner] * ses[winner]), float(means[winner] + t[winner] * ses[winner]))
    p_best, notes = _p_best(oriented, judged, int(n_draws), resolve_rng(random_state))
    if judged[winner] > ses[winner]:
        notes.append(f"{names[winner]}'s own spread (SD {fmt(float(np.sqrt(variances[winner])), 3)}) is below the "
                     f"arms' pooled (SD {fmt(math.sqrt(pooled), 3)}): its adjusted interval and P(best) use the "
                     "pooled one - a winner can be picked for the bad draws it happened not to have")
    if np.any(counts < 10):
        notes.append("fewer than 10 observations for some arm: its standard error is itself rough, "
                     "and the intervals lean on it")
    table = pd.DataFrame({"arm": names, "n": counts, "mean": means, "se": ses,
                          "naive_low": means - t * ses, "naive_high": means + t * ses, "p_best": p_best})
    table = table.iloc[order].reset_index(drop=True)
    return BestOfResult(best=names[winner], n_arms=len(names), better=better, estimate=float(estimate),
                        ci=(float(low), float(high)), naive_estimate=float(means[winner]), naive_ci=naive,
                        p_best=float(p_best[winner]), runner_up=names[second],
                        gap_se=float((oriented[winner] - oriented[second]) / judged[winner]),
                        ci_level=level, table=table, notes=notes)


def _arms(scores) -> tuple[list, list]:
    from ._input.series import as_series

    if isinstance(scores, dict):
        names = [str(name) for name in scores]
        rows = list(scores.values())
    else:
        try:
            array = np.asarray(scores, dtype=float)
        except (TypeError, ValueError):
            raise InputError("scores: expected {arm: observations} or an arms x observations array") from None
        if array.ndim != 2:
            raise InputError(f"scores: expected an arms x observations array, got shape {array.shape}")
        names = [f"arm {i}" for i in range(array.shape[0])]
        rows = list(array)
    if len(rows) < 2:
        raise InputError(f"scores: the best of {len(rows)} arm(s) needs two or more")
    # each arm read as any series is (numbers, finite, within float64's room for squares: at
    # 1e300 the variances overflowed and the intervals read "n/a" without a word)
    samples = [as_series(row, argname=name).values for name, row in zip(names, rows)]
    for name, sample in zip(names, samples):
        if len(sample) < 2:
            raise InputError(f"{name}: {len(sample)} observation(s); a standard error needs two or more")
    return names, samples


def _hybrid(x: float, sigma: float, runner_up: float, arms: int, alpha: float) -> tuple:
    """The hybrid interval and median-unbiased estimate of the winner's true value.

    Given the others, the winner's estimate is N(mu, sigma^2) truncated below at the runner-up;
    the hybrid test also conditions on the projection event |X - mu| <= c sigma, c the
    (1 - beta) point of the largest of ``arms`` independent |N(0, 1)| (beta = HYBRID_SHARE
    alpha), and tests at level (alpha - beta) / (1 - beta).  The interval is every mu within
    c sigma of x that the conditional test keeps; its ends are refined by bisection."""
    from scipy import special

    beta = HYBRID_SHARE * alpha
    c = float(special.ndtri((1.0 + (1.0 - beta) ** (1.0 / arms)) / 2.0))
    level = (alpha - beta) / (1.0 - beta)

    def conditional_cdf(mu):
        mu = np.asarray(mu, dtype=float)
        lower = (np.maximum(runner_up, mu - c * sigma) - mu) / sigma
        return truncated_normal_cdf((x - mu) / sigma, lower, np.full_like(lower, c))

    grid = np.linspace(x - c * sigma, x + c * sigma, GRID_POINTS)
    cdf = conditional_cdf(grid)
    kept = (cdf >= level / 2.0) & (cdf <= 1.0 - level / 2.0)
    if not kept.any():  # cannot happen for a proper winner; the projection interval is the answer
        return x - c * sigma, x + c * sigma, x
    first, last = int(np.flatnonzero(kept)[0]), int(np.flatnonzero(kept)[-1])

    def edge(inside: float, outside: float) -> float:
        for _ in range(40):
            middle = 0.5 * (inside + outside)
            value = float(conditional_cdf(middle))
            if level / 2.0 <= value <= 1.0 - level / 2.0:
                inside = middle
            else:
                outside = middle
        return inside

    low = grid[first] if first == 0 else edge(grid[first], grid[first - 1])
    high = grid[last] if last == len(grid) - 1 else edge(grid[last], grid[last + 1])
    # the median-unbiased estimate: the conditional CDF at x is 1/2 (decreasing in mu)
    inside, outside = low, high
    for _ in range(40):
        middle = 0.5 * (inside + outside)
        if float(conditional_cdf(middle)) > 0.5:
            inside = middle
        else:
            outside = middle
    return float(low), float(high), 0.5 * (inside + outside)


def truncated_normal_cdf(z, lower, upper) -> np.ndarray:
    """P(Z <= z) for a standard normal truncated to [lower, upper], stable far in either tail
    (differences of normal probabilities taken in log space, from the nearer tail).

    >>> round(float(truncated_normal_cdf(0.0, -1.0, 1.0)), 12)   # 0.4999999999999999 under scipy 1.17
    0.5
    >>> round(float(truncated_normal_cdf(40.01, 40.0, 41.0)), 4)   # far out: no 0/0
    0.3299
    """
    from scipy.special import log_ndtr

    z, lower, upper = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (z, lower, upper)))
    z = np.clip(z, lower, upper)
    upper_side = lower > 0  # both ends in the upper tail: work with survival probabilities
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # upper tail: (S(l) - S(z)) / (S(l) - S(u)), S = 1 - Phi, factored by S(l)
        s_l, s_z, s_u = log_ndtr(-lower), log_ndtr(-z), log_ndtr(-upper)
        from_above = np.expm1(s_z - s_l) / np.expm1(s_u - s_l)
        # otherwise: (Phi(z) - Phi(l)) / (Phi(u) - Phi(l)), factored by Phi(u)
        p_l, p_z, p_u = log_ndtr(lower), log_ndtr(z), log_ndtr(upper)
        from_below = (np.exp(p_z - p_u) - np.exp(p_l - p_u)) / -np.expm1(p_l - p_u)
    return np.clip(np.where(upper_side, from_above, from_below), 0.0, 1.0)


def _p_best(oriented: np.ndarray, ses: np.ndarray, draws: int, rng) -> tuple[np.ndarray, list]:
    """Each arm's posterior probability of being truly the best under an empirical-Bayes normal
    model: true values ~ N(m, tau^2), tau^2 by the method of moments (the estimates' spread
    beyond their noise), the estimates around them with their standard errors."""
    notes = []
    weights = 1.0 / ses ** 2
    centre = float(np.sum(weights * oriented) / np.sum(weights))
    spread = float(np.var(oriented, ddof=1) - np.mean(ses ** 2))
    if spread <= 0:
        notes.append("the arms differ no more than their noise explains: none can be told best "
                      "(each is given the same chance)")
        return np.full(len(oriented), 1.0 / len(oriented)), notes
    shrink = spread / (spread + ses ** 2)
    centres = centre + shrink * (oriented - centre)
    scales = np.sqrt(shrink) * ses
    winners = np.zeros(len(oriented))
    for size in chunk_sizes(draws, len(oriented)):
        sample = centres + scales * rng.standard_normal((size, len(oriented)))
        winners += np.bincount(np.argmax(sample, axis=1), minlength=len(oriented))
    return winners / draws, notes

