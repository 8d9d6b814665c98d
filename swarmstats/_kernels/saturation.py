"""Where a learning curve can still go: a bound over saturating curves a + b exp(-t / tau).

A learning curve rises (or falls) and levels off.  For a fixed time constant tau the curve
a + b exp(-t / tau) is linear in (a, b), so its value at a later step and that value's standard
error come from least squares in closed form; tau itself is profiled over a grid that runs from
a jump at the first report to a straight line (tau = infinity).  The bound at a later step is
the end of the profile likelihood interval (Venzon & Moolgavkar 1988): the largest (or smallest)
value v at the later step such that some curve of the family through v fits the data within
t^2 long-run variances of the best fit.  A curve that has visibly levelled off cannot be
continued by a long time constant without a worse fit, so its bound stays near its level; a
curve still rising in a straight line can, and its bound runs on with the line.

The noise may be autocorrelated: the residual variance is inflated by the integrated
autocorrelation time g of the best fit's residuals, and the t quantiles take n / (2 g) - 2
degrees of freedom (as the adaptive window's alarm limit does).  The bound holds for curves of
this family; a curve that speeds up later (a sigmoid, a delayed take-off) can beat it.
numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .distributions import t_ppf
from .verdict_tests import series_tau

#: time constants tried: from SHORTEST_TAU report spacings to LONGEST_TAU spans, plus a line
SHORTEST_TAU, LONGEST_TAU, TAU_COUNT = 2.0, 50.0, 48


@dataclass(frozen=True)
class Reach:
    """A saturating curve's value at ``target``: the best fit's, and a one-sided bound."""

    target: float
    estimate: float   # the best-fitting curve's value at the target step
    bound: float      # the (1 - level) bound over every time constant not rejected
    tau: float        # the best-fitting time constant (inf: a straight line)
    autocorr_time: float
    dof: int


def saturation_reach(steps: np.ndarray, values: np.ndarray, target: float, level: float, *,
                     upper: bool = True, min_autocorr_time: float = 1.0) -> Reach:
    """The value at ``target`` of saturating curves fitted to ``values`` at ``steps``
    (ascending, at least 5 reports), with its one-sided bound at level ``level``: the upper
    bound with ``upper``, else the lower.  ``min_autocorr_time`` floors the residuals' g: a
    short curve's own estimate is biased low, and a longer curve of the same noise knows better.

    >>> steps = np.arange(100.0)
    >>> flat = 2.0 - 2.0 * np.exp(-steps / 5.0) + 0.1 * np.random.default_rng(0).normal(size=100)
    >>> reach = saturation_reach(steps, flat, 300.0, 0.01)
    >>> round(reach.estimate, 1), reach.bound < 2.2
    (2.0, True)
    >>> line = 0.01 * steps + 0.1 * np.random.default_rng(1).normal(size=100)
    >>> saturation_reach(steps, line, 300.0, 0.01).bound > 2.9       # it may run on
    True
    """
    steps = np.asarray(steps, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n < 5:
        raise ValueError("a saturation bound needs at least 5 reports")
    if np.ptp(values) == 0:
        value = float(values[0])
        return Reach(float(target), value, value, math.inf, 1.0, n - 2)
    offsets = steps - steps[0]
    span = float(offsets[-1]) if offsets[-1] > 0 else 1.0
    ahead = (float(target) - steps[0]) / span
    # one basis column per time constant, the straight line last (in units of the span)
    # shorter than two reports, a "time constant" only fits the first report's noise (and
    # made the bound under-cover on 30 reports of a slow learner: 9% at 5%)
    grid = np.geomspace(SHORTEST_TAU / (n - 1), LONGEST_TAU, TAU_COUNT)
    taus = np.append(grid, np.inf)
    position = offsets / span
    with np.errstate(over="ignore", under="ignore"):
        basis = np.exp(-position[None, :] / grid[:, None])
        at_target = np.exp(-ahead / grid)
    basis = np.vstack([basis, position[None, :]])
    at_target = np.append(at_target, ahead)
    mean_basis = basis.mean(axis=1)
    centred = basis - mean_basis[:, None]
    spread = np.einsum("ij,ij->i", centred, centred)
    usable = spread > 1e-12 * n
    centred_values = values - values.mean()
    cross = centred @ centred_values
    slopes = np.where(usable, cross / np.where(usable, spread, 1.0), 0.0)
    rss = float(centred_values @ centred_values) - slopes * cross
    rss = np.where(usable, np.maximum(rss, 0.0), np.inf)
    best = int(np.argmin(rss))
    residuals = centred_values - slopes[best] * centred[best]
    g = max(series_tau(residuals), min_autocorr_time, 1.0)
    noise = max(rss[best], 0.0) / (n - 3) * g  # the long-run variance (three parameters fitted)
    dof = max(int(n / g) - 3, 1)
    estimates = values.mean() + slopes * (at_target - mean_basis)
    if noise <= 0:
        return Reach(float(target), float(estimates[best]), float(estimates[best]), float(taus[best] * span),
                     g, dof)
    # the profile likelihood interval of the value at the target: with tau fixed, forcing the
    # curve through v at the target costs (v - estimate)^2 / factor more RSS, so the largest v
    # whose extra RSS over the best fit stays within c^2 long-run variances is, at each tau,
    # estimate + sqrt(factor (c^2 noise - extra)) where extra = RSS(tau) - RSS(best)
    factor = 1.0 / n + (at_target - mean_basis) ** 2 / np.where(usable, spread, 1.0)
    room = t_ppf(1.0 - level, dof) ** 2 * noise - (rss - rss[best])
    kept = usable & (room >= 0)
    margin = np.sqrt(factor[kept] * room[kept])
    bound = float((estimates[kept] + margin).max() if upper else (estimates[kept] - margin).min())
    return Reach(float(target), float(estimates[best]), bound, float(taus[best] * span), g, dof)
