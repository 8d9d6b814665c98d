"""`swarmstats watch`: follow a growing log and print verdict changes as they happen."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import re
import signal
import stat
import sys
import threading
import time
from array import array

import numpy as np

from .._result import fmt, fmt_step, plain_number
from ..errors import InputError
from ..io import mlflow_server
from ..io.columns import is_bookkeeping_name, step_names
from ..io.decoding import BadJSON, check_readable, loads
from ..io.formats._table import headless
from ..io.formats.console import BoxReader, is_rule, visible
from ..io.formats.printed_dicts import StepCounter, parse_line
from ..io.formats.pymarl import BlockReader
from ..io.formats.torchrl import is_scalar_line, metric_name
from ..io.formats.verl import is_late, parse_step_line, printed_value, printing_process
from ..io.resumed import is_resume
from ..io.runs import record_run
from ..streaming.monitor import Monitor, MonitorStatus
from ._common import (
    EXIT_PASS,
    MIN_VALUES,
    add_command,
    at_least,
    capped_list,
    dump_json,
    finite,
    too_few,
)
from ._notify import Notifier, check_url
from ._notify import message as notification
from .watch_documents import DocumentFollower, is_document


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
_PRINTED_DICT_START = re.compile(r"^\{\s*'[^']*':")
#: the key a verl record printed late carries from the follower to the monitors (never a metric)
LATE = "\x00late"


class Follower:
    """The new complete lines of a log being appended to, as a careful ``tail -F`` reads them.

    * **Rotation** (the file renamed away and a new one created, as logrotate and some
      trainers do) is seen by the file's identity (device, inode), not its size: what the old
      file still held is read to its end, then the new file from its first line.
    * **Deletion**: the open file is read to its end, then the path is polled until a file
      appears there again.
    * **Rewrite in place** (the same file, now shorter: SB3 rewrites progress.csv when a key
      appears) starts over from the top, and the caller starts its analysis over.
    * **Bad lines** (not UTF-8, not JSON, a CSV row of the wrong width, the header again,
      longer than :data:`MAX_LINE`) are skipped, counted, and reported with their line number;
      one writer's garbage does not stop the watch.
    * **Printed dicts** (what a Hugging Face Trainer prints at each log call) are read as
      Python literals; once one is seen, the lines between them (tqdm's bar) are terminal text.
    * **pymarl's printed statistics** (``Recent Stats | t_env: N | Episode: M`` and the lines
      after it, :mod:`swarmstats.io.formats.pymarl`): a block is read when the line after it
      arrives (pymarl prints its ``t_env: N / T_max`` line right after); the other lines are
      the job's terminal text.
    * **verl's step lines** (``step:N - key:value - ...``, :mod:`swarmstats.io.formats.verl`):
      once one is seen, the job's other output is terminal text; a resume keeps the values of
      the checkpoint's own step (:attr:`RunMonitors.checkpoint_keeps_its_step`).
    * **Printed tables** (what SB3 prints, saved by ``python train.py > train.log``): the text
      such a log starts with (``Using cuda device``) is held until the file shows what it is,
      since taken as a CSV header it made every table row "2 fields where the header has 1";
      a line of dashes makes it a printed log, read box by box
      (:class:`swarmstats.io.formats.console.BoxReader`), and a line that is a CSV row (a
      delimiter) or a number as wide as the first line held makes it a CSV with that line as
      its header.
    """

    def __init__(self, path: str):
        check_readable(path, directory_ok=False)  # missing, a FIFO, a loop, a directory: exit 2
        self.path = path
        self.skipped = 0
        self.first_skip: str | None = None
        self.events: list[tuple[str, str]] = []  # (kind, message) since the last call
        self.restarted = False
        self._handle = None
        self._identity = None
        self._gone = False
        self._open()

    # -- the file ----------------------------------------------------------------------
    def _open(self) -> None:
        try:
            handle = open(self.path, "rb")
        except OSError as exc:
            self._event("unreadable", f"cannot read {self.path}: {exc.strerror}; waiting")
            return
        info = os.fstat(handle.fileno())
        self._close()
        self._handle, self._identity = handle, (info.st_dev, info.st_ino)
        self._start_over()

    def _close(self) -> None:
        if self._handle is not None:
            self._handle.close()
        self._handle = None

    def _start_over(self) -> None:
        self.offset, self.partial, self.header, self.line_number = 0, b"", None, 0
        self.delimiter, self._header_lost, self._discarding = ",", None, False
        self._boxes: BoxReader | None = None  # a log of printed tables, once a rule line is seen
        self._held: list = []  # (number, line) before the file showed what it is
        self._printed = False  # a Trainer's printed dicts seen: the other lines are its terminal text
        self._printed_steps = StepCounter()  # ... and their steps
        self.verl = False  # verl's printed step lines seen: likewise
        self._pymarl: BlockReader | None = None  # pymarl's printed statistics, once a block is seen
        self._json_seen = False  # a JSON record read: a line that is not one is then a bad line
        self._verl_steps: tuple | None = None  # (process, first step, last step) of verl's lines

    def close(self) -> None:
        self._close()

    def _read_rest(self) -> bytes:
        if self._handle is None:
            return b""
        self._handle.seek(self.offset)
        data = self._handle.read()
        self.offset += len(data)
        return data

    def lines(self) -> list[tuple]:
        """(line number, text, why) of each complete line added since the last call (see _split)."""
        self.restarted = False
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            if not self._gone:
                self._gone = True
                # what the old file still held, its last line too (no newline will come)
                out = self._split(self._read_rest(), final=True)
                self._event("removed", f"{self.path} was removed; waiting for it to appear again")
                return out
            return []
        except OSError as exc:
            self._event("unreadable", f"cannot read {self.path}: {exc.strerror}; waiting")
            return []
        if not stat.S_ISREG(info.st_mode):
            self._event("unreadable", f"{self.path} is no longer a regular file; waiting")
            return []
        out: list = []
        if (info.st_dev, info.st_ino) != self._identity:
            out = self._split(self._read_rest(), final=True)  # what the old file still got
            self._gone = False
            self._open()
            if self._handle is None:
                return out
            self._event("rotated", f"{self.path} is a new file (rotated or recreated); reading it "
                                   "from its first line")
        elif info.st_size < self.offset:
            self._start_over()
            self.restarted = True
        return out + self._split(self._read_rest())

    def _split(self, data: bytes, final: bool = False) -> list:
        """(line number, text, None) for each complete line, or (line number, None, why) for a
        line that cannot be read: bad lines are reported in line order with the rest."""
        data = self.partial + data
        if self._discarding:  # the rest of an over-long line
            newline = data.find(b"\n")
            if newline < 0:
                self.partial = b""
                return []
            data, self._discarding = data[newline + 1:], False
        complete, newline, self.partial = data.rpartition(b"\n")
        raw_lines = complete.split(b"\n") if newline else []
        if not newline:
            self.partial = data
        if final and self.partial:  # the last line of a file that will get no more
            raw_lines.append(self.partial)
            self.partial = b""
        out = []
        for raw in raw_lines:
            self.line_number += 1
            if len(raw) > MAX_LINE:
                out.append((self.line_number, None, f"longer than {MAX_LINE:,} bytes"))
                continue
            try:
                text = raw.decode("utf-8-sig" if self.line_number == 1 else "utf-8")
            except UnicodeDecodeError:
                out.append((self.line_number, None, "not UTF-8 text"))
                continue
            if text.strip():
                out.append((self.line_number, text.rstrip("\r"), None))
        if len(self.partial) > MAX_LINE:  # a line still being written and already too long
            self.line_number += 1
            out.append((self.line_number, None, f"longer than {MAX_LINE:,} bytes"))
            self.partial, self._discarding = b"", True
        return out

    # -- lines to records --------------------------------------------------------------
    def step_unit(self, step_key: str | None) -> str | None:
        """What a step of this log is called, as ``check-convergence`` calls it: an SB3 printed
        table's ``time/total_timesteps`` "timesteps", a Trainer's printed dicts "logs" (the
        step is the training log's number), a monitor.csv's rows "episodes", else the step
        column's own name (None: none)."""
        if self._boxes is not None and step_key is not None and step_key != "nupdates":
            return "timesteps"
        if self._printed:
            return "logs"
        if self._pymarl is not None:
            return "timesteps"  # pymarl's t_env, as read_log's pymarl-console
        if step_key is not None and step_key.rsplit("/", 1)[-1].endswith("timesteps"):
            return "timesteps"  # SB3's progress.csv, read_log's sb3-progress
        if step_key is None and self.header is not None and {"r", "l", "t"} <= set(self.header):
            return "episodes"  # an SB3 monitor.csv: a row per episode, read_log's "monitor"
        return step_key

    def records(self) -> list[dict]:
        out = []
        for number, line, why in self.lines():
            if line is None:
                self._skip(number, why)
                if self.header is None and self._header_lost is None:
                    self._header_lost = number  # in a CSV this was the header: columns unknown
                continue
            if "\r" in line or "\x1b" in line:  # a terminal's output: what it shows of the line
                line = visible(line)
            if self._boxes is not None:
                box = self._boxes.feed(line)
                if box is not None:
                    out.append(box)
                continue
            if self._pymarl is not None or (self.header is None and "Recent Stats | t_env:" in line):
                if self._pymarl is None:  # what came before was the job's terminal text
                    self._pymarl, self._held = BlockReader(), []
                block = self._pymarl.feed(line)
                if block is not None:
                    out.append(block)
                continue
            stripped = line.strip()
            if (self.header is None and "step:" in line and not stripped.startswith("{")
                    and (printed := parse_step_line(line)) is not None):
                self.verl, self._held = True, []  # what came before was the job's terminal text
                record = _verl_record(*printed)
                if record is not None:
                    out.append(self._verl_order(record, printing_process(line)))
                continue
            if self.verl:
                continue  # (between verl's step lines: the job's configuration, warnings, samples)
            if stripped.startswith("#") or (self._printed and not stripped.startswith("{")):
                continue  # (between a Trainer's printed dicts: its progress bar, warnings)
            if self.header is None and self._header_lost is None and not stripped.startswith("{"):
                if is_rule(line):  # the top of the first printed table: what was held was text
                    self._boxes, self._held = BoxReader(), []
                    self._boxes.feed(line)
                    continue
                if not self._shows_csv(stripped, self._held[0][1] if self._held else None):
                    self._held.append((number, line))
                    continue
                for held_number, held in self._held:  # the first line held was the header
                    self._csv_row(held_number, held)
                self._held = []
            if stripped.startswith("{"):
                try:
                    record = loads(self.path, stripped, line=number)
                except BadJSON as exc:
                    printed = parse_line(stripped)  # a Trainer's printed dict: Python, not JSON
                    if printed is None:
                        if not self._json_seen and _PRINTED_DICT_START.match(stripped):
                            continue  # a job printing its configuration (pymarl's pprint) before its log
                        self._skip(number, exc.reason)
                        continue
                    self._printed = True
                    # the step read_log gives it: the training log's number (an epoch printed to
                    # 4 digits repeats once the logs advance in smaller steps), from 1 in a new run
                    step = self._printed_steps.step(printed)
                    if step is not None:  # (None: a training summary, not a data point)
                        printed.pop("epoch", None)
                        out.append({**_flatten(printed), "step": plain_number(step)})
                    continue
                self._json_seen = True
                if isinstance(record, dict) and set(record) == {"step", "data"} and isinstance(record["data"], dict):
                    out.append({**_flatten(record["data"]), "step": record["step"]})  # verl's file logger
                elif isinstance(record, dict):
                    out.append(_flatten(record))
                else:
                    self._skip(number, "not a JSON object")
                continue
            record = self._csv_row(number, line)
            if record is not None:
                out.append(record)
        return out

    def _verl_order(self, record: dict, process: str | None) -> dict:
        """``record``, marked :data:`LATE` when the process that printed the last line prints a
        step it passed already (not back to its first): a late line (verl's fully asynchronous
        trainer logs a validation at the version it checked), not a resume, as ``read_log`` reads
        it (:mod:`swarmstats.io.formats.verl`)."""
        step = record["step"]
        known = self._verl_steps
        if known is not None and is_late(step, known[1], known[2], process, known[0]):
            return {**record, LATE: True}
        first = known[1] if known is not None and process == known[0] and step > known[1] else step
        self._verl_steps = (process, first, step)
        return record

    @staticmethod
    def _shows_csv(line: str, first_held: str | None = None) -> bool:
        """Does a line before any header say the file is a CSV: a delimiter, or a lone number
        (a row of a one-column file)?  After lines held, only a row as wide as the first of them,
        which would be its header (a training job's preamble - a shell trace, a configuration -
        holds commas too: taken for a CSV, every later line was "N fields where the header has 1")."""
        delimiter = next((d for d in (",", "\t", ";") if d in line), None)
        if delimiter is None:
            try:
                float(line)
            except ValueError:
                return False
        if first_held is None:
            return True
        return _width(line, delimiter) == _width(first_held.strip(), delimiter)

    def _csv_row(self, number: int, line: str) -> dict | None:
        if self.header is None and self._header_lost is not None:
            self._skip(number, f"the header (line {self._header_lost}) could not be read")
            return None
        if self.header is None:  # the header says the separator: ',' or a locale's ';' or a tab
            self.delimiter = next((d for d in ("\t", ";") if d in line and "," not in line), ",")
        try:
            row = next(csv.reader([line], delimiter=self.delimiter, strict=True))
        except csv.Error as exc:
            self._skip(number, f"not a CSV row ({exc})")
            return None
        cells = [cell.strip() for cell in row]
        if self.header is None:
            if headless(cells):
                if len(cells) == 2 and is_scalar_line(line):  # TorchRL's step,value file: no header
                    self.header = ["step", metric_name(self.path)]
                    return dict(zip(self.header, row))
                self._header_lost = number
                self._skip(number, "numbers, not column names: a CSV without a header")
                return None
            self.header = cells
            return None
        if cells == self.header:
            self._skip(number, "the header again (two logs appended?)")
            return None
        if len(cells) != len(self.header):
            self._skip(number, f"{len(cells)} fields where the header has {len(self.header)}")
            return None
        return dict(zip(self.header, row))

    def _skip(self, number: int, why: str) -> None:
        self.skipped += 1
        message = f"{self.path} line {number}: {why}; skipped"
        if self.first_skip is None:
            self.first_skip = message
        if self.skipped <= SHOWN_SKIPS:
            more = " (further bad lines are counted, not shown)" if self.skipped == SHOWN_SKIPS else ""
            self._event("skipped", message + more)

    def _event(self, kind: str, message: str) -> None:
        if kind != "unreadable" or not self.events or self.events[-1][1] != message:
            self.events.append((kind, message))

    def take_events(self) -> list:
        events, self.events = self.events, []
        return events


class ServerFollower:
    """A run on an MLflow tracking server, followed as :class:`Follower` follows a file: each
    poll reads the run's metric histories again and hands on the values logged since the last
    one, a record per (step, metric).  A server that stops answering is an event, not the end
    of the watch: the next poll tries again."""

    def __init__(self, source: str):
        self.path = source
        self.skipped, self.first_skip = 0, None
        self.events: list[tuple[str, str]] = []
        self.restarted = False
        self.verl = False  # (see Follower)
        self._poller = mlflow_server.RunPoller(source)  # an unknown run, no server: exit 2 now
        self._down = False

    @staticmethod
    def step_unit(step_key: str | None) -> str | None:
        """MLflow's steps are the run's own: "steps"."""
        return None

    def records(self) -> list[dict]:
        try:
            points = self._poller.new_points()
        except InputError as exc:
            if not self._down:
                self._down = True
                self.events.append(("unreadable", f"{exc}; waiting"))
            return []
        self._down = False
        self.restarted = self._poller.restarted
        # a NaN logged to MLflow is a missing value, as read_log reads it
        return [{"step": int(step) if float(step).is_integer() else float(step), metric: value}
                for step, metric, value in zip(points["step"], points["metric"], points["value"])
                if math.isfinite(value)]

    def take_events(self) -> list:
        events, self.events = self.events, []
        return events

    def close(self) -> None:
        pass


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
    """A metric's name with its run, as the other commands name it: "reward [seed=2]"."""
    return f"{metric} [{run}]" if run is not None else metric


#: a line longer than this is not a log record (a 50 MB cell); it is skipped
MAX_LINE = 1 << 20
#: bad lines reported one by one; after that they are only counted
SHOWN_SKIPS = 10


def _width(line: str, delimiter: str | None) -> int:
    """How many fields a CSV line holds (1 without a delimiter; -1 when it is not a CSV row)."""
    if delimiter is None:
        return 1
    try:
        return len(next(csv.reader([line], delimiter=delimiter, strict=True)))
    except csv.Error:
        return -1


def _verl_record(step: int, printed: dict) -> dict | None:
    """A verl step line's numbers and its step (None: no number in it)."""
    values = {key: number for key, value in printed.items() if (number := printed_value(value)) is not None}
    return {**values, "step": step} if values else None


def _flatten(record: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _numbers(record: dict, step_key: str | None, run_keys=()) -> tuple:
    step = record.get(step_key) if step_key else None
    values = {}
    for key, raw in record.items():
        if key == step_key or key in run_keys or is_bookkeeping_name(key):  # as the other commands
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

    def new_monitor() -> Monitor:
        return Monitor(metrics=args.metric, check_every=args.check_every, budget=args.budget,
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
        nonlocal unit
        for record in records:
            step_key = args.step or next(iter(step_names(record)), None)
            if unit is None:
                unit = follower.step_unit(step_key)
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
        if follower.skipped:
            print(f"  {follower.skipped} bad line(s) skipped (the first: {follower.first_skip})")
        if notified is not None:
            print(f"  notifications to {args.notify}: {notified['sent']} sent, {notified['failed']} failed")
    return EXIT_PASS


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
                         "checked_at": entry["n"], "reason": result.reasons[0]}
        _announce_change(args, name, metrics[name], verdicts, notifier,
                         f"at the stop, on all {entry['n']:,} values - {result.reasons[0]}")
    return dataclasses.replace(report, metrics=metrics)


def _check_options(args) -> None:
    """Numbers a loop depends on: NaN or a negative interval would spin or never sleep."""
    if not (math.isfinite(args.interval) and args.interval > 0):
        raise InputError(f"--interval must be a positive number of seconds, got {args.interval}")
    if args.max_idle is not None and not (math.isfinite(args.max_idle) and args.max_idle >= 0):
        raise InputError(f"--max-idle must be a number of seconds >= 0, got {args.max_idle}")
    if args.check_every is not None and args.check_every < 1:
        raise InputError(f"--check-every must be at least 1, got {args.check_every}")


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
        raise InputError(f"{args.file}: no numeric metric values were read{why}")
    counts = capped_list([f"{name} ({entry['n']})" for name, entry in report.metrics.items()])
    raise too_few(args.file, f"too few values to analyse: {counts}", "is the run just starting?")


class _StopOnSignal:
    """Ctrl-C (SIGINT) and SIGTERM (``kill``, a scheduler's stop, a container shutting down)
    end the watch between two polls, never in the middle of one: the lines already read are
    all analysed, the file is read once more, and the summary is printed (exit 0).  Only the
    main thread may install handlers; elsewhere the defaults stay."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self._event = threading.Event()
        self._previous = {}

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> None:
        self._event.wait(seconds)  # a signal sets the event: no waiting out the interval

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in self.SIGNALS:
                self._previous[number] = signal.signal(number, lambda *_: self._event.set())
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
        _announce_change(args, name, entry, verdicts, notifier, f"({values}, mean {fmt(entry['mean'])})")


def _announce_change(args, name: str, entry: dict, verdicts: dict, notifier: Notifier | None, detail: str) -> None:
    """Print (and post) a metric's verdict when it differs from the last one announced."""
    if verdicts.get(name) == entry["verdict"]:
        return
    verdicts[name] = entry["verdict"]
    event = {"event": "verdict", "metric": name, "step": entry["last_step"], "n": entry["n"],
             "checked_at": entry["checked_at"], "verdict": entry["verdict"], "mean": entry["mean"],
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
