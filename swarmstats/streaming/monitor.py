"""``Monitor``: the live view of a training run, for callbacks and loops.

``log(step, **metrics)`` feeds each metric to a streaming convergence check
(:class:`ConvergenceMonitor`) on the steps it was logged at (slopes per 100 of them, as
``check_convergence`` reads a log with that step axis) and, optionally, an :class:`AdaptiveWindow`;
``should_stop`` says when the chosen metric has converged.  Values may be
floats, ints, numpy scalars, 0-d tensors (anything with ``.item()``) or None
(a window with no valid value, as TRL logs); non-finite values are skipped and
counted.  A metric whose latest values are all NaN or infinite (none finite since the first
of them) is a run that diverged: its verdict is ``not_converged`` with the reason, until a
finite value comes again (a NaN once, then numbers, is a value not there) - unless the metric
had as many non-finite values in a row before and went on: a skipped step, as fp16/AMP logs
``grad_norm`` where the gradients overflowed (``select_metric`` reads a log's end so).  The trainer
adapters in :mod:`swarmstats.integrations` are thin layers over this class.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._base import Estimator, renamed_names, same_value
from .._result import Result, fmt, fmt_interval, plain_number
from ..convergence.endings import with_divergence
from ..convergence.improvement import (
    NO_IMPROVEMENT,
    no_improvement_note,
    worse_than_best_note,
)
from ..convergence.reasons import diverged_text
from ..convergence.step_axis import check_budget
from ..direction import is_measurement_name
from ..errors import InputError, check_choice, check_count, is_real
from ..io.columns import (
    bookkeeping_by_name,
    counter_shaped,
    left_out_text,
    timed_or_counted,
)
from ..io.runs import normalise
from ..io.written_nan import nonfinite_kind
from ..sentinels import is_undefined
from ..windows import AdaptiveWindow
from .convergence_monitor import ConvergenceMonitor

CHECKS = ("convergence", "window")
STOP_RULES = ("all", "any")
#: why a metric whose values so far are a counter's is not in the status (see Monitor._counter_so_far)
COUNTER_SO_FAR = "a counter: integers rising at nearly every step so far"


def verdict_level(result) -> dict:
    """What a verdict (a :class:`~swarmstats.convergence.result.ConvergenceResult`) says of
    the level: its mean after the warm-up, that mean's interval and the values set aside -
    the numbers ``check_convergence`` reports, beside the stream's running mean."""
    return {"level": result.mean, "level_ci": tuple(result.ci), "warmup": result.warmup}


def level_text(entry: dict) -> str:
    """A status entry's level as the status lines tell it: the latest verdict's mean after
    its warm-up with its interval, where a verdict gave one ("mean 3.697 [3.451, 3.942] after
    102 warm-up values"), else the running mean of every value, named so.  A running mean
    counts the warm-up: on a run that climbed 0 -> 4 and holds near 3.7 it read 2.78."""
    level, (low, high) = entry.get("level", math.nan), entry.get("level_ci", (math.nan, math.nan))
    if not all(map(math.isfinite, (level, low, high))):
        return f"running mean {fmt(entry['mean'])}"
    warmup = entry.get("warmup") or 0
    return f"mean {fmt_interval(level, low, high)}" + (f" after {warmup:,} warm-up values" if warmup else "")


