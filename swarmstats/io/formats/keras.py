"""What Keras' ``model.fit`` prints, saved from a terminal or a notebook (``tee``, or a job's
output file)::

    Epoch 3/30
    100/100 [==============================] - 1s 5ms/step - loss: 0.5012 - accuracy: 0.8021 - val_loss: 0.5533 - val_accuracy: 0.7815
    Epoch 4/30
    100/100 - 1s - loss: 0.4803 - accuracy: 0.8127 - 1s/epoch - 5ms/step

(``verbose=1`` and ``verbose=2`` of Keras 2, in a notebook too; Keras 3 draws its bar with ``━`` and puts the
time first: ``100/100 ━━━━━━━━━━━━━━━━━━━━ 1s 5ms/step - accuracy: 0.80 - loss: 0.50``).  The
epoch's line is the first line after ``Epoch N/M`` that holds its ``name: value`` pairs, its
bar's count complete and no ``ETA`` (the bar's updates before it, parted by ``\\r`` in a
terminal's output, hold running averages of a part of the epoch).  Read as a log it stopped at "no numeric metric
column (columns: Epoch 1/30)".

The step is the epoch; each pair a column named as printed (``val_loss``, ``lr`` - a schedule,
left out as bookkeeping).  A line of pairs with no epoch before it (``model.evaluate`` after
training) is not an epoch's and is counted in a note.

>>> reader = EpochReader()
>>> [reader.feed(line) for line in ["Epoch 2/5", "10/10 [====] - 0s 2ms/step - loss: 0.25 - acc: 0.9"]]
[None, {'step': 2.0, 'loss': 0.25, 'acc': 0.9}]
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable
from .console import visible
from .notebooks import printed_text

#: the line that opens an epoch: ``Epoch 3/30``
_EPOCH = re.compile(r"^\s*Epoch (\d+)/(\d+)\s*$")
#: the progress bar's count at the start of a line (``100/100``, Keras 1's ``60000/60000``)
_COUNT = re.compile(r"^\s*(\d+)/(\d+)\s")
#: in a notebook's JSON: an epoch's line, then (after the list's '", "' if any) its line of pairs
_NOTEBOOK_EPOCH = re.compile(r'Epoch \d+/\d+\\n(?:",\s*")?[^"]*?\d+/\d+[^"]* - [A-Za-z_][\w.]*: [-+\d.]')
#: one printed pair: `` - loss: 0.5012``
_PAIR = re.compile(rf"\s-\s([A-Za-z_][\w.]*):\s({PRINTED_NUMBER})(?=\s|$)", re.IGNORECASE)


def opens_epoch(line: str) -> bool:
    """Is ``line`` (as a terminal shows it) the ``Epoch N/M`` line that opens an epoch?  Keras
    counts epochs from 1: ``Epoch 0/24`` heads the PyTorch transfer-learning tutorial's loop,
    whose lines ``watch`` then follows as blocks under their headers, not as Keras' bars.

    >>> opens_epoch("Epoch 1/30"), opens_epoch("Epoch 0/24")
    (True, False)
    """
    match = _EPOCH.match(line) if "Epoch " in line else None
    return match is not None and int(match.group(1)) >= 1


def metrics_of(line: str) -> dict | None:
    """The ``name: value`` pairs of an epoch's line (its progress bar's count complete, no ETA),
    else None: a bar's update part-way (``16/32``; Keras 3 prints its time left without the
    word ETA) holds running averages of part of the epoch."""
    if " - " not in line or "ETA" in line:
        return None
    count = _COUNT.match(line)
    if count is None or count.group(1) != count.group(2):
        return None
    pairs = {name: scalar(float(value)) for name, value in _PAIR.findall(line)}
    return pairs or None


class EpochReader:
    """The epochs of printed text, fed a line at a time (a whole file, or a file being written:
    ``swarmstats watch``): :meth:`feed` returns an epoch's record once its line is read."""

    def __init__(self):
        self._epoch: float | None = None
        self.unplaced = 0  # lines of pairs with no epoch before them (an evaluation)
        self.running: str | None = None  # the epoch opened and not finished ("1/30"), if any

    def feed(self, line: str) -> dict | None:
        if "\b" in line:  # Keras 2 redraws its bar in a notebook with backspaces
            line = line.rpartition("\b")[2]
        if "\r" in line or "\x1b" in line:
            line = visible(line)  # (what a terminal shows of a bar redrawn in place)
        opened = _EPOCH.match(line) if "Epoch " in line else None
        if opened is not None:
            self._epoch, self.running = float(opened.group(1)), f"{opened.group(1)}/{opened.group(2)}"
            return None
        pairs = metrics_of(line)
        if pairs is None:
            return None
        if self._epoch is None:
            self.unplaced += 1
            return None
        record, self._epoch, self.running = {"step": self._epoch, **pairs}, None, None
        return record


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold an epoch of Keras' ``fit``: ``Epoch N/M``, then its line?
    Or a fit just begun: ``Epoch 1/M`` followed by nothing but its bar's updates (read, it says
    that no epoch has finished, where it read "malformed rows" or "no numeric metric column")."""
    # every text log pays this sniff: one-character searches first (~0.1-1 us on 64 KiB, where
    # the phrase's costs ~45 us when it is not there: a table of numbers has no capital E)
    if "E" not in head or "/" not in head or "Epoch " not in head:
        return False
    if base.lower().endswith(".ipynb"):
        return ": " in head and _NOTEBOOK_EPOCH.search(head) is not None
    lines = head.splitlines()
    reader = EpochReader()
    return (": " in head and any(reader.feed(line) is not None for line in lines)) or _first_epoch_running(lines)


def _first_epoch_running(lines: list) -> bool:
    """Are ``lines`` a fit's first epoch still running: ``Epoch 1/M``, then only bar updates?

    >>> _first_epoch_running(["Model: ...", "Epoch 1/3", " 5/10 [==>...] - ETA: 1s - loss: 0.5"])
    True
    >>> _first_epoch_running(["Epoch 1/3", "loss=0.5 acc=0.9"]), _first_epoch_running(["Epoch 2/3"])
    (False, False)
    """
    opened = next((i for i, line in enumerate(lines) if opens_epoch(line)), None)
    if opened is None or _EPOCH.match(lines[opened]).group(1) != "1":
        return False
    return all(_COUNT.match(visible(line) if "\r" in line or "\x1b" in line else line)
               for line in lines[opened + 1:] if line.strip())


def read_printed(name: str, text: str) -> LogTable:
    """The epochs of ``text`` as rows (module docstring)."""
    if name.lower().endswith(".ipynb"):
        text = printed_text(name, text) + "\n"  # what the notebook's cells printed
    # lines end at a newline only: a bar redrawn in a terminal is one line of \r-parted updates,
    # of which the reader keeps what the terminal shows
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if lines and not text.endswith("\n"):
        lines.pop()  # a line still being written (or the empty rest after the last newline)
    reader = EpochReader()
    rows = [record for record in map(reader.feed, lines) if record is not None]
    if not rows:
        if reader.running is not None:
            raise InputError(f"{name}: Keras' fit has begun (Epoch {reader.running}) and no epoch has "
                             "finished yet: there is nothing to analyse until one has (swarmstats watch "
                             "follows the fit as its epochs end)")
        raise InputError(f"{name}: no Keras epoch ('Epoch N/M', then '... - loss: 0.5 - ...')")
    keys = list(dict.fromkeys(key for row in rows for key in row if key != "step"))
    columns = {"step": np.array([row["step"] for row in rows], dtype=float)}
    columns.update({key: np.array([row.get(key, math.nan) for row in rows], dtype=float) for key in keys})
    notes = [f"{len(rows)} Keras epoch line(s), step = the epoch"]
    if reader.unplaced:
        notes.append(f"{reader.unplaced} line(s) of values with no epoch before them (model.evaluate?) not read")
    return LogTable(None, "keras-console", name, notes, arrays=columns, step_unit="epochs")
