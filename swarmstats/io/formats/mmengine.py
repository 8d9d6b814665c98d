"""What OpenMMLab's runners log to the console and to the ``<time>.log`` of the work folder -
MMEngine's ``LogProcessor`` (MMDetection 3, MMPretrain, MMSegmentation 1, MMPose 1 ...) and
MMCV's older ``TextLoggerHook`` (MMDetection 2 ...)::

    2023/06/01 10:00:00 - mmengine - INFO - Epoch(train)  [1][ 50/7330]  base_lr: 2.0000e-02 lr: 1.9880e-03  eta: 1 day, 2:41:03  time: 0.5470  data_time: 0.0500  memory: 3819  grad_norm: 6.0178  loss: 1.6932  loss_cls: 0.8367  acc: 87.5610
    2023/06/01 11:00:00 - mmengine - INFO - Epoch(val) [1][625/625]    coco/bbox_mAP: 0.3740  coco/bbox_mAP_50: 0.5810  data_time: 0.0100  time: 0.0500
    2021-06-01 10:00:00,000 - mmdet - INFO - Epoch [1][50/7330]	lr: 1.996e-03, eta: 1 day, 2:41:03, time: 0.547, data_time: 0.050, memory: 3819, loss_rpn_cls: 0.5411, loss: 1.6932
    2021-06-01 11:00:00,000 - mmdet - INFO - Epoch(val) [1][625]	bbox_mAP: 0.2100, bbox_mAP_50: 0.4000, bbox_mAP_copypaste: 0.210 0.400 0.205

A training line's step is the iteration of the run: an epoch-based runner counts iterations
within each epoch (``[1][50/7330]``, from 1), so the step is ``(epoch - 1) x 7330 + 50`` (the
global ``iter`` MMEngine itself logs); an iteration-based one (``Iter(train) [50/80000]``,
MMCV's ``Iter [50/80000]``) prints it.  Each ``name: value`` is a column as printed (the
learning rates ``lr``, ``base_lr`` schedules; ``time``, ``data_time`` and ``eta`` clocks,
``memory`` the GPU's; the losses and the training accuracy metrics).

A validation's result - the line an evaluation prints when it ends, ``Epoch(val) [1][625/625]``
with its metrics and no ``eta`` - is read at the end of the epoch it validated, ``epoch x 7330``
(at the step of the training line before it for an iteration-based runner), its metrics named as
printed (``coco/bbox_mAP``; ``val/acc`` where a training column has the name).  Its timings and
a value that is no number (``bbox_mAP_copypaste``) are left out; the validation's progress
lines (``Epoch(val) [1][ 50/625]  eta: ...``), a test's lines and the rest of the job's output
are skipped and counted.

>>> parse_line("Epoch(train)  [2][ 50/100]  base_lr: 2.0000e-02 lr: 1.9880e-03  eta: 1 day, 2:41:03  loss: 1.6932")
('train', 150.0, {'base_lr': 0.02, 'lr': 0.001988, 'loss': 1.6932})
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns

#: a line's header: MMEngine's ``Epoch(train)  [1][ 50/7330]``, ``Iter(train) [  50/80000]``,
#: ``Epoch(val) [1][625/625]``; MMCV's ``Epoch [1][50/7330]``, ``Iter [50/80000]``,
#: ``Epoch(val) [1][625]``, ``Iter(val) [500]``
_HEADER = re.compile(r"(?:^|\s)(Epoch|Iter)(?:\((train|val|test)\))?\s*(?:\[\s*(\d+)\s*\](?=\s*\[))?\s*"
                     r"\[\s*(\d+)\s*(?:/\s*(\d+)\s*)?\]")
#: one field: a name, ``: ``, a number, then the next field, a separator or the line's end
#: (``eta: 1 day, 2:41:03`` and ``bbox_mAP_copypaste: 0.210 0.400`` hold none)
_FIELD = re.compile(rf"(?<![\w./@-])([A-Za-z_][\w./@-]*): ({PRINTED_NUMBER})"
                    r"(?=,|\t|\s{2}|\s*$| [A-Za-z_][\w./@-]*: )", re.IGNORECASE)
#: what a validation's result holds beside its metrics: the machine's, not the model's
_TIMINGS = {"eta", "time", "data_time", "memory"}


def parse_line(line: str) -> tuple[str, float, dict] | None:
    """(mode, step, fields) of a training line or a validation's result, else None.  A
    validation result's step is its epoch, negated (its iteration is the training's, which the
    reader knows from the training lines: :class:`LineReader`); an iteration-based one's NaN."""
    if "Epoch" not in line and "Iter" not in line:  # (two substring searches for every other line)
        return None
    header = _HEADER.search(line)
    if header is None:
        return None
    unit, mode, epoch, count, total = header.groups()
    mode = mode or ("val" if "(val)" in line[:header.end()] else "train")
    fields = {name: scalar(float(value)) for name, value in _FIELD.findall(line[header.end():])}
    if mode == "train":
        if unit == "Epoch" and (epoch is None or total is None):
            return None
        step = (int(epoch) - 1) * int(total) + int(count) if unit == "Epoch" else int(count)
        return ("train", float(step), fields) if fields else None
    if mode != "val" or "eta" in fields or " eta: " in line:
        return None  # a validation's progress, or a test's
    metrics = {name: value for name, value in fields.items() if name not in _TIMINGS}
    if not metrics:
        return None
    return "val", (-float(epoch) if unit == "Epoch" and epoch is not None else float("nan")), metrics


