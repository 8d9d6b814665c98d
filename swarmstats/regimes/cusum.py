"""Two-sided tabular CUSUM (Page 1954) on standardised values, with its
threshold set from a target in-control average run length (ARL0).

z_t = (y_t - mu0) / sigma;  S+_t = max(0, S+_{t-1} + z_t - k),
S-_t = max(0, S-_{t-1} - z_t - k); alarm when either exceeds h.  k = shift/2 is
optimal for a shift of ``shift`` sigmas.  h solves Siegmund's approximation
ARL0(h) = target (two-sided: half the one-sided ARL), so thresholds transfer
across scales and stream lengths (never the textbook h = 5, which false-alarms
in ~88% of 1000-point stable streams).  The reference is given (mu0 and sigma),
or learnt from the first ``warmup`` points (see :mod:`.reference`): z is then
the standardised, winsorised AR(1) innovation, and h allows for the
reference's estimation error - so the promised false-alarm rate holds on
autocorrelated and heavy-tailed streams too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .._base import CallableState, OnlineEstimator, Trace
from .._kernels.robust import MAX_CLIPPED
from .._result import Result, fmt
from ..errors import (
    InputError,
    check_choice,
    check_count,
    check_level,
    check_positive,
    finite_number,
    is_real,
)
from .alarms import alarm_records, outcome_text
from .line_reference import LineReference
from .reference import (
    REFERENCE_MODELS,
    Reference,
    estimate_reference,
    look_at_buffer,
)

__all__ = ["CusumDetector", "CusumState", "CusumResult", "cusum_threshold", "cusum_arl", "REFERENCE_MODELS"]


def cusum_arl(h: float, k: float, shift: float = 0.0) -> float:
    """Siegmund's approximation of the two-sided CUSUM's average run length.

    >>> round(cusum_arl(5.0, 0.5))  # in control; Monte Carlo gives ~465
    469
    """
    def one_side(delta):
        b = h + 1.166
        if abs(delta) < 1e-9:
            return b * b
        if -2 * delta * b > 700:  # beyond any stream's length; exp would overflow
            return math.inf
        return (math.exp(-2 * delta * b) + 2 * delta * b - 1) / (2 * delta * delta)

    up, down = one_side(shift - k), one_side(-shift - k)
    rate = 1.0 / up + 1.0 / down
    return 1.0 / rate if rate > 0 else math.inf


def cusum_threshold(arl: float, k: float, reference_points: int | None = None) -> float:
    """The h whose in-control two-sided ARL is ``arl``.

    With ``reference_points = m`` the in-control mean and SD are estimates from
    m points: their errors (SD 1/sqrt(m) in noise SDs for the mean, about
    1/sqrt(2m) relative for the SD) are averaged over (Gauss-Hermite), so that
    the false-alarm *rate* 1/ARL, averaged over the reference's error, is the
    target's.  One standard error of the mean alone cuts ARL 19,500 to ~5,700.

    >>> round(cusum_threshold(19_500, 0.5), 2), round(cusum_threshold(19_500, 0.5, 100), 2)
    (8.71, 10.78)
    """
    if arl <= 1:
        raise InputError(f"arl must be > 1, got {arl!r}")
    if not reference_points:
        return float(optimize.brentq(lambda h: cusum_arl(h, k) - arl, 1e-6, 200.0))
    nodes, weights = np.polynomial.hermite_e.hermegauss(9)
    weights = weights / weights.sum()
    shift_sd, log_scale_sd = 1 / math.sqrt(reference_points), 1 / math.sqrt(2 * reference_points)

    def rate(h):
        total = 0.0
        for a, wa in zip(nodes, weights):
            for b, wb in zip(nodes, weights):
                sd = math.exp(log_scale_sd * b)  # the standardised values' true SD
                total += wa * wb / cusum_arl(h / sd, k / sd, a * shift_sd / sd)
        return total

    return float(optimize.brentq(lambda h: rate(h) * arl - 1.0, 1e-6, 400.0))


@dataclass(frozen=True, repr=False)
class CusumState(CallableState, Result):
    """The detector after one update (see :class:`CusumDetector`)."""

    n: int
    upper: float
    lower: float
    alarm: bool
    change_index: int | None  # estimated start of the change that raised the alarm
    alarms: tuple
    threshold: float = float("nan")  # h: an alarm when either sum exceeds it

    def summary(self) -> str:
        state = f"ALARM (change from {self.change_index})" if self.alarm else "in control"
        return (f"CUSUM after {self.n} points: {state}; S+ {fmt(self.upper, 3)}, "
                f"S- {fmt(self.lower, 3)}; {len(self.alarms)} alarm(s)")


@dataclass(frozen=True, repr=False)
class CusumResult(Result):
    """A stream's CUSUM: the alarms, the threshold, and the sums at every point (for the plot)."""

    n: int
    alarms: list  # {"index": alarm index, "start": estimated start of the change}
    threshold: float  # h, in standardised units
    allowance: float  # k = shift / 2
    arl: float
    reference_points: int  # points the in-control reference was learnt from (0 when given)
    model: str = "level"  # in control: a level, or a line ("trend")
    _upper: np.ndarray | None = None
    _lower: np.ndarray | None = None
    _values: np.ndarray | None = None

    def summary(self) -> str:
        found = outcome_text(self.alarms, self.n, self.reference_points)
        line = ", in control along a line since each change" if self.model == "trend" else ""
        return (f"CUSUM over {self.n} points: {found} (threshold h = {fmt(self.threshold, 3)}{line}); "
                f"in-control ARL {fmt(self.arl, 3)}")


