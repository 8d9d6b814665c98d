"""The adaptive window's rules, step by step: a change, a trend, a slow trend, else the level
and how precisely it is known (the package docstring says what each rule does and why)."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .._base import OnlineEstimator, Trace
from .._input.series import as_series
from .._kernels.distributions import beta_ppf
from .._kernels.history import BlockHistory, block_trend, span_blocks
from .._kernels.precision import held_range, streak_interval, within_range
from .._kernels.window_tests import (
    RecentPlan,
    length_grid,
    repeat_counts,
    slope_and_t,
    trailing_run,
)
from .._result import fmt, plain_number
from ..direction import DIRECTIONS, sense
from ..errors import (
    InputError,
    check_choice,
    check_count,
    check_level,
    check_positive,
    finite_number,
)
from ..proportions import is_proportion_name, within_bounds
from .limits import SHARED_PLAN_LENGTH, recent_plan, shared_plan, t_isf, t_ppf
from .noise import memory_notes, part_noise, scale_dof, shape_noise
from .reasons import (
    also_seen_clause,
    below_limit_clause,
    constant_reason,
    tiny_reason,
    trend_evidence,
    unconfirmed_clause,
    unconfirmed_reason,
)
from .result import WindowResult
from .state import StateRecord, WindowState

#: the default precision, in noise SDs: the window grows until the mean is known to +-0.25 sigma
DEFAULT_PRECISION_SDS = 0.25
#: Hysteresis.  Re-tested every step at one level, a status flipped at every crossing (a public
#: DQN MountainCar curve changed status 35 times in 766 episodes, a steady climb ~35 times in
#: 2,000 steps; now 21 and ~12).  A stable window keeps its points until a trend in them passes
#: this level rather than the nominal 95%, and a climb already called that slows down (or
#: speeds up) is followed on the recent half of its span when that half passes it.
HOLD_LEVEL = 0.99
#: ... and a trend call is kept while the recent half of its span points the same way with t
#: above this (one standard error), where a new call needs the nominal 1.96
HOLD_HALF_T = 1.0
#: ... and its span need only pass this share of its alarm limit (4.3 where the limit is 5.4:
#: still a per-test tail near 1e-5).  At the full limit, a climb whose t hovers near it flipped
#: "improving" / "uncertain" / "stable" step by step: SB3's SAC LunarLander 16 changes of status
#: in 628 episodes, DQN CartPole 27 in 500, a steady climb ~12 in 2,000 steps; now 8, 7 and ~6.
#: Stationary series with any trend call unchanged (40 each of AR(0.97), AR(0.99), a running
#: mean of 25, ARMA(0.95, -0.7), a cycle, at 200 and 1,000 points); the steps such a false
#: call lasts +0-10%; a rise that stops dead is given up as soon as before (docs/windows.md)
HOLD_LIMIT_SHARE = 0.8
#: Values no larger than this cannot be judged: squares of values below ~1.5e-154 underflow
#: float64, and a window's deviations lie further below its values (a margin of ~1e9); the
#: noise scale then reads 0 and the window "exactly on a curve" (check_convergence works on
#: standardised values and has no such floor)
TINY_MAGNITUDE = 1e-145


def line_end(window, mean: float, slope: float, scale: float, z: float, g: float | None = None) -> tuple[float, float]:
    """(value, half-width) of the line through ``window`` at its last point:
    Var = scale^2 (1/m + ((m-1)/2)^2 / Sxx) ~ 4 scale^2 / m for m points.

    With ``g`` (the autocorrelation time ``scale`` was made with), never less than the
    residuals' own say: the end's weights w_i = 1/m + end (i - centre) / Sxx fall on the latest
    points, and the window's scale pools all of them - 100 points after the noise SD tripled
    during a climb (400 points), the line's end was held in 81.5% of 200 fits.  So the variance is at least
    g * sum w_i^2 e_i^2 / (1 - h_i), the heteroscedasticity-consistent one (MacKinnon & White's
    HC2), each residual weighted by its sway on the end."""
    length = len(window)
    end = (length - 1) / 2.0
    sxx = length * (length * length - 1.0) / 12.0
    half = z * scale * math.sqrt(1.0 / length + end * end / sxx)
    if g is not None and length > 2:
        centred = np.arange(length) - end
        weights = 1.0 / length + end * centred / sxx
        residuals = np.asarray(window, dtype=np.float64) - mean - slope * centred
        leverage = 1.0 / length + centred * centred / sxx
        robust = g * float(np.sum(weights * weights * residuals * residuals / (1.0 - leverage)))
        half = max(half, z * math.sqrt(robust))
    return mean + slope * end, half


class AdaptiveWindow(OnlineEstimator):
    """An evaluation window that adapts to noise, trends and changes (see module docstring).

    Parameters (keyword-only)
    -------------------------
    min_length : int, default 20
        Shortest window judged; fewer points since a change give "uncertain".
    max_length : int, default 500
        Longest window (and the memory kept).
    precision : float, optional
        Target half-width of the mean's interval; default a quarter of the noise SD.
    alpha : float, default 0.05
        Bound on the chance of any false change or trend call in ``horizon`` steps.
    horizon : int, default 10,000
        Steps over which ``alpha`` is spent: by default at most a 5% chance of any
        false change or trend call in 10,000 steps of a stationary series (measured:
        far less - see docs/windows.md).
    ci : float, default 0.95
        Level of the interval of the mean.
    better : {"auto", "higher", "lower"}, default "auto"
        Which direction is good: with ``"lower"`` (a loss, a toxicity) a falling
        score is "improving".  ``"auto"`` guesses from the name given to :meth:`fit`
        (:func:`swarmstats.direction.guessed_direction`: loss, error, toxicity ...
        are lower-is-better; a gradient norm, an entropy, a KL, an episode length has no better
        side, and its trends are "rising" and "falling") and is "higher" for a nameless stream.
    keep_states : bool, default True
        Keep every state for :meth:`result` (what :meth:`fit` reports).  False keeps the
        memory at O(max_length) for an endless live stream; ``update`` and ``state`` work
        the same, ``result()`` is then unavailable.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[rng.normal(0, 1, 300), rng.normal(-1.5, 1, 100)]
    >>> result = AdaptiveWindow().fit(y)
    >>> result.changes[0]["direction"], 300 <= result.changes[0]["step"] < 340
    ('down', True)
    """

    def __init__(self, *, min_length: int = 20, max_length: int = 500, precision: float | None = None,
                 alpha: float = 0.05, horizon: int = 10_000, ci: float = 0.95, better: str = "auto",
                 keep_states: bool = True):
        self.min_length = min_length
        self.max_length = max_length
        self.precision = precision
        self.alpha = alpha
        self.horizon = horizon
        self.ci = ci
        self.better = better
        self.keep_states = keep_states
        self._validate()
        self._grid = length_grid(self.max_length)
        # the grid and the whole window, every step; the history's spans at every block
        self._first_block = max(1, self.max_length // 16)
        checks = (len(self._grid) + 1) * self.horizon + 5 * self.horizon / self._first_block
        # per-test tail probability; the critical value itself depends on the window's length
        # and autocorrelation (Student's t on the noise scale's degrees of freedom: _critical)
        self._tail = self.alpha / (2.0 * checks)
        self._z = float(stats.norm.ppf(0.5 + self.ci / 2))
        self._z_hold = float(stats.norm.ppf(0.5 + HOLD_LEVEL / 2))
        self._plans: dict = {}
        self._criticals: dict = {}
        self._start_stream()

    def _validate(self) -> None:
        for name in ("min_length", "max_length", "horizon"):
            check_count(name, getattr(self, name))
        if self.min_length < 10:
            raise InputError(f"min_length must be at least 10 (noise cannot be judged on fewer), "
                             f"got {self.min_length}")
        if self.max_length < 2 * self.min_length:
            raise InputError(f"max_length ({self.max_length}) must be at least twice min_length "
                             f"({self.min_length})")
        if self.precision is not None:
            check_positive("precision", self.precision)
        check_level(self.alpha, "alpha")
        check_level(self.ci, "ci")
        check_choice("better", self.better, ("auto",) + DIRECTIONS)
        if not isinstance(self.keep_states, bool):
            raise InputError(f"keep_states must be True or False, got {self.keep_states!r}")

    def _start_stream(self, name: str | None = None, capacity: int = 256) -> None:
        self.name = name
        self.direction = sense(self.better, name)  # which way is "improving" (None: neither)
        # a success rate's intervals stop at 0 and 1 while every value lies there (a real HER
        # run's test success rate read "level now 0.960 [0.598, 1.322]")
        self._unit = (0.0, 1.0) if is_proportion_name(name) else None
        self._buffer = np.empty(2 * self.max_length)
        self._base = 0          # stream index of buffer[0]
        self._used = 0          # filled part of the buffer
        self.n = 0
        self._regime = 0        # stream index where the current regime starts
        self._scale = None      # (sigma, g) of the current regime, refreshed now and then
        self._own = None        # (the level's points' own SD,), refreshed with it (_own_scatter)
        self._recent_g = 1.0    # g of the recent half of the window, refreshed with it
        self._since_refresh = 0
        self._hold = None       # (until index, status, reason) after a change
        self._trend_sign = 0    # sign of the window's trend call at the last step (0: none)
        self.changes: list = []
        self._history = BlockHistory(self._first_block, start=0)  # the regime, in block means
        self._long = None       # the history's current trend, judged when a block completes
        self._long_stale = False
        self._last: WindowState | None = None
        self._states = StateRecord(capacity)  # every state, for result() (keep_states)
        self._values = Trace(capacity)
        self._steps: Trace | None = None  # the step axis, once a step is given

    # -- updating ---------------------------------------------------------------------------------

    def update(self, x, *, step=None) -> WindowState:
        """Add one value (logged at ``step``, default its index); returns the window state after it."""
        value = finite_number(x, "x")
        if step is not None and self._steps is None:
            if self.n:
                raise InputError("step: give a step with every value or with none (the first "
                                 f"{self.n} values had none)")
            self._steps = Trace()
        if self._steps is not None:
            if step is None:
                raise InputError("step: this stream's values came with steps; give one here too")
            self._steps.append(finite_number(step, "step"))
        self._append(value)
        if self._unit is not None and not 0.0 <= value <= 1.0:
            self._unit = None  # (a rate in percent, or no rate at all: from here on, no bound)
        if self._steps is None:
            state = self._state(self.n - 1, self.n - 1)
        else:
            steps = self._steps.values
            state = self._state(self.n - 1, plain_number(steps[-1]), steps)
        self._last = state
        if self.keep_states:
            self._states.append(state)
            self._values.append(value)
        return state

    def update_many(self, xs, *, steps=None) -> WindowState:
        """Add many values in order (with their ``steps``); the last state, as a loop of
        :meth:`update` leaves it."""
        values = np.asarray(as_series(xs, argname="xs", min_length=1).values)
        if steps is not None:
            steps = np.asarray(steps, dtype=np.float64).ravel()
            if len(steps) != len(values):
                raise InputError(f"steps: expected {len(values)} steps, one per value, got {len(steps)}")
        for i, value in enumerate(values):
            self.update(value, step=None if steps is None else steps[i])
        return self._last

    @property
    def state(self) -> WindowState | None:
        """The window after the latest update (None before the first)."""
        return self._last

    def fit(self, y, *, name: str | None = None) -> WindowResult:
        """Run a fresh window over a whole series; one table row per point.

        A pandas Series' index is the step axis; ``name`` (or the Series' name) sets the
        direction when ``better="auto"``.  The stream in progress on this window is left as it is.
        """
        series = as_series(y, min_length=1, name=name)
        fresh = self.clone(keep_states=True)
        fresh._start_stream(series.name, capacity=len(series))
        fresh.update_many(series.values, steps=series.steps)
        return fresh._result(handover=True)

    def result(self) -> WindowResult:
        """Every state since the start (or the last :meth:`reset`) as a table, and its summary."""
        return self._result(handover=False)

    def _result(self, *, handover: bool) -> WindowResult:
        if not self.keep_states:
            raise InputError("result() needs the window's states: this window was made with "
                             "keep_states=False, which keeps only its memory of max_length values")
        if not self.n:
            raise InputError("no values yet: update() the window before asking for its result")
        values = self._values.release() if handover else self._values.values.copy()
        table = self._states.frame(values, handover=handover)
        counts = {status: count for status, count in table["status"].value_counts().items() if count}
        label = ((lambda i: plain_number(self._steps.values[i])) if self._steps is not None
                 else (lambda i: int(i)))
        changes = [{**change, "step": label(change["step"]), "start": label(change["start"])}
                   for change in self.changes]
        notes = []
        if self.n < self.min_length:
            notes.append(f"only {self.n} points: nothing is judged before {self.min_length}")
        notes += memory_notes(values[self._regime:])
        return WindowResult(name=self.name, n=self.n, table=table, changes=changes,
                            status_counts={k: int(v) for k, v in counts.items()},
                            final_status=self._last.status, final_reason=self._last.reason,
                            min_length=self.min_length, max_length=self.max_length,
                            precision=self.precision, alpha=self.alpha, notes=notes,
                            better=self.direction, _values=values)

    def _append(self, value: float) -> None:
        if self._used == len(self._buffer):
            # keep the last max_length values: older ones can never be in a window again
            keep = self.max_length
            self._buffer[:keep] = self._buffer[self._used - keep:self._used]
            self._base += self._used - keep
            self._used = keep
        self._buffer[self._used] = value
        self._used += 1
        self.n += 1
        self._since_refresh += 1
        if self._history.add(value):
            self._long_stale = True

    # -- the rules --------------------------------------------------------------------------------

    def _state(self, t: int, step, steps=None) -> WindowState:
        label = (lambda i: plain_number(steps[i])) if steps is not None else (lambda i: i)
        held, self._trend_sign = self._trend_sign, 0
        was_stable = self._last is not None and self._last.status == "stable"
        start = max(self._regime, t - self.max_length + 1)
        window = self._buffer[start - self._base:t - self._base + 1]
        length = len(window)
        if length < self.min_length:
            if self._hold is not None and t <= self._hold[0]:
                return self._plain(window, step, label(start), self._hold[1], self._hold[2], False)
            return self._plain(window, step, label(start), "uncertain",
                               f"only {length} point(s) since "
                               + ("the start" if not self.changes else f"the change at step {label(self._regime)}")
                               + f"; {self.min_length} are needed to judge", False)
        highest, lowest = float(window.max()), float(window.min())
        if highest != lowest and max(abs(highest), abs(lowest)) <= TINY_MAGNITUDE:
            return self._plain(window, step, label(start), "uncertain", tiny_reason(highest, lowest), False,
                               scale=math.nan, slope=(math.nan, math.nan))
        if highest == lowest:
            # right after a change (a run that reached a cap) its call holds, as for any change
            status, reason = (self._hold[1:] if self._hold is not None and t <= self._hold[0]
                              else ("stable", constant_reason(window, *self._recent_range(), self.ci,
                                                              self._unit)))
            return self._plain(window, step, label(start), status, reason, False, scale=0.0,
                               slope=(0.0, 0.0))
        sigma, g = self._noise(window)
        # rounding relative to the values' own size (an absolute floor of 1e-12 called every
        # window of 1e-20-sized values "exactly on a curve" and missed their changes)
        if sigma <= 1e-12 * max(abs(highest), abs(lowest)):
            return self._plain(window, step, label(start), "stable",
                               "the values lie exactly on a curve: no noise to judge", False)
        scale = sigma * math.sqrt(g)
        # the grid's lengths that fit, and the whole window itself (plus its half, for the
        # "does the trend go on?" check below)
        plan = self._plan(length)
        grid = plan.lengths
        sums = plan.sums(window)
        split_z, slopes, slope_t = plan.statistics(sums, scale, sigma)
        critical = self._critical(length, g)
        trend_t, limits, by_steps = self._trend_evidence(plan, sums, slopes, slope_t, critical)
        z_ci = self._interval_z(scale_dof(length, g))
        window_g = g  # the persistence the critical value was set for (g may be refined below)

        splittable = plan.splittable
        if plan.can_split:
            z = np.where(splittable, np.abs(split_z), 0.0)
            best = int(np.argmax(z))
            if z[best] > critical:
                return self._change(window, t, int(grid[best]), float(split_z[best]), sigma, step, label)
        run = self._improbable_run(window)
        if run is not None:
            return self._change(window, t, run[0], run[1], sigma, step, label, evidence=run[2])
        if self._hold is not None and t <= self._hold[0]:
            return self._plain(window, step, label(start), self._hold[1], self._hold[2], False,
                               scale=scale, z=z_ci, g=g)

        spans = plan.spans
        trend, unconfirmed, followed = self._current_trend(plan, slopes, trend_t, spans, limits, held)
        if trend is not None:
            self._trend_sign = int(np.sign(trend_t[trend]))
            span = int(grid[trend])
            status = self._verdict(trend_t[trend])
            evidence = f"{trend_evidence(trend_t, by_steps, trend)}, limit {fmt(limits[trend], 3)}"
            judged = trend
            if followed is not None:  # a climb called at the last step, followed on its half
                pace = "slower" if abs(slopes[trend]) < abs(slopes[followed]) else "faster"
                evidence = (f"{trend_evidence(trend_t, by_steps, trend)}, {pace} than over the last "
                            f"{int(grid[followed])} points: {trend_evidence(trend_t, by_steps, followed)}, "
                            f"limit {fmt(limits[followed], 3)}")
                judged = followed
            if abs(trend_t[judged]) <= limits[judged]:  # a call held below its limit (hysteresis)
                evidence += f"; called before, kept while above {fmt(HOLD_LIMIT_SHARE * limits[judged], 3)}"
            reason = (f"{'rising' if trend_t[trend] > 0 else 'falling'} by {fmt(abs(slopes[trend]), 3)} per point "
                      f"over the last {span} points ({evidence}): the window is the trend's span")
            return self._plain(window[-span:], step, label(t - span + 1), status, reason, False,
                               scale=scale, slope=(float(slopes[trend]), float(trend_t[trend])),
                               trend_level=True, z=z_ci, g=g)
        slow = self._slow_trend(t, scale, critical, step, label)
        if slow is not None:
            return slow

        # the level is read only from the recent part that shows no trend even at the nominal
        # level: older points from before a rise levelled off would bias the mean
        # (and whose recent half sits level with its first quarter, judged by their own
        # scatter: the window's scale is inflated by a rise's end that no quadratic follows)
        drift = plan.level_drift(sums, min(g, self._recent_g))
        # a window already stable keeps its points until a trend in them passes the stricter
        # level (hysteresis, as for a trend call)
        z_flat = self._z_hold if was_stable else self._z
        size = np.abs(slope_t)
        sloping = spans & (size > z_flat)
        flat = spans & ~sloping & (np.abs(drift) <= z_flat)
        # the most significant slope seen at the nominal level but short of the alarm limit:
        # named in an "uncertain" reason, not only the noise that keeps it from a call
        below_limit = sloping & (size <= critical) & (np.abs(trend_t) <= limits)
        seen = int(np.argmax(np.where(below_limit, size, -1.0))) if below_limit.any() else None
        if seen is not None and not flat.any() and (unconfirmed is None
                                                    or self.min_length >= int(grid[unconfirmed]) // 2):
            # no recent part is free of a trend, so no mean is the level now: a line's end is
            # (SB3's ep_rew_mean climbing 21 -> 187 read "level now 168.9", the mean of its
            # last 20 points, where the curve stood at 187) - the shortest span's, as a longer
            # line through a climb that slows ends above the curve
            shortest = int(np.flatnonzero(below_limit)[0])
            span = int(grid[shortest])
            seen_text = below_limit_clause(plan, slopes, slope_t, seen, critical, length, g)
            if unconfirmed is not None:  # a shorter span passed its limit, its half too short to confirm it
                seen_text = (unconfirmed_clause(plan, slopes, trend_t, unconfirmed, limits[unconfirmed], self._z,
                                                by_steps=by_steps) + "; " + seen_text)
            reason = ("no call yet: " + seen_text
                      + "; no recent part is free of it, so the level now is the end of "
                      + ("that line" if shortest == seen else f"the line through the last {span} points"))
            return self._plain(window[-span:], step, label(t - span + 1), "uncertain", reason, False,
                               scale=scale, slope=(float(slopes[shortest]), float(slope_t[shortest])),
                               trend_level=True, z=z_ci, g=g)
        available = int(grid[flat].max()) if flat.any() else self.min_length
        if self.min_length <= available < length:
            # that older shape is not the noise of the recent part whose mean is read here
            own = part_noise(window[-available:])
            if own[0] > 0:
                sigma, g = own
                scale = sigma * math.sqrt(g)
        precision = self.precision if self.precision is not None else DEFAULT_PRECISION_SDS * sigma
        needed = self._points_needed(sigma, g, precision)
        target = min(max(needed, self.min_length), self.max_length, available)
        chosen = window[-target:]
        own = self._own_scatter(chosen)
        if own is not None and self.precision is not None:
            # a precision in the metric's units asks for more points where the noise grew
            needed = self._points_needed(own, g, precision)
            target = min(max(needed, self.min_length), self.max_length, available)
            chosen = window[-target:]
            own = self._own_scatter(chosen)
        if own is not None:
            scale, z_ci = own * math.sqrt(g), self._interval_z(scale_dof(target, g))
        half_width = z_ci * scale / math.sqrt(target)
        if unconfirmed is not None and available < int(grid[unconfirmed]) // 2:
            # a trend beyond the alarm limit whose recent half did not confirm it, and too few
            # flat points to say it has levelled off: neither "stable" nor a trend is shown
            status, reason = "uncertain", unconfirmed_reason(plan, slopes, trend_t, unconfirmed,
                                                               limits[unconfirmed], target, half_width, self._z,
                                                               by_steps=by_steps)
        elif target >= needed:
            status, reason = "stable", (f"no trend or change beyond the alarm limit; the mean of the last "
                                        f"{target} points is known to +-{fmt(half_width, 3)}")
        elif needed > self.max_length:
            # independent values would get there: it is the persistence, not the scatter, that
            # keeps the level unknown (a plateau that creeps, a shape the quadratic misses)
            why = (f"the level wanders slowly (autocorrelation time {fmt(g, 3)})" if needed / g <= self.max_length
                   else "too noisy")
            status, reason = "uncertain", (f"{why}: even {self.max_length} points give only "
                                           f"+-{fmt(self._z * scale / math.sqrt(self.max_length), 3)} "
                                           f"(+-{fmt(precision, 3)} needs "
                                           f"{needed if needed < 10 ** 15 else 'more than 10^15'})"
                                           + also_seen_clause(plan, slopes, slope_t, seen, critical, length, window_g))
        elif available < length:
            status, reason = "uncertain", (f"+-{fmt(precision, 3)} needs {needed} points; only the last "
                                           f"{available} are free of a trend"
                                           + also_seen_clause(plan, slopes, slope_t, seen, critical, length, window_g))
        else:
            status, reason = "uncertain", (f"no trend or change yet; +-{fmt(precision, 3)} needs {needed} "
                                           f"points (autocorrelation time {fmt(g, 3)}), {length} so far")
        return self._plain(chosen, step, label(t - target + 1), status, reason, False, scale=scale, z=z_ci,
                           hedged=status == "uncertain" and seen is not None, g=g)

    def _slow_trend(self, t, scale, critical, step, label) -> WindowState | None:
        """A trend over more than the window - up to the whole regime - from its block means.

        Judged when a block completes (every ``max_length // 16`` points or more, so O(1)
        amortised) and held until the next one.  A span counts only if its slope passes both
        the window's noise scale and the block means' own scatter, and its recent half passes
        both too, the same way: a rise that has levelled off is history."""
        history = self._history
        if self._long_stale:
            self._long_stale = False
            self._long = None
            if history.points > self.max_length:
                means = history.means()
                best = None
                for blocks in span_blocks(history.count):
                    if blocks * history.block <= self.max_length:
                        continue  # the window's own tests cover it
                    whole = block_trend(means, blocks, history.block, scale)
                    half = block_trend(means, blocks // 2, history.block, scale)
                    if all(self._passes(fit, critical, whole.slope) for fit in (whole, half)) and (
                            best is None or abs(whole.t_scale) > abs(best.t_scale)):
                        best = whole
                self._long = best
        trend = self._long
        if trend is None:
            return None
        after = t - (history.start + history.points - 1)
        level, level_se = trend.level(after, scale)
        mean_half = self._z * scale / math.sqrt(trend.span)
        status = self._verdict(trend.slope)
        reason = (f"{'rising' if trend.slope > 0 else 'falling'} by {fmt(abs(trend.slope), 3)} per point over the "
                  f"last {trend.span} points (t = {fmt(trend.t_scale, 3)} against the noise, "
                  f"{fmt(trend.t_batch, 3)} against the scatter of its {trend.blocks} block means; the "
                  f"recent half too): a trend slower than the window")
        return WindowState(step=step, length=trend.span + after, start=label(t - trend.span - after + 1),
                           mean=trend.mean, ci_low=trend.mean - mean_half, ci_high=trend.mean + mean_half,
                           slope=trend.slope, slope_t=trend.t_scale, status=status, reason=reason,
                           change=False, level=level, level_low=level - self._z * level_se,
                           level_high=level + self._z * level_se)

    def _passes(self, fit, critical: float, direction: float) -> bool:
        """Both of a block line's t statistics beyond their limits, pointing along ``direction``."""
        limit = t_isf(self._tail, fit.blocks - 2)
        return (np.sign(fit.slope) == np.sign(direction) and abs(fit.t_scale) > critical
                and abs(fit.t_batch) > limit)

    def _trend_evidence(self, plan, sums, slopes, slope_t, critical):
        """(trend_t, limits, by_steps): each span's slope as a t against the window's noise
        scale (``slope_t``, limit ``critical``) or, where it is further beyond its own limit,
        against a random walk that steps as the span does (:meth:`RecentPlan.step_t`): a smooth
        curve's departure from the quadratic inflates the window's scale, and its steps are not
        fooled.  Only when some span's steps pass their limit does any span leave ``slope_t``."""
        step_t, step_limits = plan.step_t(sums, slopes), plan.step_limits(self._tail, t_isf)
        step_strength = np.abs(step_t) / step_limits
        if step_strength.max() <= 1.0:
            return slope_t, np.full(len(slope_t), critical), plan.nowhere
        by_steps = step_strength * critical > np.abs(slope_t)
        return np.where(by_steps, step_t, slope_t), np.where(by_steps, step_limits, critical), by_steps

    def _plan(self, length: int) -> RecentPlan:
        """The test plan for a window of ``length`` points: the grid's lengths that fit, the
        whole window and its half (for the "does the trend go on?" check), cached."""
        plan = self._plans.get(length)
        if plan is None:
            make = shared_plan if length <= SHARED_PLAN_LENGTH else recent_plan
            plan = self._plans[length] = make(length, self.max_length, self.min_length)
        return plan

    def _critical(self, length: int, g: float) -> float:
        """The alarm limit for a window of ``length`` points with autocorrelation time ``g``:
        Student's t on the degrees of freedom of the noise scale itself (:func:`scale_dof`).
        sigma*sqrt(g) is estimated from the window, and an autocorrelated window holds only
        ~length/g independent pieces of information about it: a normal quantile this far out
        would be badly optimistic, and at g ~ 20 on 500 points it made 31% of stationary
        AR(0.9) series false-alarm."""
        return t_isf(self._tail, scale_dof(length, g))

    def _interval_z(self, dof: int) -> float:
        """The intervals' quantile for a noise scale on ``dof`` degrees of freedom
        (:func:`scale_dof`): Student's t, as for the alarm limit (:meth:`_critical`).  The
        normal quantile left the level's 95% interval covering a stationary AR(0.9) series'
        mean in 69.5% of 400 series of 100 points and 91.7% of 300 points, and the end of a
        climb that levels off in 64% (docs/windows.md)."""
        return t_ppf(0.5 + self.ci / 2, dof)

    def _verdict(self, direction: float) -> str:
        """"improving" or "degrading" for a rise (direction > 0) or a fall; "rising" or
        "falling" when neither side is better."""
        rising = direction > 0
        if self.direction is None:
            return "rising" if rising else "falling"
        return "improving" if rising == (self.direction == "higher") else "degrading"

    def _current_trend(self, plan, slopes, slope_t, spans, limits, held=0):
        """(span, unconfirmed, followed): the span whose slope is most significant (furthest
        beyond its alarm limit, ``limits``) and still going on - the slope over its recent
        half points the same way at the nominal level, and does not differ from the span's
        own at that level.  A rise that has levelled off is history, not a current trend; a
        rise that is slowing (or speeding up) is judged on a shorter span, whose line ends
        where the curve is - the line through a whole concave climb ends above it.  ``span``
        is None if no span qualifies; ``unconfirmed`` is then the most significant span beyond
        its limit whose half did not confirm it (None if there is none).

        Hysteresis, for a trend called at the last step (``held``, its sign): spans pointing
        that way need only pass ``HOLD_LIMIT_SHARE`` of their limits; the half need only point
        the same way with t above ``HOLD_HALF_T``; and a climb whose pace changed is
        followed on its half when the half itself passes the stricter ``HOLD_LEVEL`` and the
        recent part of that half still points the same way (so a rise that stopped is not
        followed onto its plateau).  ``followed`` is then the span it was called on."""
        grid, position = plan.lengths, plan.position
        unconfirmed = None
        if held:
            limits = np.where(np.sign(slope_t) == held, limits * HOLD_LIMIT_SHARE, limits)
        for i in np.argsort(-np.where(spans, np.abs(slope_t) / limits, 0.0)):
            if not spans[i] or abs(slope_t[i]) <= limits[i]:
                return None, unconfirmed, None
            half = position.get(int(grid[i]) // 2)
            if half is None:
                return int(i), unconfirmed, None
            direction = np.sign(slope_t[i])
            holding = direction == held
            if (np.sign(slope_t[half]) != direction
                    or abs(slope_t[half]) <= (HOLD_HALF_T if holding else self._z)):
                unconfirmed = int(i) if unconfirmed is None else unconfirmed
                continue
            # the half's slope is nested in the span's: Var(difference) = Var(half) - Var(span)
            se_half, se_span = slopes[half] / slope_t[half], slopes[i] / slope_t[i]
            se_difference = math.sqrt(max(se_half * se_half - se_span * se_span, 0.0)) or se_half
            if abs(slopes[half] - slopes[i]) <= self._z * se_difference:
                return int(i), unconfirmed, None
            if holding and spans[half] and abs(slope_t[half]) > self._z_hold:
                shorter = np.flatnonzero(spans & (grid <= int(grid[half]) // 2))
                recent = int(shorter[-1]) if len(shorter) else None
                if recent is None or (np.sign(slope_t[recent]) == direction
                                      and abs(slope_t[recent]) > HOLD_HALF_T):
                    return int(half), unconfirmed, int(i)
            unconfirmed = int(i) if unconfirmed is None else unconfirmed
        return None, unconfirmed, None

    def _improbable_run(self, window: np.ndarray):
        """(span, z, evidence) when the window ends in a run of identical values that the
        points before it make improbable, else None.

        A score that reaches a cap and stays there (CartPole's 500, Pong's 21, a success rate
        at 1) has no noise left to shift its mean by many standard errors of the noise before
        it; the run itself is the evidence.  If the values before went on, each value repeats
        its predecessor at most at the upper confidence bound of how often this value (or,
        if it is new, any value) repeated there, so a run of k has chance at most that rate
        to the power k - 1 - judged against the same per-test tail as the other tests."""
        run = trailing_run(window)
        before = window[:-run]
        if run < self._grid[0] or len(before) < self.min_length:
            return None
        value = float(window[-1])
        shift = value - float(before.mean())
        if shift == 0:
            return None
        repeats, chances, own = repeat_counts(before, value)
        if repeats >= chances:
            return None  # it always repeated: no run of it is improbable
        if repeats and (run - 1) * math.log(repeats / chances) >= math.log(self._tail):
            return None  # not improbable even at the rate seen (the bound below is higher)
        key = ("repeat", repeats, chances)
        rate = self._criticals.get(key)
        if rate is None:
            rate = self._criticals[key] = beta_ppf(1.0 - self.alpha / 2, repeats + 1, chances - repeats)
        log_chance = (run - 1) * math.log(rate)
        if log_chance >= math.log(self._tail):
            return None
        chance = math.exp(log_chance)
        z = math.copysign(float(stats.norm.isf(max(chance, 1e-300) / 2)), shift)
        which = fmt(value) if own else "any value"
        evidence = (f"held at {fmt(value)} for {run} points; before, {which} repeated its predecessor "
                    f"{repeats} of {chances} times, so a run that long has chance < {fmt(chance, 2)}")
        return run, z, evidence

    def _change(self, window, t, span, z, sigma, step, label, evidence=None) -> WindowState:
        post, pre = window[-span:], window[:-span]
        # the shift against the level just before the change (the m points before it), or
        # against the whole past when that is what confirmed it; z carries the direction
        candidates = (float(post.mean() - pre[-span:].mean()), float(post.mean() - pre.mean()))
        shift = next((c for c in candidates if np.sign(c) == np.sign(z)), candidates[0])
        direction = "up" if z > 0 else "down"
        status = self._verdict(z)
        self._regime = t - span + 1
        self._history = BlockHistory(self._first_block, start=self._regime)
        for value in self._buffer[self._regime - self._base:t - self._base + 1]:
            self._history.add(float(value))
        self._long, self._long_stale = None, False
        self._scale = self._own = None  # re-estimate the noise on the new regime
        if evidence is None:
            evidence = f"{fmt(abs(shift) / sigma, 2)} noise SDs, z = {fmt(z, 3)}"
        reason = (f"level {'rose' if z > 0 else 'dropped'} by {fmt(abs(shift), 3)} "
                  f"({evidence}) at step {label(self._regime)}: the window is cut to the {span} points since")
        self.changes.append({"step": t, "start": self._regime, "direction": direction, "shift": shift,
                             "shift_sds": shift / sigma, "z": z})
        self._hold = (t + self.min_length, status,
                      f"level {'rose' if z > 0 else 'dropped'} by {fmt(abs(shift), 3)} at step "
                      f"{label(self._regime)}")
        if len(post) < 10:
            return self._plain(post, step, label(self._regime), status, reason, True)
        g = self._noise(post)[1]
        return self._plain(post, step, label(self._regime), status, reason, True,
                           scale=sigma * math.sqrt(g), z=self._interval_z(scale_dof(len(post), g)), g=g)

    def _points_needed(self, sigma: float, g: float, precision: float) -> float:
        """How many points give the mean's interval a half-width of ``precision``: g (z sigma /
        precision)^2 (a precision of 1e-300 asks for ~1e600 points, whose square overflowed)."""
        ratio = self._z * sigma / precision
        return math.ceil(g * ratio ** 2) if ratio < 1e100 else math.inf

    def _own_scatter(self, chosen: np.ndarray) -> float | None:
        """The SD of the points whose mean is the level, or None when they are too few (or
        all alike).  The window's noise scale pools up to ``max_length`` points since the last
        change, and a change of the noise's spread is no change of level: 100 points after the
        SD tripled, the pooled scale was 1.6 of the 3 the level's points had, and the level's
        interval held the mean in 68% of 400 fits (SD x 2: 81%); one that fell to a third kept
        intervals three times too wide.  Their own SD, with the window's autocorrelation time (too few points
        to estimate that again) and Student's t on their own degrees of freedom: 95-96% both
        ways (docs/windows.md).  Refreshed with the window's scale (every ~10% of the window):
        taken afresh at every step, the "known to +-x" of a stable window's reason took a new x
        at nearly every step, and the table's categorical reasons grew by 15%."""
        if self._own is None or self._since_refresh == 0:
            own = float(chosen.std(ddof=1)) if len(chosen) >= 3 else 0.0
            self._own = (own if own > 0 else None,)
        return self._own[0]

    def _noise(self, window: np.ndarray) -> tuple[float, float]:
        """(sigma, g) of the regime (:func:`shape_noise`), refreshed every ~10% of the window so
        the cost per update stays O(window)."""
        if self._scale is not None and self._since_refresh < max(5, len(window) // 10):
            return self._scale
        self._scale = shape_noise(window)
        # the recent half's own, for judging where the level stopped moving: a rise's end
        # that the quadratic misses inflates the whole window's g along with its sigma (from
        # min_length points: a jump that came as a ramp of 8 episodes, real DDPG Pendulum,
        # inflated a 40-point window's g until the ramp read as flat and the level as -279
        # where the last 33 episodes averaged -167)
        half = window[len(window) // 2:]
        self._recent_g = part_noise(half)[1] if len(half) >= self.min_length else self._scale[1]
        self._since_refresh = 0
        return self._scale

    def _recent_range(self) -> tuple[float, float]:
        """The smallest and largest of the last ``max_length`` values."""
        recent = self._buffer[max(0, self._used - self.max_length):self._used]
        return float(recent.min()), float(recent.max())

    def _streak_range(self) -> tuple[float, float]:
        """How far a departure from a streak could go: the range the stream took lately, and for
        a rate at least its bounds - a success rate held at 1 from the start can still fall to 0
        (60 successes of 60 read [1, 1], which held p = 0.97 the 16% of the time every one of
        60 episodes succeeded)."""
        low, high = self._recent_range()
        return (low, high) if self._unit is None else (min(low, self._unit[0]), max(high, self._unit[1]))

    def _plain(self, window, step, start, status, reason, change, *, scale=None, slope=None,
               trend_level=False, z=None, hedged=False, g=1.0) -> WindowState:
        """The state for ``window``; with ``trend_level`` the level now is its line's value at
        the last point (a rising window's mean lags the curve by half the span), else its mean;
        ``hedged`` widens the mean's level interval to reach the line's end too (a slope was
        seen at the nominal level: the mean of a slowly rising part lags it, yet taking the
        line's end as the level made it jump about on noise).  ``z``: the intervals' quantile for ``scale`` (default: Student's t on length - 1 degrees
        of freedom when the scale is the window's own SD, else the normal one).  ``g``: the
        autocorrelation time ``scale`` was made with (sigma * sqrt(g)), so the window holds
        ~length / g independent values."""
        length = len(window)
        mean = float(window.mean())
        if scale is None:
            scale = float(window.std(ddof=1)) if length > 1 else math.nan
            if z is None and length > 1:
                z = self._interval_z(length - 1)
        z = self._z if z is None else z
        half = z * scale / math.sqrt(length) if length > 1 else math.nan
        if slope is None:
            slope = (slope_and_t(window, scale) if length >= 3 and np.isfinite(scale) and scale > 0
                     else (math.nan, math.nan))
        level, level_half = mean, half
        low, high = float(window.min()), float(window.max())
        if trend_level:
            level, level_half = line_end(window, mean, slope[0], scale, z, g)
            if not low <= level <= high and length >= 2 * self.min_length:
                # the line's end overshoots every value in the window: a rise that is levelling
                # off (public SAC LunarLander and TD3 Humanoid curves: 318.8 where no episode
                # passed 314.3), or a steady climb whose last values repeat (SB3's printed
                # ep_rew_mean, 172 twice).  The line through the recent half follows the
                # curve's end ...
                recent = window[-(length // 2):]
                level, level_half = line_end(recent, float(recent.mean()),
                                                   slope_and_t(recent, scale)[0], scale, z, g)
            if not low <= level <= high:
                # ... unless it overshoots too: then the last quarter says where it is now - its
                # mean where it has levelled off, the end of its own line, held within the
                # values, where it still climbs clearly (a smooth GAN loss climbing 0.43 ->
                # 2.08 read "level now 1.99 [1.988, 1.995]", the last quarter's mean, 20 points
                # behind the curve)
                recent = window[-max(length // 4, 2):]
                level = float(recent.mean())
                level_half = z * scale / math.sqrt(len(recent))
                if len(recent) >= 3:
                    recent_slope, recent_t = slope_and_t(recent, scale)
                    if abs(recent_t) > self._z_hold and recent_slope * slope[0] > 0:
                        end, level_half = line_end(recent, level, recent_slope, scale, z, g)
                        level = min(max(end, low), high)
        level_low, level_high = level - level_half, level + level_half
        if hedged and np.isfinite(slope[0]):
            end, end_half = line_end(window, mean, slope[0], scale, z, g)
            level_low, level_high = min(level_low, end - end_half), max(level_high, end + end_half)
        # neither the mean nor the level now lies beyond every value in the window - once it
        # holds enough independent values that all of them falling on one side of the mean is
        # rare (a persistent window of 100 AR(0.95) points, ~5 effective, lay wholly on one
        # side of its mean often enough that the cut took the level's interval from 85% to 77%
        # coverage) ...
        effective = length / g
        ci_low, ci_high = within_range((mean - half, mean + half), low, high, effective, self.ci)
        level_low, level_high = within_range((level_low, level_high), low, high, effective, self.ci)
        if (ci_low < low or level_low < low or ci_high > high or level_high > high) and length >= 2:
            # ... or beyond an extreme value held more than once, the mark of a cap: Pong's 21
            # among a few 16s to 20s (24 points, ~8 effective) read [16.9, 22.9] uncut
            held = held_range(window, min_values=2)  # (a window's cap: shown on a short one too)
            ci_low, ci_high = within_range((ci_low, ci_high), *held)
            level_low, level_high = within_range((level_low, level_high), *held)
        ci_low, ci_high = within_bounds((ci_low, ci_high), self._unit)
        level_low, level_high = within_bounds((level_low, level_high), self._unit)
        if length >= 2 and low == high:
            # a constant stretch is a streak, not a measurement without error: departures as
            # far as the values the stream took lately are ruled out only up to a share
            (ci_low, ci_high), _ = streak_interval(mean, length, *self._streak_range(), self.ci)
            level_low, level_high = ci_low, ci_high
        return WindowState(step=step, length=length, start=start, mean=mean, ci_low=ci_low,
                           ci_high=ci_high, slope=slope[0], slope_t=slope[1], status=status,
                           reason=reason, change=change, level=level, level_low=level_low,
                           level_high=level_high)
