"""Small all-numeric CSV tables parsed by numpy instead of pandas.

pandas' ``read_csv`` spends ~0.4 ms setting up before it reads a byte, several times the parse
of the few KB a monitor file, a progress.csv or a Lightning metrics.csv holds after a short run
(and a read_log of such a file was 2-3x read_csv).  numpy's ``loadtxt`` has almost no setup but
costs ~20-30 ns a byte against pandas' ~5, so the two cross at 16-19 KB (measured on two days):
below ``SMALL_TABLE_BYTES`` a table whose every cell is a plain number or empty is read here.
Anything else - a quoted cell, a word or a missing-value token, a comment, a space, a short
or long row, a repeated or blank column name - returns None and pandas reads the file, with
its own messages.  Both give the same floats (correctly rounded), and an empty cell is NaN as
in pandas (tested on every real fixture).
"""

from __future__ import annotations

import io

import numpy as np

#: the most bytes of a table read by numpy rather than pandas (see the module docstring)
SMALL_TABLE_BYTES = 16_000

#: characters that send a table to pandas: quotes, whitespace in a line, comments, other separators
_NOT_PLAIN = ('"', "'", "#", ";", "\t", " ")


def numeric_rows(text: str) -> tuple[list, np.ndarray] | None:
    """(the header's names, the rows as floats) of a small comma-separated table whose every
    cell is a number or empty (NaN), or None when pandas should read it.

    >>> names, rows = numeric_rows("step,reward\\n0,0.5\\n1,\\n")
    >>> names, rows.tolist()
    (['step', 'reward'], [[0.0, 0.5], [1.0, nan]])
    >>> numeric_rows('step,reward\\n0,"0.5"\\n') is None   # a quoted cell: pandas reads it
    True
    """
    if len(text) > SMALL_TABLE_BYTES:
        return None
    header, _, body = text.partition("\n")
    names = header.rstrip("\r").split(",")
    if (not body.strip() or len(set(names)) != len(names)
            or not all(name and name == name.strip() and '"' not in name for name in names)):
        return None
    body = body.strip("\r\n")
    if any(mark in body for mark in _NOT_PLAIN) or "\n\n" in body or "\n\r\n" in body:
        return None  # (pandas skips a blank line; filled below it would be a row of NaN)
    try:  # a header line repeated is a row of words: loadtxt refuses it too
        rows = np.loadtxt(io.StringIO(_empty_as_nan(body)), delimiter=",", comments=None, ndmin=2)
    except ValueError:  # a word, a short or long row
        return None
    return (names, rows) if rows.shape[1] == len(names) else None


def _empty_as_nan(body: str) -> str:
    """``body`` with every empty cell written as ``nan`` (what pandas reads it as).

    >>> _empty_as_nan(",1,,,2,\\n3,,4")
    'nan,1,nan,nan,2,nan\\n3,nan,4'
    """
    if not (",," in body or "\n," in body or ",\n" in body or ",\r" in body
            or body.startswith(",") or body.endswith(",")):
        return body  # the common case: every cell filled
    framed = "\n" + body + "\n"
    # twice: in ",,," the first pass fills one gap and steps over the next
    framed = framed.replace(",,", ",nan,").replace(",,", ",nan,")
    framed = framed.replace("\n,", "\nnan,").replace(",\n", ",nan\n").replace(",\r", ",nan\r")
    return framed[1:-1]
