"""Loggers that write a file per metric: a line of numbers per logging call, the value last,
and no header - TorchRL's CSV logger (``step,value``) and d3rlpy's (``epoch,step,value``).

Each is a :class:`Writer`: the numbers before the value, the line it writes, and where an
experiment keeps its files.  A file is read alone (the metric named after it), or a folder
whole: an experiment's files (each a metric), or a folder of experiments (each a run).  The
files are opened for appending, so a run resumed under the same name continues them: a step
that goes back is a resume (the later values replace the earlier at the same steps, noted),
and one that goes back to the file's first step a new run (``#2``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import InputError
from ..plain_csv import filled_rows
from ..tabular import decode_text, read_path
from ._table import LogTable, metric_label, printed_number, runs_frame, sparse_to_wide

#: a value as Python prints a float (a point or an exponent, or nan / inf), which a header of
#: pandas' default labels ("0,1") is not
VALUE = r"(?:[-+]?(?:nan|inf)|-?\d+(?:\.\d*(?:[eE][-+]?\d+)?|[eE][-+]?\d+))"
#: how many first lines must look like a writer's for a file to be taken for one
_SNIFFED_LINES = 5


@dataclass(frozen=True)
class Writer:
    """How one logger writes its files (see the module docstring)."""

    format: str          # the log format read
    name: str            # who writes them, for notes and messages ("TorchRL")
    axes: tuple          # the numbers before the value on a line, "step" among them
    line: re.Pattern     # one line it writes
    #: the experiment's folder holding the files ("scalars", walked down: a metric named with
    #: "/" is a subfolder); None: the experiment folder itself, its subfolders not
    subfolder: str | None
    experiment: str = "experiment"  # what one folder of its files is called

    @property
    def shape(self) -> str:
        """A line's fields, as notes name them (``step,value``)."""
        return ",".join(self.axes) + ",value"

    def is_line(self, line: str) -> bool:
        """Is ``line`` one this writer writes?"""
        return self.line.match(line) is not None

    def is_head(self, head: str, base: str) -> bool:
        """Does a CSV start like one of this writer's files: its lines with no header?"""
        if not base.lower().endswith(".csv") or not head[:1].isdigit() and not head.startswith("-"):
            return False  # (a header starts with a letter: the common CSV pays one character test)
        lines = [line for line in head.splitlines()[:_SNIFFED_LINES + 1] if line.strip()]
        if len(lines) > _SNIFFED_LINES or (head.endswith(("\n", "\r")) is False and len(lines) > 1):
            lines = lines[:-1]  # the last line of the head may be cut
        return bool(lines) and all(self.line.match(line) for line in lines)

    def read_file(self, name: str, text: str) -> LogTable:
        """One file, its metric named after it."""
        return self._table([(metric_name(name), ScalarSeries(name, text, self.axes))], name)

    def read_folder(self, path: str) -> LogTable | None:
        """An experiment (its files' folder, or the folder holding it) or a folder of
        experiments (each a run, named after its folder); None for a folder that is neither.
        Each CSV's first lines are looked at once, here, and handed on."""
        found = self._experiment(path)
        if found is not None:
            return self._read_experiment(path, *found)
        experiments = [(entry, found) for entry in sorted(os.listdir(path))
                       if os.path.isdir(os.path.join(path, entry))
                       and (found := self._experiment(os.path.join(path, entry))) is not None]
        if not experiments:
            return None
        if len(experiments) == 1:
            return self._read_experiment(os.path.join(path, experiments[0][0]), *experiments[0][1])
        names = [entry for entry, _ in experiments]
        parts, notes = [], [f"{len(names)} {self.name} {self.experiment} folders, one run each: {', '.join(names)}"]
        for entry, found in experiments:
            table = self._read_experiment(os.path.join(path, entry), *found)
            notes += [f"{entry}: {note}" for note in table.notes]
            frame = table.frame
            if "run" in frame.columns:  # runs appended inside one experiment's files
                frame = frame.assign(run=entry + " " + frame["run"].astype(str))
            else:
                frame = frame.assign(run=entry)
            parts.append(frame)
        return LogTable(runs_frame(parts), self.format, path, notes)

    def _experiment(self, path: str) -> tuple[str, list] | None:
        """(the folder of the files, its CSV files as (path, is one of this writer's)) of an
        experiment at ``path`` when it holds such files; None otherwise."""
        if self.subfolder is None:
            candidates = [path]
        else:  # the folder itself, or its subfolder, named so
            candidates = [folder for folder in (path, os.path.join(path, self.subfolder))
                          if os.path.basename(os.path.normpath(folder)) == self.subfolder]
        for folder in candidates:
            if os.path.isdir(folder):
                files = self._files(folder)
                if any(ours for _, ours in files):
                    return folder, files
        return None

    def _files(self, folder: str) -> list:
        """(path, is one of this writer's) of every CSV in ``folder`` (and below it, for a
        writer whose metric names make subfolders), in name order."""
        found = []
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            if self.subfolder is None:
                dirs.clear()
            for file in sorted(files):
                if file.lower().endswith(".csv"):
                    path = os.path.join(root, file)
                    name, head = read_path(path, 4096)
                    found.append((path, self.is_head(head.decode("utf-8", "replace"), file)))
        return found

    def _read_experiment(self, path: str, folder: str, files: list) -> LogTable:
        """Every file of one experiment, each a metric; other CSVs beside them named."""
        series, other = [], []
        for file, ours in files:
            if not ours:
                other.append(os.path.relpath(file, folder))
                continue
            name, data = read_path(file)
            series.append((metric_name(file, folder), ScalarSeries(name, decode_text(name, data), self.axes)))
        table = self._table(series, path)
        if other:
            table.notes.append(f"left out {', '.join(other[:5])}{' ...' if len(other) > 5 else ''}: "
                               f"not {self.name}'s {self.shape} lines")
        return table

    def _table(self, series: list, source: str) -> LogTable:
        """Files of one metric each (``(metric, series)``) as one wide log."""
        if not any(len(s.values) for _, s in series):
            raise InputError(f"{source}: no '{self.shape}' line in {self.name}'s file(s)")
        notes, arrays = _notes(series, self.shape), _wide(series)
        if arrays is None:
            return LogTable(sparse_to_wide(_tidy(series)), self.format, source, notes)
        return LogTable(None, self.format, source, notes, arrays=arrays)


