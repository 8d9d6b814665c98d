"""True/False columns: an outcome's flag is a 0/1 metric, any other flag is left out by default.

SB3's ``Monitor(info_keywords=("is_success",))`` - what rl-baselines3-zoo sets for its
goal-conditioned robotics environments - writes ``is_success`` as ``True`` / ``False``, and
pandas reads a column of such words (or JSON's ``true`` / ``false``) as booleans.  Such a
column was left out without a word, so the success rate - the number those runs are judged
by - was never judged.  Read as 1.0 / 0.0, a flag's mean is the share of episodes (rows)
where it held, and every command judges it as it judges a 0/1 column.

A flag named for an outcome (``is_success``, ``solved``, ``won``, ``correct`` ...) is a metric
by default; others (``done``, ``truncated``, a checkpoint's ``is_best``) mark events of the
bookkeeping and are left out unless named.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..direction import split_camel
from .runs import normalise
from .written_nan import MISSING_TOKENS, is_missing_cell

#: why a flag that names no outcome is left out of the default metrics
FLAG_LEFT_OUT = "a True/False flag"

#: names of an outcome, compared normalised (``IsSuccess`` by its words: ``is_success``)
_OUTCOME = re.compile(r"(^|_)(is_)?(success|successful|succeeded|solved|won|win|correct|passed|"
                      r"goal_reached|reached_goal|goal_achieved)$")
_WORDS = {"true": 1.0, "false": 0.0}


def is_outcome_flag(name) -> bool:
    """Is a True/False column of this name an outcome (a metric by default)?

    >>> [is_outcome_flag(n) for n in ("is_success", "IsSuccess", "eval/solved", "done", "is_best")]
    [True, True, True, False, False]
    """
    return any(_OUTCOME.search(key) for key in (normalise(name), normalise(split_camel(str(name)))))


def flag_floats(column: pd.Series) -> np.ndarray | None:
    """A True/False column as 1.0 / 0.0 (missing cells NaN); None when the column is not one.

    Booleans (pandas' ``bool`` dtype, or Python and numpy booleans among missing cells) and
    the words ``true`` / ``false`` in any case are a flag; a column of numbers, or one holding
    any other word, is not.

    >>> flag_floats(pd.Series([True, False, None, True], dtype=object))
    array([ 1.,  0., nan,  1.])
    >>> flag_floats(pd.Series(["TRUE", "false", ""])), flag_floats(pd.Series([1.0, 0.0]))
    (array([ 1.,  0., nan]), None)
    """
    if pd.api.types.is_bool_dtype(column.dtype):
        return column.to_numpy(dtype=float, na_value=np.nan)
    if pd.api.types.is_numeric_dtype(column.dtype):
        return None
    # the first cell present, found without pandas' dropna (~60 us a column, as much as the
    # parse of a small log, and most object columns are text that the first cell tells)
    first = next((cell for cell in column.to_numpy() if not is_missing_cell(cell)), None)
    if first is None:
        return None
    if isinstance(first, (bool, np.bool_)):
        present = column.dropna()
        if not present.map(lambda v: isinstance(v, (bool, np.bool_))).all():
            return None
        out = np.full(len(column), np.nan)
        out[column.notna().to_numpy()] = present.to_numpy(dtype=float)
        return out
    if not isinstance(first, str) or first.strip().lower() not in _WORDS.keys() | MISSING_TOKENS:
        return None  # a column of text (a completion, a run's name): no pass over it all
    words = column.astype(str).str.strip().str.lower().to_numpy()
    missing = column.isna().to_numpy() | np.isin(words, list(MISSING_TOKENS))
    if missing.all() or not np.isin(words[~missing], list(_WORDS)).all():
        return None
    out = np.full(len(column), np.nan)
    out[~missing] = [_WORDS[word] for word in words[~missing]]
    return out


def flag_value(raw) -> float | None:
    """One cell of a followed log as a flag's 1.0 / 0.0: a boolean or the word true / false
    (any case); None for anything else.

    >>> flag_value(True), flag_value(" False "), flag_value("1"), flag_value(1)
    (1.0, 0.0, None, None)
    """
    if isinstance(raw, (bool, np.bool_)):
        return float(raw)
    if isinstance(raw, str):
        return _WORDS.get(raw.strip().lower())
    return None

