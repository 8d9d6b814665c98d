"""OpenAI Spinning Up's ``progress.txt``, and the loggers built on its ``EpochLogger``
(safety-starter-agents and the Safety Gym projects that copied it).

``EpochLogger.dump_tabular`` writes one tab-separated row per epoch into
``<data_dir>/<exp_name>/<exp_name>_s<seed>/progress.txt``, the columns in the order the
algorithm logged them: ``Epoch``, then the episode statistics (``AverageEpRet``, ``StdEpRet``,
``MaxEpRet``, ``MinEpRet``, ``EpLen``; ``AverageEpCost`` ... under Safety Gym), value estimates
(``AverageVVals``, ``Q1Vals``), losses (``LossPi``, ``LossV``, ``DeltaLossPi``), ``Entropy``,
``KL``, ``ClipFrac``, ``StopIter``, the counter ``TotalEnvInteracts`` and the clock ``Time``.
The names are CamelCase: :func:`swarmstats.direction.split_camel` reads their words, so a cost
is lower-is-better and a spread has no better side.

The step is ``Epoch`` (a fixed number of environment steps each: ``steps_per_epoch``);
``TotalEnvInteracts``, the x-axis of Spinning Up's own plots, stays beside it as a counter.
A folder is read whole: a run folder, an experiment's folder of seeds (``ppo/ppo_s0``,
``ppo/ppo_s1``) or a data folder of experiments (``data/ppo/ppo_s0``, ``data/sac/sac_s0``), each
run named after its folder; the ``_s<seed>`` ending marks the seeds of one setting.

>>> is_progress(["Epoch", "AverageEpRet", "StdEpRet", "TotalEnvInteracts"], "progress.txt")
True
>>> is_progress(["epoch", "loss"], "metrics.csv")
False
"""

from __future__ import annotations

import os
import re

import pandas as pd

from ...errors import InputError
from ._table import (
    LogTable,
    check_repeated_header,
    load_runs,
    metric_label,
    numeric_columns,
    runs_frame,
)

PROGRESS = "progress.txt"
STEP = "Epoch"
#: columns only an EpochLogger writes beside ``Epoch``: the episode return and length it
#: stores every episode, and the counter every algorithm logs
_MARKS = ("AverageEpRet", "AverageTestEpRet", "EpRet", "TotalEnvInteracts", "EpLen", "AverageEpLen")
#: how deep below the folder given the run folders are looked for (data/<exp>/<exp>_s<seed>)
_DEPTH = 2


def is_progress(names, base: str) -> bool:
    """A header of Spinning Up's EpochLogger: ``Epoch`` and a column only it writes."""
    return STEP in names and any(mark in names for mark in _MARKS)


def read_progress(frame: pd.DataFrame, name: str) -> LogTable:
    """One ``progress.txt``: ``Epoch`` the step, every other numeric column a metric."""
    check_repeated_header(frame, name)
    columns = numeric_columns(frame, name)
    if STEP not in columns:
        raise InputError(f"{name}: its '{STEP}' column holds no numbers; a Spinning Up "
                         "progress.txt numbers its epochs there")
    arrays = {"step": columns.pop(STEP), **{metric_label(c): v for c, v in columns.items()}}
    return LogTable(None, "spinup-progress", name, [f"step = {STEP}"], arrays=arrays)


def run_folders(root: str) -> list:
    """The folders below ``root`` (at most two levels: ``<exp>/<exp>_s<seed>``) that hold a
    ``progress.txt``, as paths relative to ``root``, seeds in numeric order (``_s2`` before
    ``_s10``); a folder holding one is not searched further."""
    found, level = [], [""]
    for _ in range(_DEPTH):
        deeper = []
        for relative in level:
            folder = os.path.join(root, relative)
            try:
                entries = sorted(os.listdir(folder))
            except OSError:
                continue
            for entry in entries:
                inside = os.path.join(relative, entry) if relative else entry
                if entry.startswith(".") or not os.path.isdir(os.path.join(root, inside)):
                    continue
                if os.path.isfile(os.path.join(root, inside, PROGRESS)):
                    found.append(inside)
                else:
                    deeper.append(inside)
        level = deeper
    return sorted(found, key=_natural)


def _natural(text: str) -> list:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]


def read_folder(path: str, format: str | None, load) -> LogTable | None:
    """A run folder holding ``progress.txt``, or a folder of them (see the module docstring),
    each read with ``load(file, format)`` (the loader of :mod:`..logs`); None for a folder
    with neither.  A run whose file is broken is left out with a note, the others read."""
    own = os.path.join(path, PROGRESS)
    if os.path.isfile(own):
        return load(own, format)
    folders = run_folders(path)
    if not folders:
        return None
    if len(folders) == 1:
        table = load(os.path.join(path, folders[0], PROGRESS), format)
        table.notes.insert(0, f"read {folders[0]}/{PROGRESS}")
        return table
    # a run is named after its own folder (ppo_s0) while those names are distinct, else after
    # its path (ppo/run_s0 beside sac/run_s0)
    leaves = [os.path.basename(folder) for folder in folders]
    names = leaves if len(set(leaves)) == len(leaves) else [f.replace(os.sep, "/") for f in folders]
    parts, notes, failed, formats = load_runs(
        [(name, os.path.join(path, folder, PROGRESS), format) for folder, name in zip(folders, names)],
        load, said=lambda note: not note.startswith("step = "))
    if not parts:
        raise InputError(f"{path}: no {PROGRESS} below it could be read ({failed[0]})")
    read = [str(part["run"].iloc[0]) for part in parts]
    notes = [f"{len(read)} run folders holding a {PROGRESS}, one run each: {', '.join(read)}"] + failed + notes
    frame = runs_frame(parts)
    return LogTable(frame, formats.pop() if len(formats) == 1 else "tsv", path, notes)
