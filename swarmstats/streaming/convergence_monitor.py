"""ConvergenceMonitor: the convergence verdict for a stream, cheap per step.

``update(x)`` appends to an amortised-O(1) buffer and updates running moments
(Welford); the full check runs only when the stream has grown by a fraction
``growth`` since the last one (or every ``check_every`` points), so its
O(n log n) cost is paid O(log n) times over the stream - amortised
O(log^2 n) per point instead of a recomputation at every step.

Looking many times must not make a wrong "converged" likelier: the k-th check
claims flatness at level alpha_k = alpha k^-1.5 / zeta(1.5), so the levels of
all checks, however many, add up to at most alpha (alpha-spending over looks with a
union bound; Lan & DeMets 1983 for spending functions).  A run that is still
improving is therefore stopped by mistake at most alpha of the time over the
whole stream, whichever step the caller reads the verdict at: the verdict only
changes at the scheduled checks.  The note "worse than its best" (a held-out score that
settled worse than a stretch before its warm-up cut) is spent the same way, so a stream
raises it wrongly at most alpha of the time too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from .._base import CallableState, OnlineEstimator, Trace, as_floats
from .._result import Result, fmt
from ..convergence.result import ConvergenceResult
from ..convergence.verdict import ConvergenceTest
from ..errors import InputError, check_count, check_positive, finite_number

__all__ = ["ConvergenceMonitor", "MonitorState", "spent_alpha"]

#: alpha_k proportional to k^-s: s = 1.5 spends more on late looks than k^-2 (which
#: a long run needs to stop) and still sums to alpha.
SPENDING_EXPONENT = 1.5
_ZETA = float(special.zeta(SPENDING_EXPONENT))


def _not_after(step: float, previous: float) -> InputError:
    return InputError(f"step: each step must come after the last ({step:g} after {previous:g}), "
                      "as a step axis does")


def spent_alpha(level: float, look: int) -> float:
    """The share of ``level`` spent at the ``look``-th of any number of looks (1-based):
    level * look^-1.5 / zeta(1.5), so all looks together spend at most ``level``.

    >>> round(spent_alpha(0.05, 1), 4), round(spent_alpha(0.05, 10), 5)
    (0.0191, 0.00061)
    """
    return level * look ** -SPENDING_EXPONENT / _ZETA


@dataclass(frozen=True, repr=False)
class MonitorState(CallableState, Result):
    """What ``update`` returns: the running figures and the latest verdict."""

    n: int
    mean: float
    sd: float
    verdict: str
    converged: bool
    checked_at: int

    def summary(self) -> str:
        return (f"{self.n} points, running mean {fmt(self.mean)} (sd {fmt(self.sd)}); "
                f"verdict at {self.checked_at}: {self.verdict}")


class ConvergenceMonitor(OnlineEstimator):
    """Streaming convergence checks with the :class:`ConvergenceTest` rules.

    Parameters
    ----------
    growth : float, default 0.5
        Re-check when the stream is this fraction longer than at the last check.
        Fewer checks spend less of alpha each: 0.5 reaches 10,000 points in 16 checks.
    check_every : int, optional
        Re-check every this many points instead (a fixed cadence; the k-th check
        still gets alpha_k, so a fine cadence makes late "converged" calls harder).
    first_check : int, default 100
        The first check runs once this many points have arrived (and at least
        ``min_points``): earlier looks could not show flatness but would spend alpha.
    anytime : bool, default True
        Spend ``alpha`` of the flatness claim over the checks (see above).  False
        runs every check at the full level: fine for a single look, not for stopping.
    step_unit : str, optional
        What one step of ``update(x, step=...)`` is, in the reasons ("per 100 timesteps");
        default "steps".  Named as ``check_convergence`` names a step axis (``"epoch"`` reads
        "epochs").  A :class:`Monitor` passes it on to every metric it tracks.
    name : str, optional
        The metric's name: with ``better="auto"`` it decides which way is better, as
        ``check_convergence`` reads a column's name (a falling ``loss`` is "still improving").
        A :class:`Monitor` names each metric's stream.
    **test_options
        Passed to :class:`ConvergenceTest` (``alpha``, ``tolerance`` ...).  ``budget`` is
        counted on the stream's axis: the steps given with the values, or else the values
        themselves, from 0 (with ``budget=3999`` every check claims flatness up to the
        4,000th value), so a stop means the rest of the stream would move the mean by less
        than the tolerance.

    ``update(x, step=s)`` gives each value the step it was logged at (every value or none,
    each after the last): slopes are then per 100 of those steps and horizons counted in them,
    as ``check_convergence`` reports a log with that step axis; without steps, a step is one
    value.  ``update_many(xs)`` gives exactly the state of a loop of ``update``: the checks
    run at the same stream lengths.

    >>> monitor = ConvergenceMonitor()
    >>> rng = np.random.default_rng(0)
    >>> state = monitor.update_many(rng.normal(size=3000))
    >>> state.n, state.verdict
    (3000, 'converged')
    """

    def __init__(self, *, growth: float = 0.5, check_every: int | None = None,
                 first_check: int = 100, anytime: bool = True, step_unit: str | None = None,
                 name: str | None = None, **test_options):
        self.growth = growth
        self.check_every = check_every
        self.first_check = first_check
        self.anytime = anytime
        self.step_unit = step_unit
        self.name = name
        self.test = ConvergenceTest(**test_options)  # validates the test's own options
        self._validate()
        self._start_stream()

    def _validate(self) -> None:
        check_positive("growth", self.growth)
        if self.check_every is not None:
            check_count("check_every", self.check_every)
        check_count("first_check", self.first_check)
        if self.step_unit is not None and (not isinstance(self.step_unit, str) or not self.step_unit.strip()):
            raise InputError(f"step_unit must be a name such as 'timesteps', got {self.step_unit!r}")

    # parameters: this class's six and every ConvergenceTest option passed through
    def get_params(self) -> dict:
        return {**{name: getattr(self, name) for name in self._parameter_names()},
                **self.test.get_params()}

    @classmethod
    def _parameter_defaults(cls) -> dict:
        return {**super()._parameter_defaults(), **ConvergenceTest._parameter_defaults()}

    def _start_stream(self) -> None:
        self._buffer = Trace(1024)
        self._count = 0  # values folded into the running moments
        self._shift = 0.0
        self._mean = 0.0
        self._m2 = 0.0
        self._next_check = max(self.test.min_points, int(self.first_check))
        self._last: ConvergenceResult | None = None
        self._checked_at = 0
        self.history: list[tuple[int, str]] = []
        self._steps: Trace | None = None  # the step axis, once values come with steps
        self._last_step: float | None = None
        #: what one value is called when the stream has no steps (None: "steps"); a Monitor
        #: whose metric lost its step axis says "logged values", not steps it was not given
        self.position_unit: str | None = None

    @property
    def n(self) -> int:
        return len(self._buffer)

    @property
    def values(self) -> np.ndarray:
        return self._buffer.values

    def update(self, x: float, *, step=None) -> MonitorState:
        x = finite_number(x, "x")
        if step is None or self._last_step is None:
            self._take_steps(None if step is None else np.array([finite_number(step, "step")]), 1)
        else:  # the common case, without arrays: one step after the last (a float kept aside:
            step = finite_number(step, "step")  # reading it back from the trace cost ~1 us a value)
            if not step > self._last_step:
                raise _not_after(step, self._last_step)
            self._steps.append(step)
            self._last_step = step
        self._buffer.append(x)
        self._welford(x)
        if self.n >= self._next_check:
            self._check(self.n)
        return self.state

    def update_many(self, xs, *, steps=None) -> MonitorState:
        xs = as_floats(xs)
        if not np.all(np.isfinite(xs)):
            bad = int(np.flatnonzero(~np.isfinite(xs))[0])
            raise InputError(f"xs: non-finite value at position {bad}")
        if steps is not None:
            steps = as_floats(steps)
            if len(steps) != len(xs):
                raise InputError(f"steps: {len(steps)} steps for {len(xs)} values")
            if not np.all(np.isfinite(steps)):
                bad = int(np.flatnonzero(~np.isfinite(steps))[0])
                raise InputError(f"steps: a step that is not a finite number at position {bad}")
        self._take_steps(steps, len(xs))
        self._buffer.extend(xs)
        for x in xs:  # Welford per value, so the moments match a loop of update() exactly
            self._welford(x)
        while self._next_check <= self.n:
            self._check(self._next_check)
        return self.state

    @property
    def last_result(self) -> ConvergenceResult | None:
        """The verdict of the latest scheduled check (what ``state`` reports)."""
        return self._last

    def result(self) -> ConvergenceResult:
        """The full verdict on everything seen so far, computed now if the
        latest scheduled check is older (the schedule itself is not changed)."""
        if self._last is not None and self._checked_at == self.n:
            return self._last
        if self.n == 0:
            raise InputError("no values yet: update() the monitor before asking for its result")
        # an unscheduled look: it may not spend more than the next scheduled one would
        return self._look(self.n, len(self.history) + 1)

    @property
    def state(self) -> MonitorState:
        """The running figures and the verdict of the latest scheduled check."""
        verdict = self._last.verdict if self._last is not None else "insufficient_data"
        sd = math.sqrt(self._m2 / (self.n - 1)) if self.n > 1 else float("nan")
        return MonitorState(n=self.n, mean=self._shift + self._mean if self.n else float("nan"), sd=sd,
                            verdict=verdict, converged=verdict == "converged",
                            checked_at=self._checked_at)

    @property
    def converged(self) -> bool:
        return self.state.converged

    # -- internals -------------------------------------------------------------
    def _welford(self, x: float) -> None:
        # Welford on data shifted by the first value: x - shift is exact near the
        # shift, so a large offset (1e9 + noise) costs no precision in the moments.
        if self._count == 0:
            self._shift = x
        x -= self._shift
        self._count += 1
        delta = x - self._mean
        self._mean += delta / self._count
        self._m2 += delta * (x - self._mean)

    def look_alpha(self, look: int) -> float:
        """The level of the flatness claim at the ``look``-th check (1-based): the test's
        ``equivalence_alpha`` (default its ``alpha``) spent over the looks."""
        level = self.test.equivalence_alpha if self.test.equivalence_alpha is not None else self.test.alpha
        return spent_alpha(level, look) if self.anytime else level

    def _take_steps(self, steps: np.ndarray | None, count: int) -> None:
        """Record the steps of the next ``count`` values (None: they came without)."""
        if steps is None:
            if self._steps is not None and count:
                raise InputError("step: this stream's values came with steps; give one with each value")
            return
        if self._steps is None:
            if self.n:
                raise InputError(f"step: give a step with every value or with none (the first {self.n} "
                                 "values had none)")
            self._steps = Trace(1024)
        before = self._steps.values[-1:]
        back = np.flatnonzero(np.diff(np.concatenate([before, steps])) <= 0)
        if len(back):
            at = int(back[0]) + 1 - len(before)
            raise _not_after(steps[at], steps[at - 1] if at > 0 else before[0])
        self._steps.extend(steps)
        if len(steps):
            self._last_step = float(steps[-1])

    def _look(self, length: int, look: int) -> ConvergenceResult:
        best = self.test.best_alpha if self.test.best_alpha is not None else self.test.alpha
        test = self.test.clone(equivalence_alpha=self.look_alpha(look),
                               best_alpha=spent_alpha(best, look) if self.anytime else best)
        if self._steps is not None:
            steps = self._steps.values[:length].copy()
            if self.step_unit is not None:
                steps = pd.Index(steps, name=self.step_unit)
        elif self.position_unit is not None:
            steps = pd.Index(np.arange(length, dtype=np.float64), name=self.position_unit)
        else:
            steps = None
        return test.fit(self._buffer.values[:length].copy(), steps=steps, name=self.name)

    def _check(self, length: int) -> None:
        self._last = self._look(length, len(self.history) + 1)
        self._checked_at = length
        self.history.append((length, self._last.verdict))
        if self.check_every is not None:
            self._next_check = length + self.check_every
        else:
            self._next_check = max(length + 1, int(math.ceil(length * (1.0 + self.growth))))
