"""A table printed with its columns aligned by spaces, in no format swarmstats knows: fastai's
training table in a terminal, ``print(df)`` of a pandas frame, a script's own aligned rows::

    epoch     train_loss  valid_loss  accuracy  time
    0         0.512345    0.423456    0.812500  00:10
    1         0.401234    0.398765    0.834375  00:10

Tried last, before :mod:`.printed_template` (a file read as a comma-separated table held one
column of text: "no numeric metric column (columns: epoch     train_loss  valid_loss ...)"),
or when ``--input-format printed-table`` names it.  A header is a line of two names or more,
apart by spaces, none a number; its rows are the lines right after it (a rule line of dashes
between them is skipped) that split into as many fields, or one more (a pandas index first),
each a number, a clock (``00:10``, ``1:02:03``: read in seconds) or a missing mark (fastai's
``#na#``, ``nan``, ``-``).  A table is a log when its header heads :data:`MIN_ROWS` rows or
more (tables printed again under the same header - fastai's ``fine_tune``, a frozen epoch then
the rest - are read together; a step that goes back is left to the loader's rules).  The step
is the column named like a step (``epoch``, ``step``, ``iteration`` ... as :mod:`.printed_pairs`
knows them), else a pandas index, else the row's number.

>>> text = "epoch  train_loss  valid_loss  time" + chr(10) + chr(10).join(
...     f"{e}      {0.5 - e / 10:.4f}      {0.4 - e / 20:.4f}      00:1{e}" for e in range(5))
>>> table = read_table("fit.log", text)
>>> table.frame.columns.tolist(), table.frame["time"].tolist()
(['step', 'train_loss', 'valid_loss', 'time'], [10.0, 11.0, 12.0, 13.0, 14.0])
"""

from __future__ import annotations

import math
import re

from ...errors import InputError
from ._table import LogTable, stepped_columns
from .notebooks import printed_text
from .printed_pairs import STEP_KEYS, unit

#: the fewest rows under one header read as a log
MIN_ROWS = 5
#: a clock printed as minutes and seconds, or hours, minutes and seconds
_CLOCK = re.compile(r"^(?:(\d+):)?(\d+):(\d{2})$")
#: what a table prints for a value it does not have
_MISSING = frozenset({"#na#", "nan", "NaN", "None", "-", "N/A", "n/a", "NA"})
#: a rule line under a header (``-----  ------``), made of dashes, equals signs and spaces
_RULE = re.compile(r"^[\s=-]*-[\s=-]*$")
_LETTER = re.compile(r"[^\W\d_]")


def _cell(text: str) -> float | None:
    """A printed cell's value (a clock in seconds; NaN for a missing mark), None when it is none."""
    try:
        return float(text)
    except ValueError:
        pass
    if text in _MISSING:
        return math.nan
    clock = _CLOCK.match(text)
    if clock is None:
        return None
    hours, minutes, seconds = (int(part) if part else 0 for part in clock.groups())
    return 3600.0 * hours + 60.0 * minutes + seconds


def _header(line: str) -> tuple | None:
    """The names of a header line (two or more, each with a letter, none a number), else None."""
    names = line.split()
    if len(names) < 2 or any(_LETTER.search(name) is None or _cell(name) is not None for name in names):
        return None
    return tuple(names)


def _tables(text: str) -> tuple[tuple, list, int] | None:
    """(the header, the rows' values of each table under it - the index first when printed -,
    the lines read) of the header that heads the most rows, when it heads :data:`MIN_ROWS` or
    more, else None."""
    lines = text.splitlines()
    found: dict = {}  # header -> rows
    read: dict = {}  # header -> lines read
    at = 0
    while at < len(lines):
        names = _header(lines[at])
        if names is None:
            at += 1
            continue
        start, at = at, at + 1
        if at < len(lines) and _RULE.match(lines[at]) and lines[at].strip():
            at += 1
        rows: list = []
        width = None
        while at < len(lines):
            cells = lines[at].split()
            if width is None and len(cells) in (len(names), len(names) + 1):
                width = len(cells)
            values = [_cell(cell) for cell in cells] if len(cells) == width else None
            if values is None or any(value is None for value in values):
                break
            rows.append(values)
            at += 1
        if rows:
            found.setdefault(names, []).append(rows)
            read[names] = read.get(names, 0) + (at - start)
    if not found:
        return None
    names = max(found, key=lambda key: sum(map(len, found[key])))
    if sum(map(len, found[names])) < MIN_ROWS:
        return None
    return names, found[names], read[names]


def is_table_text(text: str, base: str = "") -> bool:
    """Does ``text`` hold a printed table that is a log (module docstring)?"""
    return _tables(text) is not None


def read_table(name: str, text: str) -> LogTable:
    """The log in the table ``text`` prints (module docstring); a notebook's from what its
    cells printed.  InputError when it holds none."""
    if name.lower().endswith(".ipynb"):
        text = printed_text(name, text)
    found = _tables(text)
    if found is None:
        raise InputError(f"{name}: no header of two names or more heads {MIN_ROWS} printed rows of numbers "
                         "aligned under it")
    names, tables, read = found
    keys = ["_".join(key.lower().split()) for key in names]
    step_at = next((keys.index(key) for key in STEP_KEYS if key in keys), None)
    records, offset = [], 0.0
    for table in tables:
        indexed = len(table[0]) == len(names) + 1  # pandas prints its index first, under no name
        steps = [row[1:][step_at] if indexed else row[step_at] for row in table] if step_at is not None else (
            [row[0] for row in table] if indexed else [float(len(records) + n) for n in range(len(table))])
        if records and steps[0] + offset <= records[-1][0]:
            # the same header again, counting from its start: fastai's fine_tune prints its frozen
            # epoch, then the rest; each table's steps are counted on after the one before
            offset = records[-1][0] + 1 - steps[0]
        for step, row in zip(steps, table):
            values = row[1:] if indexed else row
            records.append((step + offset, {names[i]: value for i, value in enumerate(values) if i != step_at}))
    rows = len(records)
    columns = stepped_columns([record for record in records if not math.isnan(record[0])])
    axis = names[step_at] if step_at is not None else "the index" if indexed else "the row's number"
    skipped = sum(1 for line in text.splitlines() if line.strip()) - read
    notes = [f"{rows} row(s) of a printed table with its columns aligned by spaces, under "
             f"{' '.join(names)!r}, step = {axis}" + (f"; {skipped} other line(s) skipped" if skipped > 0 else "")]
    if len(tables) > 1:
        notes.append(f"{len(tables)} tables under that header, read one after the other, each table's {axis} "
                     "counted on from the last of the one before where it starts again (fastai's fine_tune "
                     "prints its frozen epochs, then the rest)")
    return LogTable(None, "printed-table", name, notes, arrays=columns,
                    step_unit=unit(keys[step_at]) if step_at is not None else None)


__all__ = ["MIN_ROWS", "is_table_text", "read_table"]
