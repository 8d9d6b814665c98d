"""`swarmstats watch`: follow a growing log and print verdict changes as they happen."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import sys
import threading
import time
from array import array

import numpy as np

from .._result import fmt, fmt_step, plain_number
from ..convergence.improvement import worse_than_best_note
from ..errors import InputError
from ..io import mlflow_server
from ..io.columns import left_out_text, stream_step
from ..io.compressed import compression_of
from ..io.flags import flag_value, is_outcome_flag
from ..io.follow import LATE, DocumentFollower, Follower, ServerFollower, is_document
from ..io.long_tables import long_record
from ..io.resumed import is_resume
from ..io.runs import record_run
from ..streaming.monitor import Monitor, MonitorStatus, level_text, verdict_level
from ._loading import MIN_VALUES, too_few
from ._notify import Notifier, check_url
from ._notify import message as notification
from ._options import EXIT_PASS, add_command, at_least, finite
from ._output import capped_list, dump_json


def add_parser(commands) -> None:
    watch = add_command(
        commands, "watch",
        description="Follow a log that a running job appends to (JSON Lines, CSV, or what a trainer "
                    "prints) or rewrites whole (a .json document, a run folder), and print a line "
                    "whenever a metric's convergence verdict changes.  Ctrl-C stops it cleanly with "
                    "a summary.",
        exits={0: "stopped (Ctrl-C, SIGTERM, --once, or --max-idle reached)",
               2: "usage or input error (one line on stderr), or no metric with enough values was read"})
    watch.add_argument("file", metavar="FILE", help="a log being written: JSON Lines, CSV, printed "
                                                    "output, a .json document or a run folder")
    watch.add_argument("-m", "--metric", action="append", default=None,
                       help="metric to follow (repeatable; default: every numeric key)")
    watch.add_argument("--step", help="key of the step (default: step, _step, global_step, ...)")
    watch.add_argument("--interval", type=finite, default=1.0, help="seconds between polls (default 1)")
    watch.add_argument("--max-idle", type=finite, help="stop after this many seconds without new lines")
    watch.add_argument("--once", action="store_true", help="read what is there, report, and stop")
    watch.add_argument("--check-every", type=at_least(1), default=None,
                       help="re-check every N values (default: whenever a metric has grown by half; "
                            "each check spends part of alpha, so fewer checks stop sooner)")
    watch.add_argument("--budget", type=finite,
                       help="the step the job is planned to end at: 'converged' then means flat up to it, "
                            "not only over the next stretch as long as the part kept")
    watch.add_argument("--format", choices=("text", "json"), default="text",
                       help="json: one JSON object per verdict change, then the final report")
    watch.add_argument("--notify", metavar="URL",
                       help="also post each verdict change as JSON to this webhook (a Slack-compatible "
                            "'text' field and the event's fields); a failed post is retried, reported "
                            "once on stderr, and never stops the watch")


#: the first line of a Python dict printed by pprint (a job's configuration: pymarl prints its
#: parameters so before its first statistics), not a JSON record
class RunMonitors:
    """One :class:`Monitor` per run of a log whose records name their run (a ``seed``, ``run``
    or ``trial_id`` key, as the other commands split a table: :func:`~swarmstats.io.runs.record_run`).
    Two seeds written side by side were followed as one series: runs at 0.3 and 0.8 read
    "converged, mean 0.548".  A metric's name carries its run (``reward [seed=2]``) once a
    second run has appeared; a log of one run keeps the plain names.

    A step that goes back is read as the tables are (:mod:`swarmstats.io.resumed`): back to
    where the run began, or replacing half its values or more, a new run appended to the file
    (``reward [run=#2]``; two runs were one series of both); back into the run, a resume from a
    checkpoint, whose values replace those logged before at or past that step (they were
    counted twice).  Each is said as an event."""

    def __init__(self, make):
        self._make = make
        self._monitors: dict = {}  # run label (None: no run named) -> Monitor
        self._steps: dict = {}  # run label -> its numeric steps so far (8 bytes each), for the rule
        self._segments: dict = {}  # run named by the records -> (label of its current run, runs so far)
        self._events: list = []
        #: a resumed run logs again only what follows the step it resumed at, except the metrics
        #: it logs at that step (verl: :meth:`Monitor.forget_from`'s ``redone``)
        self.checkpoint_keeps_its_step = False

    def log(self, run: str | None, step, values: dict, *, late: bool = False) -> None:
        """``late``: a line printed after a later step by the same process (not a resume): its
        values join the run as they are, and the run's step record stays where it is."""
        number = _step_number(step)
        label = self._segments.get(run, (run, 1))[0] if late else self._label(run, number, values)
        monitor = self._monitors.get(label)
        if monitor is None:
            monitor = self._monitors[label] = self._make()
            self._steps[label] = array("d")
        if number is not None and not late:
            self._steps[label].append(number)
        # a number where the log wrote one (a CSV cell is text): the monitor judges on the step axis
        monitor.log(plain_number(number) if number is not None else step if step is not None else monitor.calls,
                    **values)

    def take_events(self) -> list:
        """(kind, message) of each new run and resume seen since the last call."""
        events, self._events = self._events, []
        return events

    def _label(self, run: str | None, step: float | None, values=()) -> str | None:
        """The label of the run a record at ``step`` belongs to: a step back starts a new one,
        or resumes the current one (see the class docstring)."""
        label, count = self._segments.get(run, (run, 1))
        steps = self._steps.get(label)
        if step is None or not steps or step >= steps[-1]:  # the common case: one comparison
            return label
        last = steps[-1]
        earlier = np.array(steps, dtype=np.float64)  # (a copy: the array is cut below)
        if is_resume(earlier, step):
            keeps = self.checkpoint_keeps_its_step
            replaced = int(np.count_nonzero(earlier > step if keeps else earlier >= step))
            del steps[len(steps) - replaced:]  # (steps rose until now: the replaced ones are the last)
            # the run as it stands now: what the resume replaced is gone
            self._monitors[label].forget_from(step, redone=set(values) if keeps else None)
            self._events.append(("resumed", f"{_run_text(label)}resumed at step {fmt_step(step)} after step "
                                            f"{fmt_step(last)}: the {replaced} record(s) logged before "
                                            f"{'past' if keeps else 'at or past'} it are replaced"))
            return label
        if count == 1:  # the first run gets its number now that there is a second
            first = _numbered(run, 1)
            self._monitors[first], self._steps[first] = self._monitors.pop(label), self._steps.pop(label)
        label = _numbered(run, count + 1)
        self._segments[run] = (label, count + 1)
        self._events.append(("new-run", f"the step went back from {fmt(last)} to {fmt(step)}: a new "
                                        f"run, followed apart as {label}"))
        return label

    def _named(self) -> list:
        """(shown name, run, metric) of every metric followed."""
        several = len(self._monitors) > 1
        return [(_with_run(run, metric) if several else metric, run, metric)
                for run, monitor in self._monitors.items() for metric in monitor.status.metrics]

    def result(self, shown: str):
        for name, run, metric in self._named():
            if name == shown:
                return self._monitors[run].result(metric)
        raise InputError(f"no values of {shown!r} have been logged")

    @property
    def status(self) -> MonitorStatus:
        """Every run's metrics in one status, each named with its run when there are several;
        the stop rule holds when it holds for every run."""
        if len(self._monitors) <= 1:
            return next(iter(self._monitors.values()), self._make()).status
        statuses = {run: monitor.status for run, monitor in self._monitors.items()}
        first = next(iter(statuses.values()))
        return dataclasses.replace(
            first, steps=sum(status.steps for status in statuses.values()),
            metrics={_with_run(run, name): entry for run, status in statuses.items()
                     for name, entry in status.metrics.items()},
            skipped={_with_run(run, name): count for run, status in statuses.items()
                     for name, count in status.skipped.items()},
            stop_metrics=[_with_run(run, name) for run, status in statuses.items()
                          for name in status.stop_metrics],
            stop_metric=None, should_stop=all(status.should_stop for status in statuses.values()))

    def stop_rule_holds(self, entries: dict) -> bool:
        """Each run's stop rule (:meth:`Monitor.stop_rule_holds`) on ``entries``, a status's
        metrics judged again at the stop, named as :attr:`status` names them; every run's must
        hold, as there."""
        several = len(self._monitors) > 1
        return bool(self._monitors) and all(
            monitor.stop_rule_holds({name: entries.get(_with_run(run, name) if several else name, {})
                                     for name in monitor.stop_metrics})
            for run, monitor in self._monitors.items())


def _numbered(run: str | None, number: int) -> str:
    """The label of the ``number``-th run appended under ``run``, as the tables name it."""
    return f"{run} #{number}" if run is not None else f"run=#{number}"


def _run_text(label: str | None) -> str:
    return f"{label}: " if label is not None else ""


def _step_number(step) -> float | None:
    """A record's step as a number (a CSV row's is text), None when it is none."""
    try:
        number = float(step)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _with_run(run: str | None, metric: str) -> str:
    """A metric's name with its run, as the other commands name it: "reward [seed=2]", and
    "loss [run=gpt2]" for the value of a ``run`` key (a W&B chart export's run names were
    "loss [gpt2]" here and "loss [run=gpt2]" in check-convergence's table of the same file).

    >>> _with_run("seed=2", "reward"), _with_run("gpt2", "loss"), _with_run("a #2", "r")
    ('reward [seed=2]', 'loss [run=gpt2]', 'r [run=a #2]')
    """
    if run is None:
        return metric
    return f"{metric} [{run}]" if "=" in run else f"{metric} [run={run}]"


def _numbers(record: dict, step_key: str | None, run_keys=()) -> tuple:
    step = record.get(step_key) if step_key else None
    long = long_record(record)
    if long is not None:  # a row per step and metric ("step,metric,value"): the metric it names
        record = {key: raw for key, raw in record.items() if key == step_key or key in run_keys}
        record[long[0]] = long[1]
    values = {}
    for key, raw in record.items():
        # bookkeeping is the Monitor's to leave out (by name, unless named with -m)
        if key == step_key or key in run_keys:
            continue
        flag = flag_value(raw)
        if flag is not None:  # True/False: an outcome's flag is a 0/1 metric (see io.flags)
            if is_outcome_flag(key):
                values[key] = flag
            continue
        if isinstance(raw, str):
            try:
                raw = float(raw) if raw.strip() else None
            except ValueError:
                continue
        if raw is None or (isinstance(raw, (int, float)) and not isinstance(raw, bool)):
            values[key] = raw
    return step, values


def run(args) -> int:
    _check_options(args)
    if args.notify:
        check_url(args.notify)  # a bad URL is a usage error before anything is read
    follower = (ServerFollower(args.file) if mlflow_server.is_source(args.file)
                else DocumentFollower(args.file) if is_document(args.file) else Follower(args.file))
    notifier = Notifier(args.notify) if args.notify else None

    unit = None  # what a step is, once the first record shows the log's kind and step key
    budget = args.budget  # or the planned end the first record states (LLaMA-Factory's total_steps)

    def new_monitor() -> Monitor:
        return Monitor(metrics=args.metric, check_every=args.check_every, budget=budget,
                       step_unit=unit)

    monitors = RunMonitors(new_monitor)
    verdicts: dict = {}
    idle_since = time.monotonic()

    def feed() -> int:
        nonlocal monitors, verdicts
        records = follower.records()
        for kind, message in follower.take_events():
            _say(args, {"event": kind, "message": message})
        if follower.restarted:
            monitors, verdicts = RunMonitors(new_monitor), {}
            _say(args, {"event": "restart", "message": "the file was rewritten; reading it again"})
        nonlocal unit, budget
        for record in records:
            step_key = args.step or stream_step(record)
            if unit is None:
                unit = follower.step_unit(step_key)
                planned = follower.planned_steps(record) if budget is None and args.step is None else None
                if planned is not None:
                    budget = planned
                    _say(args, {"event": "budget", "message": f"the run is planned to {plain_number(planned)} "
                                "steps: converged means flat up to there (--budget overrides)"})
            late = bool(record.pop(LATE, False))
            run, run_keys = record_run(record)
            step, values = _numbers(record, step_key, run_keys)
            monitors.checkpoint_keeps_its_step = follower.verl
            monitors.log(run, step, values, late=late)
        for kind, message in monitors.take_events():
            _say(args, {"event": kind, "message": message})
        return len(records)

    with _StopOnSignal() as stop:
        if not args.once:  # readiness, once a stop is handled: callers (and tests) wait for this line
            print(f"swarmstats: watching {args.file} (Ctrl-C or SIGTERM stops with a summary)",
                  file=sys.stderr, flush=True)
        try:
            while not stop.requested:
                if feed():
                    idle_since = time.monotonic()
                    _report_changes(args, monitors.status, verdicts, notifier)
                if args.once or (args.max_idle is not None and time.monotonic() - idle_since >= args.max_idle):
                    break
                stop.wait(args.interval)
            if feed():  # what was written before the stop is not lost
                _report_changes(args, monitors.status, verdicts, notifier)
            report = _checked_at_the_stop(args, monitors, verdicts, notifier)
        finally:
            follower.close()
            if notifier is not None:
                notifier.close()  # the pending messages go out (bounded) before the summary
    _refuse_if_nothing_read(args, report, follower)
    notified = None if notifier is None else {"sent": notifier.sent, "failed": notifier.failed}
    if args.format == "json":
        dump_json("watch", {"source": args.file, "skipped_lines": follower.skipped,
                            "report": report.to_dict(), "notifications": notified})
    else:
        print(report.summary())
        if any(_has_bounds(entry) for entry in report.metrics.values()):
            # a test gave bounds: check-convergence's on the same values are narrower (said, not left to puzzle)
            print("  the checks are anytime-valid (each spends part of alpha), so their bounds are wider "
                  "than check-convergence's on the same values and a verdict can be more cautious")
        if follower.skipped:
            print(f"  {follower.skipped} bad line(s) skipped (the first: {follower.first_skip})")
        if notified is not None:
            print(f"  notifications to {args.notify}: {notified['sent']} sent, {notified['failed']} failed")
    return EXIT_PASS


def _has_bounds(entry: dict) -> bool:
    """Did a test give a metric's level its interval (not too few values to test)?"""
    low = (entry.get("level_ci") or (None,))[0]
    return low is not None and math.isfinite(low)


def _checked_at_the_stop(args, monitors: RunMonitors, verdicts: dict, notifier: Notifier | None):
    """The status with each metric judged on every value read: between scheduled checks the
    status holds the last one's verdict (a real Acrobot log read with --once: "insufficient
    data (n 1011)", made at 761 values, where all 1,011 show it converged).  One more look,
    spending no more than the next scheduled one would."""
    report = monitors.status
    metrics = {}
    for name, entry in report.metrics.items():
        if entry["checked_at"] == entry["n"]:
            metrics[name] = entry
            continue
        try:
            result = monitors.result(name)
        except InputError:  # too few values to judge: the entry stays as it was
            metrics[name] = entry
            continue
        metrics[name] = {**entry, "verdict": result.verdict, "converged": result.converged,
                         "checked_at": entry["n"], "reason": result.reasons[0], **verdict_level(result)}
        metrics[name].pop("worse_than_best", None)
        worse = worse_than_best_note(result.reasons)
        if worse is not None:
            metrics[name]["worse_than_best"] = worse
        _announce_change(args, name, metrics[name], verdicts, notifier,
                         f"at the stop, on all {entry['n']:,} values - {result.reasons[0]}")
        _announce_worse_than_best(args, name, metrics[name], verdicts, notifier)
    # the stop rule on those verdicts: a log read whole said "stop on r: not yet" above "r:
    # converged" (the rule had seen only the check made at 761 of its 1,011 values)
    return dataclasses.replace(report, metrics=metrics,
                               should_stop=report.should_stop or monitors.stop_rule_holds(metrics))


def _check_options(args) -> None:
    """Numbers a loop depends on: NaN or a negative interval would spin or never sleep."""
    if not (math.isfinite(args.interval) and args.interval > 0):
        raise InputError(f"--interval must be a positive number of seconds, got {args.interval}")
    if args.max_idle is not None and not (math.isfinite(args.max_idle) and args.max_idle >= 0):
        raise InputError(f"--max-idle must be a number of seconds >= 0, got {args.max_idle}")
    if args.check_every is not None and args.check_every < 1:
        raise InputError(f"--check-every must be at least 1, got {args.check_every}")
    if isinstance(args.file, str) and os.path.isfile(args.file):
        with open(args.file, "rb") as handle:
            packed = compression_of(handle.read(8))
        if packed is not None:  # its lines were "not UTF-8 text", one by one
            raise InputError(f"{args.file} is {packed}-compressed: a compressed log is not followed as it "
                             "grows; the other commands read it whole (check-convergence, report ...)")


def _refuse_if_nothing_read(args, report, follower: Follower) -> None:
    """Nothing analysable at the stop is an input error (exit 2), not an empty "pass".  A
    metric that diverged after a finite value has its verdict, as check-convergence judges it
    (a run whose every value turned NaN after the first was refused as "too few values"); one
    that never logged a finite value has nothing to judge, there as here."""
    entries = report.metrics.values()
    if any(entry["n"] >= MIN_VALUES or (entry.get("diverged") and entry["n"]) for entry in entries):
        return
    if entries and all(entry.get("diverged") for entry in entries):
        raise InputError(f"{args.file}: every metric is NaN or infinite from its first value on: the run "
                         "diverged before logging a finite value, so there is nothing to judge")
    if not report.metrics:
        why = f"; {follower.skipped} bad line(s), the first: {follower.first_skip}" if follower.skipped else ""
        if report.left_out:  # (a TorchRL or d3rlpy file of a learning rate or a clock alone)
            why += (f"; left out as bookkeeping: {left_out_text(report.left_out)} (name one with -m to "
                    "follow it)")
        raise InputError(f"{args.file}: no numeric metric values were read{why}{_unfollowed_form(args.file)}")
    counts = capped_list([f"{name} ({entry['n']})" for name, entry in report.metrics.items()])
    raise too_few(args.file, f"too few values to analyse: {counts}", "is the run just starting?")


def _unfollowed_form(file) -> str:
    """What to say of a file whose log is printed lines of a form no format knows: the other
    commands read it whole (``printed-template``), but a form is known only once enough lines
    share it, so ``watch`` does not open it as lines arrive."""
    if not (isinstance(file, str) and os.path.isfile(file)):
        return ""
    from ..io import read_log

    try:
        notes = read_log(file, format="printed-table").attrs["notes"]
        return (f"; its printed table is read by the other commands, which read the file whole ({notes[0]}), "
                "but not followed as it is printed")
    except InputError:
        pass
    try:
        notes = read_log(file, format="printed-template").attrs["notes"]
    except InputError:
        return ""
    return (f"; its lines of one form in no format swarmstats knows are read by the other commands, which "
            f"read the file whole ({notes[0].split(' (')[0]}), but not followed as they arrive")


class _StopOnSignal:
    """Ctrl-C (SIGINT) and SIGTERM (``kill``, a scheduler's stop, a container shutting down)
    end the watch between two polls, never in the middle of one: the lines already read are
    all analysed, the file is read once more, and the summary is printed (exit 0).  Only the
    main thread may install handlers; elsewhere the defaults stay."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)
    #: how often a wait looks whether a stop was asked: a signal is seen within this
    TICK = 0.05

    def __init__(self):
        self._requested = False
        self._previous = {}

    @property
    def requested(self) -> bool:
        return self._requested

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds``, or until a stop is asked, in ticks: the handler only sets a flag.
        (It set a ``threading.Event`` once; but a Python handler runs in the main thread between
        two of its bytecodes, and an Event's wait holds the lock its set takes - a signal that
        came at that moment hung the watch for good, once in a CI run.)"""
        end = time.monotonic() + seconds
        while not self._requested:
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, self.TICK))

    def _ask(self, *_) -> None:
        self._requested = True  # no lock taken: see wait()

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in self.SIGNALS:
                self._previous[number] = signal.signal(number, self._ask)
        return self

    def __exit__(self, *exc):
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        return False


