"""TensorBoard's CSV download: ``Wall time,Step,Value``, one scalar of one run per file.

TensorBoard's scalar dashboard saves a chart's series as ``run-<run>-tag-<tag>.csv`` (a ``/``
of the run or the tag written ``_``: ``run-PPO_1-tag-rollout_ep_rew_mean.csv``), and these
files are how curves are shared and committed beside papers' code.  Read as a plain CSV the
metric was called ``Value``, whatever it measured, so the better side was guessed from that
word: a value loss falling from 2 to 0.1 read "still worsening".  The tag in the file's name
is the metric (else the file's own name, ``val_loss.csv`` -> ``val_loss``), the run in it the
run; a folder of such files is read whole, each run's tags side by side.

TensorBoard keeps at most 1,000 points of a scalar by default (a random sample of a longer
series, ``--samples_per_plugin``), and the download holds what it kept: a file of exactly
1,000 rows is said to be a sample.

>>> import pandas as pd
>>> frame = pd.DataFrame({"Wall time": [1.7e9, 1.7e9 + 5], "Step": [2048, 4096], "Value": [0.9, 0.7]})
>>> table = read(frame, "exports/run-PPO_1-tag-train_value_loss.csv")
>>> table.frame.columns.tolist(), table.notes[0]
(['step', 'train_value_loss', 'wall_time'], "TensorBoard's CSV download of the tag train_value_loss of run PPO_1 (a '/' is written '_')")
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..runs import normalise
from ..tabular import read_path
from ._table import LogTable, numeric_columns, sparse_to_wide

#: the header TensorBoard writes, in this order (also taken: the scripts that write its
#: event files' scalars the same way with ``wall_time,step,value``)
HEADER = ["Wall time", "Step", "Value"]
_HEADER_KEYS = [normalise(name) for name in HEADER]
#: how many points of a scalar TensorBoard keeps by default (its reservoir sample)
SAMPLED_POINTS = 1000
#: ``run-<run>-tag-<tag>.csv``; a browser's ``(1)`` for a file downloaded twice is no part of the tag
_NAME = re.compile(r"^run-(?P<run>.*)-tag-(?P<tag>.+?)(?:\s*\(\d+\))?\.csv$", re.IGNORECASE)
_AGAIN = re.compile(r"\s*\(\d+\)\.csv$", re.IGNORECASE)


def is_export(names) -> bool:
    """Is this header TensorBoard's CSV download's?

    >>> is_export(["Wall time", "Step", "Value"]), is_export(["wall_time", "step", "value"]), is_export(["step", "value"])
    (True, True, False)
    """
    names = list(names)  # (a wide log's header is not normalised name by name: ~1 us each)
    return len(names) == len(_HEADER_KEYS) and [normalise(name) for name in names] == _HEADER_KEYS


def run_and_tag(base: str) -> tuple[str | None, str]:
    """(the run, the tag) a downloaded file's name holds; (None, the file's name without
    ``.csv``) for a file named otherwise ("value" for standard input).

    >>> run_and_tag("run-PPO_1-tag-rollout_ep_rew_mean.csv"), run_and_tag("run-.-tag-Loss (1).csv")
    (('PPO_1', 'rollout_ep_rew_mean'), ('.', 'Loss'))
    >>> run_and_tag("val_loss.csv"), run_and_tag("<stdin>")
    ((None, 'val_loss'), (None, 'value'))
    """
    found = _NAME.match(base)
    run, tag = (found["run"], found["tag"]) if found else (None, os.path.splitext(base)[0])
    if not tag or tag == "-" or tag.startswith("<"):
        tag = "value"
    # a tag that is also an axis' name would overwrite the axis
    return run, f"{tag} (tag)" if tag in ("run", "step", "wall_time") else tag


def read(frame: pd.DataFrame, name: str) -> LogTable:
    """One downloaded file: its tag a metric beside the step and the wall time."""
    run, tag = run_and_tag(os.path.basename(name))
    steps, values, wall = _columns(frame, name)
    notes = [_provenance(run, tag)] + _sample_note(len(values), tag)
    table = LogTable(None, "tensorboard-csv", name, notes, arrays={"step": steps, tag: values, "wall_time": wall})
    return table


def read_folder(path: str, load) -> LogTable | None:
    """A folder of downloaded files (``run-<run>-tag-<tag>.csv``): each run a run of the log,
    its tags the metrics, folded by step; None when the folder holds none.  ``load(file,
    format)`` reads one file as any log is read (its errors and notes)."""
    # a file downloaded again ("... (1).csv") after the one it repeats
    files = sorted((file for file in os.listdir(path) if file.lower().endswith(".csv")
                    and os.path.isfile(os.path.join(path, file)) and _has_header(os.path.join(path, file))),
                   key=lambda file: (_AGAIN.sub(".csv", file), file != _AGAIN.sub(".csv", file), file))
    if not files:
        return None
    seen: dict = {}
    notes, parts = [], []
    for file in files:
        run, tag = run_and_tag(file)
        if (run, tag) in seen:
            notes.append(f"left out {file}: the same run and tag as {seen[(run, tag)]} (downloaded twice?)")
            continue
        seen[(run, tag)] = file
        table = load(os.path.join(path, file), "tensorboard-csv")
        steps, values, wall = (np.asarray(table.arrays[key], dtype=float) for key in ("step", tag, "wall_time"))
        notes += [f"{file}: {note}" for note in table.notes if not note.startswith(_PROVENANCE)]
        label = run if run is not None else "(unnamed)"
        parts.append(pd.DataFrame({"run": label, "step": np.concatenate([steps, steps]),
                                   "metric": [tag] * len(steps) + ["wall_time"] * len(steps),
                                   "value": np.concatenate([values, wall])}))
    tidy = pd.concat(parts, ignore_index=True)
    runs = list(dict.fromkeys(tidy["run"]))
    tags = list(dict.fromkeys(tag for _, tag in seen))
    notes.insert(0, f"TensorBoard's CSV downloads of {len(tags)} tag(s) ({', '.join(tags[:8])}"
                    f"{' ...' if len(tags) > 8 else ''}) of {len(runs)} run(s): a '/' in a tag is written '_'")
    wide = sparse_to_wide(tidy if len(runs) > 1 else tidy.drop(columns="run"))
    return LogTable(wide, "tensorboard-csv", path, notes)


def _columns(frame: pd.DataFrame, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The step, value and wall time columns as floats (a word among them is an error)."""
    if not is_export(frame.columns):
        raise InputError(f"{name}: TensorBoard's CSV download has the columns {', '.join(HEADER)}")
    frame = frame.set_axis(HEADER, axis=1)
    numbers = numeric_columns(frame, name)
    missing = [column for column in HEADER if column not in numbers]
    if missing:
        raise InputError(f"{name}: the column(s) {', '.join(missing)} hold no numbers")
    steps, values, wall = (np.asarray(numbers[column], dtype=float) for column in ("Step", "Value", "Wall time"))
    if not len(steps):
        raise InputError(f"{name}: TensorBoard's CSV download holds no row")
    return steps, values, wall


_PROVENANCE = "TensorBoard's CSV download"


def _provenance(run: str | None, tag: str) -> str:
    if run is None:
        return f"{_PROVENANCE}, its values named after the file: {tag}"
    return f"{_PROVENANCE} of the tag {tag} of run {run} (a '/' is written '_')"


def _sample_note(rows: int, tag: str) -> list:
    if rows != SAMPLED_POINTS:
        return []
    return [f"{tag}: {rows:,} rows, as many points as TensorBoard keeps of a scalar by default - if the "
            "run logged more, these are a random sample of them; its event files hold every point "
            "(read them with --input-format tensorboard)"]


def _has_header(path: str) -> bool:
    _, head = read_path(path, 256)
    first = head.decode("utf-8", "replace").lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    return is_export(first.split(","))