@dataclass(frozen=True, repr=False)
class MonitorStatus(Result):
    """Every tracked metric now (see :attr:`Monitor.status`)."""

    steps: int
    metrics: dict
    stop_metric: str | None
    should_stop: bool
    skipped: dict = field(default_factory=dict)
    stop_metrics: list = field(default_factory=list)
    stop_when: str = "all"
    budget: float | None = None  # the step the run ends at, when known
    #: whether a stop needs the log to show an improvement (see :class:`Monitor`)
    require_improvement: bool = True
    #: metrics logged but not tracked: bookkeeping by name (without ``metrics=``), and why
    left_out: dict = field(default_factory=dict)

    def summary(self) -> str:
        names = self.stop_metrics or ([self.stop_metric] if self.stop_metric else [])
        rule = (f"stop on {names[0]}" if len(names) == 1 else
                f"stop when {self.stop_when} of {', '.join(names)} converged")
        if self.budget is not None:
            rule += f" (flat up to step {plain_number(self.budget):,})"
        held = [name for name in names if self.metrics.get(name, {}).get("improvement_shown") is False]
        waiting = ("not yet" if not held or not self.require_improvement else
                   f"not yet ({', '.join(held)} converged, but {NO_IMPROVEMENT}: a level held from "
                   "the start is no reason to stop; require_improvement=False stops on it)")
        lines = [f"{self.steps} log call(s); " + (f"{rule}: {'yes' if self.should_stop else waiting}"
                                                   if names else "no stop rule")]
        for name, entry in self.metrics.items():
            window = f"; window {entry['window_status']}" if entry.get("window_status") else ""
            checked = entry.get("checked_at")
            at = ("" if entry.get("diverged") else  # the values say it, no check needed
                  f" (checked at {checked:,} values)" if checked and checked != entry["n"] else
                  " (not checked yet)" if checked == 0 else "")
            lines.append(f"  {name}: n {entry['n']}, {level_text(entry)}, {entry['verdict']}{at}{window}")
            if entry.get("reason"):
                lines.append(f"    {entry['reason']}")
            if entry.get("worse_than_best"):
                lines.append(f"    {entry['worse_than_best']}")
        for name, count in self.skipped.items():
            lines.append(f"  {name}: {count} non-finite value(s) skipped")
        if self.left_out:
            lines.append("  not tracked, as bookkeeping (name one in metrics=, or with -m, to track it): "
                         + left_out_text(self.left_out))
        return "\n".join(lines)


