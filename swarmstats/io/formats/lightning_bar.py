"""What PyTorch Lightning's progress bar (``TQDMProgressBar``, the default) prints while a
``Trainer`` fits, saved from a terminal (``python train.py | tee train.log``, a job's output
file)::

    Epoch 0:  45%|████▌     | 9/20 [00:02<00:02,  4.21it/s, v_num=0, train_loss=2.250]
    Validation DataLoader 0:  50%|█████     | 5/10 [00:00<00:00, 41.20it/s]
    Epoch 0: 100%|██████████| 20/20 [00:05<00:00,  3.70it/s, v_num=0, train_loss=1.900, val_loss=1.850, val_acc=0.412]

Each redraw of the bar is one update (tqdm parts them with carriage returns, so a saved log
holds them all): the epoch, the batch ``n`` of ``total`` (``?`` when the loader's length is not
known) and, after the rate, the metrics logged with ``prog_bar=True`` as ``name=value``, three
significant digits.  The step is the batch counted from the start of the run: ``epoch x total
+ n`` (with ``?``, the batches of the epochs before added up), the step the run's
``metrics.csv`` calls ``step`` unless batches are accumulated.  ``v_num`` is the logger's
version, no metric.

The bar shows every metric it holds on every redraw, and a validation's metrics (``val_*``, or
any name starting ``valid``/``test`` or ending ``_epoch``) stay there, unchanged, until the
next validation: read at every update they would be a staircase, one value repeated for an
epoch's batches.  They are read where they are new: at the update that follows a validation's
bar, and wherever their printed value changes or first appears - all there is to go by in a
log that shows no validation's bar, only each epoch's last state (a terminal's capture), where
a validation that printed the same number as the one before cannot be told from an epoch that
did not validate, and is not read again.  Lightning redraws the bar twice a batch (the count, then the new metrics): the last
update at a step gives its values.  Before Lightning 2.0 the bar also counted the validation's
batches and showed a running ``loss`` first; an update in a validation there, whose values
are the last batch's again, is left out.

A name truncated by the terminal's width (``val_accMetric val_accuracy improved``) or a value
cut short is no pair and is left out; everything else the job prints (warnings, the model
summary, checkpoint messages, the sanity check's bar) is not a record (counted).

>>> parse_update("Epoch 2:  45%|████▌     | 9/20 [00:02<00:02,  4.21it/s, v_num=0, train_loss=2.250]")
(2, 9, 20, {'v_num': 0.0, 'train_loss': 2.25})
>>> parse_update("Epoch 0: |          | 5/? [01:27<00:00,  0.06it/s, v_num=0, train_loss=14.90]")
(0, 5, None, {'v_num': 0.0, 'train_loss': 14.9})
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns
from .console import visible

#: an update of the main bar: ``Epoch E:``, a percentage (none when the total is ``?``), the
#: bar between two ``|``, then ``n/total`` and the bracket of times, rate and metrics (closed,
#: or cut off by the terminal's width)
_UPDATE = re.compile(r"^\s*Epoch (\d+):\s*(?:\d+%)?\|[^|]*\|\s*(\d+)/(\d+|\?)\s*\[([^\]]*)")
#: one metric of the bracket: ``name=value``, the value whole (before a comma or the end)
_PAIR = re.compile(rf"(?:^|,)\s*([A-Za-z_][\w./@-]*)=({PRINTED_NUMBER})\s*(?=,|$)")
#: what a validation's bar (and Lightning 1.x's) begins with
_VALIDATION = ("Validation", "Validating")
#: the version of the logger, shown first or last in every bracket: no metric
_VERSION = "v_num"


def parse_update(line: str) -> tuple[int, int, int | None, dict] | None:
    """(epoch, batch, total or None, {name: value}) of a redraw of the main bar, else None."""
    if "Epoch " not in line or "|" not in line:  # (two searches for every other line of the job)
        return None
    found = _UPDATE.match(line)
    if found is None:
        return None
    epoch, batch, total, bracket = found.groups()
    values = {name: scalar(float(value)) for name, value in _PAIR.findall(bracket)}
    return int(epoch), int(batch), None if total == "?" else int(total), values


def is_epoch_level(name: str) -> bool:
    """Is ``name`` a metric the bar keeps unchanged until the next validation or epoch end?

    >>> [is_epoch_level(name) for name in ("val_loss", "valid/acc", "train_loss_epoch", "train_loss")]
    [True, True, True, False]
    """
    lowered = name.lower()
    return lowered.startswith(("val", "test")) or lowered.endswith("_epoch")


class LineReader:
    """A log's lines (each redraw one line) read in order: :meth:`feed` each, get the record it
    gives as ``(step, values)`` (module docstring)."""

    def __init__(self):
        self.validated = False  # a validation's bar since the last update
        self._batches_before: dict[int, int] = {}  # each epoch's first batch, for totals of "?"
        self._last_batch: dict[int, int] = {}
        self._shown: dict[str, str] = {}  # each epoch-level name's value as last read (repr: nan == nan)
        self._step_values: dict = {}  # the last update's values of the other names
        self._last_step: float | None = None
        self._running = False  # Lightning < 2.0: a running "loss" first, validations in the bar

    def feed(self, line: str) -> tuple[float, dict] | None:
        line = visible(line)
        if line.lstrip().startswith(_VALIDATION):
            self.validated = True
            return None
        parsed = parse_update(line)
        if parsed is None:
            return None
        epoch, batch, total, values = parsed
        values.pop(_VERSION, None)
        if not values:
            return None
        self._running = self._running or next(iter(values)) == "loss"
        step = self._step(epoch, batch, total)
        shown = {name: value for name, value in values.items() if not is_epoch_level(name)}
        if self._running and self.validated and shown == self._step_values:
            record = {}  # Lightning 1.x counting a validation's batches: the last batch's values again
        elif step == self._last_step:  # a redraw at the same batch: what it shows anew
            record = {name: value for name, value in shown.items() if self._step_values.get(name) != value}
        else:
            record = shown
        self._step_values, self._last_step = shown, step
        for name, value in values.items():
            if is_epoch_level(name):
                if self.validated or self._shown.get(name) != repr(value):
                    record[name] = value
                self._shown[name] = repr(value)
        self.validated = False
        if not record:
            return None
        return step, record

    def _step(self, epoch: int, batch: int, total: int | None) -> float:
        if total is not None:
            return float(epoch * total + batch)
        if epoch not in self._batches_before:  # the batches of the epochs seen before it
            self._batches_before[epoch] = sum(self._last_batch.values())
        self._last_batch[epoch] = max(batch, self._last_batch.get(epoch, 0))
        return float(self._batches_before[epoch] + batch)


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a redraw of Lightning's bar with a metric?"""
    if "|" not in head or "E" not in head or "Epoch " not in head:  # (single characters first: ~0.1 us)
        return False
    for line in head.splitlines()[:2000]:
        parsed = parse_update(visible(line)) if "Epoch " in line else None
        if parsed is not None and set(parsed[3]) - {_VERSION}:
            return True
    return False


def read_printed(name: str, text: str) -> LogTable:
    """The bar's updates in ``text`` as rows (module docstring)."""
    reader = LineReader()
    records, skipped = fed_lines(reader.feed, text)
    if not records:
        raise InputError(f"{name}: no redraw of Lightning's progress bar with a metric ('Epoch 0:  45%|####5     | "
                         "9/20 [00:02<00:02,  4.21it/s, v_num=0, train_loss=2.250]')")
    columns = stepped_columns(records)
    notes = [f"{len(columns['step'])} step(s) of Lightning's progress bar, step = epoch x batches per epoch + batch; "
             "validation and epoch metrics (val_*, *_epoch) read where they are new, not at every redraw"
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    return LogTable(None, "lightning-console", name, notes, arrays=columns, step_unit="batches")
