"""Comma-separated tables of plain numbers read without pandas' header handling.

Monitor files, progress.csv and Lightning's metrics.csv are tables of numbers whose readers keep
only numbers, as floats.  On the few KB to few hundred KB they hold, ``pandas.read_csv`` spends
more on fixed costs than on the numbers: ~0.2 ms setting up, and ~0.2 ms more turning the
header into pandas 3's column index of strings and the columns back into one array (measured on
17-280 KB monitor files: a ``read_csv`` told there is no header, whose columns are numbered,
costs 0.38-1.63 ms where the ordinary call costs 0.55-1.81 ms).  So the header line is split
here, and the rows are parsed

* by numpy's ``loadtxt`` up to ``NUMPY_TABLE_BYTES``: almost no setup but ~25-35 ns a byte,
  against pandas' ~5 (the two cross at 10-14 KB, measured on the real fixtures; 9.5-12 KB
  since pandas parses in one pass, 2026-12-01, where neither is ahead on every file);
* by pandas, told there is no header, above it, up to ``PLAIN_TABLE_BYTES`` (past which the
  fixed costs no longer matter and the checks below would cost more than they save).

Only a table whose every cell is a plain number or empty is read here: a quote, a space, a
tab, a ``;``, a ``#``, a word (a missing-value token such as ``NA`` included; ``nan`` is a
number here, marked as a NaN the log wrote: :mod:`.written_nan`), a row of another width than
the header, a blank line (numpy), or a repeated, blank or padded column name returns None and
the caller reads the file the ordinary way, with its messages.  An empty cell is NaN,
as pandas reads it; both parsers give correctly rounded floats (tested on every real fixture
against the ordinary read).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from .written_nan import WRITTEN_NAN_BITS, mentions_nan

#: the most bytes of a table parsed by numpy rather than pandas (see the module docstring)
NUMPY_TABLE_BYTES = 12_000
#: the most bytes of a table read here at all
PLAIN_TABLE_BYTES = 1_000_000

#: bytes that send a table to the ordinary read: quotes, whitespace in a line, comments, other separators
_NOT_PLAIN = (b'"', b"'", b"#", b";", b"\t", b" ")


def numeric_table(data: bytes) -> tuple[list, np.ndarray] | None:
    """(the header's names, the rows as floats) of a comma-separated table whose every cell is
    a number or empty (NaN), or None when the caller should read it the ordinary way.

    A byte that is not UTF-8 raises ``UnicodeDecodeError`` (the caller names the file).

    >>> names, rows = numeric_table(b"step,reward\\n0,0.5\\n1,\\n")
    >>> names, rows.tolist()
    (['step', 'reward'], [[0.0, 0.5], [1.0, nan]])
    >>> numeric_table(b'step,reward\\n0,"0.5"\\n') is None   # a quoted cell
    True
    """
    if len(data) > PLAIN_TABLE_BYTES:
        return None
    header, _, body = data.partition(b"\n")
    names = header.decode("utf-8").rstrip("\r").split(",")
    if len(names) > 1 and names[0] == "":
        names[0] = "Unnamed: 0"  # the index pandas' to_csv saves unless told not to, named as pandas names it
    if (not body.strip() or len(set(names)) != len(names)
            or not all(name and name == name.strip() and '"' not in name for name in names)):
        return None
    body = body.strip(b"\r\n")
    if any(mark in body for mark in _NOT_PLAIN):
        return None
    by_numpy = len(data) <= NUMPY_TABLE_BYTES
    tokens = mentions_nan(body)
    # numpy reads every row whole or refuses it, so in a table without an empty cell each NaN it
    # gives was written as a token: read off the parse, not found in the bytes (~60 us on 5 KB)
    every_nan_written = tokens and by_numpy and not _has_empty_cell(body)
    written = _nan_cells(body) if tokens and not every_nan_written else None
    rows = _numpy_rows(body) if by_numpy else _pandas_rows(body)
    if rows is None or rows.shape[1] != len(names):
        return None
    if every_nan_written:
        rows.view(np.uint64)[np.isnan(rows)] = WRITTEN_NAN_BITS
    elif written is not None and len(written[0]):
        row, column = written
        if row.max() >= len(rows) or column.max() >= rows.shape[1]:
            return None  # (a blank line the parser skipped: the ordinary read decides)
        rows.view(np.uint64)[row, column] = WRITTEN_NAN_BITS
    return names, rows


def filled_rows(body: bytes) -> np.ndarray | None:
    """The lines of a table with no header whose every cell is a plain number (none empty, the
    lines all as wide) as rows of floats, a NaN token marked as written; None when any line is
    not so, and the caller reads it line by line with its own rules.

    >>> filled_rows(b"1,0.5\\n2,nan\\n").tolist(), filled_rows(b"1,0.5\\n2,\\n")
    ([[1.0, 0.5], [2.0, nan]], None)
    """
    body = body.strip(b"\r\n")
    if not body or any(mark in body for mark in _NOT_PLAIN) or _has_empty_cell(body):
        return None
    lines = body.count(b"\n") + 1
    if body.count(b",") % lines:
        return None  # lines of different widths (or a blank line, or "\r" line ends)
    # (equal comma counts in total and no line wider than the first, which pandas refuses, make
    # every line as wide; numpy refuses a ragged line itself)
    rows = _numpy_rows(body) if len(body) <= NUMPY_TABLE_BYTES else _pandas_rows(body)
    if rows is None or len(rows) != lines:
        return None
    if mentions_nan(body):  # no empty cell: each NaN was written as a token
        rows.view(np.uint64)[np.isnan(rows)] = WRITTEN_NAN_BITS
    return rows


def _nan_cells(body: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of the cells of ``body`` written as NaN (``nan`` in any case, a sign
    allowed): found with array operations on the bytes, then placed by the newlines and commas
    before them, without splitting the table into cells (a regular expression cost ~1 us a
    token, as much as the parse)."""
    raw = np.frombuffer(body, dtype=np.uint8)
    folded = raw | 0x20  # ASCII letters lower-cased (digits, ',', '.', '-', '+' stay told apart)
    starts = np.flatnonzero((folded[:-2] == ord("n")) & (folded[1:-1] == ord("a")) & (folded[2:] == ord("n")))
    after = starts + 3
    ends_cell = np.ones(len(starts), dtype=bool)
    inside = after < len(raw)
    following = raw[after[inside]]
    ends_cell[inside] = (following == ord(",")) | (following == ord("\r")) | (following == ord("\n"))
    before = raw[np.maximum(starts - 1, 0)]
    first = starts - (((before == ord("+")) | (before == ord("-"))) & (starts > 0))
    before = raw[np.maximum(first - 1, 0)]
    begins_cell = (first == 0) | (before == ord(",")) | (before == ord("\n"))
    starts = first[ends_cell & begins_cell]
    newlines = np.flatnonzero(raw == ord("\n"))
    commas = np.flatnonzero(raw == ord(","))
    row = np.searchsorted(newlines, starts)
    line_start = np.where(row > 0, newlines[np.maximum(row - 1, 0)] + 1, 0) if len(newlines) else np.zeros_like(row)
    return row, np.searchsorted(commas, starts) - np.searchsorted(commas, line_start)


def _numpy_rows(body: bytes) -> np.ndarray | None:
    text = body.decode("utf-8")
    if "\n\n" in text or "\n\r\n" in text:
        return None  # pandas skips a blank line; filled below it would be a row of NaN
    try:  # a header line repeated is a row of words: loadtxt refuses it too
        return np.loadtxt(io.StringIO(_empty_as_nan(text)), delimiter=",", comments=None, ndmin=2)
    except ValueError:  # a word, a short or long row
        return None


#: the cells read as NaN here: empty, and the NaN tokens (marked as written after the parse)
_MISSING = ["", "nan", "NaN", "NAN", "-nan", "-NaN", "-NAN", "+nan", "+NaN", "+NAN"]
#: the bytes of a table of numbers without a word: every missing-value token pandas knows but
#: the empty cell has a letter other than e/E, so such a table reads the same under pandas'
#: default tokens, which it sets up ~35 us faster than a list of our own
_NUMBER_BYTES = b"0123456789.,-+eE\r\n"


def _pandas_rows(body: bytes) -> np.ndarray | None:
    """The rows parsed by pandas with no header: its columns are then numbered, and it never
    builds the index of names (see the module docstring).  Only an empty cell is missing, as
    for numpy: a word is a word, and the ordinary read decides what it means."""
    tokens = {} if not body.translate(None, _NUMBER_BYTES) else {"keep_default_na": False, "na_values": _MISSING}
    try:
        # in one pass (its chunks joined cost ~30 us; the table is at most PLAIN_TABLE_BYTES)
        frame = pd.read_csv(io.BytesIO(body), header=None, low_memory=False, **tokens)
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        return None  # the ordinary read gives the message
    rows = frame.to_numpy()
    if rows.dtype.kind not in "fiu":  # a word, a boolean: the ordinary read
        return None
    rows = rows.astype(float, copy=False)
    # a frame of one block hands out its own array, read-only under pandas 3's copy-on-write: the
    # written NaNs are marked in place below (a one-column table with one raised ValueError)
    return rows if rows.flags.writeable else rows.copy()


def _has_empty_cell(body) -> bool:
    """Does ``body`` (the rows, as text or bytes) hold an empty cell?

    >>> _has_empty_cell("1,2\\n3,4"), _has_empty_cell(b"1,2\\n3,"), _has_empty_cell(",1")
    (False, True, True)
    """
    comma, newline, ret = (",", "\n", "\r") if isinstance(body, str) else (b",", b"\n", b"\r")
    return (comma + comma in body or newline + comma in body or comma + newline in body
            or comma + ret in body or body.startswith(comma) or body.endswith(comma))


def _empty_as_nan(body: str) -> str:
    """``body`` with every empty cell written as ``nan`` (what pandas reads it as).

    >>> _empty_as_nan(",1,,,2,\\n3,,4")
    'nan,1,nan,nan,2,nan\\n3,nan,4'
    """
    if not _has_empty_cell(body):
        return body  # the common case: every cell filled
    framed = "\n" + body + "\n"
    # twice: in ",,," the first pass fills one gap and steps over the next
    framed = framed.replace(",,", ",nan,").replace(",,", ",nan,")
    framed = framed.replace("\n,", "\nnan,").replace(",\n", ",nan\n").replace(",\r", ",nan\r")
    return framed[1:-1]
