"""What nanoGPT prints while it trains - and the many training scripts copied from its
``train.py``, build-nanogpt's and llm.c's - saved with ``python train.py | tee train.log``::

    step 0: train loss 10.9887, val loss 10.9905
    iter 0: loss 10.9914, time 38532.31ms, mfu -100.00%
    iter 10: loss 9.5871, time 1092.31ms, mfu 33.01%

An ``iter N:`` line per ``log_interval`` iterations and a ``step N:`` line per evaluation, both
counted in iterations: lines at one iteration share a row.  The other lines (the configuration,
"number of parameters", "saving checkpoint") are skipped.  Each pair is a name and a number
with an optional unit (``ms``, ``s``, ``%``): ``time`` is a clock and ``mfu`` (model FLOP
utilisation, -100% before its fifth iteration) a system measurement, so both are left out of
the default metrics like any log's.  Forks that capitalise (``Iter 10: Loss 9.58``) read the same,
and so do the bar-separated lines of build-nanogpt (``step    10 | loss: 6.02 | lr 6.0e-05 |
norm: 1.9 | dt: 331.9ms | tok/sec: 1579.6``) and llm.c (``step    1/74 | train loss 11.01 | norm
15.4 | lr 6.00e-04 | (123.45 ms | 45678 tok/s)``: the parenthesised timing, number before name,
is skipped).  Lines that do not start with the step - llm.c's ``val loss 4.2`` - are not read.
"""

from __future__ import annotations

import re

from ...errors import InputError
from ._table import LogTable, stepped_columns

#: a printed line: ``iter 10: loss 9.5871, time 1092.31ms``, ``step 250: train loss 1.97, ...``,
#: build-nanogpt's ``step    10 | loss: 6.02 | lr 6.0e-05 | ...``, ``step 0, loss: 10.9``, and
#: llm.c's ``step    1/74 | train loss 11.01 | norm 15.4 | ...``
_LINE = re.compile(r"^\s*(iter|step)\s+(\d+)(?:/\d+)?\s*[:,|]\s*(.*?)\s*$", re.IGNORECASE)
#: one pair: a name of words (a colon after it or not), a number, an optional unit
_PAIR = re.compile(r"^([A-Za-z][\w /.-]*?):?\s+([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf)"
                   r"\s*(ms|s|%)?$", re.IGNORECASE)
#: what separates the pairs: nanoGPT's commas, build-nanogpt's and llm.c's bars
_SEPARATOR = re.compile(r"\s*[,|]\s*")


def parse_line(line: str) -> tuple[int, dict] | None:
    """A printed line as (iteration, {name: value}); None for any other line.

    >>> parse_line("iter 10: loss 9.5871, time 1092.31ms, mfu 33.01%")
    (10, {'loss': 9.5871, 'time': 1092.31, 'mfu': 33.01})
    >>> parse_line("step 250: train loss 1.9712, val loss 2.0834")
    (250, {'train loss': 1.9712, 'val loss': 2.0834})
    >>> parse_line("step    1/74 | train loss 11.010 | norm 15.4 | lr 6.00e-04 | (123.45 ms | 45678 tok/s)")
    (1, {'train loss': 11.01, 'norm': 15.4, 'lr': 0.0006})
    >>> parse_line("step   10 | loss: 6.02 | dt: 331.9ms | tok/sec: 1579.6")
    (10, {'loss': 6.02, 'dt': 331.9, 'tok/sec': 1579.6})
    >>> parse_line("step 3: saving checkpoint to out") is None
    True
    """
    found = _LINE.match(line)
    if found is None:
        return None
    parts = [part for part in _SEPARATOR.split(found.group(3)) if part]
    values = {}
    for number, part in enumerate(parts):
        pair = _PAIR.match(part)
        if pair is None:
            if number == 0:
                return None  # not "name number" pairs: other text that starts "step N:"
            continue  # a number before its name, llm.c's "(123.45 ms": not a pair
        values[pair.group(1).strip()] = float(pair.group(2))
    return (int(found.group(2)), values) if values else None


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file show nanoGPT's printed lines (two of them, or one in a short
    head)?"""
    if " " not in head:  # one byte search (~0.1 us on 14 KB) before two of ~7 us: a CSV has no space
        return False
    lowered = head.lower()
    if "iter " not in lowered and "step " not in lowered:
        return False
    lines = [line for line in head.splitlines() if line.strip()]
    found = sum(parse_line(line) is not None for line in lines[:400])
    return found >= 2 or (found == 1 and len(lines) <= 2)


def read_printed(name: str, text: str) -> LogTable:
    """The printed lines of ``text`` as one row per iteration (module docstring)."""
    lines = text.splitlines()  # (a last line still being written is cut off by the loader)
    # in the order printed, the lines of one iteration (an evaluation, then the training line)
    # in one row: a run appended to the file (tee -a) or resumed from a checkpoint makes the
    # iteration go back, which the loader's own rules read (a new run, or rows superseded)
    columns = stepped_columns(parsed for parsed in map(parse_line, lines) if parsed is not None)
    if not len(columns["step"]):
        raise InputError(f"{name}: no line of nanoGPT's 'iter N: loss X, ...' or 'step N: train loss X, "
                         "val loss Y' with a number found")
    notes = [f"{len(columns['step'])} iteration(s) printed by a nanoGPT-style train.py; the rest of the text is skipped"]
    return LogTable(None, "nanogpt-console", name, notes, arrays=columns)
