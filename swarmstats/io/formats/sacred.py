"""Sacred run folders: pymarl's ``info.json`` and sacred's ``metrics.json``.

Sacred (IDSIA/sacred) keeps each run of an experiment in a folder ``<root>/<id>/`` holding
``config.json``, ``run.json`` (its status and last heartbeat), ``cout.txt`` (what it printed),
``metrics.json`` (what ``log_scalar`` logged: ``{name: {"steps": [...], "timestamps": [...],
"values": [...]}}``) and ``info.json`` (the run's ``info`` dict).

pymarl and the multi-agent codebases built on it (epymarl, pymarl2 and most SMAC papers' code)
keep their statistics in ``info.json``, each metric's values beside the environment timesteps
(``t_env``) they were logged at: ``{"return_mean": [...], "return_mean_T": [...]}``.  Metrics
logged at different intervals (the test statistics, the learner's every ``learner_log_interval``)
have their own step lists.

Values jsonpickle wrote for numpy scalars (``{"py/object": "numpy.float64", "value": 0.5}``)
are read; a value pickled whole (a torch tensor logged without ``.item()``: ``{"py/reduce":
...}``) cannot be, and its metric is left out with a note, never read as missing.

>>> table = read_info({"return_mean": [1.5, {"py/object": "numpy.float64", "value": 2.0}],
...                    "return_mean_T": [40, 10040]}, "info.json")
>>> table.frame.to_dict("list")
{'step': [40.0, 10040.0], 'return_mean': [1.5, 2.0]}
"""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..tabular import read_json_file, read_path
from ._sweep import setting_labels
from ._table import LogTable, runs_frame, sparse_to_wide

#: the suffix of a pymarl metric's step list (``return_mean_T``: the t_env of each value)
STEP_SUFFIX = "_T"
#: the files of a sacred run folder that hold what it logged
INFO, METRICS, RUN, CONFIG, COUT = "info.json", "metrics.json", "run.json", "config.json", "cout.txt"
#: names listed in a note before "and N more"
_LISTED = 10
#: a pymarl metric's step list in an info.json's bytes: ``"return_mean_T": [``
_STEP_LIST = re.compile(rb'"[^"\n]*_T"\s*:\s*\[')


def is_info(payload) -> bool:
    """Is ``payload`` a pymarl ``info.json``: lists of values, each beside its ``_T`` list?"""
    return isinstance(payload, dict) and any(
        isinstance(values, list) and isinstance(payload.get(f"{key}{STEP_SUFFIX}"), list)
        for key, values in payload.items())


def is_metrics(payload) -> bool:
    """Is ``payload`` a sacred ``metrics.json``: every entry a dict of ``steps`` and ``values``?"""
    return isinstance(payload, dict) and bool(payload) and all(
        isinstance(entry, dict) and isinstance(entry.get("steps"), list)
        and isinstance(entry.get("values"), list) for entry in payload.values())


