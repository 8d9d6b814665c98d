"""A NaN the log wrote, told apart from a cell it left empty.

A loss that turned NaN is the commonest way a run diverges, and every logger writes it: the
``csv`` module and SB3 write ``nan``, Python's ``json`` writes ``NaN``, TensorBoard stores the
float.  A metric that was simply not logged at a step is an empty cell or a missing key.
Parsed, both are NaN, and the analyses drop NaN as missing: a loss flat at 0.3 for 450 steps
and NaN for the last 150 read "converged" (the same 450 values, nothing said about the rest).

So the readers mark a NaN that was written: it is kept as a NaN whose payload bits are
:data:`WRITTEN_NAN_BITS` (a quiet NaN like any other: ``np.isnan`` is true, every computation
treats it as NaN).  The bits survive copies, slicing, boolean and fancy indexing, pandas'
``iloc``/``take``/``concat``/``groupby`` and ``astype(float)``; a NaN pandas creates for a
missing cell (a reindex, a pivot's gap) has the ordinary bits, which is what a missing cell
is.  R does the same the other way round: its ``NA_real_`` is a NaN with payload 1954, told
apart from the ``NaN`` arithmetic produces.  What loses the mark (``np.sort``, float32, a
skip-NaN aggregation) only makes a written NaN read as a missing cell again, as before.

:func:`swarmstats.io.select_metric` reads the mark: a metric whose values end in written NaN
(nothing finite after them) diverged, as one ending in infinities does.

>>> import numpy as np
>>> values = mark(np.array([0.3, np.nan, np.nan]), np.array([False, False, True]))
>>> np.isnan(values).tolist(), is_written(values).tolist()
([False, True, True], [False, False, True])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the bits of a written NaN: a quiet NaN whose payload spells 0x5EED, never produced by arithmetic
WRITTEN_NAN_BITS = np.uint64(0x7FF8_0000_0000_5EED)
#: a written NaN as a Python float (what a JSON reader returns for ``NaN``)
WRITTEN_NAN = float(np.array([WRITTEN_NAN_BITS]).view(np.float64)[0])
#: how loggers write NaN in text (compared lower-cased, without spaces): Python, numpy,
#: the csv module, R, C's printf of a negative NaN
NAN_TOKENS = frozenset({"nan", "-nan", "+nan"})
#: what a text cell holds where no value was logged (compared lower-cased, stripped): one set
#: for every reader that decides between a number, a word and nothing
MISSING_TOKENS = frozenset({"", "none", "null", "nan", "na", "n/a"})


def is_missing_cell(cell) -> bool:
    """Is a cell of an object column missing (None, NaN, pandas' NA)?

    >>> [is_missing_cell(c) for c in (None, float("nan"), pd.NA, "", 0.0)]
    [True, True, True, False, False]
    """
    return cell is None or cell is pd.NA or (isinstance(cell, float) and cell != cell)


def is_written(values) -> np.ndarray:
    """Which of ``values`` are NaN the log wrote (see the module docstring)."""
    floats = np.ascontiguousarray(values, dtype=np.float64)
    return floats.view(np.uint64) == WRITTEN_NAN_BITS


def logged(values) -> np.ndarray:
    """Which cells hold something the log wrote: a number, an infinity or a written NaN."""
    floats = np.ascontiguousarray(values, dtype=np.float64)
    return ~np.isnan(floats) | (floats.view(np.uint64) == WRITTEN_NAN_BITS)


def column_floats(column) -> np.ndarray | None:
    """A pandas column of numbers as float64 with a written NaN's bits kept, None for one of
    another kind.  (``to_numpy(na_value=...)`` writes the ordinary NaN over every missing
    cell, so a float64 column is taken as it is; a nullable one never held a mark.)"""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        return column.to_numpy()
    if getattr(dtype, "kind", "") in ("i", "u", "f"):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    return None


def mark(values: np.ndarray, where) -> np.ndarray:
    """``values`` (floats) with the cells ``where`` is true set to a written NaN (a copy)."""
    out = np.array(values, dtype=np.float64)
    out.view(np.uint64)[np.asarray(where, dtype=bool)] = WRITTEN_NAN_BITS
    return out


def nonfinite_kind(infinite: int, nan: int) -> str:
    """What a diverged run's last values were, by count: "infinite", "NaN" or "NaN or infinite"."""
    return "NaN or infinite" if infinite and nan else "infinite" if infinite else "NaN"


def json_constant(token: str) -> float:
    """``json.loads``' ``parse_constant``: ``NaN`` is a written NaN, the infinities as usual."""
    return WRITTEN_NAN if token == "NaN" else float(token)


#: a number as a logger prints it among words (``0.5``, ``-1.2e-05``, ``.5``, and ``nan`` or
#: ``inf`` in any case): the printed-text readers' value pattern, read with ``scalar(float(text))``
PRINTED_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf"


def scalar(value: float) -> float:
    """A value a logger stored as a float (TensorBoard, MLflow's files): a NaN there was written."""
    return WRITTEN_NAN if value != value else value


def mentions_nan(data, start: int = 0) -> bool:
    """Could ``data`` (a text log's bytes, or a memory map of its file) hold a NaN token from
    byte ``start`` on (past the header, whose names have letters)?  A byte search, so that the
    common log, with none, costs nothing more to read (a word such as ``finance`` in a cell
    answers yes, and the cells are then looked at)."""
    if data.find(b"n", start) < 0 and data.find(b"N", start) < 0:
        return False  # a table of numbers has no 'n': one-byte searches (memchr) cost ~1 us on 14 KB
    return any(data.find(token, start) >= 0 for token in (b"nan", b"NaN", b"NAN", b"Nan"))


def tokens_mask(cells) -> np.ndarray:
    """Which of ``cells`` (strings as written) are a NaN token."""
    return np.array([str(cell).strip().lower() in NAN_TOKENS for cell in cells], dtype=bool)
