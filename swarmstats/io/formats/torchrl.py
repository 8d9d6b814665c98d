"""TorchRL's CSV logger (also BenchMARL's, which logs through it): a file per metric.

``torchrl.record.loggers.CSVLogger(exp_name, log_dir)`` writes each scalar to
``<log_dir>/<exp_name>/scalars/<name>.csv``, one ``step,value`` line per call and no header
(``fd.write(",".join([str(global_step), str(value)]) + "\\n")``); a name with ``/`` makes
subfolders, and BenchMARL replaces its ``/`` by ``_`` (``eval_reward_episode_reward_mean.csv``).
Read as a plain CSV, the first line became the header: the metric was named ``0.3641957`` and
its steps, named ``0``, were left out as a counter - the slope was quoted per row, not per step.

A file is read alone (the metric named after it), or a folder is read whole: the ``scalars``
folder, the experiment folder holding it, or a folder of experiments (each a run).  The file
is opened for appending, so a run resumed under the same name continues it: a step that goes
back is a resume (the later values replace the earlier at the same steps, noted), and one that
goes back to the file's first step a new run (``#2``).

>>> table = read_scalar_file("scalars/reward.csv", "0,1.5\\n100,2.5\\n")
>>> table.frame.to_dict("list")
{'step': [0.0, 100.0], 'reward': [1.5, 2.5]}
"""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..tabular import decode_text, read_path
from ._table import LogTable, printed_number, runs_frame, sparse_to_wide

#: the folder of TorchRL's CSV logger that holds the scalars (beside ``videos`` and ``texts``)
SCALARS = "scalars"
#: a line TorchRL writes: ``str(step),str(float(value))`` - the value as Python prints a float
#: (a point or an exponent, or nan / inf), which a header of pandas' default labels ("0,1") is not
_LINE = re.compile(r"^\s*-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?\s*,\s*(?:[-+]?(?:nan|inf)|-?\d+(?:\.\d*(?:[eE][-+]?\d+)?|[eE][-+]?\d+))\s*$")
#: how many first lines must look like TorchRL's for a file to be taken for one
_SNIFFED_LINES = 5


def is_scalar_line(line: str) -> bool:
    """Is ``line`` one TorchRL writes (``step,value``, the value as Python prints a float)?"""
    return _LINE.match(line) is not None


def is_scalar_head(head: str, base: str) -> bool:
    """Does a CSV start like a TorchRL scalar file: ``step,value`` lines with no header?"""
    if not base.lower().endswith(".csv") or not head[:1].isdigit() and not head.startswith("-"):
        return False  # (a header starts with a letter: the common CSV pays one character test)
    lines = [line for line in head.splitlines()[:_SNIFFED_LINES + 1] if line.strip()]
    if len(lines) > _SNIFFED_LINES or (head.endswith(("\n", "\r")) is False and len(lines) > 1):
        lines = lines[:-1]  # the last line of the head may be cut
    return bool(lines) and all(_LINE.match(line) for line in lines)


def metric_name(path: str, scalars: str | None = None) -> str:
    """The metric a scalar file holds: its path under ``scalars`` (TorchRL makes a folder of
    each ``/`` in a name), else its file name, without ``.csv``."""
    relative = os.path.relpath(path, scalars) if scalars else os.path.basename(path)
    return relative[:-4].replace(os.sep, "/") if relative.lower().endswith(".csv") else relative


class _Series:
    """One file's (step, value) lines, split into the runs appended to it."""

    def __init__(self, name: str, text: str):
        lines = text.splitlines()
        self.unfinished = bool(lines) and not text.endswith(("\n", "\r"))
        if self.unfinished:
            lines.pop()  # the line being written: "0.49" of what will read "0.4973"
        steps, values, self.malformed = [], [], 0
        for line in lines:
            if not line.strip():
                continue
            step, _, value = line.partition(",")
            step_number, number = printed_number(step.strip()), printed_number(value.strip())
            if step_number is None or number is None or not math.isfinite(step_number) or "," in value:
                self.malformed += 1
                continue
            steps.append(step_number)
            values.append(number)  # a printed nan is a NaN the run logged (marked so)
        self.steps = np.array(steps, dtype=float)
        self.values = np.array(values, dtype=float)
        self.runs = np.ones(len(steps), dtype=int)
        self.replaced = 0  # values a resumed run logged again (at or past where it resumed)
        if len(steps) > 1:
            kept = np.ones(len(steps), dtype=bool)
            back = np.flatnonzero(self.steps[1:] < self.steps[:-1]) + 1
            run, start = 1, 0
            for at in back:
                if self.steps[at] <= self.steps[start]:
                    run, start = run + 1, at  # back to where the run began: a new run
                else:  # a resume: what was logged before at or past its step is superseded
                    earlier = np.arange(start, at)
                    kept[earlier[self.steps[start:at] >= self.steps[at]]] = False
                self.runs[at:] = run
            self.replaced = int((~kept).sum())
            self.steps, self.values, self.runs = self.steps[kept], self.values[kept], self.runs[kept]


