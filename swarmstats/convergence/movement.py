"""The tests that show a run moving, and the flatness bounds beside them: the measurements the
verdict (:mod:`.verdict`) decides on, on standardised values."""

from __future__ import annotations

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
from .regime_check import memory_unexplained, tests_tau


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
                   tolerance: float, level: float, equivalence: float) -> Movement:
    """The tests of the part of ``z`` kept from ``start`` (integrated time ``tau``) and of the
    whole run, and the flatness bounds over ``horizon`` against ``tolerance`` (all on the
    standardised scale).  ``checked``: :func:`~.regime_check.tests_tau` of the kept part when
    it was already run (:func:`~.regime_check.kept_part`), else None."""
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
                    regimes=regimes, widened=movement_widened)