def metric_name(path: str, folder: str | None = None) -> str:
    """The metric a file holds: its path under ``folder`` (TorchRL makes a folder of each
    ``/`` in a name), else its file name, without ``.csv``."""
    relative = os.path.relpath(path, folder) if folder else os.path.basename(path)
    return relative[:-4].replace(os.sep, "/") if relative.lower().endswith(".csv") else relative


class ScalarSeries:
    """One file's lines of numbers, its ``axes`` then the value (TorchRL's ``step,value``;
    d3rlpy's ``epoch,step,value``), split into the runs appended to it by its ``step``."""

    def __init__(self, name: str, text: str, axes: tuple = ("step",)):
        end = max(text.rfind("\n"), text.rfind("\r")) + 1
        tail = text[end:]  # the line being written ("0.49" of what will read "0.4973"): left out
        self.unfinished = bool(tail)
        # a table of plain numbers is parsed whole; any other text line by line
        rows = filled_rows(text[:end].encode()) if tail.splitlines() in ([], [tail]) else None
        if rows is not None and rows.shape[1] == len(axes) + 1 and np.isfinite(rows[:, :-1]).all():
            columns, self.malformed = list(rows.T), 0
        else:
            columns, self.malformed = _printed_columns(text, len(axes) + 1)
        self.axes = dict(zip(axes, columns))
        self.values = columns[-1]
        self.runs = np.ones(len(self.values), dtype=int)
        self.replaced = 0  # values a resumed run logged again (at or past where it resumed)
        steps = self.axes["step"]
        if len(steps) > 1:
            kept = np.ones(len(steps), dtype=bool)
            back = np.flatnonzero(steps[1:] < steps[:-1]) + 1
            run, start = 1, 0
            for at in back:
                if steps[at] <= steps[start]:
                    run, start = run + 1, at  # back to where the run began: a new run
                else:  # a resume: what was logged before at or past its step is superseded
                    earlier = np.arange(start, at)
                    kept[earlier[steps[start:at] >= steps[at]]] = False
                self.runs[at:] = run
            self.replaced = int((~kept).sum())
            self.axes = {axis: column[kept] for axis, column in self.axes.items()}
            self.values, self.runs = self.values[kept], self.runs[kept]

    @property
    def steps(self) -> np.ndarray:
        return self.axes["step"]


