"""The tests that show a run moving, and the flatness bounds beside them: the measurements the
verdict (:mod:`.verdict`) decides on, on standardised values."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._kernels.distributions import t_ppf
from .._kernels.flatness import Flatness, flatness_bound
from .._kernels.precision import MeanPrecision
from .._kernels.verdict_tests import (
    TestOutcome,
    continued_drift,
    kept_trend,
    late_change,
    variance_shift,
    widened,
)
from .regime_check import REGIME_CHECK_ESS, memory_unexplained, tests_tau
from .trend import rank_trend

#: the noise time around the kept part's regimes at or below which its moves are taken as
#: steps around nearly independent noise (no confirmation asked of them: see
#: :func:`confirmed_slope`); between 1.2 and 1.6 it changed at most 1 of 300 stationary
#: short persistent runs per cell
STEPS_AROUND_INDEPENDENT = 1.5


@dataclass(frozen=True)
class Movement:
    """What the four tests found (each at ``level``) and how flat the run was shown."""

    trend: TestOutcome       # the kept part's slope
    drift: TestOutcome       # the whole run's slope, while the kept part continues it
    late: TestOutcome        # the end of the kept part against what came before
    variance: TestOutcome    # the trailing variance
    flat: Flatness           # the kept part's projected change against the tolerance
    whole: Flatness | None   # the whole run's, while the kept part continues its slope
    late_bound: float        # the equivalence bound of the late change (0 when none was tested)
    test_tau: float          # the time the trend and late-change tests used (<= the kept part's)
    regimes: object          # the regimes that set test_tau (a RegimeResult), or None
    widened: bool            # the tests were widened for long memory still there around the regimes
    #: (test, its batch-means p, the rank test's p, effective samples, level) of each slope shown by
    #: batch means that the rank test did not confirm (see :func:`confirmed_slope`)
    unconfirmed: tuple = ()

    @property
    def regimes_found(self) -> int:
        return len(self.regimes.changepoints) if self.regimes is not None else 0

    @property
    def unsettled(self) -> bool:
        """Not shown flat: the kept part's bound, or the whole run's while it applies."""
        return not (self.flat.shown and (self.whole is None or self.whole.shown))

    @property
    def worst(self) -> Flatness:
        """The larger of the two flatness bounds: the one to report."""
        return self.flat if self.whole is None or self.flat.bound >= self.whole.bound else self.whole


def movement_tests(z: np.ndarray, steps: np.ndarray, start: int, tau: float, checked,
                   precision: MeanPrecision, *, horizon: float, horizon_grows: bool,
                   tolerance: float, level: float, equivalence: float,
                   min_effective: float) -> Movement:
    """The tests of the part of ``z`` kept from ``start`` (integrated time ``tau``) and of the
    whole run, and the flatness bounds over ``horizon`` against ``tolerance`` (all on the
    standardised scale).  ``checked``: :func:`~.regime_check.tests_tau` of the kept part when
    it was already run (:func:`~.regime_check.kept_part`), else None.  ``min_effective``: below
    this many effective samples a slope must be confirmed (:func:`confirmed_slope`)."""
    kept, kept_steps = z[start:], steps[start:]
    # the tests that show movement may size their batches by the noise around the
    # regimes a slow-swinging run holds; the flatness bounds keep the series' own time
    test_tau, regimes, searched = checked if checked is not None else tests_tau(kept, tau)
    trend = kept_trend(kept, kept_steps, tau)
    drift = continued_drift(z, steps, tau, trend, level)
    shown_trend, shown_drift = trend, drift
    if test_tau < tau:
        shown_trend = kept_trend(kept, kept_steps, test_tau)
        shown_drift = continued_drift(z, steps, test_tau, shown_trend, level)
    late = late_change(kept, test_tau)
    # under long memory the slope's batch-means error is as optimistic as the mean's
    inflate = precision.inflation
    order = precision.memory_order
    # ... and so are the tests that show movement, where the long memory is the noise's own
    # (still there around the regimes): they called 23 of 100 stationary ARFIMA d = 0.3 runs
    # of 5,000 points moving.  A late drop or a drift reads as long memory too, but around
    # its regimes the noise is short-memory, and their power is kept
    movement_widened = (precision.long_memory and inflate > 1.0
                        and memory_unexplained(kept, searched))
    if movement_widened:
        shown_trend, shown_drift, late = (widened(t, inflate) for t in (shown_trend, shown_drift, late))
    # A slope on few effective samples must be confirmed by ranks (after any widening, which
    # reads the p-value again from the batch means).  Only runs with few effective samples by
    # Geyer's count are looked at: a long run at ease pays nothing.  Where the regime search
    # found the kept part's moves to be steps between levels or lines around nearly independent
    # noise, its persistence is those steps, not a wander: the ranks about a quadratic take them
    # for persistence (a 3-level staircase of a quantised real metric read "1 effective
    # sample"), and the batch means sized by that noise stand.
    unconfirmed = []
    stepped = test_tau < tau and test_tau <= STEPS_AROUND_INDEPENDENT
    if len(kept) / tau < REGIME_CHECK_ESS and not stepped:
        shown_trend = confirmed_slope(shown_trend, kept, kept_steps, level, min_effective, unconfirmed)
        if shown_drift.applies:
            shown_drift = confirmed_slope(shown_drift, z, steps, level, min_effective, unconfirmed)
    flat = flatness_bound(trend.estimate, trend.se * inflate, trend.dof, horizon, tolerance,
                          equivalence, level, len(kept), horizon_grows=horizon_grows, memory=order)
    # While the kept part continues the whole run's slope, the transient has not been
    # shown to have ended: the whole run must look flat too.
    whole = (flatness_bound(drift.estimate, drift.se * inflate, drift.dof, horizon, tolerance,
                            equivalence, level, len(z), horizon_grows=horizon_grows, memory=order)
             if drift.applies else None)
    late_bound = (abs(late.change) + float(t_ppf(1 - equivalence, max(late.dof, 1))) * late.se
                  if late.length else 0.0)
    return Movement(trend=shown_trend, drift=shown_drift, late=late, variance=variance_shift(kept),
                    flat=flat, whole=whole, late_bound=late_bound, test_tau=test_tau,
                    regimes=regimes, widened=movement_widened, unconfirmed=tuple(unconfirmed))


def confirmed_slope(outcome, x: np.ndarray, steps: np.ndarray, level: float, min_effective: float,
                    unconfirmed: list):
    """``outcome`` (a slope of batch means over ``x`` shown at ``level``), its p-value raised to
    the rank trend test's (:func:`~swarmstats.convergence.trend.rank_trend`) where that test
    reads fewer than ``min_effective`` effective samples in ``x``: a slope is then shown only
    when both show it.  What was not confirmed is added to ``unconfirmed``.

    Batch means need batches several autocorrelation times long, and a run shorter than a few
    dozen of them has at most five batches of a time Geyer's sum, read from the run itself,
    puts too low: on 100 points of AR(0.97), whose g is 66, its median is ~12.  Their slope
    then read stationary runs as moving: AR(0.97) and AR(0.99) of 40-150 points were called
    not_converged in 6-16% of runs at alpha 5%, the running mean of 25 rows that SB3 logs as
    ``ep_rew_mean`` (100 episodes, 4 per row) in 17% at 40 rows (300 runs per cell).  The rank
    test reads the persistence from the bias-corrected first two lags and its p-value on
    Student's law with the effective samples less two, as a run this short needs.  Requiring
    both (an intersection-union test: its size is at most either's) took those cells to
    1.3-7.7% (``benchmarks/calibration.py --short-only``; docs/convergence.md, step 4).  Above
    ``min_effective`` the batch means' own count stands.
    """
    if outcome.pvalue >= level:
        return outcome
    pvalue, effective = rank_trend(x, steps)
    if effective >= min_effective or pvalue <= outcome.pvalue:
        return outcome
    if pvalue >= level:
        unconfirmed.append((outcome.name, outcome.pvalue, pvalue, effective, level))
    return dataclasses.replace(outcome, pvalue=pvalue)