class Monitor(Estimator):
    """Track metrics as they are logged and decide when to stop.

    Parameters (keyword-only)
    -------------------------
    metrics : list of str, optional
        The metrics to track (default: every numeric metric logged, except bookkeeping by name -
        a step axis, clock, counter, throughput, schedule or system measurement such as
        ``epoch``, ``learning_rate``, ``train_runtime``, as the commands leave them out; listed
        in the status as not tracked).
    checks : tuple, default ("convergence",)
        ``"convergence"`` (streaming verdict) and/or ``"window"`` (adaptive window status).
    stop_on : str or list of str, optional
        The metric(s) whose convergence sets ``should_stop``; default the first of ``metrics``.
    stop_when : {"all", "any"}, default "all"
        With several ``stop_on`` metrics: stop when all of them are shown converged, or when
        any one is.  "all" needs no correction - a wrong stop needs every flatness claim
        wrong, so its chance is at most the largest one's, alpha (an intersection-union
        test).  "any" stops on the first claim of k, so each metric's flatness claims are
        made at alpha / k (Bonferroni) and a wrong stop stays below alpha.
    min_steps : int, default 100
        ``should_stop`` stays False before this many values of the stop metric.
    require_improvement : bool, default True
        ``should_stop`` also needs the log to show an improvement: a stop metric whose start
        is no worse than its level (a win rate at 0 from the first value, a reward flat before
        a sparse task's take-off) is converged, but stopping there would end a run before it
        learned anything (docs/convergence.md, "no improvement shown").  False stops on any
        converged verdict (an evaluation of a trained agent, flat by design).
    confirmations : int, default 1
        ``should_stop`` needs the verdict "converged" at this many consecutive checks.  The
        checks' flatness claims are already anytime-valid (alpha spent over the looks, see
        :class:`ConvergenceMonitor`); more confirmations only delay the stop.
    budget : float, optional
        The step the run is planned to end at, in the units of ``log``'s ``step`` (a
        trainer's ``max_steps``; the trainer adapters read it from the trainer).  Each check
        then claims flatness up to it, so a stop means that training on to the end would
        change the mean by less than the tolerance - not only over the next stretch as long
        as the part kept.  A metric judged on positions (see :meth:`_add`) gets its remaining
        values from the spacing of the steps it was logged at.  Without it a slow climb can be stopped where it is flat
        over its own horizon but not over the rest of the run (docs/convergence.md).
    **convergence_options
        Passed to :class:`ConvergenceMonitor` (``alpha``, ``tolerance``, ``precision``,
        ``check_every``, ``growth``, ``step_unit`` - what a step of ``log`` is called in the
        reasons, "timesteps" for SB3's ``num_timesteps`` ...).

    >>> monitor = Monitor(metrics=["reward"], check_every=200)
    >>> rng = np.random.default_rng(0)
    >>> for step in range(2000):  # a climb to 0.5 over 300 steps, then a plateau
    ...     monitor.log(step, reward=0.5 * min(step / 300, 1.0) + 0.05 * rng.normal(), loss=None)
    >>> monitor.should_stop
    True
    """

    def __init__(self, *, metrics=None, checks=("convergence",), stop_on=None, stop_when: str = "all",
                 min_steps: int = 100, confirmations: int = 1, budget: float | None = None,
                 require_improvement: bool = True, **convergence_options):
        self.metrics = None if metrics is None else [str(m) for m in metrics]
        self.checks = (checks,) if isinstance(checks, str) else tuple(checks)
        self.stop_on = stop_on if stop_on is None or isinstance(stop_on, str) else [str(m) for m in stop_on]
        self.stop_when = stop_when
        self.min_steps = min_steps
        self.confirmations = confirmations
        self.budget = budget
        self.require_improvement = require_improvement
        # validates the options now, not at the first log; each metric gets a clone
        self._template = ConvergenceMonitor(**convergence_options)
        self._validate()
        self.reset()

    def _validate(self) -> None:
        for check in self.checks:
            check_choice("checks", check, CHECKS)
        check_choice("stop_when", self.stop_when, STOP_RULES)
        if isinstance(self.stop_on, list) and not self.stop_on:
            raise InputError("stop_on: give at least one metric (or None for the first of metrics)")
        untracked = [m for m in self.stop_metrics if self.metrics is not None and m not in self.metrics]
        if untracked:
            raise InputError(f"stop_on: {', '.join(untracked)} not among the tracked metrics "
                             f"({', '.join(self.metrics)})")
        check_count("min_steps", self.min_steps)
        check_count("confirmations", self.confirmations)
        if not isinstance(self.require_improvement, (bool, np.bool_)):
            raise InputError(f"require_improvement must be True or False, got {self.require_improvement!r}")
        check_budget(self.budget, self._template.test.horizon)

    def get_params(self) -> dict:
        template = self._template.get_params()
        defaults = ConvergenceMonitor._parameter_defaults()
        passed = {name: value for name, value in template.items() if not same_value(value, defaults[name])}
        return {**{name: getattr(self, name) for name in self._parameter_names()}, **passed}

    @classmethod
    def _parameter_defaults(cls) -> dict:
        return {**super()._parameter_defaults(), **ConvergenceMonitor._parameter_defaults()}

    def reset(self) -> None:
        """Forget every logged value; the configuration stays."""
        self._streams: dict = {}
        self._windows: dict = {}
        self._window_states: dict = {}
        self._steps: dict = {}
        self._on_axis: dict = {}  # metric -> whether its steps so far are a step axis
        self._skipped: dict = {}
        self._left_out: dict = {}  # bookkeeping by name, not tracked (without metrics=)
        self._diverged: dict = {}  # metric -> its non-finite values since its last finite one
        self._longest_skip: dict = {}  # metric -> the most non-finite values in a row it went on after
        self.calls = 0

    @property
    def stop_metrics(self) -> list:
        """The metrics whose convergence sets ``should_stop`` (see ``stop_when``)."""
        if self.stop_on is not None:
            return [self.stop_on] if isinstance(self.stop_on, str) else list(self.stop_on)
        return self.metrics[:1] if self.metrics else []

    @property
    def stop_metric(self) -> str | None:
        """The first of :attr:`stop_metrics` (the only one unless several were given)."""
        names = self.stop_metrics
        return names[0] if names else None

    def _new_stream(self, name: str) -> ConvergenceMonitor:
        """A metric's streaming check; under ``stop_when="any"`` a stop metric's flatness claims
        are made at alpha / k, k the number of stop metrics."""
        names = self.stop_metrics
        if self.stop_when == "any" and len(names) > 1 and name in names:
            test = self._template.test
            level = test.equivalence_alpha if test.equivalence_alpha is not None else test.alpha
            return self._template.clone(equivalence_alpha=level / len(names), name=name)
        return self._template.clone(name=name)

    def log(self, step, **metrics) -> None:
        """Record the values logged at ``step`` (None and non-finite values are skipped, and so
        is a value that means "undefined": TRL's 0 for a terminated length, :mod:`swarmstats.sentinels`)."""
        self.calls += 1
        for name, raw in metrics.items():
            if self.metrics is not None and name not in self.metrics:
                continue
            if self.metrics is None and name not in self._streams and self._bookkeeping(name, raw):
                continue
            value = _number(raw)
            if value is None or is_undefined(name, value):
                continue
            if not math.isfinite(value):
                self._skipped[name] = self._skipped.get(name, 0) + 1
                since = self._diverged.setdefault(name, {"step": step, "values": 0, "infinite": 0})
                since["values"] += 1
                since["infinite"] += math.isinf(value)
                since["last"] = step
                continue
            skipped = self._diverged.pop(name, None)  # a finite value again: what came before was a gap
            if skipped is not None:
                self._longest_skip[name] = max(self._longest_skip.get(name, 0), skipped["values"])
            self._add(name, step, value)

    def _bookkeeping(self, name: str, raw) -> bool:
        """Whether ``name``, logged while every metric is tracked, is bookkeeping by its name
        (a Trainer's epoch and learning_rate read "not converged" beside the loss) - a
        counter's name holding seconds (``raw``, its first value, a fraction) a clock, as in a
        table; noted in the status.  A stop metric is tracked whatever its name."""
        if name in self._left_out:
            return True
        why = None if name in self.stop_metrics else timed_or_counted(
            bookkeeping_by_name(name), normalise(name), lambda: _counts(_number(raw)))
        if why is not None:
            self._left_out[name] = why
        return why is not None

    def _counter_so_far(self, name: str, stream) -> bool:
        """Whether ``name``, tracked while every metric is (no ``metrics=``) and no stop metric,
        has so far logged what a table's counter column holds (:func:`~swarmstats.io.columns.counter_shaped`):
        left out of the status, as ``check_convergence`` leaves such a column out of a log.  A
        BenchMARL ``epoch_n`` (1, 2, ... 26) read "not converged: still improving" in ``watch``
        and failed its gate.  Judged again at every status: a metric that stops rising by one
        at each step is tracked from then on."""
        return (self.metrics is None and name not in self.stop_metrics and not self._is_diverged(name)
                and not is_measurement_name(name) and counter_shaped(stream.values))

    def _is_diverged(self, name: str) -> bool:
        """Whether ``name``'s latest values are non-finite, more of them in a row than it ever
        went on after (fewer are one more skipped step)."""
        since = self._diverged.get(name)
        return since is not None and since["values"] > self._longest_skip.get(name, 0)

    def forget_from(self, step: float, *, redone=None) -> int:
        """Forget every value logged at ``step`` or later (a run resumed from its checkpoint at
        ``step`` logs them again: :mod:`swarmstats.io.resumed`); the values before are kept and
        the checks start over on them.  Returns how many values were forgotten.

        ``redone``: the metrics the resumed run logs again *at* ``step`` (verl's checkpoint holds
        the model after that step's update, and the resumed run only validates there): their
        values at ``step`` are forgotten, the other metrics keep theirs and lose only the later
        ones.  None: every metric is logged again from ``step``.

        >>> monitor = Monitor(check_every=100)
        >>> for s in range(300):
        ...     monitor.log(s, reward=0.5)
        >>> monitor.forget_from(200), monitor.status.metrics["reward"]["n"]
        (100, 200)
        >>> monitor.log(199, val=0.4)
        >>> monitor.forget_from(150, redone={"val"}), monitor.status.metrics["reward"]["n"]
        (50, 151)
        """
        forgotten = 0
        for name in list(self._streams):
            steps = self._steps[name]
            again = redone is None or name in redone
            kept = next((i for i, s in enumerate(steps)
                         if is_real(s) and (float(s) >= step if again else float(s) > step)), len(steps))
            if kept == len(steps):
                continue
            forgotten += len(steps) - kept
            self._replay(name, kept)
        for name, since in list(self._diverged.items()):
            if is_real(since["step"]) and float(since["step"]) >= step:
                del self._diverged[name]
        return forgotten

    def _replay(self, name: str, kept: int, on_axis: bool | None = None) -> None:
        """Start ``name``'s checks over on its first ``kept`` values (``on_axis``: whether they
        are judged on their steps; None: as their steps allow)."""
        steps, values = self._steps[name][:kept], self._streams[name].values[:kept].copy()
        del self._streams[name]
        self._windows.pop(name, None)
        self._window_states.pop(name, None)
        self._steps[name] = []
        self._on_axis.pop(name, None)
        if on_axis is not None:
            self._on_axis[name] = on_axis
        for s, value in zip(steps, values):  # replayed: the budget and the window follow each step
            self._add(name, s, float(value))

    def _add(self, name: str, step, value: float) -> None:
        """One finite value of ``name`` into its checks (what :meth:`log` does after its tests).

        A metric whose steps are increasing numbers is judged on them, as
        ``check_convergence`` judges a log with that step axis: slopes per 100 steps, horizons
        and a budget in steps.  (Judged on positions, a metric logged every 2,048 steps
        reported its slope per 100 log calls and called it "per 100 steps".)  A step that is
        missing, not a number, or not after the last (a restart; two episodes ending at one
        step) turns the metric to positions, its values so far replayed, and its reasons
        then count "logged values"."""
        stream = self._streams.get(name)
        steps = self._steps.setdefault(name, [])
        if stream is not None and self._on_axis[name] and not _continues_axis(step, steps):
            self._replay(name, len(steps), on_axis=False)
            stream = self._streams[name]
        if stream is None:
            stream = self._streams[name] = self._new_stream(name)
            self._on_axis.setdefault(name, _continues_axis(step, steps))
            if "window" in self.checks:
                self._windows[name] = AdaptiveWindow(keep_states=False)
        on_axis = self._on_axis[name]
        if not on_axis:
            stream.position_unit = "logged values"
        self._steps[name].append(step)
        if self.budget is not None:
            stream.test.budget = float(self.budget) if on_axis else _budget_in_values(self._steps[name],
                                                                                       float(self.budget))
        stream.update(value, step=float(step) if on_axis else None)
        if name in self._windows:
            self._window_states[name] = self._windows[name].update(value)

    @property
    def should_stop(self) -> bool:
        """True once all (or any, see ``stop_when``) stop metrics have converged at
        ``confirmations`` consecutive checks, each with at least ``min_steps`` values."""
        return self._rule([self._shown_converged(name) for name in self.stop_metrics])

    def stop_rule_holds(self, entries: dict) -> bool:
        """The stop rule judged on status ``entries`` (by metric name) made since the last
        scheduled check - ``watch`` judges every metric once more at its stop: each stop metric
        converged, with at least ``min_steps`` values and not diverged."""
        return self._rule([entry.get("verdict") == "converged" and "diverged" not in entry
                           and entry.get("n", 0) >= self.min_steps
                           and (entry.get("improvement_shown", True) or not self.require_improvement)
                           for entry in (entries.get(name, {}) for name in self.stop_metrics)])

    def _rule(self, shown: list) -> bool:
        """All (or any, see ``stop_when``) of the stop metrics shown converged; False with none."""
        return bool(shown) and (all(shown) if self.stop_when == "all" else any(shown))

    def _shown_converged(self, name: str) -> bool:
        stream = self._streams.get(name)
        if stream is None or stream.n < self.min_steps or self._is_diverged(name):
            return False
        recent = [verdict for _, verdict in stream.history[-self.confirmations:]]
        if len(recent) < self.confirmations or not all(v == "converged" for v in recent):
            return False
        return not self.require_improvement or no_improvement_note(stream.last_result.reasons) is None

    def result(self, metric: str):
        """The full convergence result of one metric so far (not converged when its latest
        values are NaN or infinite: see the module docstring)."""
        if metric not in self._streams:
            raise InputError(f"no finite values of {metric!r} have been logged; logged: "
                             f"{', '.join(self._streams) or '(none)'}")
        result = self._streams[metric].result()
        if not self._is_diverged(metric):
            return result
        return with_divergence(result, {result.name: self._divergence(metric)})

    def _divergence(self, metric: str) -> dict:
        """The record of a metric whose latest values are non-finite, as ``select_metric`` gives it."""
        since = self._diverged[metric]
        infinite, values = since["infinite"], since["values"]
        return {"step": since["step"], "values": values, "kind": nonfinite_kind(infinite, values - infinite)}

    def report(self) -> MonitorStatus:
        """Deprecated name of :attr:`status`."""
        warnings.warn("Monitor.report() is now the status property: write monitor.status",
                      DeprecationWarning, stacklevel=2)
        return self.status

    @property
    def status(self) -> MonitorStatus:
        """Every tracked metric now: count, running mean and SD, verdict, window status, and
        where a check ran, its mean after the warm-up (``level``), that mean's interval
        (``level_ci``) and the values it set aside (``warmup``)."""
        entries, left_out = {}, dict(self._left_out)
        for name, stream in self._streams.items():
            if self._counter_so_far(name, stream):
                left_out[name] = COUNTER_SO_FAR
                continue
            state = stream.state
            verdict = stream.last_result
            entry = {"n": state.n, "mean": state.mean, "sd": state.sd, "verdict": state.verdict,
                     "converged": state.converged, "last_step": self._steps[name][-1],
                     # the verdict is that of the latest scheduled check, made on this many values
                     "checked_at": state.checked_at, "reason": verdict.reasons[0] if verdict is not None else None,
                     **(verdict_level(verdict) if verdict is not None else {})}
            if verdict is not None and verdict.converged:  # a level held from the start, or reached
                entry["improvement_shown"] = no_improvement_note(verdict.reasons) is None
            worse = worse_than_best_note(verdict.reasons) if verdict is not None else None
            if worse is not None:  # an evaluation that settled worse than it had been
                entry["worse_than_best"] = worse
            last = self._window_states.get(name)
            if last is not None:
                entry.update(window_status=last.status, window_length=last.length,
                             window_reason=last.reason)
            entries[name] = entry
        for name in filter(self._is_diverged, self._diverged):
            divergence = self._divergence(name)
            entry = entries.setdefault(name, {"n": 0, "mean": float("nan"), "sd": float("nan"),
                                              "last_step": None, "checked_at": 0})
            for key in ("level", "level_ci", "warmup"):  # a level from before the run diverged
                entry.pop(key, None)
            entry.update(verdict="not_converged", converged=False, diverged=divergence,
                         last_step=self._diverged[name]["last"], reason=diverged_text(divergence, entry["n"]))
        return MonitorStatus(steps=self.calls, metrics=entries, stop_metric=self.stop_metric,
                             should_stop=self.should_stop, skipped=dict(self._skipped),
                             stop_metrics=self.stop_metrics, stop_when=self.stop_when,
                             budget=self.budget, require_improvement=self.require_improvement,
                             left_out=left_out)

    def plot(self, ax=None):
        """Each tracked metric's series (on one Axes, or one panel per metric when ax is None)."""
        from ..plots.streaming import plot_monitor

        return plot_monitor(self, ax)