def _report_changes(args, status: MonitorStatus, verdicts: dict, notifier: Notifier | None = None) -> None:
    for name, entry in status.metrics.items():
        if "diverged" in entry:  # what the numbers say is beside the point: the run diverged
            _announce_change(args, name, entry, verdicts, notifier, f"- {entry['reason']}")
            continue
        checked = entry["checked_at"]
        values = (f"n {entry['n']}" if checked == entry["n"] else f"not checked yet at {entry['n']:,} values"
                  if not checked else f"checked at {checked:,} of {entry['n']:,} values")
        _announce_change(args, name, entry, verdicts, notifier, f"({values}, {level_text(entry)})")
        _announce_worse_than_best(args, name, entry, verdicts, notifier)


def _announce_worse_than_best(args, name: str, entry: dict, verdicts: dict, notifier: Notifier | None) -> None:
    """Print (and post), once per metric, that an evaluation settled worse than its best: the
    checkpoint worth keeping is behind it.  Its level is spent over the checks as the verdict's
    (:class:`~swarmstats.streaming.ConvergenceMonitor`), so saying it once it holds is no
    more often wrong on a stream than on the whole log."""
    note = entry.get("worse_than_best")
    if note is None or verdicts.get((name, "worse_than_best")):
        return
    verdicts[(name, "worse_than_best")] = True
    event = {"event": "worse_than_best", "metric": name, "step": entry["last_step"], "n": entry["n"],
             "checked_at": entry["checked_at"], "message": f"step {entry['last_step']}: {name} is {note}"}
    _say(args, event)
    if notifier is not None:
        notifier.send(notification(event, args.file))


def _announce_change(args, name: str, entry: dict, verdicts: dict, notifier: Notifier | None, detail: str) -> None:
    """Print (and post) a metric's verdict when it differs from the last one announced."""
    if verdicts.get(name) == entry["verdict"]:
        return
    verdicts[name] = entry["verdict"]
    event = {"event": "verdict", "metric": name, "step": entry["last_step"], "n": entry["n"],
             "checked_at": entry["checked_at"], "verdict": entry["verdict"], "mean": entry["mean"],
             **{key: entry[key] for key in ("level", "level_ci", "warmup") if key in entry},
             "message": f"step {entry['last_step']}: {name} is {entry['verdict'].replace('_', ' ')} {detail}"}
    _say(args, event)
    if notifier is not None:
        notifier.send(notification(event, args.file))


def _say(args, event: dict) -> None:
    if args.format == "json":
        print(json.dumps({k: v for k, v in event.items() if k != "message"} | {"message": event["message"]}),
              flush=True)
    else:
        print(event["message"], flush=True)
    sys.stdout.flush()
