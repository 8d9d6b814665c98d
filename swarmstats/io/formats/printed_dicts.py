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
from ._table import LogTable, fold_columns, printed_number
from .console import visible
from .notebooks import printed_text
from .trainers import HF_SUMMARY_KEYS

#: a printed log call: a Python dict on a line of its own that holds the trainer's 'epoch'
_LOG_LINE = re.compile(r"^\s*\{'[^']+': .*'epoch': .*\}\s*$")
#: ... as a notebook's JSON holds a line of printed output: a string ending in an escaped newline
_NOTEBOOK_LOG_LINE = re.compile(r'"\{\'[^\'"]+\': [^"\n]*\'epoch\': [^"\n]*\}\\n"')
#: an evaluation's keys (``trainer.evaluate`` prefixes them with its metric_key_prefix)
_EVALUATION_PREFIXES = ("eval_", "test_")
#: transformers 5 prints each float as "{:.4g}"
PRINTED_DIGITS = 4
#: transformers 4 printed a NaN or infinite float bare (``'loss': nan``), which is no literal
_BARE_NONFINITE = re.compile(r"(?<=: )(-?(?:nan|inf))(?=\s*[,}])")


def is_printed_dicts_head(head: str, base: str) -> bool:
    """Does the start of a file hold a trainer's printed log dicts?"""
    # every table and log pays this sniff: substring searches first, the quote's one character
    # before the key's (~0.1 against ~4 us on 14 KB of a table of numbers)
    if "'" not in head or "'epoch':" not in head:
        return False
    if base.lower().endswith(".ipynb"):
        return _NOTEBOOK_LOG_LINE.search(head) is not None
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
    except ValueError:
        if not _BARE_NONFINITE.search(line):
            return None
        try:  # a loss that turned NaN: read as the text "nan", a NaN the run logged
            logged = ast.literal_eval(_BARE_NONFINITE.sub(r"'\1'", line.strip()))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    except (SyntaxError, MemoryError, RecursionError):
        return None
    return logged if isinstance(logged, dict) else None


class StepCounter:
    """The step of each printed log, in order: the training log's number (:func:`opens_step`),
    from 1 again in a new run - after a training summary (the end of a ``train()`` call) or
    an epoch going back (a new ``train()`` after one cut short).  Read together, two runs
    printed one after another were one run of both."""

    def __init__(self):
        self.count = 0
        self.run = 1
        self._last_epoch = -math.inf
        self._seen = False

    def step(self, logged: dict) -> float | None:
        """The step of ``logged``; None for a training summary, which is not a data point."""
        if HF_SUMMARY_KEYS & set(logged):
            self.count, self._last_epoch = 0, -math.inf
            return None
        epoch = printed_number(logged.get("epoch"))
        if epoch is not None:
            if epoch < self._last_epoch:
                self.count = 0
            self._last_epoch = epoch
        if self.count == 0 and self._seen:
            self.run += 1
        self._seen = True
        if opens_step(logged, self.count):
            self.count += 1
        return float(self.count)


def read_printed_dicts(name: str, text: str) -> LogTable:
    """The printed dicts of ``text`` as a table (module docstring)."""
    if name.lower().endswith(".ipynb"):  # (a Trainer run with disable_tqdm=True prints its dicts)
        text = printed_text(name, text)
    rows, steps, runs, summaries, rounded = [], [], [], 0, False
    counter = StepCounter()
    for logged in map(parse_line, text.splitlines()):
        if logged is None:
            continue
        step = counter.step(logged)
        if step is None:
            summaries += 1
            continue
        values = {}
        for key, value in logged.items():
            number = printed_number(value)
            if number is not None and key != "epoch":
                values[str(key)] = number
                rounded = rounded or isinstance(value, str)
        if values:
            rows.append(values)
            steps.append(step)
            runs.append(counter.run)
    if not rows:
        raise InputError(f"{name}: no printed log dict with a number found (a Trainer prints "
                         "\"{'loss': ..., 'epoch': ...}\" at each log call)")
    keys = list(dict.fromkeys(key for row in rows for key in row))
    columns = {key: np.array([row.get(key, math.nan) for row in rows]) for key in keys}
    arrays = _folded_by_run(np.array(steps), np.array(runs), columns)
    notes = [f"{len(rows)} printed log dict(s): they carry no step, so step k is the k-th training log "
             "(times logging_steps it is the trainer's step); an evaluation shares the step of the "
             "training log printed before it"]
    if rounded:
        notes.append(f"values printed to {PRINTED_DIGITS} significant digits (transformers 5 prints "
                     "floats so), each known only to within 0.05%")
    if summaries:
        notes.append("a training-summary dict (the end of a train() call) is not a data point")
    labels = sorted(set(runs))
    if len(labels) > 1:
        notes.append(f"{len(labels)} runs printed one after another (a training summary, or an epoch "
                     f"going back, ends one): {', '.join(f'#{label}' for label in labels)}")
    return LogTable(None, "hf-printed", name, notes, arrays=arrays, step_unit="logs")


def _folded_by_run(steps: np.ndarray, runs: np.ndarray, columns: dict) -> dict:
    """Each run's rows folded by step (:func:`fold_columns`), the runs one after another with a
    ``run`` column when there are several (folded together, run 2's step 1 took run 1's)."""
    labels = np.unique(runs)
    if len(labels) == 1:
        return fold_columns(steps, columns)
    parts = [fold_columns(steps[runs == label], {k: v[runs == label] for k, v in columns.items()})
             for label in labels]
    keys = list(dict.fromkeys(key for part in parts for key in part if key != "step"))
    merged = {"run": np.repeat(np.array([f"#{label}" for label in labels], dtype=object),
                               [len(part["step"]) for part in parts]),
              "step": np.concatenate([part["step"] for part in parts])}
    for key in keys:
        merged[key] = np.concatenate([part.get(key, np.full(len(part["step"]), math.nan)) for part in parts])
    return merged
