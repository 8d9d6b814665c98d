"""LLaMA-Factory's ``trainer_log.jsonl``: one JSON object per Trainer log, written by its
``LogCallback`` beside ``trainer_state.json`` in the output folder.

Each line carries the progress - ``current_steps`` (the optimizer step), ``total_steps``,
``percentage``, ``elapsed_time`` and ``remaining_time`` as ``H:MM:SS`` (``1 day, 2:03:04`` past
a day) - and what the Trainer logged at that step: ``loss``, ``eval_loss``,
``predict_loss``, ``reward``, ``accuracy`` (a preference run's reward accuracy), ``lr``,
``epoch``, ``throughput`` and ``total_tokens`` when tokens are counted, ``vram_*`` when asked.
A key the Trainer did not log at that step is absent, so an evaluation's line and a training
line can share a step; a prediction run writes progress lines alone.

Read as a generic JSON-lines table the steps were the file's line numbers, ``percentage`` was
a metric "higher is better" and a log written twice per step (two processes writing one file,
found in a real two-GPU run) was taken as twice the points.  Here the step is
``current_steps``, the clock ``elapsed_time`` in seconds, the progress columns are left out,
and the lines of one step are folded into one row (its last value of each metric), said in a
note when a step holds two different values of a metric or every step was written by several
processes.  A log whose steps go back (a run
resumed from a checkpoint appends to the same file) is left in the order written, for
:mod:`swarmstats.io.resumed`.

>>> frame = pd.DataFrame({"current_steps": [10, 10, 20], "total_steps": [20, 20, 20],
...                       "loss": [0.9, None, 0.7], "eval_loss": [None, 1.1, None],
...                       "percentage": [50.0, 50.0, 100.0],
...                       "elapsed_time": ["0:00:30", "0:00:31", "1 day, 0:01:00"]})
>>> read_trainer_log(frame, "trainer_log.jsonl").frame.to_dict("list")
{'step': [10.0, 20.0], 'eval_loss': [1.1, nan], 'loss': [0.9, 0.7], 'wall_time': [31.0, 86460.0]}
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import LogTable, fold_columns, numeric_columns, planned_end

#: the keys every line of the log carries
STEP, TOTAL = "current_steps", "total_steps"
#: the progress the callback derives from the step and its clock: no measurement
PROGRESS = (STEP, TOTAL, "percentage", "elapsed_time", "remaining_time")

_CLOCK = re.compile(r"^\s*(?:(\d+) days?, )?(\d+):(\d\d):(\d\d)\s*$")


def is_trainer_log(names) -> bool:
    """A header with the step and the planned steps the callback writes on every line."""
    return STEP in names and TOTAL in names


def planned_in_record(record: dict) -> float | None:
    """The planned end one line of the log states (``watch`` reads line by line).

    >>> planned_in_record({"current_steps": 5, "total_steps": 5100, "loss": 0.69}), planned_in_record({"step": 5})
    (5100.0, None)
    """
    return planned_end(record.get(TOTAL)) if is_trainer_log(record) else None


def clock_seconds(text) -> float:
    """``str(timedelta)`` as seconds, NaN for anything else.

    >>> clock_seconds("0:02:12"), clock_seconds("2 days, 16:13:34"), clock_seconds(None)
    (132.0, 231214.0, nan)
    """
    found = _CLOCK.match(text) if isinstance(text, str) else None
    if found is None:
        return float("nan")
    days, hours, minutes, seconds = (int(part) if part else 0 for part in found.groups())
    return float(((days * 24 + hours) * 60 + minutes) * 60 + seconds)


def read_trainer_log(frame: pd.DataFrame, name: str) -> LogTable:
    """The log as one row per step (module docstring)."""
    steps = pd.to_numeric(frame[STEP], errors="coerce").to_numpy(dtype=float)
    if np.isnan(steps).any():
        row = int(np.flatnonzero(np.isnan(steps))[0])
        raise InputError(f"{name}: line {row + 1} of a LLaMA-Factory trainer_log.jsonl has no "
                         f"{STEP} number ({frame[STEP].iloc[row]!r})")
    metrics = numeric_columns(frame, name, skip=PROGRESS)
    if not metrics:
        raise InputError(f"{name}: a LLaMA-Factory trainer_log.jsonl of progress only ({STEP}, "
                         "percentage, elapsed_time): no loss, reward or other value was logged - a "
                         "prediction or evaluation run writes these; its results are in the output "
                         "folder's all_results.json")
    columns = {column: np.asarray(values, dtype=float) for column, values in metrics.items()}
    clock = (np.array([clock_seconds(text) for text in frame["elapsed_time"].tolist()])
             if "elapsed_time" in frame.columns else None)
    totals = pd.to_numeric(frame[TOTAL], errors="coerce").to_numpy(dtype=float)
    planned = planned_end(np.nanmax(totals)) if not np.isnan(totals).all() else None
    values = np.column_stack(list(columns.values()))
    # judged on the metric logged most: a training line and an evaluation line at every step
    # are two lines a step, but of different metrics
    most = max(columns.values(), key=lambda values: int(np.count_nonzero(~np.isnan(values))))
    writers = _writers(steps[~np.isnan(most)])
    notes = []
    if writers > 1:
        notes.append(f"each step was written {writers} times, the lines interleaved (a log written by "
                     f"{writers} processes at once, as in a multi-GPU run where each process saves): one "
                     "row per step, its last line's values")
    elif (np.diff(steps) < 0).any():  # resumed: left as written (io.resumed says which lines a resume supersedes)
        measured = ~np.isnan(values).all(axis=1)  # (a line of progress alone is no point)
        arrays = {"step": steps[measured], **{c: v[measured] for c, v in columns.items()}}
        if clock is not None:
            arrays["wall_time"] = clock[measured]
        return LogTable(None, "llamafactory", name, notes, arrays=arrays, planned_steps=planned)
    else:
        repeated = _differing_repeats(steps, values)
        if repeated:
            notes.append(f"{repeated} step(s) hold different values of one metric on several lines: "
                         "each step's last value is kept")
    folded = fold_columns(steps, columns)
    if clock is not None:  # each step's clock when its last line was written
        order = np.argsort(steps, kind="stable")
        ordered = steps[order]
        last = order[np.flatnonzero(np.r_[ordered[1:] != ordered[:-1], True])]
        folded["wall_time"] = clock[last][np.searchsorted(steps[last], folded["step"])]
    return LogTable(None, "llamafactory", name, notes, arrays=folded, planned_steps=planned)


def _writers(steps: np.ndarray) -> int:
    """How many processes wrote the log: k when nine in ten of its steps appear on k lines
    (k >= 2) - each process writes every step, so their lines interleave - else 1 (a resumed
    run repeats only the steps between its checkpoint and where it stopped)."""
    if len(steps) < 4:
        return 1
    counts = np.unique(steps, return_counts=True)[1]
    common = int(np.bincount(counts).argmax())
    return common if common > 1 and np.mean(counts == common) >= 0.9 else 1


def _differing_repeats(steps: np.ndarray, values: np.ndarray) -> int:
    """How many steps (in order, never going back) hold two different values of some metric
    (``values``: a column per metric): the epoch a training line and an evaluation line of one
    step both carry is no conflict."""
    starts = np.flatnonzero(np.r_[True, steps[1:] != steps[:-1]])
    with np.errstate(invalid="ignore"):
        spread = np.fmax.reduceat(values, starts, axis=0) - np.fmin.reduceat(values, starts, axis=0)
    return int((spread > 0).any(axis=1).sum())