class LineReader:
    """A log's lines read in order: :meth:`feed` each, get ``(step, values)`` - a training line's,
    or a validation's result at the end of the epoch it validated (``epoch x iterations per
    epoch``, known from the training lines) or, iteration-based, at the training line before it."""

    def __init__(self):
        self.step: float | None = None  # the last training line's
        self.per_epoch: int | None = None  # iterations per epoch, from an epoch's training line
        self.names: set = set()  # the training lines' columns
        self.validations = 0

    def feed(self, line: str) -> tuple[float, dict] | None:
        parsed = parse_line(line)
        if parsed is None:
            return None
        mode, step, fields = parsed
        if mode == "train":
            header = _HEADER.search(line)
            if header.group(1) == "Epoch":
                self.per_epoch = int(header.group(5))
            self.step = step
            self.names.update(fields)
            return step, fields
        if self.step is None:
            return None  # a validation before any training line: no step to put it at
        self.validations += 1
        at = -step * self.per_epoch if step < 0 and self.per_epoch else self.step
        return at, {(f"val/{name}" if name in self.names else name): value for name, value in fields.items()}


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold an OpenMMLab runner's training line?"""
    if "[" not in head or ("E" not in head and "I" not in head):  # (single characters first: ~0.1 us)
        return False
    if "Epoch" not in head and "Iter" not in head:
        return False
    return any(parse_line(line) is not None and "(val)" not in line
               for line in head.splitlines()[:400] if "Epoch" in line or "Iter" in line)


def read_printed(name: str, text: str) -> LogTable:
    """The training lines and validation results of ``text`` as rows (module docstring)."""
    reader = LineReader()
    records, skipped = fed_lines(reader.feed, text)
    if not records:
        raise InputError(f"{name}: no OpenMMLab training line ('Epoch(train)  [1][ 50/7330]  lr: ...  loss: 1.69' "
                         "or 'Epoch [1][50/7330]\\tlr: ..., loss: 1.69')")
    columns = stepped_columns(records)  # (a validation's step is past its epoch's last training line's)
    notes = [f"{len(columns['step'])} step(s) of an OpenMMLab runner's log, step = the iteration of the run "
             "((epoch - 1) x iterations per epoch + iteration, for an epoch-based runner)"
             + (f"; {reader.validations} validation result(s) at the end of the epoch (or the iteration) they "
                "validated" if reader.validations else "")
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    return LogTable(None, "mmengine-console", name, notes, arrays=columns, step_unit="iterations")

