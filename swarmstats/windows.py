"""Adaptive evaluation windows: long when the score is noisy, short when it trends or changes.

A fixed window fails both ways: a short one calls an improving-but-oscillating
agent "degrading" during a normal dip; a long one reacts late to a real change.
:class:`AdaptiveWindow` keeps, at every step, the window that answers "where is
this score now, and where is it going?":

1. **Change**: the mean of the last m points is compared with the mean of the
   window before them, for every m on a grid (8, 12, 16, 24, ...).  When the
   difference exceeds ``c`` standard errors - the noise SD inflated by the
   integrated autocorrelation time - the window is cut to the post-change part.
2. **Trend**: the OLS slope over the last m points, for every m on the grid; a
   slope beyond ``c`` standard errors keeps the window to that span.
3. **Precision**: otherwise the window grows to n = g (z sigma / precision)^2
   points (within ``min_length``..``max_length``), the length at which the
   autocorrelation-aware interval of the mean reaches ``precision``.

``c`` is set so that the chance of any false change or trend call in
``horizon`` steps of a stationary series is at most ``alpha`` (a Bonferroni
bound over the grid and the steps; the real rate is far lower).  The noise
scale comes from the residuals of a quadratic fit to the current regime, so
neither a trend nor a rise that levels off counts as noise, while an
oscillation does (and keeps the tests modest).  Cost per update is
O(max_length), whatever the length of the stream.
"""

from __future__ import annotations

import functools
import math
from array import array
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd
from scipy import stats

from ._base import OnlineEstimator, Trace
from ._input.series import as_series
from ._kernels.autocorr import block_means, integrated_time
from ._kernels.distributions import beta_ppf
from ._kernels.history import BlockHistory, block_trend, span_blocks
from ._kernels.pooled_noise import line_residuals
from ._kernels.precision import (
    departure_share,
    mean_precision,
    streak_interval,
    within_range,
)
from ._kernels.shape_residuals import shape_residuals
from ._kernels.window_tests import (
    RecentPlan,
    length_grid,
    repeat_counts,
    slope_and_t,
    trailing_run,
)
from ._result import Result, fmt, fmt_interval, plain_number
from .direction import DIRECTIONS, sense
from .errors import (
    InputError,
    check_choice,
    check_count,
    check_level,
    check_positive,
    finite_number,
)

#: "rising" and "falling" are the trends of a diagnostic with no better side (a gradient norm,
#: an episode length: :func:`swarmstats.direction.guessed_direction`)
STATUSES = ("improving", "degrading", "rising", "falling", "stable", "uncertain")
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


@dataclass(frozen=True)
class WindowState:
    """The window after one update (see :class:`AdaptiveWindow`)."""

    step: float | int
    length: int
    start: float | int
    mean: float
    ci_low: float
    ci_high: float
    slope: float
    slope_t: float
    status: str
    reason: str
    change: bool
    level: float = math.nan       # where the curve is now: the trend line at this step, or the mean
    level_low: float = math.nan
    level_high: float = math.nan