def _number(value) -> float | None:
    """A logged value as a float: a number, a numpy scalar as jsonpickle wrote it, None as a
    missing value (NaN); None for anything else (a pickled tensor, a list, a word, a bool).
    A ``NaN`` in the file is a NaN the run wrote, and the JSON parser has marked it so."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if value is None:
        return math.nan
    if isinstance(value, dict) and str(value.get("py/object", "")).startswith("numpy."):
        return _number(value.get("value"))
    return None


def _floats(values: list) -> np.ndarray | None:
    """``values`` as floats (see :func:`_number`); None when one of them is no number.  A list
    of plain numbers - the common case - is converted in one call (a value at a time cost ~0.3
    us each, most of the time to read a pymarl info.json)."""
    array = np.array(values)
    if array.ndim == 1 and array.dtype.kind in "fiu":
        return array.astype(float)  # (a NaN the file wrote keeps its bits, and its mark)
    numbers = [_number(value) for value in values]
    return None if any(number is None for number in numbers) else np.array(numbers, dtype=float)


def _listed(names: list) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown if len(names) <= _LISTED else f"{shown} and {len(names) - _LISTED} more"


class MetricLists:
    """The metrics of one file, each a list of values beside a list of steps, gathered as tidy
    pieces, and what could not be read (sacred's, pymarl's, tensorboardX's JSON export)."""

    def __init__(self, name: str):
        self.name = name
        self.steps, self.metrics, self.values = [], [], []
        self.pickled, self.uneven, self.bad_steps = [], [], []

    def add(self, metric: str, values: list, steps: list) -> None:
        if len(values) != len(steps):
            self.uneven.append(f"{metric} ({len(values)} values, {len(steps)} steps)")
            return
        numbers = _floats(values)
        if numbers is None:
            self.pickled.append(metric)
            return
        axis = _floats(steps)
        if axis is None or not np.isfinite(axis).all():
            self.bad_steps.append(metric)
            return
        self.steps.append(axis)
        self.values.append(numbers)
        self.metrics.append(np.full(len(numbers), metric, dtype=object))

    def notes(self) -> list:
        notes = []
        if self.pickled:
            notes.append(f"left out {_listed(self.pickled)}: values that are not numbers (a tensor "
                         "logged without .item() is saved as a pickled object)")
        if self.uneven:
            notes.append(f"left out {_listed(self.uneven)}: not one step per value")
        if self.bad_steps:
            notes.append(f"left out {_listed(self.bad_steps)}: a step that is not a number")
        return notes

    def table(self, format: str, what: str) -> LogTable:
        if not self.values:
            problems = "; ".join(self.notes()) or f"it holds no {what}"
            raise InputError(f"{self.name}: no metric could be read ({problems})")
        tidy = pd.DataFrame({"step": np.concatenate(self.steps),
                             "metric": np.concatenate(self.metrics),
                             "value": np.concatenate(self.values)})
        return LogTable(sparse_to_wide(tidy), format, self.name, self.notes())


def read_info(payload, name: str) -> LogTable:
    """A pymarl ``info.json``: each list ``K`` with its steps ``K_T`` is a metric."""
    if not isinstance(payload, dict):
        raise InputError(f"{name}: a pymarl info.json is a JSON object of lists")
    found = MetricLists(name)
    for key, values in payload.items():
        steps = payload.get(f"{key}{STEP_SUFFIX}")
        if isinstance(values, list) and isinstance(steps, list):
            found.add(str(key), values, steps)
    return found.table("pymarl-info", f"metric beside a step list (a key K with its steps in K{STEP_SUFFIX})")


def read_metrics(payload, name: str) -> LogTable:
    """A sacred ``metrics.json``: ``{name: {"steps": [...], "values": [...], ...}}``."""
    if not is_metrics(payload):
        raise InputError(f"{name}: a sacred metrics.json maps each metric to its 'steps' and 'values'")
    found = MetricLists(name)
    for key, entry in payload.items():
        found.add(str(key), entry["values"], entry["steps"])
    return found.table("sacred-metrics", "metric")


# -- folders -----------------------------------------------------------------------------------


def is_run_folder(folder: str) -> bool:
    """Does ``folder`` look like a sacred run folder (the three files sacred writes at a run's
    start), whether or not it has logged anything yet?"""
    return all(os.path.isfile(os.path.join(folder, file)) for file in (RUN, CONFIG, COUT))


def run_log(folder: str) -> tuple[str, str] | None:
    """(file, format) of what a sacred run folder logged, or None for a folder that is not one
    or has logged nothing: pymarl's info.json when it holds step lists, else sacred's
    metrics.json, else the info.json (its reader says what is wrong with it), else what pymarl
    printed into cout.txt."""
    if not os.path.isfile(os.path.join(folder, RUN)):
        return None
    info, metrics = os.path.join(folder, INFO), os.path.join(folder, METRICS)
    # (the bytes, not a parse: the file is parsed once, by its reader)
    if os.path.isfile(info) and _STEP_LIST.search(read_path(info, 65536)[1]) is not None:
        return info, "pymarl-info"
    if os.path.isfile(metrics):
        return metrics, "sacred-metrics"
    if os.path.isfile(info):
        return info, "pymarl-info"  # (its reader says what is wrong with it: cut short, no step lists)
    printed = os.path.join(folder, COUT)
    if os.path.isfile(printed) and b"Recent Stats | t_env:" in read_path(printed, 65536)[1]:
        return printed, "pymarl-console"  # no info.json kept: what pymarl printed (a moving average, noted)
    return None


def run_folders(root: str) -> list:
    """The sacred run folders inside ``root`` (an experiment's results/sacred), numbered runs
    in their order; sacred's ``_sources`` and anything without a run.json are skipped."""
    found = [entry for entry in os.listdir(root) if not entry.startswith("_")
             and os.path.isfile(os.path.join(root, entry, RUN))]

    def order(entry):
        number = re.match(r"\d+", entry)
        return (0, int(number.group()), entry) if number else (1, 0, entry)

    return sorted(found, key=order)


def read_folder(path: str, format: str | None, load) -> LogTable | None:
    """A sacred run folder, or an experiment's folder of them (pymarl's results/sacred: each
    numbered folder a run), its logs read with ``load(file, format)`` (the loader of
    :mod:`..logs`); None for a folder that is neither.  A run whose log is missing or broken is
    left out with a note, the others read."""
    found = run_log(path)
    if found is not None:
        table = load(found[0], format or found[1])
        note = status_note(path)
        table.notes += [note] if note else []
        return table
    if is_run_folder(path):
        raise InputError(f"{path} is a sacred run folder with no metric logged yet (no info.json or "
                         "metrics.json holding one): sacred writes them as the run logs")
    folders = run_folders(path)
    logs = {folder: found for folder in folders if (found := run_log(os.path.join(path, folder))) is not None}
    if not logs:
        return None
    if len(folders) == 1:
        return read_folder(os.path.join(path, folders[0]), format, load)
    parts, notes, failed = [], [], []
    for folder in folders:
        if folder not in logs:
            failed.append(f"{folder}: no metric logged (no info.json or metrics.json holding one): left out")
            continue
        file, kind = logs[folder]
        try:
            table = load(file, format or kind)
        except InputError as exc:  # one run's broken file: said, and the other runs read
            failed.append(f"{folder}: {exc}: left out")
            continue
        notes += [f"{folder}: {note}" for note in table.notes]
        note = status_note(os.path.join(path, folder), folder)
        notes += [note] if note else []
        parts.append(table.frame.assign(run=folder))
    if not parts:
        raise InputError(f"{path}: no sacred run could be read ({failed[0]})")
    read = [str(part["run"].iloc[0]) for part in parts]
    notes = [f"{len(read)} sacred run folders, one run each: {', '.join(read)}"] + failed + notes
    frame = runs_frame(parts)
    return LogTable(frame, format or next(iter(logs.values()))[1], path, notes, configs_complete=True,
                    run_configs=config_labels(path, read))


def status_note(folder: str, label: str | None = None) -> str | None:
    """What run.json says of a run that did not end COMPLETED (sacred leaves RUNNING when the
    process was killed), or None."""
    try:
        run = read_json_file(os.path.join(folder, RUN))
    except InputError:
        return None
    status = run.get("status") if isinstance(run, dict) else None
    if not isinstance(status, str) or status == "COMPLETED":
        return None
    who = f"run {label}" if label else "the run"
    if status == "RUNNING":
        beat = run.get("heartbeat")
        last = f" (last heartbeat {beat})" if isinstance(beat, str) else ""
        return (f"{who}: sacred says RUNNING{last}: still going when read, or killed before sacred "
                "could record its end")
    return f"{who}: sacred says {status}"


def _flat(config, prefix: str = "") -> dict:
    out = {}
    for key, value in config.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:  # a word as written, anything else as JSON (a list, a number, null)
            out[f"{prefix}{key}"] = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return out


def config_labels(root: str, folders: list, file: str = CONFIG) -> dict:
    """Each run's configuration as the settings that differ between the runs (seeds left out):
    ``{"1": "env_args.map_name=MMM2", ...}``, or :data:`ONE_CONFIGURATION` for every run when
    only seeds differ (the runs are replicates); {} when a run has no readable ``file`` (sacred's
    config.json; a Ray Tune trial's params.json)."""
    configs = {}
    for folder in folders:
        path = os.path.join(root, folder, file)
        try:
            config = read_json_file(path) if os.path.isfile(path) else None
        except InputError:
            config = None
        if not isinstance(config, dict):
            return {}
        configs[folder] = {key: value for key, value in _flat(config).items()
                           if "seed" not in key.rsplit(".", 1)[-1].lower()}
    return setting_labels(configs)
