"""The shared base of every result object.

Results are frozen dataclasses of plain fields.  This base gives them:

* ``to_dict()`` - JSON-safe (NaN and inf become ``None``, arrays become lists,
  frames become lists of records); the CLI's ``--format json`` prints it;
* ``to_frame()`` - a one-row (or per-item) pandas table;
* ``summary()`` - short human text, also what ``str(result)`` shows;
* ``plot(ax=None)`` - a matplotlib view of the evidence (:mod:`swarmstats.plots`, imported lazily).
"""

from __future__ import annotations

import dataclasses
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

    def plot(self, ax=None, **options):
        """Draw the evidence behind this result on ``ax`` (a new figure if None); returns the
        Axes.  The drawing lives in :mod:`swarmstats.plots`, one module per family."""
        from .plots import draw

        return draw(self, ax, **options)


def plain_number(value) -> int | float:
    """A step or index as a plain int when it is whole, else a float (for tables and JSON).

    >>> plain_number(np.float64(30.0)), plain_number(2.5)
    (30, 2.5)
    """
    value = float(value)
    return int(value) if value.is_integer() else value


def fmt(value, digits: int = 4) -> str:
    """A number for human text: significant digits, 'n/a' for missing."""
    if value is None:
        return "n/a"
    value = float(value)
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}g}"
