"""Bayesian online changepoint detection (Adams & MacKay 2007), Normal-Gamma model.

State: the posterior over the run length r_t (points since the last change)
with, for each run length, the Normal-Gamma statistics of those points.  Each
step multiplies by the Student-t predictive, moves mass to r + 1 with
probability 1 - H and to 0 with H (constant hazard H = 1/expected run), all in
log space.  Run lengths whose posterior mass falls below ``prune`` are
dropped, so a step costs O(active run lengths), not O(t).

Readout: P(r_t = 0) equals H at every step (the predictive cancels), so it
says nothing.  The evidence for a change at t - j shows up later, as mass on
run length j.  When the most probable run length m is younger than the last
reported change, ``change_probability`` is the mass on run lengths <= m + lag
(a newer change, give or take ``lag`` points); an alarm is raised when it
exceeds ``threshold``, once per change (deduplicated by its estimated start).
A fixed window of recent run lengths misses changes whose evidence takes more
than the window to accumulate (38% of 2-SD shifts with a 5-point window).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from .._base import CallableState, OnlineEstimator, Trace
from .._kernels.robust import MAX_CLIPPED
from .._result import Result, fmt
from ..errors import (
    InputError,
    check_choice,
    check_count,
    check_level,
    finite_number,
    is_real,
)
from .alarms import alarm_records, outcome_text
from .line_reference import LineReference
from .reference import CLIP as REFERENCE_CLIP
from .reference import (
    REFERENCE_MODELS,
    Reference,
    estimate_reference,
    look_at_buffer,
)

__all__ = ["OnlineRegimeDetector", "OnlineRegimeState", "OnlineRegimeResult"]


@dataclass(frozen=True, repr=False)
class OnlineRegimeState(CallableState, Result):
    """The detector after one update (see :class:`OnlineRegimeDetector`)."""

    n: int
    run_length: int  # most probable run length
    change_probability: float  # P(a change in the last `lag` points)
    alarm: bool
    change_index: int | None  # where the alarming change is estimated to start
    active_run_lengths: int
    alarms: tuple
    threshold: float = float("nan")  # an alarm when change_probability exceeds it

    def summary(self) -> str:
        state = f"ALARM (change from {self.change_index})" if self.alarm else "no alarm"
        return (f"BOCPD after {self.n} points: {state}; most probable run length "
                f"{self.run_length}, P(recent change) {fmt(self.change_probability, 3)}")


@dataclass(frozen=True, repr=False)
class OnlineRegimeResult(Result):
    """A stream's BOCPD: the alarms, and the most probable run length and the change
    probability at every point (for the plot)."""

    n: int
    alarms: list  # {"index": alarm index, "start": estimated start of the change}
    threshold: float
    expected_run: float
    reference_points: int  # points the in-control reference was learnt from (0 when given)
    notes: tuple = ()  # what limits the result (a stream with two modes)
    model: str = "level"  # in control: a level, or a line ("trend")
    _run_length: np.ndarray | None = None
    _change_probability: np.ndarray | None = None
    _values: np.ndarray | None = None

    def summary(self) -> str:
        found = outcome_text(self.alarms, self.n, self.reference_points)
        line = ", in control along a line since each change" if self.model == "trend" else ""
        text = (f"BOCPD over {self.n} points: {found} (alarm when P(recent change) > "
                f"{fmt(self.threshold, 3)}{line})")
        return "\n".join([text, *(f"  note: {note}" for note in self.notes)])


def _as_point(index: int) -> str:
    return f"point {index}"


#: innovations are clipped at this many robust SDs (a burst of large values would read as a
#: change of spread; see :mod:`.reference`)
CLIP = 2.0


class OnlineRegimeDetector(OnlineEstimator):
    """Streaming regime-change detector (BOCPD, Normal-Gamma, constant hazard).

    Parameters (keyword-only)
    -------------------------
    expected_run : float, default 250
        Prior mean segment length (hazard 1 / expected_run).
    threshold : float, default 0.9
        Alarm when the posterior mass supporting a newer change exceeds it
        (measured: median delay 5 points for a 2-SD shift, 0.05-0.13 false
        alarms per 1000 stationary points).
    lag : int, default 5
        Slack, in points, around the most probable change location.
    warmup : int, default 100
        When ``mean`` and ``sd`` are not given, the in-control reference is
        learnt from the first ``warmup`` points (level, AR(1) persistence,
        winsorised innovation scale; :mod:`.reference`) and the model runs on
        the standardised innovations - whitened and clipped, so that persistent
        or heavy-tailed noise does not read as a change.  After each alarm it is
        learnt again from the points since the change; a step between two levels
        among them is an alarm of its own, and the reference is learnt after it.
    prune : float, default 1e-4
        Run lengths with less posterior mass are dropped.
    mean, sd : float, optional
        A known in-control reference instead of the learnt one.
    model : {"level", "trend"}, default "level"
        What "no change" is.  ``"level"``: the stream stays at the reference's level.
        ``"trend"``: it goes on along the line it has followed since the last change, at any
        slope (:mod:`.line_reference`, as ``CusumDetector(model="trend")``), so a steady climb
        is one regime and an alarm means a change of level or of slope.  The model then runs
        on the line's recursive residuals, independent in control like the level's
        innovations.  Needs a learnt reference.

    ``result()`` gives the alarms with the most probable run length and the change
    probability at every point (its plot draws them); ``fit(y)`` does the same for a
    whole series.

    >>> detector = OnlineRegimeDetector(mean=0.0, sd=1.0)
    >>> rng = np.random.default_rng(0)
    >>> state = detector.update_many(np.r_[rng.normal(size=200), rng.normal(3, 1, 30)])
    >>> detector.alarms  # (alarm index, estimated start of the change)
    [(203, 199)]
    """

    def __init__(self, *, expected_run: float = 250.0, threshold: float = 0.9, lag: int = 5,
                 warmup: int = 100, prune: float = 1e-4, mean: float | None = None,
                 sd: float | None = None, model: str = "level"):
        self.model = model
        self.expected_run = expected_run
        self.threshold = threshold
        self.lag = lag
        self.warmup = warmup
        self.prune = prune
        self.mean = mean
        self.sd = sd
        self._validate()
        self._log_hazard = -math.log(expected_run)
        self._log_survive = math.log1p(-1.0 / expected_run)
        self._start_stream()

    def _validate(self) -> None:
        if not (is_real(self.expected_run) and 1 < self.expected_run < math.inf):
            raise InputError(f"expected_run must be a number of points above 1, got {self.expected_run!r}")
        check_level(self.threshold, "threshold")
        check_count("lag", self.lag, minimum=0)
        check_count("warmup", self.warmup)
        if self.warmup < 5 and (self.mean is None or self.sd is None):
            raise InputError(f"warmup must be at least 5 to set the prior, got {self.warmup!r}")
        check_level(self.prune, "prune")
        for name in ("mean", "sd"):
            value = getattr(self, name)
            if value is not None and not (is_real(value) and math.isfinite(value)):
                raise InputError(f"{name} must be a finite number, got {value!r}")
        if self.sd is not None and not self.sd > 0:
            raise InputError(f"sd must be positive, got {self.sd!r}")
        check_choice("model", self.model, REFERENCE_MODELS)
        if self.model == "trend" and (self.mean is not None or self.sd is not None):
            raise InputError('model="trend" follows a line learnt from the stream: give neither mean nor sd')

    def _start_stream(self) -> None:
        self.reference: Reference | LineReference | None = None
        if self.mean is not None and self.sd is not None:
            self.reference = Reference(mean=float(self.mean), persistence=0.0, scale=float(self.sd),
                                       points=0, bound=math.inf)
        self._previous: float | None = None
        self._buffer: list[float] = []
        self._learn_at = self.warmup  # buffer length at which a reference is (next) tried
        self.n = 0
        self.alarms: list[tuple[int, int]] = []
        self._last_change = -(10**18)  # estimated start of the last reported change
        self._alarm_now = False
        self._start = 0  # index of the first point the posterior has seen
        self._seen_at_alarm = -1  # changes starting at or before it belong to the last alarm
        self._trace = {name: Trace() for name in ("run_length", "change_probability", "values")}
        # every learnt reference with the index of its first point: what `unsuited` judges
        self._judged: list[tuple[int, Reference]] = []
        if self.reference is not None:
            self._reset()

    # -- model ------------------------------------------------------------------
    def _reset(self):
        # the model sees standardised innovations: a weak Normal-Gamma prior around 0 with
        # unit scale (kappa 1, alpha 2, beta = alpha), so the prior predictive has their scale
        self._mu0, self._kappa0, self._shape0, self._rate0 = 0.0, 1.0, 2.0, 2.0
        self._run = np.zeros(1, dtype=np.int64)
        self._log_prob = np.zeros(1)
        self._mu = np.array([self._mu0])
        self._kappa = np.array([self._kappa0])
        self._shape = np.array([self._shape0])
        self._rate = np.array([self._rate0])

    def _step(self, x: float) -> None:
        dof = 2.0 * self._shape
        scale2 = self._rate * (self._kappa + 1.0) / (self._shape * self._kappa)
        log_pred = (gammaln((dof + 1) / 2) - gammaln(dof / 2) - 0.5 * np.log(dof * np.pi * scale2)
                    - (dof + 1) / 2 * np.log1p((x - self._mu) ** 2 / (dof * scale2)))
        joint = self._log_prob + log_pred
        change = logsumexp(joint) + self._log_hazard
        log_prob = np.concatenate([[change], joint + self._log_survive])
        log_prob -= logsumexp(log_prob)
        # statistics: each run grows by x; a new run (length 0) starts from the prior
        kappa_new = self._kappa + 1.0
        beta = self._rate + self._kappa * (x - self._mu) ** 2 / (2.0 * kappa_new)
        self._mu = np.concatenate([[self._mu0], (self._kappa * self._mu + x) / kappa_new])
        self._kappa = np.concatenate([[self._kappa0], kappa_new])
        self._shape = np.concatenate([[self._shape0], self._shape + 0.5])
        self._rate = np.concatenate([[self._rate0], beta])
        self._run = np.concatenate([[0], self._run + 1])
        keep = log_prob >= math.log(self.prune)
        keep[np.argmax(log_prob)] = True
        if not keep.all():
            self._run, self._mu, self._kappa = self._run[keep], self._mu[keep], self._kappa[keep]
            self._shape, self._rate = self._shape[keep], self._rate[keep]
            log_prob = log_prob[keep] - logsumexp(log_prob[keep])
        self._log_prob = log_prob

    # -- streaming protocol ------------------------------------------------------
    def update(self, x: float) -> OnlineRegimeState:
        """Add one value; returns the state after it."""
        x = finite_number(x, "x")
        self._trace["values"].append(x)
        self.n += 1
        self._alarm_now = False
        previous, self._previous = self._previous, x
        if self.reference is None:
            self._buffer.append(x)
            if len(self._buffer) < self._learn_at or (self.alarms and self._changed_again()):
                return self._record(self.state)
            warm = np.asarray(self._buffer)
            self._reset()
            if self.model == "trend":
                # the line's recursive residuals exist only for the values after the ones it
                # was fitted to (replayed, the warm-up would be learnt twice, at later times):
                # the posterior starts at the next value
                # no cap on the clip's reach, as for BOCPD's level reference (see CusumDetector)
                self.reference = LineReference(warm, clip=CLIP, max_clipped=1.0)
                self._start = self.n
            else:
                self.reference = estimate_reference(warm, clip=CLIP)
                self._start = self.n - len(warm)
                before = None
                for value in warm:
                    self._step(self.reference.innovation(value, before))
                    before = value
            self._judged.append((self.n - len(warm), self.reference))
            self._buffer = []
        else:
            self._step(self.reference.innovation(x, previous))
        probability = self.change_probability
        if probability > self.threshold:
            change = self.n - 1 - self._map_run()
            self.alarms.append((self.n - 1, change))
            self._last_change = change
            self._alarm_now = True
            state = self._record(self.state)
            if self.mean is None or self.sd is None:
                self._relearn(change)
            return state
        return self._record(self.state)

    def _relearn(self, change: int) -> None:
        """After an alarm, learn the reference again from the new regime (as CUSUM does): the
        values since the estimated change, then the next ones up to ``warmup``.  Kept, the old
        reference no longer describes the stream: on a learning curve that has left its
        warm-up's range most innovations sit at the clip, a run of them learns a spread near 0,
        and any value off the clip alarms (PPO Hopper: 92 alarms, many one point after their
        'change'); relearnt, 45 (63 before changes among the replayed points were taken for the reported one)."""
        self.reference = None
        self._buffer = list(self._trace["values"].values[max(change, self._start):self.n])
        # the relearnt posterior replays points the alarm has already seen: a change it finds
        # among them is the one just reported, not a new one (Breakout: alarms at episodes
        # 3349 and 3350 for "changes" from 3156 and 3187)
        self._seen_at_alarm = self.n - 1

    def _changed_again(self) -> bool:
        """While the reference is learnt again after an alarm: whether the values since the
        change hold another, or a climb (:func:`.reference.relearn_cut`).  The reference is then
        learnt from the values after it, and if the change starts after the alarm it is an
        alarm of its own (before, it is where the reported change really started); during a
        climb nothing is learnt yet (looked at again a quarter of ``warmup`` later).  True when
        more values are needed."""
        cut, self._learn_at = look_at_buffer(self._buffer, self.warmup, self.model)
        if cut.wait:
            return True
        if not cut.start:
            return False
        previous = self.alarms[-1][0]
        for change in (self.n - len(self._buffer) + c for c in cut.changes):
            if change > previous:
                self.alarms.append((self.n - 1, change))
                self._last_change = change
                self._seen_at_alarm = self.n - 1  # the buffer's points are this alarm's, as in _relearn
                self._alarm_now = True
        self._buffer = self._buffer[cut.start:]
        return True

    def _record(self, state: OnlineRegimeState) -> OnlineRegimeState:
        self._trace["run_length"].append(state.run_length)
        self._trace["change_probability"].append(state.change_probability)
        return state

    def _map_run(self) -> int:
        return int(self._run[np.argmax(self._log_prob)])

    @property
    def change_probability(self) -> float:
        """Posterior mass supporting a change newer than the last reported one."""
        if self.reference is None:
            return 0.0
        run = self._map_run()
        newest = self.n - 1 - run
        if (run >= self.n - self._start or newest <= self._last_change + self.lag
                or newest <= self._seen_at_alarm):
            return 0.0  # the most probable run is the whole stream, or an already reported change
        return float(np.exp(logsumexp(self._log_prob[self._run <= run + self.lag])))

    @property
    def state(self) -> OnlineRegimeState:
        """The most probable run length, the change probability, the alarms so far."""
        if self.reference is None:  # learning the reference: from the start, or since the last change
            since = self.n - self.alarms[-1][1] if self.alarms else self.n
            return OnlineRegimeState(n=self.n, run_length=since, change_probability=0.0,
                                     alarm=self._alarm_now,
                                     change_index=self.alarms[-1][1] if self._alarm_now else None,
                                     active_run_lengths=0, alarms=tuple(self.alarms),
                                     threshold=float(self.threshold))
        return OnlineRegimeState(
            n=self.n, run_length=self._map_run(),
            change_probability=self.change_probability, alarm=self._alarm_now,
            change_index=self.alarms[-1][1] if self._alarm_now else None,
            active_run_lengths=int(len(self._run)), alarms=tuple(self.alarms),
            threshold=float(self.threshold))

    @property
    def unsuited(self) -> str | None:
        """Why BOCPD's false-alarm rate is not controlled on this stream, or None: a reference
        learnt from values with more than MAX_CLIPPED of them beyond 3 robust SDs - two modes
        (episodes that fall early or run to the end) or a long skewed tail - or with more than
        half of them tied (a 0/1 success, a score at its cap).  Per 10,000 points BOCPD then
        raises ~5 false alarms with 30% falls, ~2.4 on log-normal noise, 230-420 on a 90%
        success rate, against <= 0.5 stated; CUSUM keeps its promise there.

        Every reference is judged - the first warm-up's and each one learnt again after an
        alarm - because a learning curve often reaches such a regime only later: PPO's Pong
        reward sits at its cap of 21 once learnt (9 alarms, CUSUM 1), TD3's Humanoid falls in
        ~10% of its late episodes (15, CUSUM 14), PPO's Hopper (45, CUSUM 12).
        :attr:`unsuited_from` says where the regime starts."""
        return self.unsuited_reason()

    def unsuited_reason(self, position=_as_point) -> str | None:
        """:attr:`unsuited`, with ``position`` turning the index where the regime starts into
        words (the CLI names its step)."""
        judged = self._unsuited_reference()
        if judged is None:
            return None
        start, reference = judged
        values = ("the warm-up's values" if start == 0
                  else f"the values from {position(start)} on (the reference learnt after an alarm)")
        if reference.tied:
            return (f"more than half {values} are the same value (a 0/1 success, a score at its "
                    "cap): discrete values")
        return (f"{reference.far_share:.0%} of {values} lie beyond {REFERENCE_CLIP:g} robust SDs "
                "of their median: a second mode (falls and full episodes, failures and successes) "
                "or a long skewed tail")

    @property
    def unsuited_from(self) -> int | None:
        """The index of the first point of the first regime :attr:`unsuited` names, or None."""
        judged = self._unsuited_reference()
        return None if judged is None else judged[0]

    def _unsuited_reference(self) -> tuple[int, Reference] | None:
        return next(((start, reference) for start, reference in self._judged
                     if reference.tied or reference.far_share > MAX_CLIPPED), None)

    @property
    def notes(self) -> tuple:
        """What limits the alarms (see :attr:`unsuited`), with what to use instead."""
        return self.notes_at()

    def notes_at(self, position=_as_point) -> tuple:
        """:attr:`notes`, with ``position`` naming where a regime starts (see :meth:`unsuited_reason`)."""
        why = self.unsuited_reason(position)
        if why is None:
            return ()
        cusum = ('CUSUM along a line (swarmstats.CusumDetector(model="trend"), or swarmstats regimes '
                 "--online-method cusum-trend)" if self.model == "trend" else
                 "CUSUM (swarmstats.CusumDetector, or swarmstats regimes --online-method cusum)")
        return (f"{why}, where BOCPD raises many times its stated false-alarm rate; use {cusum}",)

    def result(self) -> OnlineRegimeResult:
        """The alarms, with the run length and change probability at every point so far."""
        given = self.mean is not None and self.sd is not None
        # before the first warm-up ends: the number it will be learnt from (nothing judged yet)
        learnt = 0 if given else int(self._judged[0][1].points) if self._judged else int(self.warmup)
        return OnlineRegimeResult(
            n=self.n, alarms=alarm_records(self.alarms),
            threshold=float(self.threshold), expected_run=float(self.expected_run),
            reference_points=learnt, notes=self.notes, model=self.model,
            _run_length=self._trace["run_length"].values.copy(),
            _change_probability=self._trace["change_probability"].values.copy(),
            _values=self._trace["values"].values.copy())
