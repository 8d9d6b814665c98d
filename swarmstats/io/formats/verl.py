"""What verl (Volcano Engine RL for LLMs) logs: the line it prints per step, and its file logger.

With ``trainer.logger=console`` (the quickstart's setting, and often the only record of a run
on a shared cluster) verl prints one line per training step, usually saved with ``| tee``::

    (TaskRunner pid=20910) step:0 - val-core/openai/gsm8k/reward/mean@1:0.212
    (TaskRunner pid=20910) step:1 - actor/entropy:0.336 - actor/pg_loss:-0.027 - critic/score/mean:0.259 - ...

Ray prefixes each line with the actor that printed it (``(TaskRunner pid=N)``, in colour on a
terminal; ``(main_task pid=N)`` in early versions), and the same file holds everything else
the job printed: the launch script, the configuration, warnings, sample completions, progress
bars.  Only the step lines are read.  verl before mid-2025 printed each value as
``{v:.3f}`` (a learning rate of 1e-6 reads ``actor/lr:0.000``: noted); later versions print
``pprint.pformat(v)``, which for a numpy scalar under numpy 2 is ``np.float64(0.259)``.  The
validation before training is its own line at the step training resumes from (0 in a fresh
run); later validations share their step's line.

A step printed after a later one by the same process (and not back to the run's first step)
is a late line, not a restart: verl's
fully asynchronous trainer logs a validation at the parameter version it validated, which can
arrive after the next version's training line.  It joins the row of its step.

A run resumed into the same file (``tee -a``) starts again from its last checkpoint: verl's
checkpoint ``global_step_N`` holds the model after step N's update, and the resumed run prints
its validation at step N, then trains from step N + 1.  So the rows printed past step N before
the crash are replaced by the resumed run's (noted), step N's row is kept with the new
validation joined to it - the loader's general rule (:mod:`swarmstats.io.resumed`) would also
drop step N, whose training values no later line prints again.  A step going back to where
the run began is a new run (a ``run`` column, ``#1``, ``#2``, ...).

``trainer.logger=file`` writes JSON Lines instead, ``{"step": 1, "data": {"actor/entropy":
0.336, ...}}`` (``VERL_FILE_LOGGER_PATH``): read as the same keys, without the ``data/``.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..resumed import is_resume
from ..written_nan import scalar
from ._table import LogTable, numeric_frame, printed_number
from .console import visible
from .notebooks import printed_text

#: ``step:N`` where a line's metrics start: at the line's start, after Ray's ``(Actor pid=N)``
#: or after a progress bar drawn on the same line - never inside a key (``training/global_step:9``,
#: ``timing_s/step:61.7``, a checkpoint path ``global_step_9``)
_STEP = re.compile(r"(?<![\w/:.@-])step:(\d+)(?= - |\s*$)")
#: Ray's note that it folded identical lines from several workers into one
_RAY_REPEATED = re.compile(r"\s*\[repeated \d+x across cluster\]\s*$")
#: the process Ray names before a line it printed: ``(TaskRunner pid=20910)``
_RAY_PROCESS = re.compile(r"\(([^()]*?pid=\d+)[^()]*\)")
#: a numpy scalar as ``pprint.pformat`` shows it under numpy 2: ``np.float64(0.259)``
_NUMPY_SCALAR = re.compile(r"^(?:np|numpy)\.(?:float|int|uint)\d*\((.*)\)$")
#: what only verl's jobs print near their start: its Ray task runner, its trainer module, the
#: configuration's first key (a log's first step line is often 100 KB in, past the sniffed head)
_VERL_START = re.compile(r"\((?:TaskRunner|main_task) pid=\d+|verl\.trainer\.main_|'actor_rollout_ref': \{")
#: verl's ``{v:.3f}``: a value printed with exactly three decimals
_THREE_DECIMALS = re.compile(r"^-?\d+\.\d{3}$")
#: the file logger's nesting, flattened by the JSON Lines reader
FILE_PREFIX = "data/"


def parse_step_line(line: str) -> tuple[int, dict] | None:
    """A printed step line as (step, {key: printed value}); None for any other line.

    >>> parse_step_line("\\x1b[36m(TaskRunner pid=7)\\x1b[0m step:3 - critic/score/mean:np.float64(0.25) - actor/lr:1e-06")
    (3, {'critic/score/mean': 'np.float64(0.25)', 'actor/lr': '1e-06'})
    >>> parse_step_line("saved to /ckpt/global_step:9/actor") is None
    True
    """
    if "step:" not in line:
        return None
    line = visible(line)
    found = _STEP.search(line)
    if found is None:
        return None
    rest = _RAY_REPEATED.sub("", line[found.end():])
    printed = {}
    for part in rest.split(" - ")[1:]:
        key, colon, value = part.rpartition(":")
        key = key.strip()
        if not colon or not key or " " in key:
            return None  # not verl's "key:value" pairs: some other text that says "step:"
        printed[key] = value.strip()
    return (int(found.group(1)), printed) if printed else None


def printing_process(line: str) -> str | None:
    """The Ray process that printed ``line`` (``TaskRunner pid=20910``); None without Ray's prefix.

    >>> printing_process("\x1b[36m(TaskRunner pid=7)\x1b[0m step:3 - a:1"), printing_process("step:3 - a:1")
    ('TaskRunner pid=7', None)
    """
    found = _RAY_PROCESS.search(visible(line).partition("step:")[0])
    return found.group(1) if found else None


def printed_value(value: str) -> float | None:
    """A printed value as a float: ``0.259``, ``1e-06``, ``nan``, ``np.float64(0.259)``; None for
    anything else (``True``, a word).

    >>> printed_value("np.float64(0.25)"), printed_value("-0.027"), printed_value("True")
    (0.25, -0.027, None)
    """
    try:
        return scalar(float(value))  # the common case, first: a log holds ~50 values a line
    except ValueError:
        numpy_form = _NUMPY_SCALAR.match(value)
        return printed_number(numpy_form.group(1)) if numpy_form else None


def is_console_head(head: str, base: str) -> bool:
    """Does the start of a file show verl's console log: a step line, or (the first step line
    being further in) what only a verl job prints as it starts?"""
    # every text log pays this sniff: substring tests first, the line scan and regex only after;
    # a one-character test before each short word (~0.1 against ~7 us on 14 KB: the characters
    # ':', '=' and 'v' are rare in a table of numbers)
    if ":" in head and "step:" in head and any(parse_step_line(line) for line in head.splitlines()
                                                if "step:" in line):
        return True
    return (("=" in head and "pid=" in head) or ("v" in head and "verl." in head)
            or "actor_rollout_ref" in head) and _VERL_START.search(head) is not None


def is_late(step: float, first: float, last: float, process: str | None, printer: str | None) -> bool:
    """Is a line at ``step``, printed by ``process`` after a line of ``printer`` in a run that
    went from step ``first`` to ``last``, a late line (module docstring): the same Ray process,
    a step it has passed, not back to the run's first.

    >>> is_late(10, 1, 11, "TaskRunner pid=7", "TaskRunner pid=7"), is_late(10, 1, 11, "pid=8", "pid=7")
    (True, False)
    """
    return process is not None and process == printer and first < step < last


class _StepRows:
    """The rows of a verl log, a step each, placed as the module docstring says: a line at the
    last step joins it, a late line from the same process joins its step, a resume cuts the rows
    past the checkpoint, a step back to the run's start begins a new run."""

    def __init__(self):
        self.rows, self.steps, self.runs = [], [], []
        self.run, self.begin = 1, 0  # the current run's number and first row
        self.resumes, self.replaced, self.late = [], 0, 0
        self._process = None  # the Ray process that printed the last line

    def add(self, step: int, values: dict, process: str | None) -> None:
        printer, self._process = self._process, process
        steps, begin = self.steps, self.begin
        if len(steps) > begin and is_late(step, steps[begin], steps[-1], process, printer):
            self.late += 1
            at = begin + int(np.searchsorted(steps[begin:], step))
            if at < len(steps) and steps[at] == step:
                self.rows[at].update(values)
            else:
                self._insert(at, step, values)
            return
        if len(steps) > begin and step < steps[-1]:
            if is_resume(np.array(steps[begin:], dtype=float), step):
                self.resumes.append((step, steps[-1]))  # from its checkpoint: the steps past it are redone
                cut = begin + int(np.searchsorted(steps[begin:], step, side="right"))
                self.replaced += len(steps) - cut
                del self.rows[cut:], self.steps[cut:], self.runs[cut:]
            else:
                self.run, self.begin = self.run + 1, len(steps)  # back to where the run began: a new run
        if len(steps) > self.begin and step == steps[-1]:
            self.rows[-1].update(values)  # a second line at the step (a validation printed apart, a resume)
            return
        self._insert(len(steps), step, values)

    def _insert(self, at: int, step: int, values: dict) -> None:
        self.rows.insert(at, values)
        self.steps.insert(at, step)
        self.runs.insert(at, self.run)


