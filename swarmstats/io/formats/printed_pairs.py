"""Printed ``key=value`` lines: what a hand-written training loop logs with ``print`` or
``logging`` and a user saves with ``python train.py 2>&1 | tee train.log``::

    2024-05-01 10:00:00,123 INFO train.py:88 - step=100 loss=0.532 reward=1.23 lr=0.0003
    episode=12, return=-130.5, length=200, epsilon=0.42

A line is a record when it holds a step key (``step``, ``global_step``, ``iter``, ``episode``,
``epoch`` …: :data:`STEP_KEYS`) and at least one other ``name=number`` pair - or when its step
comes first and ``|`` parts its fields (``[rank0] Step 12 | loss: 0.53 | lr: 3e-4``,
``Epoch 3/10 | Train Loss: 0.52``, torchtune's ``Step 5 | loss:1.23 lr:2e-05``) - or when it
begins with its step and lists ``name: value`` fields after it (the commonest hand-written
loop: ``Epoch [1/5], Step [100/600], Loss: 0.2208``; ``Epoch 3/20, Loss: 0.52, Accuracy: 0.81``;
``epoch 3: loss = 0.52``; ``[Epoch 3/10] loss: 0.52 acc: 0.81``; PyTorch's MNIST example's
``Train Epoch: 1 [640/60000 (1%)]\tLoss: 0.52``; Udacity's deep RL course's ``Episode 100\tAverage
Score: 0.73``, each episode redrawn with ``\r``; columns printed aligned, ``Episode   100   Avg:
-144.30   σ:    94.67   |   ε: 0.6058``).  Pairs are parted by spaces, commas, semicolons, tabs
or bars, a number may carry a unit (``ms``, ``s``, ``%``); a name may be words (``Average
Score``) or a symbol (``σ``).  A notebook's records are read from its cells' output.  Every other line (the configuration,
a progress bar, a warning) is skipped and counted.  The step is the first record's most precise
step key (``step`` before ``epoch``), the others kept as columns (counters by name); an epoch
followed by a count within it out of a total (``Step [100/600]``, ``[640/60000]``) is a step of
``(epoch - 1) x total + count``, since the count starts again each epoch (``epoch x total +
count`` when the first record's epoch is 0: a loop printing its epochs counted from 0).  Lines at one step in a
row share a row (an evaluation line after a training line), and a step that goes back is left
to the loader's own rules (a new run, or a run resumed).  Read as a table, such a log stopped
at "the x-axis column '2024-05-01 10:00:00' is not numeric": the comma of ``logging``'s time
made its first line a CSV header; ``Epoch [1/5], Step [100/600], Loss: 0.2208`` read as three
columns of text.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, metric_label, stepped_columns
from .notebooks import printed_text

#: the keys that count steps, the most precise first, and what one step of each is ("per 100
#: episodes"): the first of them a record holds is the axis (``num_timesteps``: SB3's EvalCallback
#: prints ``Eval num_timesteps=10000, episode_reward=200.00 +/- 0.00``)
_UNITS = {"global_step": "steps", "step": "steps", "total_timesteps": "timesteps", "num_timesteps": "timesteps",
          "timesteps": "timesteps",
          "timestep": "timesteps", "env_steps": "steps", "frames": "frames", "frame": "frames",
          "iteration": "iterations", "iter": "iterations", "it": "iterations", "update": "updates",
          "updates": "updates", "episode": "episodes", "ep": "episodes", "epoch": "epochs",
          # an agent-based simulation's rounds and ticks, an evolutionary search's generations
          "round": "rounds", "generation": "generations", "gen": "generations", "tick": "ticks"}
STEP_KEYS = tuple(_UNITS)
#: one pair: a name (letters, digits, ``_ . / -``), ``=``, a number - or one number in brackets,
#: as numpy prints an array of one value (CleanRL's ``episodic_return=[11.8]``) -, an optional
#: unit, then a separator or the end of the line
_PAIR = re.compile(rf"(?<![\w./-])([A-Za-z_][\w./-]*)\s*=\s*(?:\[\s*({PRINTED_NUMBER})\s*\]|({PRINTED_NUMBER})(?:ms|s|%)?)"
                   r"(?=[\s,;|)\]]|$)", re.IGNORECASE)
#: a record printed with ``|`` between its fields, its step first: ``Step 12 | loss: 0.53 | lr: 3e-4``,
#: ``Epoch 3/10 | Train Loss: 0.52 | Val Acc: 0.81``, torchtune's ``Step 5 | loss:1.23 lr:2e-05``
#: (after any prefix: ``[rank0]``, a logger's time and level); the total after a ``/`` is no value
_PIPED_LEAD = re.compile(r"(?<![\w./-])(global_step|step|iteration|iter|epoch|episode|update|round|generation|gen|tick)"
                         r"(?:\s*[:=]\s*|\s+)(\d+)(?:\s*/\s*\d+)?\s*\|", re.IGNORECASE)
#: a digit: a piped record's field holding one is a value, read or not (:func:`_piped_record`)
_DIGIT = re.compile(r"\d")
#: one field of a piped record: a name (words allowed: ``Train Loss``), ``:`` or ``=``, a number
_FIELD = re.compile(rf"^\s*([A-Za-z_][\w./ -]*?)\s*[:=]\s*({PRINTED_NUMBER})(?:ms|s|%)?\s*$", re.IGNORECASE)
#: a name in a listed record's spaced fields: a word, or a symbol a loop printed for its schedule
#: (``ε: 0.0476  ⍺: 0.5000``, ``σ: 3.37``)
_SPACED_NAME = r"(?:[^\W\d]|[^\x00-\x7f\s])[\w./-]*"
#: ... or several ``name:number`` in one field, apart by spaces (torchtune's disk log)
_FIELDS = re.compile(rf"(?<![\w./-])({_SPACED_NAME})\s*[:=]\s*({PRINTED_NUMBER})(?:ms|s|%)?(?=\s|$)", re.IGNORECASE)


#: a record that begins with its step (at the line's start, after a ``[tag]``, a logger's `` - ``,
#: ``INFO:name:`` or a level after its time, ``2025-07-07 13:55:26.649 INFO: Epoch [1/300]`` - Python's
#: ``logging`` with ``%(asctime)s %(levelname)s: %(message)s``, or without the colon (then in capitals,
#: as logging and rich print it); a phase may name it, ``Train Epoch``), its fields listed after it
_LISTED_LEAD = re.compile(r"(?:^|\]|\s-\s|^[A-Z]+:[\w.]*:|\b(?-i:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|NOTICE)\b"
                          r"|\b(?:debug|info|warning|warn|error|critical|notice):)"
                          r"\s*\[?(?:(?:train|training|eval|evaluation|valid|validation|val|test)\s+)?"
                          r"(global_step|step|iteration|iter|epoch|episode|update|ep|round|generation|gen|tick)"
                          r"\s*(?:[:=]\s*|\s+)"
                          r"\[?\s*(\d+)(?:\s*/\s*(\d+))?(?:\s*\])?", re.IGNORECASE)
#: what follows a listed record's step: a separator, a count in brackets (MNIST's ``[640/60000 (1%)]``),
#: or the spaces of columns printed aligned (``Episode   100   Avg:  -144.30   BestAvg: ...``)
_LISTED_AFTER = re.compile(r"\s*(?:[,:;\t\[|]|-\s)|\s{2,}")
#: a listed record's fields apart by spaces only, all of them ``name: number`` (or ``name=number``)
_SPACED = re.compile(rf"^(?:\s*{_SPACED_NAME}\s*[:=]\s*(?:{PRINTED_NUMBER})(?:ms|s|%)?(?=\s|$))+\s*$",
                     re.IGNORECASE)
#: what parts a listed record's fields, the first of these it holds (a tab last: Udacity's deep RL
#: course prints ``Episode 100\\tAverage Score: 0.73\\tScore: 1.00``, copied into thousands of projects)
_FIELD_SEPARATORS = (",", "|", " - ", "\t")
#: a count within the epoch out of a total, named (``Step [100/600]``, ``Batch 5/50``) or not
#: (``[640/60000 (1%)]``), first among a listed record's fields
_INNER = re.compile(r"^\s*(?:([A-Za-z_]\w*)\s*)?\[?\s*(\d+)\s*/\s*(\d+)\s*(?:\(\s*\d+(?:\.\d*)?%\s*\)\s*)?\]?")


#: a Python repr of keyword arguments - argparse's ``Namespace(epoch=30, lr=0.001)``, a
#: dataclass's, ``dict(...)`` - which a script prints before training: read as a record, its
#: configured epoch count was a first row at epoch 30, and the log's own epochs 1, 2 ... went back
_CALL = re.compile(r"[A-Za-z_]\w*\(\s*[A-Za-z_]\w*\s*=")


def parse_line(line: str, epoch_base: int = 1) -> dict | None:
    """The ``name=number`` pairs of a printed line when it is a record (a step key and another
    pair), else None.  ``epoch_base`` is the number of a log's first epoch (:func:`epoch_base`).

    >>> parse_line("2024-05-01 10:00:00,123 INFO train.py:88 - step=100 loss=0.532 lr=3e-4")
    {'step': 100.0, 'loss': 0.532, 'lr': 0.0003}
    >>> parse_line("episode=12, return=-130.5, time=20ms")
    {'episode': 12.0, 'return': -130.5, 'time': 20.0}
    >>> parse_line("lr=0.0003 batch_size=64") is None   # no step: a configuration line
    True
    >>> parse_line("Namespace(task='CartPole-v1', epoch=30, lr=0.001)") is None   # its repr too
    True
    """
    pairs = None
    if "=" in line and "(" in line and _CALL.search(line):
        return None  # a configuration printed as a call's repr: its "epoch=30" is no step
    if "=" in line:
        pairs = _pairs(line)
    if (pairs is None or len(pairs) < 2) and "|" in line:
        pairs = _piped_record(line)
    if (pairs is None or len(pairs) < 2 or not _has_step(pairs)) and (": " in line or "=" in line):
        listed = _listed_record(line, epoch_base)
        pairs = listed if listed is not None else pairs
    if pairs is None or len(pairs) < 2 or not _has_step(pairs):
        return None
    return pairs


def _pairs(line: str) -> dict:
    """The ``name=number`` pairs of a line (a NaN printed is a NaN the run logged).

    >>> _pairs("global_step=2048, episodic_return=[11.8], lengths=[9.0, 12.0]")
    {'global_step': 2048.0, 'episodic_return': 11.8}
    """
    return {name: scalar(float(bracketed or plain)) for name, bracketed, plain in _PAIR.findall(line)}


def _has_step(pairs: dict) -> bool:
    return any(key.lower() in STEP_KEYS for key in pairs)


def epoch_base(line: str) -> int:
    """The number of a log's first epoch, from its first record (``line``): 0 when it is an epoch
    0 followed by a count within it (``Epoch [0/5], Step [100/600]``: the loop printed its epochs
    counted from 0, and its first epoch's steps are 0 x 600 + count), else 1.

    >>> epoch_base("Epoch [0/5], Step [100/600], Loss: 0.2208"), epoch_base("Epoch [1/5], Step [100/600], Loss: 0.22")
    (0, 1)
    """
    parts = _listed_parts(line) if ": " in line or "=" in line else None
    return 0 if parts is not None and parts[1] is not None and int(parts[0].group(2)) == 0 else 1


def _listed_record(line: str, epoch_base: int = 1) -> dict | None:
    """The step and the fields of a record that begins with its step and lists its fields
    after it (module docstring), else None.  A count within the epoch out of a total makes the
    step (``step``, or the count's own name when it is a step key).

    >>> _listed_record("Epoch [2/5], Step [100/600], Loss: 0.2208")
    {'Epoch': 2.0, 'Step': 700.0, 'Loss': 0.2208}
    >>> _listed_record("Train Epoch: 1 [640/60000 (1%)]\\tLoss: 0.522614")
    {'Epoch': 1.0, 'step': 640.0, 'Loss': 0.522614}
    >>> _listed_record("epoch 3: loss = 0.52, acc = 81%")
    {'epoch': 3.0, 'loss': 0.52, 'acc': 81.0}
    >>> _listed_record("Episode 300\\tAverage Score: -56.82\\tScore: 12.50")
    {'Episode': 300.0, 'Average Score': -56.82, 'Score': 12.5}
    >>> _listed_record("Epoch 3, Train Loss: 0.52")
    {'Epoch': 3.0, 'Train Loss': 0.52}
    >>> _listed_record("Epoch 1/10: 100%|####| 469/469 [00:10<00:00, 45.6it/s, loss=0.3]") is None  # a bar
    True
    """
    parts = _listed_parts(line)
    if parts is None:
        return None
    lead, inner, rest = parts
    pairs = {lead.group(1): float(lead.group(2))}
    if inner is not None:
        pairs[_inner_name(inner)] = float((int(lead.group(2)) - epoch_base) * int(inner.group(3)) + int(inner.group(2)))
    separator = next((separator for separator in _FIELD_SEPARATORS if separator in rest), None)
    fields = rest.split(separator) if separator is not None else [rest]
    found = [pair for field in fields for pair in _field_pairs(field)]
    for name, value in found:
        pairs.setdefault(name.strip(), scalar(float(value)))  # (a NaN printed: logged)
    return pairs if len(pairs) > 1 + (inner is not None) else None


def _field_pairs(field: str) -> list:
    """The (name, number) pairs of one field of a listed record: the field whole, its name words
    and all (``Average Score: 0.73``), or ``name: number`` pairs apart by spaces and nothing else
    (``loss: 0.52 acc: 0.81``); none for any other field ("learning rate: 1e-3 -> 5e-4" is
    none, nor its "rate: 1e-3").

    >>> _field_pairs("Average Score: 0.73"), _field_pairs("loss: 0.52 acc: 81%"), _field_pairs("lr: 1e-3 -> 5e-4")
    ([('Average Score', '0.73')], [('loss', '0.52'), ('acc', '81')], [])
    """
    if _SPACED.match(field):
        return _FIELDS.findall(field)
    whole = _FIELD.match(field)
    return [whole.groups()] if whole is not None else []


def _listed_parts(line: str) -> tuple | None:
    """(the step's match, the count within its epoch's match or None, the fields' text) of a
    listed record, else None."""
    if "%|" in line:
        return None  # tqdm's bar: its counts and rates are no fields
    lead = _LISTED_LEAD.search(line)
    if lead is None:
        return None
    rest = line[lead.end():]
    if not lead.group(0).endswith("]") and _LISTED_AFTER.match(rest) is None and not _SPACED.match(rest):
        return None  # "Step 5 of 10": no list follows
    rest = rest.lstrip(" ,:;\t|-")
    inner = _INNER.match(rest) if lead.group(1).lower() == "epoch" else None
    return lead, inner, rest if inner is None else rest[inner.end():]


def _inner_name(inner: re.Match) -> str:
    """The step key a count within the epoch is read as: its own name when it is one, else ``step``."""
    return inner.group(1) if inner.group(1) and inner.group(1).lower() in STEP_KEYS else "step"


def _form(line: str, axis: str, base: int) -> str:
    """How the first record (``line``) was printed, and what its step is, for the note."""
    if "=" in line and _has_step(pairs := _pairs(line)) and len(pairs) >= 2:
        return f"name=value pairs, step = {axis}"
    if "|" in line and _piped_record(line) is not None and len(_piped_record(line)) > 1:
        return f"'{axis} N | name: value | ...' fields, step = {axis}"
    lead, inner, _ = _listed_parts(line)
    if inner is None:
        return f"'{lead.group(1)} N, name: value, ...' fields, step = {axis}"
    count = inner.group(1) or "the count"
    epochs = f"({lead.group(1)} - 1)" if base else lead.group(1)
    return (f"'{lead.group(1)} E, {count} n/{inner.group(3)}, name: value, ...' fields, step = {epochs} "
            f"x {int(inner.group(3)):,} + {count}, which starts again each {lead.group(1).lower()}")


def _piped_record(line: str) -> dict | None:
    """The step and the fields of a record printed with ``|`` between its fields (the step
    first), else None.

    >>> _piped_record("[rank0] Step 12 | Loss: 0.53 | LR: 3.00e-04 | Tokens/s: 8192")
    {'Step': 12.0, 'Loss': 0.53, 'LR': 0.0003, 'Tokens/s': 8192.0}
    >>> _piped_record("Step 5 | loss:1.2301 lr:2e-05 tokens_per_second_per_gpu:1238.2")
    {'Step': 5.0, 'loss': 1.2301, 'lr': 2e-05, 'tokens_per_second_per_gpu': 1238.2}
    >>> _piped_record("Epoch 3/10 | Train Loss: 0.5200 | Val Acc: 0.810")
    {'Epoch': 3.0, 'Train Loss': 0.52, 'Val Acc': 0.81}

    A field with a number that no ``name: value`` reads makes the line no such record: read
    with the others left out, PyTorch's word-language-model example (``| epoch 3 |  200/ 2983
    batches | lr 20.00 | ... | loss  5.24 | ppl  189.5``, then ``| end of epoch 3 | time: 150.3s |
    valid loss  5.85 | ...``) was a table of ``time`` alone; its numbers are named by the words
    before them (:mod:`.printed_template`).

    >>> _piped_record("| end of epoch   3 | time: 150.30s | valid loss  5.85 | valid ppl   347.89") is None
    True
    """
    lead = _PIPED_LEAD.search(line)
    if lead is None:
        return None
    pairs = {lead.group(1): float(lead.group(2))}
    for field in line[lead.end():].split("|"):
        whole = _FIELD.match(field)
        found = [whole.groups()] if whole is not None else _FIELDS.findall(field)
        if not found and _DIGIT.search(field):
            return None
        for name, value in found:
            pairs.setdefault(name.strip(), scalar(float(value)))  # (a NaN printed: logged)
    return pairs


def step_key(pairs: dict) -> str:
    """The step key of a record: the most precise of :data:`STEP_KEYS` it holds, as written.

    >>> step_key({"epoch": 1.0, "Step": 120.0, "loss": 0.5})
    'Step'
    """
    lowered = {key.lower(): key for key in pairs}
    return lowered[next(key for key in STEP_KEYS if key in lowered)]


def as_row(pairs: dict, axis: str) -> tuple[float, dict]:
    """(the step, the other pairs) of a record whose steps are counted by ``axis``; a pair named
    like an axis (a ``step`` beside ``global_step``) renamed so that it overwrites no axis."""
    return pairs.get(axis, math.nan), {metric_label(key): value for key, value in pairs.items() if key != axis}


class StepsAcrossEpochs:
    """The steps of a log's records, in order: the step key's value, except where it starts again
    at a new epoch (``Epoch: 1 step: 0 loss: ...`` after ``Epoch: 0 step: 49``) - a loop counting
    its steps within each epoch with no total printed to count from, whose epochs each read as a
    run of their own.  Each later epoch's steps then follow the last of the epoch before, one
    printing interval on (the gap between the epoch's last two steps).  Where the epoch goes back
    (a run appended, a resume) the steps go back to where that epoch began (0 for one not seen),
    and the loader's rules read them (a new run, rows superseded).

    >>> steps = StepsAcrossEpochs("step")
    >>> [steps.step({"epoch": e, "step": s, "loss": 1.0}) for e in (0, 1) for s in (0, 10, 20)]
    [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
    >>> steps.restarts
    1
    """

    def __init__(self, axis: str):
        self._axis = axis
        self._offset = 0.0  # what is added to the printed step
        self._last: tuple | None = None  # (epoch, printed step) of the record before
        self._gap = 1.0  # the steps between the last two records of one epoch
        self._began: dict = {}  # each epoch's offset when it was first seen
        self.restarts = 0  # the epochs whose steps started again

    def step(self, pairs: dict) -> float:
        printed = pairs.get(self._axis, math.nan)
        if math.isnan(printed):
            return printed
        epoch = next((value for key, value in pairs.items()
                      if key != self._axis and key.lower() in ("epoch", "ep")), None)
        if self._last is not None and epoch is not None and self._last[0] is not None:
            if epoch > self._last[0] and printed <= self._last[1]:
                self._offset += self._last[1] - printed + self._gap
                self.restarts += 1
            elif epoch < self._last[0]:
                self._offset = self._began.get(epoch, 0.0)
            elif epoch == self._last[0] and printed > self._last[1]:
                self._gap = printed - self._last[1]
        self._last = (epoch, printed)
        if epoch is not None:
            self._began.setdefault(epoch, self._offset)
        return printed + self._offset


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold printed ``key=value`` records (two of them, or one in a
    head of at most two lines)?  A notebook (``.ipynb``, given whole) is asked of what its cells
    printed: in its JSON a line's tabs and carriage returns are escaped."""
    if base.lower().endswith(".ipynb"):
        if ": " not in head:
            return False
        try:
            head = printed_text(base, head)
        except InputError:
            return False  # (no notebook: its own reader says why)
    if "=" not in head:
        # one-byte searches first (~0.1-1 us: a table of numbers has no '=' and no ':' past a
        # monitor file's JSON comment), the two-byte ': ' last (~30 us on 64 KiB)
        start = head.find("\n") + 1 if head.startswith("#") else 0
        if head.find(":", start) < 0 or ("|" not in head and head.find(": ", start) < 0):
            return False
    lines = [line for line in head.splitlines() if line.strip()]
    found = 0
    for line in lines[:400]:
        if line.startswith('{"'):
            continue  # a JSON object is JSON lines' (a verifiers results file's 15 long lines cost 3.8 ms here)
        if ("=" in line or "|" in line or ": " in line) and parse_line(line) is not None:
            found += 1
            if found == 2:
                return True
    return found == 1 and len(lines) <= 2


#: PyTorch's MNIST example's evaluation after each epoch, a line with no step of its own:
#: ``Test set: Average loss: 0.0345, Accuracy: 9890/10000 (99%)``
_TEST_SET = re.compile(rf"Test set: Average loss: ({PRINTED_NUMBER}), Accuracy: (\d+)/(\d+)", re.IGNORECASE)


#: the columns of :func:`mnist_test_line`
_TEST_COLUMNS = ("test_loss", "test_accuracy")


def mnist_test_line(line: str) -> dict | None:
    """The values of PyTorch's MNIST example's test line, else None: its average loss and the
    share it classified right (the count over the total, more precise than the rounded percent).

    >>> mnist_test_line("Test set: Average loss: 0.0345, Accuracy: 9890/10000 (99%)")
    {'test_loss': 0.0345, 'test_accuracy': 0.989}
    """
    if "Test set: " not in line:  # (one substring search for every other line)
        return None
    found = _TEST_SET.search(line)
    if found is None or int(found.group(3)) == 0:
        return None
    return {"test_loss": scalar(float(found.group(1))), "test_accuracy": int(found.group(2)) / int(found.group(3))}


class LineReader:
    """A log's printed records read in order, as ``read_log`` and ``watch`` read them: :meth:`feed`
    each line, get ``(step, values)`` for a record (the step NaN when it lacks the first record's
    step key: left out) or for PyTorch's MNIST test line (:func:`mnist_test_line`), at the end
    of the epoch before it.  The first record fixes the step key, whether epochs count from 0
    (:func:`epoch_base`) and the form the note names."""

    def __init__(self):
        self.first: str | None = None  # the first record's line
        self.axis: str | None = None
        self.base = 1
        self.steps: StepsAcrossEpochs | None = None
        self.evaluations = 0  # test lines read
        self._last: tuple | None = None  # (line, step) of the last record

    def feed(self, line: str) -> tuple[float, dict] | None:
        pairs = parse_line(line, self.base)
        if pairs is None:
            return self._evaluation(line)
        if self.first is None:
            self.first, self.base = line, epoch_base(line)
            pairs = parse_line(line, self.base)
            self.axis = step_key(pairs)
            self.steps = StepsAcrossEpochs(self.axis)
        step = self.steps.step(pairs)
        if not math.isnan(step):
            self._last = (line, step)
        return step, as_row(pairs, self.axis)[1]

    def _evaluation(self, line: str) -> tuple[float, dict] | None:
        """A test line's values at the end of the epoch of the record before it (that record's
        epoch x its total, when it counts within its epoch out of a total; else its step)."""
        values = mnist_test_line(line) if self._last is not None else None
        if values is None:
            return None
        self.evaluations += 1
        previous, step = self._last
        parts = _listed_parts(previous) if ": " in previous or "=" in previous else None
        if parts is not None and parts[1] is not None:
            step = float((int(parts[0].group(2)) - self.base + 1) * int(parts[1].group(3)))
        return step, values


def read_printed(name: str, text: str) -> LogTable:
    """The records of ``text`` as rows (module docstring); a notebook's from what its cells printed."""
    if name.lower().endswith(".ipynb"):
        text = printed_text(name, text)
    reader = LineReader()
    records, skipped = fed_lines(reader.feed, text)
    if not records:
        raise InputError(f"{name}: no printed line holds a step key ({', '.join(STEP_KEYS[:6])} ...) and "
                         "another name=number pair (or, after '<step key> N |', name: number fields)")
    axis = reader.axis
    columns = stepped_columns(records)
    kept = ~np.isnan(columns["step"])
    without = int(np.count_nonzero(~kept))
    if without:
        columns = {key: column[kept] for key, column in columns.items()}
    rows = len(columns["step"])
    if reader.evaluations:  # (a test line at a step of its own is no printed record's row)
        rows -= int(np.all([np.isnan(column) for key, column in columns.items()
                            if key not in ("step", *_TEST_COLUMNS)], axis=0).sum())
    notes = [f"{rows} printed record(s) of {_form(reader.first, axis, reader.base)}"
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    if reader.evaluations:
        notes.append(f"{reader.evaluations} test line(s) ('Test set: Average loss: ..., Accuracy: n/N') read as "
                     "test_loss and test_accuracy at the end of the epoch before each")
    if reader.steps.restarts:
        notes.append(f"{axis!r} started again at {reader.steps.restarts} new epoch(s): read as a count across the "
                     "epochs, each epoch's steps after the last of the one before")
    if without:
        notes.append(f"{without} record(s) without {axis!r} left out (the step of the first record)")
    return LogTable(None, "printed-pairs", name, notes, arrays=columns, step_unit=unit(axis))


def unit(axis: str) -> str:
    """What one step of the step key ``axis`` is ("per 100 episodes").

    >>> unit("Episode"), unit("global_step")
    ('episodes', 'steps')
    """
    return _UNITS[axis.lower()]