class StateRecord:
    """Every :class:`WindowState` of a stream, kept column by column: numbers in growing float
    arrays, the status and reason as codes into their distinct values.  A list of the state
    objects themselves cost ~1 KB per step (a dict and a boxed float per field), and a string
    column ~100 B per step for the reason, although a long stream repeats a few hundred of them."""

    NUMBERS = ("step", "length", "start", "mean", "ci_low", "ci_high", "slope", "slope_t",
               "level", "level_low", "level_high")

    def __init__(self, capacity: int = 256):
        self._numbers = {name: Trace(capacity) for name in self.NUMBERS}
        self._status = bytearray()
        self._reason = array("i")
        self._reasons: dict = {}       # each distinct reason -> its code, in order of first use
        self._change = bytearray()

    def __len__(self) -> int:
        return len(self._status)

    def append(self, state: WindowState) -> None:
        for name, trace in self._numbers.items():
            trace.append(getattr(state, name))
        self._status.append(STATUSES.index(state.status))
        self._reason.append(self._reasons.setdefault(state.reason, len(self._reasons)))
        self._change.append(state.change)

    def frame(self, values: np.ndarray, *, handover: bool = False) -> pd.DataFrame:
        """One row per state, ``values`` (the series) beside the step, the columns in
        WindowState's order; whole-number steps, starts and lengths as integers (as the states
        hold them); the status and reason categorical (the status's categories are always
        :data:`STATUSES`).  ``handover=True`` gives the table the record's own arrays instead of
        copies: only for a record that is never appended to again (a finished ``fit``)."""
        columns = {}
        for name in (f.name for f in fields(WindowState)):
            if name in self._numbers:
                # one column at a time, so a fit's peak is its record plus one column
                numbers = self._numbers[name].release() if handover else self._numbers[name].values.copy()
                if name in ("step", "length", "start") and np.all(np.mod(numbers, 1) == 0):
                    numbers = numbers.astype(np.int64)
                columns[name] = numbers
            elif name == "status":
                codes = np.array(self._status, dtype=np.int8)  # a copy: the record may grow on
                columns[name] = pd.Categorical.from_codes(codes, categories=list(STATUSES))
            elif name == "reason":
                codes = np.array(self._reason, dtype=np.int32)
                columns[name] = pd.Categorical.from_codes(codes, categories=list(self._reasons))
            else:
                columns[name] = np.array(self._change, dtype=bool)
            if name == "step":
                columns["value"] = values
        return pd.DataFrame(columns, copy=False)


@dataclass(frozen=True, repr=False)
class WindowResult(Result):
    """Per-step window states of a whole series (``table``) and their summary."""

    name: str | None
    n: int
    table: pd.DataFrame
    changes: list
    status_counts: dict
    final_status: str
    final_reason: str
    min_length: int
    max_length: int
    precision: float | None
    alpha: float
    notes: list = field(default_factory=list)
    better: str | None = "higher"  # None: a diagnostic with no better side (rising / falling)
    #: steps per point: > 1 when the window followed the means of consecutive blocks of a
    #: longer series (:func:`window_input`)
    block: int = 1
    _values: np.ndarray | None = None

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.pop("table", None)
        return out

    def _span(self) -> str:
        if self.block == 1:
            return f"{self.n:,} points"  # (logged points: on an SB3 log 100 of them span 25,600 timesteps)
        return f"{self.n:,} points, each the mean of {self.block} steps"

    def summary(self) -> str:
        name = f"{self.name}: " if self.name else ""
        moving = ("rising", "falling") if self.better is None else ("improving", "degrading")
        shares = ", ".join(f"{status} {self.status_counts.get(status, 0) / self.n:.0%}"
                           for status in moving + ("stable", "uncertain"))
        side = "no better side" if self.better is None else f"{self.better} is better"
        last = self.table.iloc[-1]
        lines = [f"{name}now {self.final_status} - {self.final_reason}",
                 f"  level now {fmt_interval(last['level'], last['level_low'], last['level_high'])}; "
                 f"window {int(last['length'])} points, mean "
                 f"{fmt_interval(last['mean'], last['ci_low'], last['ci_high'])} ({side})",
                 f"  over {self._span()}: {shares}; {len(self.changes)} change(s)"]
        for change in self.changes[:10]:
            lines.append(f"  change at step {change['start']} (seen at {change['step']}): "
                         f"{change['direction']} by {fmt(abs(change['shift']), 3)} "
                         f"({fmt(abs(change['shift_sds']), 2)} noise SDs)")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

#: the bias of the long-run variance sigma^2 g estimated on a window of n points (residuals
#: of a quadratic, Geyer's sequence): E[estimate] ~ truth * (1 - LONG_RUN_BIAS * (g - 1) / n),
#: measured for AR(1) noise, phi 0.5-0.95, n = 100-500 (benchmarks/calibration_windows.py).
#: Fitting the window and estimating the autocorrelations both eat the slow part of the noise.
LONG_RUN_BIAS = 15.0
#: the largest correction applied: beyond it the window is too short to say how noisy it is
MAX_INFLATION = 2.0