def read_console(name: str, text: str) -> LogTable:
    """The step lines of ``text`` (the decoded file) as a table (module docstring)."""
    if name.lower().endswith(".ipynb"):  # (a verl run launched from a notebook cell)
        text = printed_text(name, text)
    placed, three_decimals, words, printed_lines = _StepRows(), True, set(), 0
    lines = text.splitlines()
    # verl ends every line it prints with a newline: a last line without one is still being
    # written (or the copy was cut), and its last value may be cut short ("0.497" read "0.49")
    unfinished = bool(lines) and not text.endswith(("\n", "\r")) and parse_step_line(lines[-1]) is not None
    if unfinished:
        lines.pop()
    for line in lines:
        parsed = parse_step_line(line)
        if parsed is None:
            continue
        printed_lines += 1
        step, printed = parsed
        values = {}
        for key, value in printed.items():
            number = printed_value(value)
            if number is None:
                words.add(key)
                continue
            values[key] = number
            three_decimals = three_decimals and bool(_THREE_DECIMALS.match(value))
        if values:
            placed.add(step, values, printing_process(line))
    rows, run = placed.rows, placed.run
    if not rows:
        raise InputError(f"{name}: no verl step line with a number found (verl prints "
                         "'step:N - key:value - ...' once per training step with trainer.logger=console)")
    keys = list(dict.fromkeys(key for row in rows for key in row))
    arrays = {}
    if run > 1:
        arrays["run"] = np.array([f"#{label}" for label in placed.runs], dtype=object)
    arrays["step"] = np.array(placed.steps, dtype=float)
    arrays.update({key: np.array([row.get(key, math.nan) for row in rows]) for key in keys})
    notes = [f"{printed_lines} step line(s) printed by verl's console logger; the rest of the text is skipped"]
    if three_decimals:
        notes.append("values printed to 3 decimals (verl before mid-2025 printed '{v:.3f}'): each "
                     "known only to within 0.0005, and one below 0.0005 reads as 0")
    if words - set(keys):
        shown = sorted(words - set(keys))
        notes.append(f"{len(shown)} key(s) never printed as a number, not metrics: "
                     f"{', '.join(shown[:3])}{' ...' if len(shown) > 3 else ''}")
    if placed.late:
        notes.append(f"{placed.late} line(s) printed after a later step by the same process (a validation "
                     "arriving late, as verl's fully asynchronous trainer logs it): each joined its step")
    if unfinished:
        notes.append("the last line is a step line with no newline after it, as a log still being "
                     "written has: left out (its last value may be cut short)")
    if placed.resumes:
        (first, after), more = placed.resumes[0], len(placed.resumes)
        notes.append(f"resumed from its checkpoint at step {first} after step {after} ({more} time"
                     f"{'s' if more > 1 else ''}): the {placed.replaced} row(s) printed past the checkpoint "
                     "are replaced by the resumed run's")
    if run > 1:
        notes.append(f"{run} runs printed one after another (the step went back to where a run "
                     f"began): {', '.join(f'#{label}' for label in range(1, run + 1))}")
    return LogTable(None, "verl-console", name, notes, arrays=arrays)


def is_file_log(names: list) -> bool:
    """Is a JSON Lines header (flattened with ``/``) verl's file logger: ``step`` and ``data/...``?"""
    return "step" in names and len(names) > 1 and all(
        name == "step" or name.startswith(FILE_PREFIX) for name in names)


def read_file_log(frame: pd.DataFrame, name: str) -> LogTable:
    """verl's file logger (``{"step": N, "data": {...}}`` per line) with its keys as printed."""
    numbers = numeric_frame(frame, name)
    if "step" not in numbers:
        raise InputError(f"{name}: verl's file logger writes a number as each line's 'step'")
    bare = {column: column[len(FILE_PREFIX):] for column in numbers.columns
            if column.startswith(FILE_PREFIX) and column[len(FILE_PREFIX):] not in numbers.columns}
    numbers = numbers.rename(columns=bare)
    return LogTable(numbers, "verl-file", name, ["verl's file logger: each line one logging call, "
                                                  "its 'data' keys the metrics"])