def _continues_axis(step, steps: list) -> bool:
    """Can ``step`` extend ``steps`` as a step axis: a finite number after the last?  (Two
    values at one step - episodes of two environments ending together - are not an axis the
    verdict can regress on.)"""
    if not is_real(step) or not math.isfinite(step):
        return False
    return not steps or float(step) > float(steps[-1])


def _budget_in_values(steps: list, budget: float) -> float | None:
    """Where the budget falls on a metric's own axis (its values counted from 0), from the
    mean spacing of the steps it was logged at; None while that spacing is unknown (fewer
    than two distinct numeric steps)."""
    first, last = steps[0], steps[-1]
    if len(steps) < 2 or not (is_real(first) and is_real(last)) or not last > first:
        return None
    spacing = (float(last) - float(first)) / (len(steps) - 1)
    return (len(steps) - 1) + (budget - float(last)) / spacing


def _counts(value: float | None) -> bool:
    """Whether a first value could be a counter's: a whole number (None, NaN or infinite: not
    known, so the name's kind stands)."""
    return value is None or not math.isfinite(value) or float(value).is_integer()


def _number(raw) -> float | None:
    """A float from whatever a trainer logs; None when there is nothing to record."""
    if raw is None:
        return None
    if hasattr(raw, "item") and getattr(raw, "ndim", 0) == 0:
        raw = raw.item()  # numpy scalars, 0-d tensors
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, (int, float, np.integer, np.floating)):
        try:
            return float(raw)
        except OverflowError:  # an integer beyond float range: as good as infinite
            return math.inf
    return None  # strings, lists, dicts: not a scalar metric


# MonitorReport is MonitorStatus, for one release
__getattr__ = renamed_names(__name__, {"MonitorReport": lambda: MonitorStatus})
