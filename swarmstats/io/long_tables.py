"""A long table - one row per step and metric, the metric named in a column (``metric``, ``tag``,
``key``) and its number in ``value`` - read with each metric a column of its own.

Such tables are what ``read_log`` itself returns (``run, step, metric, value, wall_time``,
saved with ``to_csv``), what TensorBoard's ``ExperimentFromDev(...).get_scalars()`` gives
(``run, tag, step, value``) and MLflow's metric history (``key, value, timestamp, step``).
Read as a wide table, ``value`` was one metric: a run's rewards and its losses pooled, told
apart only as "runs" (where the step started again, or by the name column taken for a run
key), and R-hat computed across a reward and a loss.

>>> frame = pd.DataFrame({"run": ["a", "a", "a", "a"], "tag": ["loss", "reward", "loss", "reward"],
...                       "step": [0, 0, 10, 10], "value": [0.9, 0.1, 0.7, 0.3]})
>>> wide, note = widen(frame, *long_columns(frame))
>>> wide.to_dict("list")
{'run': ['a', 'a'], 'step': [0, 10], 'loss': [0.9, 0.7], 'reward': [0.1, 0.3]}
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from .columns import TIME_COLUMNS, is_numeric_column, listing, step_names
from .metric import floats_of_text
from .runs import RUN_NAMES, normalise

#: names of the column that says which metric a row holds (no case or separators compared)
NAME_COLUMNS = ("metric", "tag", "key", "metric_name", "metric_key")
_TIME_NAMES = {normalise(column) for column in TIME_COLUMNS}


def long_columns(frame: pd.DataFrame) -> tuple[str, str] | None:
    """(the column naming each row's metric, the column of its values) of a long table: a
    column of words named like :data:`NAME_COLUMNS` beside a column of numbers named
    ``value``; None for any other table.

    >>> long_columns(pd.DataFrame({"step": [0], "metric": ["loss"], "value": [0.5]}))
    ('metric', 'value')
    >>> long_columns(pd.DataFrame({"step": [0], "value": [0.5]})) is None
    True
    >>> long_columns(pd.DataFrame({"step": [0], "tag": ["base"], "value": [0.5], "reward": [1.0]})) is None
    True
    """
    keys: dict = {}
    for column in frame.columns:
        keys.setdefault(normalise(column), column)
    name = next((keys[key] for key in NAME_COLUMNS if key in keys), None)
    value = keys.get("value")
    if name is None or value is None or is_numeric_column(frame[name]) or not is_numeric_column(frame[value]):
        return None
    # every other column says where a value belongs (a run, a seed, a step, a clock): a number
    # of its own beside them ("step, tag, value, reward") makes a wide table with a label column
    for column in frame.columns:
        key = normalise(column)
        if column in (name, value) or key in _TIME_NAMES or key in RUN_NAMES or step_names([column]):
            continue
        if is_numeric_column(frame[column]):
            return None
    return name, value


def long_record(record: dict) -> tuple[str, object] | None:
    """(the metric, its value) of one record of a long log followed line by line (``watch``):
    a key named like :data:`NAME_COLUMNS` holding a name, beside ``value``; None for any other.

    >>> long_record({"step": 3, "metric": "loss", "value": "0.5"}), long_record({"step": 3, "loss": 0.5})
    (('loss', '0.5'), None)
    """
    keys = {normalise(key): key for key in record}
    name = next((keys[key] for key in NAME_COLUMNS if key in keys), None)
    if name is None or "value" not in keys or not isinstance(record[name], str) or not record[name].strip():
        return None
    return record[name].strip(), record[keys["value"]]


def widen(frame: pd.DataFrame, name: str, value: str) -> tuple[pd.DataFrame, str]:
    """The long table with each metric a column: a row per value of the other columns (the
    run, the step), in the order the runs first appear and by step within each; clocks
    (``wall_time``, ``timestamp``) kept as columns of their own.  Without a step column, each
    metric's rows are its steps 0, 1, 2 ... in the order written.  Returns the table and a
    note saying how it was read."""
    values = (frame[value].astype(float) if pd.api.types.is_numeric_dtype(frame[value])
              else floats_of_text(frame[value], value))
    times = [c for c in frame.columns if c not in (name, value) and normalise(c) in _TIME_NAMES]
    index = [c for c in frame.columns if c not in (name, value, *times)]
    steps = step_names(index)
    step = steps[0] if steps else None
    names = frame[name].astype(object).where(frame[name].notna(), None)
    if names.isna().any():
        row = int(np.flatnonzero(names.isna().to_numpy())[0])
        raise InputError(f"the long table's column {name!r} names no metric at data row {row + 1}")
    frame = frame.assign(**{value: values})
    if step is None:  # each metric's values in the order written
        step = "step"
        frame = frame.assign(step=frame.groupby([*index, name], sort=False, dropna=False).cumcount())
        index = [*index, step]
    taken = {str(column) for column in (*index, *times)}
    clash = names.astype(str).isin(taken)
    if clash.any():  # a metric named as a column beside it ("step") would overwrite that column
        frame = frame.assign(**{name: names.astype(str).where(~clash, names.astype(str) + " (metric)")})
    grouped = frame.groupby([*index, name], sort=False, dropna=False)[value]
    repeated = len(frame) - grouped.ngroups
    wide = grouped.last().unstack(name)
    if times:
        wide = wide.join(frame.groupby(index, sort=False, dropna=False)[times].last())
    wide = wide.reset_index()
    wide.columns.name = None
    order = [pd.factorize(wide[c], sort=False)[0] for c in reversed([c for c in index if c != step])]
    wide = wide.iloc[np.lexsort((wide[step].to_numpy(), *order))].reset_index(drop=True)
    metrics = [c for c in wide.columns if c not in index and c not in times]
    note = (f"a long table ({name!r} names each row's metric, {value!r} holds its value): read with each "
            f"of its {len(metrics)} metric(s) a column of its own ({listing(metrics)})")
    if repeated:
        note += f"; {repeated:,} row(s) repeat a metric at a step already written: the last is kept"
    return wide, note
