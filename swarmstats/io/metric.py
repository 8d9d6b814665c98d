"""One metric of a table as a float series on its step axis: non-numeric cells refused,
skipped steps (an overflow's inf or NaN) left out and said, a diverged or stopped end marked."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import DivergedAtStart, InputError, NoValues
from .columns import MISSING_TOKENS, classify_columns, listing, refuse_boolean_steps
from .flags import flag_floats
from .written_nan import is_written, mark, nonfinite_kind, tokens_mask


def floats_of_text(column: pd.Series, name) -> np.ndarray:
    """A column of numbers written as text, as floats: missing cells (:data:`MISSING_TOKENS`)
    NaN, a "nan" the log wrote marked as written (:mod:`.written_nan`), any other word an error
    naming its row.

    >>> floats_of_text(pd.Series(["0.5", " 2.25", "", None]), "loss")
    array([0.5 , 2.25,  nan,  nan])
    """
    text = column.astype(str).str.strip()
    missing = column.isna() | text.str.lower().isin(MISSING_TOKENS)
    converted = pd.to_numeric(text.where(~missing), errors="coerce")
    bad = converted.isna() & ~missing
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"column {name!r} has a non-numeric value {column.iloc[row]!r} (data row {row + 1})")
    written = tokens_mask(text.to_numpy()) & missing.to_numpy()  # "nan" as text: written
    return mark(converted.to_numpy(dtype=float), written)


def select_metric(frame: pd.DataFrame, metric: str, *, step: str | None = None, rows: bool = False,
                  diverged: bool = False):
    """One metric as a float Series indexed by the step column (missing cells dropped).

    Non-numeric cells are errors, never silently dropped.  ``rows=True`` also
    returns the positions in ``frame`` of the values kept (to pair them with another column).
    Infinities and NaN the log wrote (see :mod:`.written_nan`) with finite values after them
    are steps that were skipped, not values: fp16/AMP training logs ``grad_norm`` as inf or NaN
    at a step whose gradients overflowed, and goes on.  They are left out, and
    ``series.attrs["skipped"]`` holds ``{"values": how many, "kind": ..., "steps": the first
    few}``.

    ``diverged=True``: a metric that ends in infinities or written NaN (from the first of them
    on, nothing finite: a run that diverged) is cut before them, and
    ``series.attrs["diverged"]`` holds ``{"row": data row, "step": its step, "values": how
    many, "kind": "infinite", "NaN" or "NaN or infinite"}`` of what was cut - unless the metric
    skipped steps before, at least as many in a row as its end holds: then its end is one more
    skipped step.  A metric that ends so from its first value raises :class:`DivergedAtStart`;
    a metric that stops while the log goes on (no value in its last rows: empty cells) gets
    ``series.attrs["stopped"]``.  ``diverged=False``: a metric ending in infinities is an
    error.
    """
    if metric not in frame.columns:
        raise InputError(f"no metric {metric!r}; available: {listing(classify_columns(frame).metrics)}")
    column = frame[metric]
    flags = flag_floats(column)
    if flags is not None:  # True/False: 1/0, its mean the share of rows where it held
        column = pd.Series(flags, index=column.index)
    elif not pd.api.types.is_numeric_dtype(column):
        column = pd.Series(floats_of_text(column, metric), index=column.index)
    values = column.astype(float)
    numbers = values.to_numpy()
    divergence = None
    numbers, skipped = _skipped_steps(numbers, frame, step, diverged)
    if not diverged and np.isinf(numbers).any():
        row = int(np.flatnonzero(np.isinf(numbers))[0])
        raise InputError(f"column {metric!r} is infinite from data row {row + 1} on: the run diverged "
                         "there; drop those rows to analyse the values before "
                         "(check-convergence and report read them so)")
    if diverged:
        divergence = _divergence(numbers, frame, metric, step)
        if divergence is not None:
            row = divergence["row"] - 1
            numbers = numbers[:row]
            frame = frame.iloc[:row]
    kept = ~np.isnan(numbers)
    if step is not None:
        steps = frame[step]
        refuse_boolean_steps(steps, step)
        if isinstance(steps.dtype, np.dtype) and steps.dtype.kind in "iuf":
            index = steps.to_numpy()  # numbers already (the common case: no conversion, no scan for words)
        else:
            converted = pd.to_numeric(steps, errors="coerce")
            words = converted.isna() & steps.notna()
            if words.any():  # else every row would be dropped and the metric called empty
                row = int(np.flatnonzero(words.to_numpy())[0])
                raise InputError(f"the step column {step!r} is not numeric ({steps.iloc[row]!r} at data "
                                 f"row {row + 1}); choose another step column")
            index = converted.to_numpy()
        if index.dtype.kind == "f":
            kept &= np.isfinite(index)
        # the axis' name is its unit in sentences: a reader may say what its 'step' counts
        unit = frame.attrs.get("step_unit") if step == "step" else None
        values = pd.Series(numbers, index=pd.Index(index, name=unit or step), name=metric)
    else:
        values = pd.Series(numbers, name=metric)
    if not kept.all():  # a copy of values and steps only when a row goes
        values = values[kept]
    if values.empty:
        if is_written(numbers).any():
            _divergence(numbers, frame, metric, step)  # raises DivergedAtStart: nothing finite
        logged_values = int(np.count_nonzero(~np.isnan(numbers)))
        if logged_values and step is not None:  # each in a row whose step is empty
            raise NoValues(f"metric {metric!r} is logged only in rows whose {step!r} is empty "
                           f"({logged_values} values): those rows have no place on the step axis")
        raise NoValues(f"metric {metric!r} has no values (every cell is empty)")
    if skipped is not None:
        values.attrs["skipped"] = skipped
    if divergence is not None:
        values.attrs["diverged"] = divergence
    elif diverged:
        stopped = _stopped_early(frame, metric, step, np.flatnonzero(kept))
        if stopped is not None:
            values.attrs["stopped"] = stopped
    return (values, np.flatnonzero(kept)) if rows else values


#: the steps a skipped-steps record lists
SKIPPED_STEPS_SHOWN = 3


def _skipped_steps(numbers: np.ndarray, frame: pd.DataFrame, step: str | None,
                   ends_too: bool) -> tuple[np.ndarray, dict | None]:
    """``numbers`` with the non-finite values that finite ones follow (skipped steps, see
    :func:`select_metric`) made missing, and their record (None when there are none).
    ``ends_too``: a non-finite end no longer than the longest run of skipped steps before it
    is skipped too."""
    nonfinite = np.isinf(numbers) | is_written(numbers)
    if not nonfinite.any():  # the common case: one pass, no copy
        return numbers, None
    finite = np.flatnonzero(np.isfinite(numbers))
    if not finite.size:
        return numbers, None
    skipped = nonfinite.copy()
    skipped[finite[-1]:] = False
    if not skipped.any():
        return numbers, None
    if ends_too:
        edges = np.diff(np.r_[0, skipped[: finite[-1]].astype(np.int8), 0])
        longest = int((np.flatnonzero(edges < 0) - np.flatnonzero(edges > 0)).max())
        if int(nonfinite[finite[-1]:].sum()) <= longest:
            skipped |= nonfinite  # its end is one more skipped step, not a divergence
    where = np.flatnonzero(skipped)
    infinite = int(np.isinf(numbers[where]).sum())
    shown = where[:SKIPPED_STEPS_SHOWN]
    steps = (frame[step].iloc[shown] if step is not None else shown).tolist()
    numbers = numbers.copy()
    numbers[where] = np.nan  # an ordinary NaN: a missing cell, not a written one
    return numbers, {"values": len(where), "kind": nonfinite_kind(infinite, len(where) - infinite),
                     "steps": steps, "at_end": bool(skipped[finite[-1]:].any()),
                     "at_start": bool(where[-1] < finite[0])}


def _divergence(numbers: np.ndarray, frame: pd.DataFrame, metric: str, step: str | None) -> dict | None:
    """The record of a metric that ends in infinities or written NaN (see :func:`select_metric`),
    or None when it ends in a finite value or in empty cells."""
    finite = np.flatnonzero(np.isfinite(numbers))
    start = int(finite[-1]) + 1 if finite.size else 0
    tail = numbers[start:]
    ends = np.isinf(tail) | is_written(tail)
    if not ends.any():
        return None
    row = start + int(np.flatnonzero(ends)[0])
    infinite, written = int(np.isinf(tail).sum()), int(ends.sum() - np.isinf(tail).sum())
    kind = nonfinite_kind(infinite, written)
    record = {"row": row + 1, "values": infinite + written, "kind": kind,
              "step": frame[step].iloc[row] if step is not None else row}
    if not finite.size:
        raise DivergedAtStart(f"column {metric!r} is {kind} from its first value on: the run diverged "
                              "before logging a finite value, so there is nothing to judge",
                              {**record, "from_start": True})
    return record


def series_endings(runs) -> dict:
    """{name: how it ended} for each series :func:`select_metric` marked (``diverged=True``): its
    ``"diverged"`` or ``"stopped"`` record, with its ``"skipped"`` record under that key, as
    :func:`swarmstats.convergence.with_divergence` takes them."""
    endings = {}
    for series in runs:
        ending = series.attrs.get("diverged") or series.attrs.get("stopped")
        skipped = series.attrs.get("skipped")
        if ending is not None or skipped is not None:
            endings[series.name] = {**(ending or {}), **({"skipped": skipped} if skipped else {})}
    return endings


def _stopped_early(frame: pd.DataFrame, metric: str, step: str | None, present: np.ndarray) -> dict | None:
    """``{"step": its last step, "rows": rows after it, "end": the log's last step}`` when a
    metric stops while the log goes on: at least 10 rows after its last value that hold some
    other number (a step, another metric), more than 5 times its own spacing - what a run
    whose loss turned NaN writes (read as missing); None otherwise."""
    if len(present) < 2:
        return None
    last = int(present[-1])
    if last + 10 >= len(frame):
        return None  # the common case, decided without looking at other columns
    tail = frame.iloc[last + 1:].drop(columns=[metric])
    rows = int(tail.notna().to_numpy().any(axis=1).sum())
    spacing = float(np.median(np.diff(present)))
    if rows < 10 or rows <= 5 * spacing:
        return None
    steps = frame[step] if step is not None else pd.Series(np.arange(len(frame)))
    return {"step": steps.iloc[last], "rows": rows, "end": steps.iloc[len(frame) - 1]}
