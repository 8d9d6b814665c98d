"""What the ``MetricLogger`` of torchvision's reference scripts prints - the class DETR, DeiT,
MAE, DINO, ConvNeXt and many research repositories copy - saved from a terminal (``tee``, a
job's output file)::

    Epoch: [0]  [  0/312]  eta: 0:31:00  lr: 0.000100  loss: 6.9313 (6.9313)  time: 5.9630  data: 4.2012  max mem: 5432
    Epoch: [0]  [ 10/312]  eta: 0:03:12  lr: 0.000100  loss: 6.9102 (6.9205)  time: 0.6362  data: 0.3821  max mem: 5510
    Epoch: [0] Total time: 0:03:05 (0.5952 s / it)
    Averaged stats: lr: 0.000100  loss: 6.8840 (6.8931)
    Test:  [ 0/50]  eta: 0:00:41  loss: 6.8102 (6.8102)  acc1: 0.7812 (0.7812)  acc5: 2.3438 (2.3438)  ...
    * Acc@1 1.234 Acc@5 4.567 loss 6.789

A training line is ``log_every``'s: the header ``Epoch: [E]`` (``[E/T]`` in some forks), the
iteration ``[i/n]`` within the epoch, then the meters, parted by the logger's delimiter (two
spaces, or a tab).  A meter prints its ``fmt``: by default the median of its last 20 updates
and, in parentheses, its average over the epoch so far.  The first number is read - the value
near that point of the run; the one in parentheses is a running mean since the epoch began,
smooth by construction and reset at each epoch, so it is left out.  The step is ``E x n + i``:
the iteration starts again at each epoch, and the reference scripts count epochs from 0.
``time`` is the seconds an iteration took and ``data`` the seconds it waited for its batch
(read as ``data_time``, the scripts' own name for it): clocks, as ``eta``; ``max mem`` is the
GPU's memory; all measure the machine, not the training.

An evaluation's summary - ``* Acc@1 … Acc@5 … loss …`` (DeiT, MAE) or ``Test:  Acc@1 … Acc@5 …``
(torchvision's classification script) - is read as ``test_acc1``, ``test_acc5`` and
``test_loss``, the names those scripts give it in the ``log.txt`` they write beside, at the step
of the training line before it: the end of the epoch it evaluated.  The evaluation's per-batch
lines (``Test:  [i/n]``, running averages over part of the test set), an epoch's ``Total time``
and ``Averaged stats`` lines and everything else the job prints are not records (counted).

>>> parse_line("Epoch: [2]  [ 10/312]  eta: 0:03:12  lr: 0.000100  loss: 6.9102 (6.9205)  time: 0.6362  data: 0.3821")
(634.0, {'lr': 0.0001, 'loss': 6.9102, 'time': 0.6362, 'data_time': 0.3821})
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns

#: a training line's header and iteration: ``Epoch: [E]`` or ``Epoch: [E/T]``, then ``[i/n]``
#: (after any prefix: a logger's time and level)
_TRAINING = re.compile(r"(?:^|\s)Epoch: \[(\d+)(?:/\d+)?\][ \t]+\[\s*(\d+)/(\d+)\]")
#: one meter: its name (``max mem``, ``img/s``), then its first number (a unit allowed:
#: ``5092MB``) and any more in parentheses
_METER = re.compile(rf"^([A-Za-z_][\w@./ -]*?):\s*({PRINTED_NUMBER})(?:\s*(?:MB|GB|ms|s|%))?"
                    rf"(?:\s*\(\s*(?:{PRINTED_NUMBER})\s*\))?$", re.IGNORECASE)
#: what parts the meters: the logger's delimiter, two spaces or more, or a tab
_DELIMITER = re.compile(r"\t|\s{2,}")
#: an evaluation's summary: DeiT's and MAE's ``* Acc@1 … Acc@5 … loss …``, torchvision's
#: ``Test:  Acc@1 … Acc@5 …`` (``Test: EMA Acc@1 …`` for its averaged model)
_SUMMARY = re.compile(rf"^\s*(?:\*|Test:\s*(?P<suffix>[A-Za-z]*))\s+Acc@1\s+(?P<acc1>{PRINTED_NUMBER})\s+"
                      rf"Acc@5\s+(?P<acc5>{PRINTED_NUMBER})(?:\s+loss\s+(?P<loss>{PRINTED_NUMBER}))?\s*$")
#: a meter's name as printed -> the name the scripts give the quantity
_RENAMED = {"data": "data_time"}


def parse_line(line: str) -> tuple[float, dict] | None:
    """(step, meters) of a training line with at least one number, else None."""
    if "Epoch: [" not in line:  # (one substring search for every other line of the job)
        return None
    found = _TRAINING.search(line)
    if found is None:
        return None
    epoch, iteration, length = (int(group) for group in found.groups())
    meters = {}
    for field in _DELIMITER.split(line[found.end():]):
        meter = _METER.match(field.strip())
        if meter is not None:  # (eta's 0:03:12, a string, is no number)
            name = meter.group(1).strip()
            meters[_RENAMED.get(name, name)] = scalar(float(meter.group(2)))  # (a NaN printed: logged)
    return (float(epoch * length + iteration), meters) if meters else None


def parse_summary(line: str) -> dict | None:
    """The values of an evaluation's summary line, else None.

    >>> parse_summary("* Acc@1 81.800 Acc@5 95.600 loss 0.800")
    {'test_acc1': 81.8, 'test_acc5': 95.6, 'test_loss': 0.8}
    >>> parse_summary("Test: EMA Acc@1 76.130 Acc@5 92.862")
    {'test_ema_acc1': 76.13, 'test_ema_acc5': 92.862}
    """
    if "Acc@1" not in line:
        return None
    found = _SUMMARY.match(line)
    if found is None:
        return None
    prefix = "_".join(["test", *filter(None, [(found["suffix"] or "").lower()])]) + "_"
    return {prefix + key: scalar(float(found[key])) for key in ("acc1", "acc5", "loss") if found[key] is not None}


class LineReader:
    """A log's lines read in order: :meth:`feed` each, get the record it gives as
    ``(step, values)`` - a training line's, or an evaluation's summary at the step of the
    training line before it (none before the first)."""

    def __init__(self):
        self.step: float | None = None
        self.summaries = 0  # the evaluation summaries read

    def feed(self, line: str) -> tuple[float, dict] | None:
        parsed = parse_line(line)
        if parsed is not None:
            self.step = parsed[0]
            return parsed
        summary = parse_summary(line) if self.step is not None else None
        if summary is None:
            return None
        self.summaries += 1
        return self.step, summary


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a MetricLogger's training line?"""
    if "E" not in head or "[" not in head or "Epoch: [" not in head:  # (single characters first: ~0.1 us)
        return False
    return any(parse_line(line) is not None for line in head.splitlines()[:400] if "Epoch: [" in line)


def read_printed(name: str, text: str) -> LogTable:
    """The training lines and evaluation summaries of ``text`` as rows (module docstring)."""
    reader = LineReader()
    records, skipped = fed_lines(reader.feed, text)
    if not records:
        raise InputError(f"{name}: no MetricLogger training line ('Epoch: [0]  [ 10/312]  eta: 0:03:12  "
                         "loss: 6.9102 (6.9205)  ...') with a number")
    columns = stepped_columns(records)
    notes = [f"{len(columns['step'])} MetricLogger record(s), step = epoch x iterations per epoch + iteration "
             "(the iteration starts again each epoch); each meter's first number (by default the median of "
             "its last 20 updates), not its running mean of the epoch in parentheses"
             + (f"; {reader.summaries} evaluation summary line(s) (* Acc@1 ...) at the step before each"
                if reader.summaries else "")
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    return LogTable(None, "metric-logger-console", name, notes, arrays=columns, step_unit="iterations")