def short_window_inflation(g: float, n: int) -> float:
    """The factor that undoes the measured downward bias of sigma^2 g on ``n`` points.

    At g ~ 20 on 500 points the estimate is ~40% low; on i.i.d. noise nothing changes.

    >>> short_window_inflation(1.0, 500)
    1.0
    >>> round(short_window_inflation(13.4, 500), 2)   # AR(0.9): estimated 13.4, truth 19
    1.59
    """
    return 1.0 / max(1.0 - LONG_RUN_BIAS * (g - 1.0) / n, 1.0 / MAX_INFLATION)


# Quantiles and test plans are shared by every window in the process: `fit` runs a fresh
# window each call, and refilling per-window caches (a scipy quantile ~150 us, a plan ~40 us,
# for each of ~100-500 lengths and degrees of freedom) cost ~15 us a step on 2,000-point fits.
@functools.lru_cache(maxsize=4096)
def _t_isf(tail: float, dof: int) -> float:
    return float(stats.t.isf(tail, dof))


@functools.lru_cache(maxsize=4096)
def _t_ppf(level: float, dof: int) -> float:
    return float(stats.t.ppf(level, dof))


#: plans for windows up to this long (the default max_length's) are shared, at most 600 of
#: them: the default window's ~500 plans hold ~5 MB (measured); a longer window keeps its own
#: plans, freed with it
SHARED_PLAN_LENGTH = 512


@functools.lru_cache(maxsize=600)
def _shared_plan(length: int, max_length: int, min_length: int) -> RecentPlan:
    return _recent_plan(length, max_length, min_length)


