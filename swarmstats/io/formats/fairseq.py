"""What fairseq's training logs (``fairseq-train``, ``fairseq-hydra-train``) to the console, saved
with ``tee`` or ``--log-file``::

    2021-03-01 12:00:00 | INFO | train_inner | epoch 001:    100 / 1000 loss=9.123, nll_loss=8.5, ppl=362.1, wps=12345, ups=3.2, wpb=3800, bsz=128, num_updates=100, lr=1.25e-05, gnorm=2.3, train_wall=30, wall=35
    2021-03-01 12:05:00 | INFO | valid | epoch 001 | valid on 'valid' subset | loss 8.9 | nll_loss 8.2 | ppl 300 | wps 5000 | wpb 3800 | bsz 128 | num_updates 1000 | best_loss 8.9
    2021-03-01 12:05:01 | INFO | train | epoch 001 | loss 9.5 | nll_loss 8.8 | ppl 445 | ... | num_updates 1000 | lr 0.0001 | wall 400

``train_inner`` is a line every ``--log-interval`` updates (with ``--log-format simple``; the
default progress bar keeps them in its own redrawn line), ``train`` an epoch's averages and
``valid`` (or another subset's name) a validation.  Read as a log it stopped at "no numeric
metric column" (``name=value`` pairs with no step key fairseq's logs hold none of).

The step is ``num_updates``, the optimizer's update count every line carries.  Each value is
named as fairseq's TensorBoard writer names it, by the line's logger and its key -
``train_inner/loss``, ``train/loss``, ``valid/loss``, ``valid/ppl`` - so a validation's loss is
never mixed with the training's; ``best_loss`` (the lowest validation loss so far, a running
minimum) is left out.  ``lr`` is a schedule, ``wall`` and ``train_wall`` clocks and ``wps``,
``ups`` throughputs, left out as the table's other bookkeeping.  A line without
``num_updates`` and the rest of the job's output are skipped and counted.  fairseq-hydra-train
logs ``[2021-03-01 12:00:00,000][train_inner][INFO] - epoch 001: ...``: read the same.

With ``--log-format json`` each stats line is the logger's tag, then a JSON object of its values
as strings (an epoch's and a validation's keys prefixed by their tag, ``train_loss``,
``valid_num_updates``)::

    2021-03-08 12:31:36 | INFO | train_inner | {"epoch": 1, "update": 0.0, "loss": "16.475", ..., "num_updates": "1", ...}
    2021-03-08 12:43:15 | INFO | valid | {"epoch": 1, "valid_loss": "17.953", ..., "valid_num_updates": "10"}

read the same, each key without its tag's prefix (``valid/loss``, ``train/wall``).  As a table it
was a header of junk names ('2021-03-08 12:31:36 | INFO | train_inner | {"epoch": 1', ...) and
"no numeric metric column".

>>> parse_line("2021-03-01 12:05:00 | INFO | valid | epoch 001 | valid on 'valid' subset | loss 8.9 | ppl 300 | num_updates 1000 | best_loss 8.9")
(1000.0, {'valid/loss': 8.9, 'valid/ppl': 300.0})
"""

from __future__ import annotations

import json
import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns

#: the logger's name and the epoch that begin a line: ``| train_inner | epoch 001:``, hydra's
#: ``[train_inner][INFO] - epoch 001:``, ``| valid | epoch 001 |``
_HEAD = re.compile(r"(?:\|\s*([\w.-]+)\s*\||\[([\w.-]+)\]\[[A-Z]+\]\s*-)\s*epoch\s+(\d+)(:?)")
#: a line every log interval: ``epoch 001:    100 / 1000 loss=9.123, ...``
_INNER = re.compile(r"^\s*\d+\s*/\s*\d+\s+")
_PAIR = re.compile(rf"^\s*([A-Za-z_][\w.-]*)=({PRINTED_NUMBER})\s*$", re.IGNORECASE)
_PIPED = re.compile(rf"^\s*([A-Za-z_][\w.-]*) ({PRINTED_NUMBER})\s*$", re.IGNORECASE)
#: keys that are the line's position, not values
_AXES = {"epoch", "update", "num_updates"}
STEP = "num_updates"


