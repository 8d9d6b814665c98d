"""The shared base of every result object.

Results are frozen dataclasses of plain fields.  This base gives them:

* ``to_dict()`` - JSON-safe (NaN and inf become ``None``, arrays become lists,
  frames become lists of records); the CLI's ``--format json`` prints it;
* ``to_frame()`` - a one-row (or per-item) pandas table;
* ``summary()`` - short human text, also what ``str(result)`` shows;
* ``plot(ax=None)`` - a matplotlib view of the evidence (:mod:`swarmstats.plots`, imported lazily);
* a one-line ``repr`` (the class and the summary's first line) and ``_repr_html_``, the compact
  table a notebook shows: the headline, the key numbers (intervals as [low, high]) and the
  reasons and notes.  Result dataclasses are declared ``repr=False`` so that these apply.
"""

from __future__ import annotations

import dataclasses
import html
import math
from typing import Any

import numpy as np
import pandas as pd


def jsonable(value: Any) -> Any:
    """Convert ``value`` to plain JSON types, with ``None`` for NaN and inf.

    >>> jsonable({"a": float("nan"), "b": np.arange(2), "c": np.float64(1.5)})
    {'a': None, 'b': [0, 1], 'c': 1.5}
    """
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return [jsonable(row) for row in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return jsonable(value.to_list())
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


class Result:
    """Mixin for result dataclasses (see module docstring)."""

    #: fields left out of ``to_dict`` (large arrays kept for plotting only)
    _private_fields: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            f.name: jsonable(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name not in self._private_fields and not f.name.startswith("_")
        }

    def to_frame(self) -> pd.DataFrame:
        """One row holding the scalar fields."""
        scalars = {
            key: value for key, value in self.to_dict().items()
            if not isinstance(value, (list, dict))
        }
        return pd.DataFrame([scalars])

    def summary(self) -> str:  # pragma: no cover - every subclass overrides it
        return repr(self)

    def __str__(self) -> str:
        return self.summary()

    def _headline(self) -> str:
        if type(self).summary is Result.summary:  # no summary of its own: its class says it
            return ""
        try:
            lines = self.summary().strip().splitlines()
        except Exception:  # a display must never raise; the class name is still shown
            return ""
        return lines[0].strip() if lines else ""

    def __repr__(self) -> str:
        """One line: ``<ConvergenceResult reward: converged ...>`` (the summary's first line,
        cut at 120 characters); ``str()`` gives the whole summary."""
        headline = self._headline()
        if len(headline) > MAX_HEADLINE:
            headline = headline[:MAX_HEADLINE - 1] + "\u2026"
        return f"<{type(self).__name__}{' ' + headline if headline else ''}>"

    def _display_rows(self) -> list:
        """(label, text) of the scalar fields, intervals and estimates, in field order; tables,
        arrays and long lists are left to ``to_frame()`` and ``plot()``."""
        rows = []
        for f in dataclasses.fields(self):
            if f.name.startswith("_") or f.name in self._private_fields:
                continue
            rows += _rows_of(f.name, getattr(self, f.name))
        return rows

    def _display_lists(self) -> list:
        """(label, items) of the fields that are lists of sentences: reasons, notes."""
        lists = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if (not f.name.startswith("_") and isinstance(value, (list, tuple)) and value
                    and all(isinstance(item, str) for item in value)):
                lists.append((f.name, list(value)))
        return lists

    def _repr_html_(self) -> str:
        """The compact table a notebook shows for this result."""
        title = html.escape(type(self).__name__)
        headline = html.escape(self._headline())
        shown = self._display_rows()
        more = len(shown) - MAX_ROWS
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
                       f"<td style='text-align:left'>{html.escape(text)}</td></tr>"
                       for label, text in shown[:MAX_ROWS])
        if more > 0:
            rows += f"<tr><td colspan='2'>... {more} more in to_dict() / to_frame()</td></tr>"
        lists = "".join(f"<p><b>{html.escape(label)}</b></p><ul>"
                        + "".join(f"<li>{html.escape(item)}</li>" for item in items[:MAX_ROWS]) + "</ul>"
                        for label, items in self._display_lists())
        return (f"<div class='swarmstats-result'><p><b>{title}</b>{': ' + headline if headline else ''}</p>"
                f"<table>{rows}</table>{lists}</div>")

    def plot(self, ax=None, **options):
        """Draw the evidence behind this result on ``ax`` (a new figure if None); returns the
        Axes.  The drawing lives in :mod:`swarmstats.plots`, one module per family."""
        from .plots import draw

        return draw(self, ax, **options)