class CusumDetector(OnlineEstimator):
    """Streaming two-sided CUSUM whose threshold comes from a false-alarm target.

    Parameters (keyword-only)
    -------------------------
    shift : float, default 1.0
        The shift to detect fastest, in noise SDs (k = shift / 2).
    arl : float, optional
        Target mean number of points between false alarms.  Default: set from
        ``alpha`` and ``horizon`` as ARL0 = -horizon / ln(1 - alpha), the ARL
        that keeps the probability of any false alarm in ``horizon`` points at
        ``alpha`` (defaults 0.05 and 1000: ARL0 ~ 19,500, h ~ 8.7).
    alpha : float, default 0.05
        The probability of any false alarm in ``horizon`` points (a significance level).
    horizon : int, default 1000
    mean, sd : float, optional
        In-control reference.  When not both given, it is learnt from the
        first ``warmup`` (100) points, and again after every alarm: level, AR(1)
        persistence and innovation scale, winsorised (:mod:`.reference`), with
        h raised for the error of an estimate from ``warmup`` points.
    warmup : int, default 100
    autocorr_time : float, default 1
        Only with a given ``mean`` and ``sd``: their noise's g; sd is multiplied
        by sqrt(autocorr_time).  A learnt reference whitens instead.
    model : {"level", "trend"}, default "level"
        What "no change" is.  ``"level"``: the stream stays at the reference's level.
        ``"trend"``: it goes on along the line it has followed since the last change, at any
        slope (:mod:`.line_reference`), so a steady climb is one regime and an alarm means
        a change of level or of slope - the climb started, or levelled off.  The CUSUM then
        runs on the recursive residuals of that line, which are independent in control, so
        the false-alarm rate is the one promised either way.  Needs a learnt reference.

    ``result()`` gives the alarms and the sums S+ and S- at every point (its plot
    draws them against the threshold); ``fit(y)`` does the same for a whole series.

    >>> detector = CusumDetector(arl=500, mean=0.0, sd=1.0)
    >>> state = detector.update_many(np.r_[np.zeros(50), np.full(20, 2.0)])
    >>> detector.alarms[0]  # (alarm index, estimated start of the change)
    (53, 50)
    """

    def __init__(self, *, shift: float = 1.0, arl: float | None = None, alpha: float = 0.05,
                 horizon: int = 1000, mean: float | None = None, sd: float | None = None,
                 warmup: int = 100, autocorr_time: float = 1.0, model: str = "level"):
        self.shift = shift
        self.arl = arl
        self.alpha = alpha
        self.horizon = horizon
        self.mean = mean
        self.sd = sd
        self.warmup = warmup
        self.autocorr_time = autocorr_time
        self.model = model
        self._validate()
        self.k = shift / 2.0
        given = mean is not None and sd is not None
        self.target_arl = float(arl) if arl is not None else -horizon / math.log1p(-alpha)
        self.h = cusum_threshold(self.target_arl, self.k, None if given else int(warmup))
        self._given = None
        if given:
            inflated = float(sd) * math.sqrt(max(float(autocorr_time), 1.0))
            self._given = Reference(mean=float(mean), persistence=0.0, scale=inflated, points=0,
                                    bound=math.inf)
        self._start_stream()

    def _validate(self) -> None:
        check_positive("shift", self.shift)
        if self.arl is not None and not (is_real(self.arl) and self.arl > 1):
            raise InputError(f"arl must be a number of points above 1, got {self.arl!r}")
        check_level(self.alpha, "alpha")
        check_count("horizon", self.horizon)
        for name in ("mean", "sd"):
            value = getattr(self, name)
            if value is not None and not (is_real(value) and math.isfinite(value)):
                raise InputError(f"{name} must be a finite number, got {value!r}")
        if self.sd is not None and not self.sd > 0:
            raise InputError(f"sd must be positive, got {self.sd!r}")
        check_count("warmup", self.warmup)
        if self.warmup < 5 and (self.mean is None or self.sd is None):
            raise InputError(f"warmup must be at least 5 to estimate the reference, got {self.warmup!r}")
        check_choice("model", self.model, REFERENCE_MODELS)
        if self.model == "trend" and self.mean is not None and self.sd is not None:
            raise InputError('model="trend" follows a line learnt from the stream: give neither mean nor sd')
        if not (is_real(self.autocorr_time) and self.autocorr_time >= 1):
            raise InputError(f"autocorr_time must be a number >= 1, got {self.autocorr_time!r}")

    def _start_stream(self) -> None:
        self.reference: Reference | None = self._given
        self._previous: float | None = None
        self._buffer: list[float] = []
        self._learn_at = self.warmup  # buffer length at which a reference is (next) tried
        self.n = 0
        self.upper = self.lower = 0.0
        self._upper_zero = self._lower_zero = 0  # last index where each sum was 0
        self.alarms: list[tuple[int, int]] = []  # (alarm index, estimated change index)
        self._alarm_now = False
        self._trace = {name: Trace() for name in ("upper", "lower", "values")}

    def update(self, x: float) -> CusumState:
        """Add one value; returns the state after it."""
        x = finite_number(x, "x")
        self._trace["values"].append(x)
        index = self.n
        self.n += 1
        self._alarm_now = False
        previous, self._previous = self._previous, x
        if self.reference is None:
            self._buffer.append(x)
            if len(self._buffer) >= self._learn_at and not (self.alarms and self._changed_again(index)):
                # its clip reaches at most MAX_CLIPPED of the warm-up: a reward's second mode,
                # clipped, made a two-point stream that alarmed 3.4x the promised rate.  (BOCPD
                # keeps its clip: it models the spread, and a second mode left unclipped reads
                # to it as a burst of volatility: 3-18 alarms per 2,000 steps)
                warm = np.asarray(self._buffer)
                self.reference = (LineReference(warm) if self.model == "trend"
                                  else estimate_reference(warm, max_clipped=MAX_CLIPPED))
                self._buffer = []
                self._upper_zero = self._lower_zero = index
            self._record()
            return self.state
        z = self.reference.innovation(x, previous)
        self.upper = max(0.0, self.upper + z - self.k)
        self.lower = max(0.0, self.lower - z - self.k)
        if self.upper == 0.0:
            self._upper_zero = index
        if self.lower == 0.0:
            self._lower_zero = index
        self._record()  # the sums as they stood when the alarm was raised
        if self.upper > self.h or self.lower > self.h:
            start = (self._upper_zero if self.upper > self.h else self._lower_zero) + 1
            self.alarms.append((index, start))
            self._alarm_now = True
            # restart: fresh sums, and a fresh reference unless one was given
            self.upper = self.lower = 0.0
            self._upper_zero = self._lower_zero = index
            self.reference = self._given
        return self.state

    def _changed_again(self, index: int) -> bool:
        """While the reference is learnt again after an alarm: whether the values since hold a
        second change or a climb (:func:`.reference.relearn_cut`).  A change is an alarm, and
        the reference is learnt from the values after it; during a climb nothing is learnt yet
        (looked at again a quarter of ``warmup`` later).  True when more values are needed."""
        cut, self._learn_at = look_at_buffer(self._buffer, self.warmup, self.model)
        if cut.wait:
            return True
        if not cut.start:
            return False
        for change in cut.changes:
            self.alarms.append((index, index - len(self._buffer) + 1 + change))
            self._alarm_now = True
        self._buffer = self._buffer[cut.start:]
        return True

    def _record(self) -> None:
        self._trace["upper"].append(self.upper)
        self._trace["lower"].append(self.lower)

    @property
    def state(self) -> CusumState:
        """The sums now, whether the last value raised an alarm, and every alarm so far."""
        change = self.alarms[-1][1] if self._alarm_now else None
        return CusumState(n=self.n, upper=self.upper, lower=self.lower, alarm=self._alarm_now,
                          change_index=change, alarms=tuple(self.alarms), threshold=self.h)

    def result(self) -> CusumResult:
        """The alarms and the sums at every point seen so far."""
        return CusumResult(
            n=self.n, alarms=alarm_records(self.alarms),
            threshold=self.h, allowance=self.k, arl=self.target_arl,
            reference_points=0 if self._given is not None else int(self.warmup), model=self.model,
            _upper=self._trace["upper"].values.copy(), _lower=self._trace["lower"].values.copy(),
            _values=self._trace["values"].values.copy())