#: a stats line of ``--log-format json``: the logger's tag, then the JSON object of its values
_JSON_HEAD = re.compile(r"\|\s*([\w.-]+)\s*\|\s*(?=\{)")


def parse_line(line: str) -> tuple[float, dict] | None:
    """(num_updates, values named ``<logger>/<key>``) of a stats line, else None.

    >>> parse_line('2021-01-12 14:37:14 | INFO | valid | {"epoch": 3, "valid_loss": "8.751", "valid_num_updates": "414", "valid_best_loss": "8.751"}')
    (414.0, {'valid/loss': 8.751})
    """
    if '{"' in line:
        return _json_line(line)
    if "epoch " not in line:  # (one substring search for every other line of the job)
        return None
    head = _HEAD.search(line)
    if head is None or (head.group(1) or head.group(2)).startswith("fairseq"):
        return None  # (fairseq.trainer's "begin training epoch 1" is a message)
    tag, rest = head.group(1) or head.group(2), line[head.end():]
    if head.group(4):  # an interval's line: "   100 / 1000 loss=..., ..."
        counted = _INNER.match(rest)
        if counted is None:
            return None
        found = [_PAIR.match(field) for field in rest[counted.end():].split(",")]
    else:
        found = [_PIPED.match(field) for field in rest.split("|")]
    return _stats(tag, {match.group(1): scalar(float(match.group(2))) for match in found if match is not None})


def _stats(tag: str, pairs: dict) -> tuple[float, dict] | None:
    """(num_updates, the values named ``<tag>/<key>``) of a stats line's pairs, else None: the
    line's position (epoch, update) and a running best (``best_loss``) are no values."""
    if STEP not in pairs:
        return None
    values = {f"{tag}/{key}": value for key, value in pairs.items()
              if key not in _AXES and not key.startswith("best_")}
    return (pairs[STEP], values) if values else None


def _json_line(line: str) -> tuple[float, dict] | None:
    """A ``--log-format json`` stats line's (num_updates, values), else None (module docstring)."""
    head = _JSON_HEAD.search(line)
    if head is None or head.group(1).startswith("fairseq"):
        return None
    tag = head.group(1)
    try:
        stats = json.loads(line[head.end():])
    except ValueError:
        return None
    if not isinstance(stats, dict):
        return None
    pairs = {}
    for key, value in stats.items():
        key = str(key).removeprefix(f"{tag}_")  # an epoch's and a validation's keys carry their tag
        try:
            pairs[key] = scalar(float(value))  # (values are printed as strings; some as numbers)
        except (TypeError, ValueError):
            continue
    return _stats(tag, pairs)


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a fairseq stats line?"""
    if "|" not in head and "]" not in head or "num_updates" not in head:  # (a single character first)
        return False
    return any(parse_line(line) is not None for line in head.splitlines()[:400] if "num_updates" in line)


def read_printed(name: str, text: str) -> LogTable:
    """The stats lines of ``text`` as rows on num_updates (module docstring)."""
    records, skipped = fed_lines(parse_line, text)
    if not records:
        raise InputError(f"{name}: no fairseq stats line ('| train_inner | epoch 001:    100 / 1000 loss=9.123, ..., "
                         "num_updates=100, ...') holding num_updates")
    columns = stepped_columns(records)
    notes = [f"{len(columns['step'])} step(s) of fairseq's stats lines, step = num_updates; each value named by "
             "its logger (train_inner/loss, train/loss, valid/loss); best_loss (a running minimum) not read"
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    return LogTable(None, "fairseq-console", name, notes, arrays=columns, step_unit="updates")
