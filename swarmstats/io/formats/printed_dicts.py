"""What a Hugging Face ``Trainer`` (and TRL's trainers) printed: one Python dict per log call.

With no ``trainer_state.json`` kept (a run that crashed before its first checkpoint, a notebook,
a SLURM log), the console is the record::

    {'loss': '0.6931', 'grad_norm': '1.234', 'learning_rate': '4.5e-05', 'epoch': '0.27'}
    {'eval_loss': '0.5127', 'eval_runtime': '3.2', ..., 'epoch': '0.27'}
    {'train_runtime': '120.5', 'train_samples_per_second': '2416', ..., 'train_loss': '1.177', 'epoch': '3'}

The dicts carry no step, only the epoch (transformers 5 prints every float to 4 significant
digits, as a string; transformers 4 printed the floats and the epoch rounded to 2 decimals), and
an epoch repeats once it is printed to fewer digits than the logs advance.  So the step is the
training log's number: the k-th dict holding a training value is step k (k times
``logging_steps`` is the trainer's own step), an evaluation's dict belongs to the training log
printed before it, as in ``trainer_state.json`` they share a step; the final summary dict
(``train_runtime`` ...) is not a data point, as the trainer_state reader skips it.  Each dict is
read with :func:`ast.literal_eval` (literals only: nothing in the file is run).
"""

from __future__ import annotations

import ast
import math
import re

import numpy as np

from ...errors import InputError
from ._table import LogTable, fold_columns
from .console import visible
from .trainers import HF_SUMMARY_KEYS

#: a printed log call: a Python dict on a line of its own that holds the trainer's 'epoch'
_LOG_LINE = re.compile(r"^\s*\{'[^']+': .*'epoch': .*\}\s*$")
#: an evaluation's keys (``trainer.evaluate`` prefixes them with its metric_key_prefix)
_EVALUATION_PREFIXES = ("eval_", "test_")
#: transformers 5 prints each float as "{:.4g}"
PRINTED_DIGITS = 4


def is_printed_dicts_head(head: str, base: str) -> bool:
    """Does the start of a file hold a trainer's printed log dicts?"""
    return any(_LOG_LINE.match(line) for line in map(visible, head.splitlines()))


def opens_step(logged, count: int) -> bool:
    """Is a printed log (its keys) the next step: a training log, or an evaluation printed
    before any (an evaluation otherwise shares the step of the training log before it)?"""
    return not count or not all(str(key).startswith(_EVALUATION_PREFIXES) for key in logged if key != "epoch")


def parse_line(line: str) -> dict | None:
    """One printed log call as a dict; None for a line that is not one (or is cut short, or
    holds a non-literal such as a tensor's repr: only literals are read, nothing is run)."""
    line = visible(line)
    if not _LOG_LINE.match(line):
        return None
    try:
        logged = ast.literal_eval(line.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return logged if isinstance(logged, dict) else None


def read_printed_dicts(name: str, text: str) -> LogTable:
    """The printed dicts of ``text`` as a table (module docstring)."""
    rows, steps, summaries, rounded = [], [], 0, False
    count = 0
    for logged in map(parse_line, text.splitlines()):
        if logged is None:
            continue
        if HF_SUMMARY_KEYS & set(logged):
            summaries += 1
            continue
        values = {}
        for key, value in logged.items():
            number = _number(value)
            if number is not None and key != "epoch":
                values[str(key)] = number
                rounded = rounded or isinstance(value, str)
        if not values:
            continue
        if opens_step(values, count):
            count += 1
        rows.append(values)
        steps.append(float(count))
    if not rows:
        raise InputError(f"{name}: no printed log dict with a number found (a Trainer prints "
                         "\"{'loss': ..., 'epoch': ...}\" at each log call)")
    keys = list(dict.fromkeys(key for row in rows for key in row))
    columns = {key: np.array([row.get(key, math.nan) for row in rows]) for key in keys}
    notes = [f"{len(rows)} printed log dict(s): they carry no step, so step k is the k-th training log "
             "(times logging_steps it is the trainer's step); an evaluation shares the step of the "
             "training log printed before it"]
    if rounded:
        notes.append(f"values printed to {PRINTED_DIGITS} significant digits (transformers 5 prints "
                     "floats so), each known only to within 0.05%")
    if summaries:
        notes.append("the final training-summary dict is not a data point")
    return LogTable(None, "hf-printed", name, notes, arrays=fold_columns(np.array(steps), columns),
                    step_unit="logs")


def _number(value) -> float | None:
    """A logged value as a float (transformers 5 prints floats as strings); None for anything
    else (a string that is not a number, a list, a bool)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
