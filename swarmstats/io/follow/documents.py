"""``swarmstats watch`` of a log that is rewritten whole rather than appended to: a JSON document
(a Hugging Face ``trainer_state.json``, pymarl's ``info.json``, sacred's ``metrics.json``, a
marl-eval file) or a run folder (a ``results/sacred`` folder, a TorchRL experiment).

Followed line by line, such a file was garbage: a pretty-printed info.json was taken for a CSV
whose header was ``  "battle_won_mean": [``, and its numbers for rows (a "metric" with mean
1e6).  Here each poll reads the whole log again with :func:`swarmstats.io.read_log` when it has
changed, and hands on the values not handed on before, one record per (run, step).  A document
caught half-written does not parse: that poll is an event, and the next one reads it whole.  A
log that no longer holds values handed on before was rewritten from scratch (a new training in
the same folder): the watch starts over.
"""

from __future__ import annotations

import csv
import io
import json
import os

import numpy as np
import pandas as pd

from ..._result import plain_number
from ...errors import InputError
from ..columns import find_step
from ..decoding import check_readable
from ..formats._table import AXES
from ..formats.nanogpt import is_printed_head
from ..formats.wandb import is_chart
from ..logs import read_log
from ..tabular import read_path, sniff_layout
from ..written_nan import logged


def is_document(path: str) -> bool:
    """Is ``path`` a log that is read whole: a run folder, a ``.json`` file holding one JSON
    document (not JSON Lines), a W&B chart export, SWARM's event log or what nanoGPT prints?  Anything else - a file
    not there yet among them - is followed line by line (a printed log may start with
    "[INFO ...]", which is no JSON)."""
    if os.path.isdir(path):
        return True
    if not os.path.isfile(path):
        return False
    name, head = read_path(path, 65536)  # a chart export's header names every run three times
    text = head.decode("utf-8", "replace")
    layout = sniff_layout(name, text)
    if is_printed_head(text, name):
        # nanoGPT's printed lines: read again whenever the file grows, as read_log reads them
        return True
    if layout == "csv":
        # a W&B chart export holds its runs in its column names ("gpt2 - train/loss" and its
        # __MIN/__MAX band): read line by line, every run's line and band was a metric of its own
        try:
            return is_chart(next(csv.reader(io.StringIO(text)), []))
        except csv.Error:  # not a table (a stray carriage return, binary bytes): the follower says so
            return False
    if layout == "jsonl":
        # SWARM's events: an interaction is spread over several lines (proposed, completed,
        # payoff) joined by its id; line by line, each epoch's payload fields were the metrics
        return _is_swarm_event(text.lstrip().split("\n", 1)[0])
    return path.lower().endswith(".json") and layout == "json"


def _is_swarm_event(line: str) -> bool:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser takes
        return False
    return isinstance(record, dict) and "event_type" in record and isinstance(record.get("payload"), dict)


class DocumentFollower:
    """A log rewritten whole, followed as :class:`~swarmstats.io.follow.Follower` follows a file
    appended to (module docstring)."""

    def __init__(self, path: str):
        check_readable(path)  # missing, a FIFO, a loop: exit 2
        self.path = path
        self.skipped, self.first_skip = 0, None
        self.events: list[tuple[str, str]] = []
        self.restarted = False
        self.verl = False  # (see Follower)
        self._seen: dict = {}  # (run, step) -> the metrics handed on at it
        self._stamp = None  # what the log looked like at the last read
        self._unit = None
        self._planned = None
        self._unreadable = False

    def step_unit(self, step_key: str | None) -> str | None:
        """What a step of this log is, as read_log says (timesteps for pymarl's t_env)."""
        return self._unit

    def planned_steps(self, record: dict) -> float | None:
        """The step the run is planned to end at, as read_log says (a mid-run
        trainer_state.json's ``max_steps``)."""
        return self._planned

    def _changed(self) -> bool:
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        return True

    def records(self) -> list[dict]:
        self.restarted = False
        if not self._changed():
            return []
        try:
            wide = read_log(self.path, wide=True)
        except InputError as exc:  # caught half-written, or not written yet: the next poll reads it
            self._stamp = None
            if not self._unreadable:
                self._unreadable = True
                self.events.append(("unreadable", f"{exc}; waiting"))
            return []
        self._unreadable = False
        self._unit = wide.attrs.get("step_unit")
        self._planned = wide.attrs.get("planned_steps")
        # a generic document's step column is named as any table's (global_step, epoch ...)
        axis = "step" if "step" in wide.columns else find_step(wide)
        # numbers only: a column of words is no metric here either (the batch commands name it)
        metrics = [c for c in wide.columns if c not in AXES and c != axis
                   and pd.api.types.is_numeric_dtype(wide[c]) and not pd.api.types.is_bool_dtype(wide[c])]
        runs = wide["run"].astype(str).to_numpy() if "run" in wide.columns else np.full(len(wide), None)
        steps = wide[axis].to_numpy(dtype=float) if axis else np.arange(len(wide), dtype=float)
        values = {metric: wide[metric].to_numpy(dtype=float) for metric in metrics}
        written = {metric: logged(column) for metric, column in values.items()}  # a NaN the log wrote too
        present = {(run, float(step)) for run, step in zip(runs, steps)}
        if any(key not in present for key in self._seen):  # rewritten from scratch
            self._seen, self.restarted = {}, True
        out = []
        for i, (run, step) in enumerate(zip(runs, steps)):
            key = (run, float(step))
            done = self._seen.setdefault(key, set())
            record = {metric: float(values[metric][i]) for metric in metrics
                      if metric not in done and written[metric][i]}
            if not record:
                continue
            done.update(record)
            record["step"] = plain_number(step)
            if run is not None:
                record["run"] = run
            out.append(record)
        return out

    def take_events(self) -> list:
        events, self.events = self.events, []
        return events

    def close(self) -> None:
        pass


def _stamp(path: str):
    """What a log looks like without reading it: its (or its files') size and modification time."""
    if not os.path.isdir(path):
        try:
            info = os.stat(path)
        except OSError:
            return None
        return (info.st_size, info.st_mtime_ns)
    stamps = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for file in sorted(files):
            try:
                info = os.stat(os.path.join(root, file))
            except OSError:
                continue
            stamps.append((file, info.st_size, info.st_mtime_ns))
    return tuple(stamps)