#: the longest headline a one-line repr shows, and the most rows a notebook table shows
MAX_HEADLINE = 120
MAX_ROWS = 30


def _rows_of(label: str, value) -> list:
    """Display rows for one field: a number, a word, an interval, an estimate (value with
    ci_low / ci_high), or a dict of those (one row each); nothing for tables and arrays."""
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return [(label, "n/a" if value is None else str(value))]
    if isinstance(value, (int, float, np.integer, np.floating)):
        return [(label, _number(value))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        numbers = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if {"value", "ci_low", "ci_high"} <= set(numbers):
            return [(label, f"{_number(numbers['value'])} [{_number(numbers['ci_low'])}, "
                            f"{_number(numbers['ci_high'])}]")]
        return []
    if isinstance(value, dict):
        return [row for key, item in value.items() for row in _rows_of(f"{label}.{key}", item)
                if not isinstance(item, (dict, list, tuple))]
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float, np.integer, np.floating)) for v in value)):
        return [(label, f"[{_number(value[0])}, {_number(value[1])}]")]
    return []


def _number(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return fmt(value)


def plain_number(value) -> int | float:
    """A step or index as a plain int when it is whole, else a float (for tables and JSON).

    >>> plain_number(np.float64(30.0)), plain_number(2.5)
    (30, 2.5)
    """
    value = float(value)
    return int(value) if value.is_integer() else value


def fmt_step(value) -> str:
    """A step for human text: a whole step in full (``fmt`` made step 400040 "4e+05"), any other
    to 6 significant digits, 'n/a' for missing.

    >>> fmt_step(400040.0), fmt_step(12.5), fmt_step(None)
    ('400040', '12.5', 'n/a')
    """
    if value is None or not math.isfinite(float(value)):
        return "n/a"
    return str(plain_number(value)) if float(value).is_integer() else fmt(value, 6)


def fmt(value, digits: int = 4) -> str:
    """A number for human text: significant digits, 'n/a' for missing."""
    if value is None:
        return "n/a"
    value = float(value)
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}g}"


def fmt_interval(value, low, high, digits: int = 4) -> str:
    """``value [low, high]`` with as many significant digits as it takes for the interval's
    ends to read apart (up to 10): a loss near 11.516 known to +-0.002 read "11.52 [11.52, 11.52]".

    >>> fmt_interval(11.5176, 11.5159, 11.5193)
    '11.518 [11.516, 11.519]'
    >>> fmt_interval(0.25, 0.2, 0.3), fmt_interval(1.0, 1.0, 1.0), fmt_interval(2.0, None, None)
    ('0.25 [0.2, 0.3]', '1 [1, 1]', '2 [n/a, n/a]')
    """
    digits = interval_digits(low, high, digits)
    return f"{fmt(value, digits)} [{fmt(low, digits)}, {fmt(high, digits)}]"


def interval_digits(low, high, digits: int = 4) -> int:
    """The significant digits (``digits`` or more, at most 10) at which ``low`` and ``high``
    read apart when they differ (see :func:`fmt_interval`).

    >>> interval_digits(11.5159, 11.5193), interval_digits(0.2, 0.3)
    (5, 4)
    """
    try:
        apart = math.isfinite(float(low)) and math.isfinite(float(high)) and float(low) < float(high)
    except (TypeError, ValueError):
        apart = False
    while apart and digits < 10 and fmt(low, digits) == fmt(high, digits):
        digits += 1
    return digits

