"""Numbers a table wrote as text: percentages (``70.3%``) and decimal commas (``0,42``).

A spreadsheet saves an accuracy formatted as a percentage as ``70.3%``, and a spreadsheet in a
German or French locale saves ``0,42`` for 0.42 (with ``;`` between the cells).  pandas reads
both as words, and a generic table left such columns out without a word: a log of accuracy
and loss was judged on its loss alone, and a European export had "no numeric metric column".
Read here once, when the table is read, with a note: a percentage as the number printed
(70.3, in percent), a decimal comma as a point.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .written_nan import MISSING_TOKENS

#: (no two parts may match the same digits: a 2 MB cell of digits took minutes to refuse)
_PERCENT = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*%$", re.IGNORECASE)
#: a decimal comma, with an optional point or narrow space between thousands ("1.234,5")
_DECIMAL_COMMA = re.compile(r"^[-+]?\d{1,3}([.\u202f ]\d{3})*,\d+$|^[-+]?\d+,\d+$")
_INTEGER = re.compile(r"^[-+]?\d+$")


def read_text_numbers(frame: pd.DataFrame, *, decimal_comma: bool = True) -> tuple[pd.DataFrame, list]:
    """``frame`` with its columns of percentages and (``decimal_comma``: in a table whose cells
    are not parted by commas) of decimal-comma numbers as floats, and a note for each column
    converted.  In a comma-separated file a quoted ``"64,64"`` is more likely a list than a
    number, so it stays text there.

    >>> frame = pd.DataFrame({"step": [0, 1], "accuracy": ["70.5%", "71%"], "loss": ["0,5", "0,25"]})
    >>> converted, notes = read_text_numbers(frame)
    >>> converted.to_dict("list"), notes
    ({'step': [0, 1], 'accuracy': [70.5, 71.0], 'loss': [0.5, 0.25]}, ["accuracy written as percentages ('70.5%'): read as the numbers printed, in percent", "loss written with a decimal comma ('0,5'): read as 0.5"])
    """
    notes, converted = [], {}
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
            continue
        found = _decoded(series, decimal_comma)
        if found is None:
            continue
        values, kind, example = found
        converted[column] = values
        notes.append(f"{column} written as percentages ({example!r}): read as the numbers printed, in percent"
                     if kind == "percent" else
                     f"{column} written with a decimal comma ({example!r}): read as {_as_point(example)}")
    if not converted:
        return frame, []
    return frame.assign(**converted), notes


def _decoded(series: pd.Series, decimal_comma: bool) -> tuple[np.ndarray, str, str] | None:
    series = series.reset_index(drop=True)  # positions: the values are put back by them
    present = series.dropna()
    if present.empty or not isinstance(present.iloc[0], str):
        return None
    words = present.astype(str).str.strip()
    words = words[~words.str.lower().isin(MISSING_TOKENS)]
    if words.empty:
        return None
    first = words.iloc[0]
    if first.endswith("%") and _PERCENT.match(first) and words.str.match(_PERCENT).all():
        numbers = words.str.rstrip("%").str.strip().astype(float)
        return _spread(series, numbers), "percent", first
    if decimal_comma and (_DECIMAL_COMMA.match(first) or _INTEGER.match(first)) and words.str.match(_DECIMAL_COMMA).any() and (
            words.str.match(_DECIMAL_COMMA) | words.str.match(_INTEGER)).all():
        example = words[words.str.match(_DECIMAL_COMMA)].iloc[0]
        numbers = words.map(_as_point).astype(float)
        return _spread(series, numbers), "comma", example
    return None


def _as_point(text: str) -> str:
    return text.replace(".", "").replace("\u202f", "").replace(" ", "").replace(",", ".")


def _spread(series: pd.Series, numbers: pd.Series) -> np.ndarray:
    """``numbers`` (indexed by position in ``series``) at their rows, NaN elsewhere."""
    out = np.full(len(series), np.nan)
    out[numbers.index.to_numpy()] = numbers.to_numpy()
    return out