def _recent_plan(length: int, max_length: int, min_length: int) -> RecentPlan:
    """The test plan for a window of ``length`` points: the grid's lengths that fit, the whole
    window and its half (for the "does the trend go on?" check).  Read-only once made."""
    longest = length_grid(max_length)
    grid = np.unique(np.concatenate([longest[longest <= length], (length, length // 2)]))
    return RecentPlan(length, grid[grid >= longest[0]], min_length)


def scale_dof(length: int, g: float) -> int:
    """Degrees of freedom of a noise scale sigma*sqrt(g) estimated from ``length`` points with
    autocorrelation time ``g``: ~length/(2g) (a lag-window estimate of the long-run variance
    has ~1.5 n / bandwidth, and Geyer's sum reaches ~3 g; Priestley 1981, 6.2.4), at least 1.

    >>> scale_dof(500, 1.0), scale_dof(100, 10.4), scale_dof(20, 30.0)
    (250, 4, 1)
    """
    return max(int(length / (2.0 * g)), 1)


def _floored_time(residuals: np.ndarray) -> float:
    """The integrated autocorrelation time of ``residuals``, never below 1: an anti-correlated
    estimate on a short window would make every test bolder than the data allow."""
    g = float(integrated_time(residuals))
    return max(g, 1.0) if np.isfinite(g) else 1.0


def _memory_notes(regime: np.ndarray) -> list:
    """A note when the current regime's noise has long memory: the window's intervals assume
    the noise forgets within the window, and then they are too narrow."""
    if len(regime) < 200 or np.ptp(regime) == 0:
        return []
    precision = mean_precision(regime, float(integrated_time(regime)))
    if not precision.long_memory:
        return []
    return [f"long memory: {precision.memory_evidence()}, so the noise does not forget within "
            "a window; the level's interval is too narrow and the precision of a mean is uncertain"]


#: a window is replayed at every point up to this many (~150 us each) by the report and the
#: ``windows`` command; longer series are followed through the means of consecutive blocks
WINDOW_POINTS = 20_000


def window_input(series: pd.Series, points: int = WINDOW_POINTS) -> tuple:
    """(what a window follows, block length): the series itself up to ``points`` (0: any
    length); beyond, the means of consecutive blocks of ceil(n / points) steps, each at its
    last step (a short remainder at the start is dropped: the end of a run is what the window
    is about).  Replayed step by step, 10^6 steps would take ~3 minutes.

    >>> followed, block = window_input(pd.Series(range(50_000), dtype=float))
    >>> block, len(followed), int(followed.index[-1]), float(followed.iloc[-1])
    (3, 16666, 49999, 49998.0)
    """
    n = len(series)
    if not points or n <= points:
        return series, 1
    block = -(-n // points)
    means = block_means(series.to_numpy(), block)  # a remainder dropped at the start
    steps = series.index[n - len(means) * block + block - 1::block]
    return pd.Series(means, index=steps, name=series.name), block


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
        self._buffer = np.empty(2 * self.max_length)
        self._base = 0          # stream index of buffer[0]
        self._used = 0          # filled part of the buffer
        self.n = 0
        self._regime = 0        # stream index where the current regime starts
        self._scale = None      # (sigma, g) of the current regime, refreshed now and then
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
        notes += _memory_notes(values[self._regime:])
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
        if highest == lowest:
            # right after a change (a run that reached a cap) its call holds, as for any change
            status, reason = (self._hold[1:] if self._hold is not None and t <= self._hold[0]
                              else ("stable", self._constant_reason(window)))
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
                               scale=scale, z=z_ci)

        spans = plan.spans
        trend, unconfirmed, followed = self._current_trend(plan, slopes, slope_t, spans, critical, held)
        if trend is not None:
            self._trend_sign = int(np.sign(slope_t[trend]))
            span = int(grid[trend])
            status = self._verdict(slope_t[trend])
            limit = f"limit {fmt(critical, 3)}"
            if followed is not None:  # a climb called at the last step, followed on its half
                pace = "slower" if abs(slopes[trend]) < abs(slopes[followed]) else "faster"
                limit = (f"{pace} than over the last {int(grid[followed])} points, t = "
                         f"{fmt(slope_t[followed], 3)} against the {limit}")
            reason = (f"{'rising' if slope_t[trend] > 0 else 'falling'} by {fmt(abs(slopes[trend]), 3)} per point "
                      f"over the last {span} points (t = {fmt(slope_t[trend], 3)}, {limit}): the "
                      "window is the trend's span")
            return self._plain(window[-span:], step, label(t - span + 1), status, reason, False,
                               scale=scale, slope=(float(slopes[trend]), float(slope_t[trend])),
                               trend_level=True, z=z_ci)
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
        below_limit = sloping & (size <= critical)
        seen = int(np.argmax(np.where(below_limit, size, -1.0))) if below_limit.any() else None
        if seen is not None and not flat.any() and (unconfirmed is None
                                                    or self.min_length >= int(grid[unconfirmed]) // 2):
            # no recent part is free of a trend, so no mean is the level now: a line's end is
            # (SB3's ep_rew_mean climbing 21 -> 187 read "level now 168.9", the mean of its
            # last 20 points, where the curve stood at 187) - the shortest span's, as a longer
            # line through a climb that slows ends above the curve
            shortest = int(np.flatnonzero(below_limit)[0])
            span = int(grid[shortest])
            reason = ("no call yet: " + self._below_limit(plan, slopes, slope_t, seen, critical, length, g)
                      + "; no recent part is free of it, so the level now is the end of "
                      + ("that line" if shortest == seen else f"the line through the last {span} points"))
            return self._plain(window[-span:], step, label(t - span + 1), "uncertain", reason, False,
                               scale=scale, slope=(float(slopes[shortest]), float(slope_t[shortest])),
                               trend_level=True, z=z_ci)
        available = int(grid[flat].max()) if flat.any() else self.min_length
        if 2 * self.min_length <= available < length:
            # that older shape is not the noise of the recent part whose mean is read here
            own = self._part_noise(window[-available:])
            if own[0] > 0:
                sigma, g = own
                scale = sigma * math.sqrt(g)
        precision = self.precision if self.precision is not None else DEFAULT_PRECISION_SDS * sigma
        # a precision of 1e-300 asks for ~1e600 points, whose square overflowed
        ratio = self._z * sigma / precision
        needed = math.ceil(g * ratio ** 2) if ratio < 1e100 else math.inf
        target = min(max(needed, self.min_length), self.max_length, available)
        chosen = window[-target:]
        half_width = z_ci * scale / math.sqrt(target)
        if unconfirmed is not None and available < int(grid[unconfirmed]) // 2:
            # a trend beyond the alarm limit whose recent half did not confirm it, and too few
            # flat points to say it has levelled off: neither "stable" nor a trend is shown
            status, reason = "uncertain", self._unconfirmed_reason(plan, slopes, slope_t, unconfirmed,
                                                                    critical, target, half_width)
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
                                           + self._also_seen(plan, slopes, slope_t, seen, critical,
                                                             length, window_g))
        elif available < length:
            status, reason = "uncertain", (f"+-{fmt(precision, 3)} needs {needed} points; only the last "
                                           f"{available} are free of a trend"
                                           + self._also_seen(plan, slopes, slope_t, seen, critical,
                                                             length, window_g))
        else:
            status, reason = "uncertain", (f"no trend or change yet; +-{fmt(precision, 3)} needs {needed} "
                                           f"points (autocorrelation time {fmt(g, 3)}), {length} so far")
        return self._plain(chosen, step, label(t - target + 1), status, reason, False, scale=scale, z=z_ci,
                           hedged=status == "uncertain" and seen is not None)

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
        limit = _t_isf(self._tail, fit.blocks - 2)
        return (np.sign(fit.slope) == np.sign(direction) and abs(fit.t_scale) > critical
                and abs(fit.t_batch) > limit)

    def _plan(self, length: int) -> RecentPlan:
        """The test plan for a window of ``length`` points: the grid's lengths that fit, the
        whole window and its half (for the "does the trend go on?" check), cached."""
        plan = self._plans.get(length)
        if plan is None:
            make = _shared_plan if length <= SHARED_PLAN_LENGTH else _recent_plan
            plan = self._plans[length] = make(length, self.max_length, self.min_length)
        return plan

    def _critical(self, length: int, g: float) -> float:
        """The alarm limit for a window of ``length`` points with autocorrelation time ``g``:
        Student's t on the degrees of freedom of the noise scale itself (:func:`scale_dof`).
        sigma*sqrt(g) is estimated from the window, and an autocorrelated window holds only
        ~length/g independent pieces of information about it: a normal quantile this far out
        would be badly optimistic, and at g ~ 20 on 500 points it made 31% of stationary
        AR(0.9) series false-alarm."""
        return _t_isf(self._tail, scale_dof(length, g))

    def _interval_z(self, dof: int) -> float:
        """The intervals' quantile for a noise scale on ``dof`` degrees of freedom
        (:func:`scale_dof`): Student's t, as for the alarm limit (:meth:`_critical`).  The
        normal quantile left the level's 95% interval covering a stationary AR(0.9) series'
        mean in 69.5% of 400 series of 100 points and 91.7% of 300 points, and the end of a
        climb that levels off in 64% (docs/windows.md)."""
        return _t_ppf(0.5 + self.ci / 2, dof)

    def _verdict(self, direction: float) -> str:
        """"improving" or "degrading" for a rise (direction > 0) or a fall; "rising" or
        "falling" when neither side is better."""
        rising = direction > 0
        if self.direction is None:
            return "rising" if rising else "falling"
        return "improving" if rising == (self.direction == "higher") else "degrading"

    def _current_trend(self, plan, slopes, slope_t, spans, critical, held=0):
        """(span, unconfirmed, followed): the span whose slope is most significant (beyond the
        critical value) and still going on - the slope over its recent half points the same
        way at the nominal level, and does not differ from the span's own at that level.  A
        rise that has levelled off is history, not a current trend; a rise that is slowing
        (or speeding up) is judged on a shorter span, whose line ends where the curve is - the
        line through a whole concave climb ends above it.  ``span`` is None if no span
        qualifies; ``unconfirmed`` is then the most significant span beyond the critical value
        whose half did not confirm it (None if there is none).

        Hysteresis, for a trend called at the last step (``held``, its sign): the half need
        only point the same way with t above ``HOLD_HALF_T``; and a climb whose pace changed is
        followed on its half when the half itself passes the stricter ``HOLD_LEVEL`` and the
        recent part of that half still points the same way (so a rise that stopped is not
        followed onto its plateau).  ``followed`` is then the span it was called on."""
        grid, position = plan.lengths, plan.position
        unconfirmed = None
        for i in np.argsort(-np.abs(np.where(spans, slope_t, 0.0))):
            if not spans[i] or abs(slope_t[i]) <= critical:
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

    def _unconfirmed_reason(self, plan, slopes, slope_t, span_index, critical, target, half_width) -> str:
        span = int(plan.lengths[span_index])
        t_span, t_half = float(slope_t[span_index]), float(slope_t[plan.position[span // 2]])
        moving = "rising" if t_span > 0 else "falling"
        if np.sign(t_half) != np.sign(t_span):
            recent = f"not shown to go on: the last {span // 2} slope the other way"
        elif abs(t_half) > self._z:
            recent = (f"slowing: the last {span // 2} are {moving} by "
                      f"{fmt(abs(slopes[plan.position[span // 2]]), 3)} per point (t = {fmt(t_half, 3)})")
        else:
            recent = f"not shown to go on: the last {span // 2} give t = {fmt(t_half, 3)}"
        return (f"{moving} by {fmt(abs(slopes[span_index]), 3)} per point over the last {span} "
                f"points (t = {fmt(t_span, 3)}, limit {fmt(critical, 3)}), but {recent} - it may "
                f"be levelling off; the mean of the last {target} points is known to "
                f"+-{fmt(half_width, 3)}")

    def _also_seen(self, plan, slopes, slope_t, seen, critical, length, g) -> str:
        """"; " and :meth:`_below_limit`'s clause for span ``seen`` ("" if it is None)."""
        return "" if seen is None else "; " + self._below_limit(plan, slopes, slope_t, seen, critical, length, g)

    def _below_limit(self, plan, slopes, slope_t, seen, critical, length, g) -> str:
        """"the last m points rose by ... (t = ...), short of the alarm limit ..." for the
        grid span ``seen``, whose slope passes the nominal level but not the alarm limit.

        On a short, persistent series the alarm limit is far out - Student's t on ~length/(2g)
        degrees of freedom, at a tail spent over the horizon - and a clear climb can stay below
        it: SB3's ``rollout/ep_rew_mean`` (a running mean of 100 episodes, g ~ 10) rising from
        21 to 187 over 100 logs read only "the level wanders slowly".  The climb is named
        with its limit and why the limit is where it is, so the reader knows what was seen
        and that more points would settle it."""
        span, t_value = int(plan.lengths[seen]), float(slope_t[seen])
        clause = (f"the last {span} points {'rose' if t_value > 0 else 'fell'} by "
                  f"{fmt(abs(slopes[seen]), 3)} per point (t = {fmt(t_value, 3)}), short of the "
                  f"alarm limit {fmt(critical, 3)}")
        if g >= 2:
            clause += (f" that {length} points with autocorrelation time {fmt(g, 3)} (~"
                       f"{max(int(length / g), 1)} independent values) set")
        return clause

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
        self._scale = None  # re-estimate the noise on the new regime
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
                           scale=sigma * math.sqrt(g), z=self._interval_z(scale_dof(len(post), g)))

    def _noise(self, window: np.ndarray) -> tuple[float, float]:
        """(sigma, g) of the residuals of a quadratic fit to the regime (and of a step, when
        the window holds one), refreshed every ~10% of the window so the cost per update
        stays O(window)."""
        if self._scale is not None and self._since_refresh < max(5, len(window) // 10):
            return self._scale
        # residuals of a quadratic: a trend, and a rise that levels off, are not noise; an
        # oscillation stays in them and keeps the tests modest.  A level shift inside the
        # window is taken out too when it earns its place (shape_residuals): left in, it
        # inflated the scale and the alarm limit until the shift itself was never called
        residuals = shape_residuals(window)
        sigma = float(residuals.std(ddof=3)) if len(window) > 3 else 0.0
        g = _floored_time(residuals) if sigma > 0 else 1.0
        self._scale = (sigma, g * short_window_inflation(g, len(window)))
        # the recent half's own, for judging where the level stopped moving: a rise's end
        # that the quadratic misses inflates the whole window's g along with its sigma
        half = window[len(window) // 2:]
        self._recent_g = self._part_noise(half)[1] if len(half) >= 2 * self.min_length else self._scale[1]
        self._since_refresh = 0
        return self._scale

    def _part_noise(self, part: np.ndarray) -> tuple[float, float]:
        """(sigma, g) of the residuals of ``part`` about its own line, g corrected for the
        part's length as the window's own is."""
        residuals = line_residuals(part)
        sigma = float(np.sqrt(residuals @ residuals / (len(part) - 2)))
        if sigma == 0:
            return 0.0, 1.0
        g = _floored_time(residuals)
        return sigma, g * short_window_inflation(g, len(part))

    def _recent_range(self) -> tuple[float, float]:
        """The smallest and largest of the last ``max_length`` values."""
        recent = self._buffer[max(0, self._used - self.max_length):self._used]
        return float(recent.min()), float(recent.max())

    def _constant_reason(self, window: np.ndarray) -> str:
        low, high = self._recent_range()
        if low == high:
            return "every value is the same"
        return (f"held at {fmt(window[-1])} for the last {len(window)} points: departures in up to "
                f"{departure_share(len(window), self.ci):.1%} of points are not ruled out (the values "
                f"lately ran from {fmt(low)} to {fmt(high)})")

    def _line_end(self, window, mean: float, slope: float, scale: float, z: float) -> tuple[float, float]:
        """(value, half-width) of the line through ``window`` at its last point:
        Var = scale^2 (1/m + ((m-1)/2)^2 / Sxx) ~ 4 scale^2 / m for m points."""
        length = len(window)
        end = (length - 1) / 2.0
        sxx = length * (length * length - 1.0) / 12.0
        return mean + slope * end, z * scale * math.sqrt(1.0 / length + end * end / sxx)

    def _plain(self, window, step, start, status, reason, change, *, scale=None, slope=None,
               trend_level=False, z=None, hedged=False) -> WindowState:
        """The state for ``window``; with ``trend_level`` the level now is its line's value at
        the last point (a rising window's mean lags the curve by half the span), else its mean;
        ``hedged`` widens the mean's level interval to reach the line's end too (a slope was
        seen at the nominal level: the mean of a slowly rising part lags it, yet taking the
        line's end as the level made it jump about on noise).  ``z``: the intervals' quantile for ``scale`` (default: Student's t on length - 1 degrees
        of freedom when the scale is the window's own SD, else the normal one)."""
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
            level, level_half = self._line_end(window, mean, slope[0], scale, z)
            if not low <= level <= high and length >= 2 * self.min_length:
                # the line's end overshoots every value in the window: a rise that is levelling
                # off (public SAC LunarLander and TD3 Humanoid curves: 318.8 where no episode
                # passed 314.3), or a steady climb whose last values repeat (SB3's printed
                # ep_rew_mean, 172 twice).  The line through the recent half follows the
                # curve's end ...
                recent = window[-(length // 2):]
                level, level_half = self._line_end(recent, float(recent.mean()),
                                                   slope_and_t(recent, scale)[0], scale, z)
            if not low <= level <= high:
                # ... unless it overshoots too: then the last quarter's mean says where it is now
                recent = window[-max(length // 4, 2):]
                level = float(recent.mean())
                level_half = z * scale / math.sqrt(len(recent))
        level_low, level_high = level - level_half, level + level_half
        if hedged and np.isfinite(slope[0]):
            end, end_half = self._line_end(window, mean, slope[0], scale, z)
            level_low, level_high = min(level_low, end - end_half), max(level_high, end + end_half)
        # neither the mean nor the level now lies beyond every value in the window (a capped
        # score's interval stops at its cap)
        ci_low, ci_high = within_range((mean - half, mean + half), low, high)
        level_low, level_high = within_range((level_low, level_high), low, high)
        if length >= 2 and low == high:
            # a constant stretch is a streak, not a measurement without error: departures as
            # far as the values the stream took lately are ruled out only up to a share
            (ci_low, ci_high), _ = streak_interval(mean, length, *self._recent_range(), self.ci)
            level_low, level_high = ci_low, ci_high
        return WindowState(step=step, length=length, start=start, mean=mean, ci_low=ci_low,
                           ci_high=ci_high, slope=slope[0], slope_t=slope[1], status=status,
                           reason=reason, change=change, level=level, level_low=level_low,
                           level_high=level_high)