def _tidy(series: list[tuple[str, _Series]]) -> tuple[pd.DataFrame, list]:
    """The metrics' lines as one tidy frame (a ``run`` column when a file holds several), and
    the notes on what was left out or merged."""
    several = any(s.runs[-1] > 1 for _, s in series if len(s.runs))
    frames = []
    for metric, s in series:
        part = {"step": s.steps, "metric": np.full(len(s.steps), metric, dtype=object), "value": s.values}
        if several:
            part = {"run": np.array([f"#{run}" for run in s.runs], dtype=object), **part}
        frames.append(pd.DataFrame(part))
    notes = []
    cut = [metric for metric, s in series if s.unfinished]
    if cut:
        notes.append(f"a last line still being written left out ({', '.join(cut[:5])})")
    bad = sum(s.malformed for _, s in series)
    if bad:
        notes.append(f"{bad} line(s) that are not 'step,value' left out")
    resumed = [f"{metric} ({s.replaced})" for metric, s in series if s.replaced]
    if resumed:
        notes.append(f"a run resumed into its file (the step went back): the values logged before at "
                     f"or past the step it resumed from are replaced by the resumed run's: {', '.join(resumed[:5])}")
    if several:
        notes.append("a file holds runs appended one after another (the step went back to its start): "
                     "runs #1, #2, ... in the order written")
    return pd.concat(frames, ignore_index=True), notes


def _table(series: list[tuple[str, _Series]], source: str) -> LogTable:
    tidy, notes = _tidy(series)
    if not len(tidy):
        raise InputError(f"{source}: no 'step,value' line in TorchRL's scalar file(s)")
    return LogTable(sparse_to_wide(tidy), "torchrl-csv", source, notes)


def read_scalar_file(name: str, text: str) -> LogTable:
    """One TorchRL scalar file, its metric named after it."""
    return _table([(metric_name(name), _Series(name, text))], name)


def read_folder(path: str) -> LogTable | None:
    """A TorchRL experiment (its ``scalars`` folder, or the folder holding it) or a log_dir of
    experiments (each a run, named after its folder); None for a folder that is neither.  Each
    CSV's first lines are looked at once, here, and handed on."""
    found = _experiment(path)
    if found is not None:
        return _read_experiment(path, *found)
    experiments = [(entry, found) for entry in sorted(os.listdir(path))
                   if os.path.isdir(os.path.join(path, entry))
                   and (found := _experiment(os.path.join(path, entry))) is not None]
    if not experiments:
        return None
    if len(experiments) == 1:
        return _read_experiment(os.path.join(path, experiments[0][0]), *experiments[0][1])
    names = [entry for entry, _ in experiments]
    parts, notes = [], [f"{len(names)} TorchRL experiment folders, one run each: {', '.join(names)}"]
    for entry, found in experiments:
        table = _read_experiment(os.path.join(path, entry), *found)
        notes += [f"{entry}: {note}" for note in table.notes]
        frame = table.frame
        if "run" in frame.columns:  # runs appended inside one experiment's files
            frame = frame.assign(run=entry + " " + frame["run"].astype(str))
        else:
            frame = frame.assign(run=entry)
        parts.append(frame)
    frame = runs_frame(parts)
    return LogTable(frame, "torchrl-csv", path, notes)


def _experiment(path: str) -> tuple[str, list] | None:
    """(the ``scalars`` folder, its CSV files as (path, is a scalar file)) of a TorchRL
    experiment at ``path`` (the folder itself, or its ``scalars`` subfolder) when it holds
    scalar files; None otherwise."""
    for folder in (path, os.path.join(path, SCALARS)):
        if os.path.basename(os.path.normpath(folder)) == SCALARS and os.path.isdir(folder):
            files = _files(folder)
            if any(scalar for _, scalar in files):
                return folder, files
    return None


def _files(folder: str) -> list:
    """(path, is a scalar file) of every CSV under ``folder``, in name order."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for file in sorted(files):
            if file.lower().endswith(".csv"):
                path = os.path.join(root, file)
                name, head = read_path(path, 4096)
                found.append((path, is_scalar_head(head.decode("utf-8", "replace"), file)))
    return found


def _read_experiment(path: str, folder: str, files: list) -> LogTable:
    """Every scalar file of one experiment, each a metric; other CSVs beside them named."""
    series, other = [], []
    for file, scalar in files:
        if not scalar:
            other.append(os.path.relpath(file, folder))
            continue
        name, data = read_path(file)
        series.append((metric_name(file, folder), _Series(name, decode_text(name, data))))
    table = _table(series, path)
    if other:
        table.notes.append(f"left out {', '.join(other[:5])}{' ...' if len(other) > 5 else ''}: "
                           "not TorchRL's step,value lines")
    return table