def _printed_columns(text: str, width: int) -> tuple[list, int]:
    """The columns of ``text``'s lines of ``width`` numbers as Python prints them (a last line
    with no line end left out), and how many other lines were left out (a wrong count, a word, a
    step that is not finite)."""
    lines = text.splitlines()
    if lines and not text.endswith(("\n", "\r")):
        lines.pop()
    columns, malformed = [[] for _ in range(width)], 0
    for line in lines:
        if not line.strip():
            continue
        fields = line.split(",")
        numbers = [printed_number(field.strip()) for field in fields] if len(fields) == width else [None]
        if None in numbers or not all(math.isfinite(number) for number in numbers[:-1]):
            malformed += 1
            continue
        for column, number in zip(columns, numbers):
            column.append(number)  # a printed nan value is a NaN the run logged (marked so)
    return [np.array(column, dtype=float) for column in columns], malformed


def _wide(series: list[tuple[str, ScalarSeries]]) -> dict | None:
    """The wide table's columns of files that each hold one run whose steps only go up (the
    common case), on the union of their steps: the table :func:`sparse_to_wide` makes of the
    tidy frame (a file's extra axes written over at a step by a later file, as there), without
    making it or any DataFrame (~0.3 ms of a 10 KB file's ~1 ms read).  None for other files.

    >>> columns = _wide([("loss", ScalarSeries("loss.csv", "0,1.5\\n2,1.25\\n")),
    ...                  ("acc", ScalarSeries("acc.csv", "1,0.5\\n"))])
    >>> {name: column.tolist() for name, column in columns.items()}
    {'step': [0.0, 1.0, 2.0], 'acc': [nan, 0.5, nan], 'loss': [1.5, nan, 1.25]}
    """
    series = [(metric, s) for metric, s in series if len(s.values)]
    if any(s.runs[-1] > 1 or (s.steps[1:] <= s.steps[:-1]).any() for _, s in series):
        return None
    first = series[0][1].steps
    same = all(np.array_equal(s.steps, first) for _, s in series)
    steps = first if same else np.unique(np.concatenate([s.steps for _, s in series]))
    columns = {}
    for metric, s in series:
        at = slice(None) if same else np.searchsorted(steps, s.steps)
        for name, values in [(metric, s.values)] + [(axis, v) for axis, v in s.axes.items() if axis != "step"]:
            columns.setdefault(name, np.full(len(steps), np.nan))[at] = values
    return {"step": np.ascontiguousarray(steps), **{metric_label(name): columns[name] for name in sorted(columns)}}


def _tidy(series: list[tuple[str, ScalarSeries]]) -> pd.DataFrame:
    """The metrics' lines as one tidy frame (a ``run`` column when a file holds several; an axis
    besides the step, d3rlpy's epoch, a column of its own)."""
    several = any(s.runs[-1] > 1 for _, s in series if len(s.runs))
    frames = []
    for metric, s in series:
        columns = [(metric, s.values)] + [(axis, values) for axis, values in s.axes.items() if axis != "step"]
        for name, values in columns:  # (every file holds the epochs: the same ones at a step)
            part = {"step": s.steps, "metric": np.full(len(s.steps), name, dtype=object), "value": values}
            if several:
                part = {"run": np.array([f"#{run}" for run in s.runs], dtype=object), **part}
            frames.append(pd.DataFrame(part))
    return pd.concat(frames, ignore_index=True)


def _notes(series: list[tuple[str, ScalarSeries]], shape: str) -> list:
    """What was left out of the files' lines, or merged."""
    notes = []
    cut = [metric for metric, s in series if s.unfinished]
    if cut:
        notes.append(f"a last line still being written left out ({', '.join(cut[:5])})")
    bad = sum(s.malformed for _, s in series)
    if bad:
        notes.append(f"{bad} line(s) that are not '{shape}' left out")
    resumed = [f"{metric} ({s.replaced})" for metric, s in series if s.replaced]
    if resumed:
        notes.append(f"a run resumed into its file (the step went back): the values logged before at "
                     f"or past the step it resumed from are replaced by the resumed run's: {', '.join(resumed[:5])}")
    if any(s.runs[-1] > 1 for _, s in series if len(s.runs)):
        notes.append("a file holds runs appended one after another (the step went back to its start): "
                     "runs #1, #2, ... in the order written")
    return notes
