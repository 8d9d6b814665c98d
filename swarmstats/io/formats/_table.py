"""The wide table every format parser returns, and small helpers they share."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...errors import InputError, is_real
from ..flags import flag_floats, is_outcome_flag
from ..written_nan import MISSING_TOKENS, is_missing_cell, logged, scalar

#: columns of a LogTable that are never metrics
AXES = ("run", "step", "wall_time")


#: the configuration label of every run of a log whose runs differ in their seeds only
ONE_CONFIGURATION = "one configuration"


@dataclass
class LogTable:
    """A wide log: ``step`` (and ``run``, ``wall_time``) plus one column per metric.

    A reader that assembles numpy columns may give them as ``arrays`` and no frame: the wide
    DataFrame is then built on first use of :attr:`frame`, and the tidy view, which reads the
    arrays, never builds it (under pandas 3 a DataFrame costs ~70 us, as much as the parse of
    a small file)."""

    _frame: pd.DataFrame | None
    format: str
    source: str
    notes: list = field(default_factory=list)
    #: each run's configuration when the log knows it (a monitor file's environment): runs of
    #: one configuration are replicates, runs of different ones are never pooled
    run_configs: dict = field(default_factory=dict)
    #: the run_configs are each run's whole configuration (a sacred run's config.json), so
    #: runs of one configuration are replicates whatever their names say; every run is labelled
    #: :data:`ONE_CONFIGURATION` when only their seeds differ
    configs_complete: bool = False
    #: the frame's columns as numpy arrays, when the reader assembled them so (None otherwise,
    #: and after any change to a frame built from them)
    arrays: dict | None = None
    #: what one step is ("timesteps"), when the reader knows it better than its format does
    step_unit: str | None = None
    #: each row is a run's final measurement, no point of a series in time (:func:`final_values`)
    final_values: bool = False
    #: for final values whose series exist elsewhere, where (said by what needs a series)
    series_elsewhere: str = ""
    #: for final values, each run's seed when its parameters name one ({run number: seed}): what
    #: ``compare`` pairs the settings' runs on
    run_seeds: dict = field(default_factory=dict)
    #: the step the run was planned to end at, when its log says (a Trainer's max_steps)
    planned_steps: float | None = None
    #: the metrics that are one series per agent of each run (a Mesa batch run's agent
    #: reporters), beside the model's own: the commands judge them when named
    agent_metrics: tuple = ()

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            self._frame = wide_frame(self.arrays)
        return self._frame

    @property
    def names(self) -> list:
        """The columns, in order, without building the frame."""
        return list(self.arrays) if self._frame is None else self._frame.columns.tolist()

    @property
    def metrics(self) -> list:
        return [c for c in self.names if c not in AXES]

    def _replace_format(self, format: str) -> "LogTable":
        self.format = format
        return self


def planned_end(value) -> float | None:
    """A log's planned number of steps (a Trainer's ``max_steps``) as a float, or None when it
    is no positive finite number (a Trainer run by epochs with no step count saves 0).

    >>> planned_end(5100), planned_end(0), planned_end("x"), planned_end(None)
    (5100.0, None, None, None)
    """
    return float(value) if is_real(value) and np.isfinite(value) and value > 0 else None


#: the type pandas gives column labels that are text (Arrow strings under pandas 3, object before)
_LABEL_DTYPE = pd.Index(["step"]).dtype


def wide_frame(arrays: dict) -> pd.DataFrame:
    """The DataFrame of a reader's numpy columns.  Columns that are all floats of one length
    (every numeric reader's) are stacked into the one block pandas would consolidate them into,
    under labels typed as pandas types them: from a dict pandas 3 infers the labels' type and
    consolidates the columns, ~60-100 us on a small log, against ~25.  The same frame either way.

    >>> wide_frame({"step": np.array([0.0, 1.0]), "loss": np.array([0.5, 0.4])}).to_dict("list")
    {'step': [0.0, 1.0], 'loss': [0.5, 0.4]}
    """
    columns = list(arrays.values())
    if (columns and all(isinstance(name, str) for name in arrays)
            and all(isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype == np.float64 for c in columns)
            and len({len(c) for c in columns}) == 1):
        # stacked as rows, handed over transposed: each column stays contiguous, as consolidated
        return pd.DataFrame(np.vstack(columns).T, columns=pd.Index(list(arrays), dtype=_LABEL_DTYPE), copy=False)
    return pd.DataFrame(arrays, copy=False)


def numeric_frame(frame: pd.DataFrame, name: str, keep=()) -> pd.DataFrame:
    """Numeric metric columns (None/null/NaN empty); non-numeric columns are dropped unless in
    ``keep``; a column mixing numbers and words is an error naming the first bad cell.  A
    True/False column is 1/0 when named for an outcome (``is_success``), else dropped as the
    bookkeeping it is (a trial's ``done``; see :mod:`..flags`)."""
    return pd.DataFrame(numeric_columns(frame, name, keep), index=frame.index)


def numeric_columns(frame: pd.DataFrame, name: str, keep=(), skip=()) -> dict:
    """:func:`numeric_frame` as a dict of column name -> array (or Series for ``keep``), in
    the frame's order, for readers that assemble their table with numpy: each pandas call on a
    small log costs ~20-50 us, several times a 5 KB parse.  Columns in ``skip`` (a reader's
    bookkeeping) are left out unread: selecting the others first copies the frame.

    >>> numeric_columns(pd.DataFrame({"r": [1, 2], "id": ["a", "b"], "x": ["3", None]}), "log")
    {'r': array([1., 2.]), 'x': 0    3.0
    1    NaN
    Name: x, dtype: float64}
    """
    out = {}
    skip = set(skip)
    names = frame.columns.tolist()
    number = [_is_number_dtype(dtype) for dtype in frame.dtypes.tolist()]
    numeric = [c for c, is_number in zip(names, number) if is_number and c not in keep and c not in skip]
    # the numeric columns converted in one block, not one pandas call each (a 25-column
    # progress.csv spent 2.5 ms here, five times pandas' own parse)
    if len(numeric) == len(frame.columns):  # the common case: no selection, one conversion
        block = frame.to_numpy(dtype=float)
        return {column: block[:, i] for i, column in enumerate(numeric)}
    block, position = _numeric_block(frame, numeric, every_column=all(number))
    for column in frame.columns:
        if column in skip:
            continue
        if column in position:
            out[column] = block[:, position[column]]
            continue
        series = frame[column]
        if column in keep:
            out[column] = series
            continue
        flags = flag_floats(series)
        if flags is not None:  # an outcome's flag is a 0/1 metric; others are bookkeeping's
            if is_outcome_flag(column):
                out[column] = flags
            continue
        if not _holds_a_number(series):
            continue  # a text column (names, ids, a histogram as text): one C pass, not five str ones
        present = series.dropna()
        present = present[~present.astype(str).str.strip().str.lower().isin(MISSING_TOKENS)]
        if present.empty:
            continue
        converted = pd.to_numeric(present.astype(str).str.strip(), errors="coerce")
        if converted.notna().sum() == 0:
            continue  # a text column (names, ids): not a metric
        bad = converted.isna()
        if bad.any():
            row = present.index[bad.to_numpy()][0]
            raise InputError(f"{name}: column {column!r} mixes numbers and text "
                             f"({series.loc[row]!r} at data row {int(row) + 1})")
        out[column] = pd.to_numeric(series.where(series.index.isin(present.index)), errors="coerce")
    return out


def _is_number_dtype(dtype) -> bool:
    """pandas' numeric dtypes but booleans: a numpy dtype told by its kind (pandas' two tests
    cost ~1.5 us a column, 80 us on a 54-column Ray progress.csv), any other by pandas."""
    if isinstance(dtype, np.dtype):
        return dtype.kind in "iufc"
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _numeric_block(frame: pd.DataFrame, numeric: list, every_column: bool = False) -> tuple:
    """(the ``numeric`` columns of ``frame`` as one float array, each name's column in it).
    pandas' selection by dtype costs half its take by labels (0.24 against 0.5 ms on a real
    54-column Ray progress.csv), and a frame whose ``every_column`` is numeric (a W&B history
    whose ``_runtime`` is left out) is converted whole, without a selection (0.07 against 0.3 ms
    on 70 columns); the block may hold columns not asked for, which are not looked up."""
    if not numeric:
        return None, {}
    selected = frame if every_column else frame.select_dtypes("number")
    labels = selected.columns.tolist()
    where = {c: i for i, c in enumerate(labels)}
    if len(where) != len(labels) or any(c not in where for c in numeric):  # (a repeated name)
        return frame[numeric].to_numpy(dtype=float), {c: i for i, c in enumerate(numeric)}
    return selected.to_numpy(dtype=float), {c: where[c] for c in numeric}


#: how a cell pandas can read as a number begins (after blanks): a digit, a sign or point, or
#: the n / i of nan and inf
_NUMBER_STARTS = frozenset("0123456789+-.nNiI")


def _holds_a_number(series: pd.Series) -> bool:
    """Whether any cell of ``series`` reads as a number (pandas' parse, spaces allowed).  A
    text column is told so in one pass: five string operations a column cost a real 35-row Ray
    progress.csv 3.8 ms, four times its parse.  A column none of whose cells even begins like
    a number (ids, hosts, a histogram printed as a list) is told without the parse (~0.2 ms
    for a column of long lists).  Cells of other objects (a JSON list) are left to the careful
    path."""
    begins = False
    for cell in series.to_numpy():
        if isinstance(cell, str):
            if cell.lstrip()[:1] in _NUMBER_STARTS:
                begins = True
                break
        elif not is_missing_cell(cell):
            begins = True  # not text: the parse below decides
            break
    if not begins:
        return False
    try:
        return bool(pd.to_numeric(series, errors="coerce").notna().any())
    except (TypeError, ValueError):
        return True


def shadowed_axes_note(shadowed: list, axes: dict, logger: str) -> list:
    """The note for values a run logged under an axis' name (``step``), left out because the
    logger's own column (``axes``: axis -> its column) is that axis; [] when there are none.

    >>> shadowed_axes_note(["step"], {"step": "_step"}, "W&B")
    ["'step' left out: W&B's _step is the step axis (a logged counter of that name is not a metric)"]
    """
    if not shadowed:
        return []
    one = len(shadowed) == 1
    return [f"{', '.join(map(repr, shadowed))} left out: {logger}'s {' and '.join(axes[c] for c in shadowed)} "
            f"{'is' if one else 'are'} the {' and '.join(shadowed)} ax{'is' if one else 'es'} (a logged "
            f"counter of that name is not a metric)"]


def numeric_axis(series: pd.Series, name: str, column: str) -> np.ndarray:
    """An axis column (step, epoch) as floats; a cell that is not a number is an error naming
    it (missing cells stay NaN and are dropped by the callers).

    >>> numeric_axis(pd.Series([0, "1", None]), "log.json", "step")
    array([ 0.,  1., nan])
    """
    values = pd.to_numeric(series.map(lambda v: v if isinstance(v, (int, float, str)) or v is None else "?"),
                           errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{name}: {column!r} is not a number at data row {row + 1} "
                         f"({series.iloc[row]!r})")
    return values.to_numpy(dtype=float)


def check_repeated_header(frame: pd.DataFrame, name: str) -> None:
    """A row equal to the header means two logs were appended (or a header rewritten
    mid-file): refuse rather than read strings as numbers."""
    if frame.empty or len(frame.columns) < 2:
        return
    if any(pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes.tolist()):
        return  # a repeated header row would have made every column text
    text = frame.astype(str)
    matches = np.ones(len(frame), dtype=bool)
    for column in frame.columns:
        matches &= (text[column].str.strip() == str(column)).to_numpy()
    if matches.any():
        row = int(np.flatnonzero(matches)[0])
        raise InputError(f"{name}: the header appears again at data row {row + 1} (two logs appended, "
                         "or a header rewritten mid-file); split the file there")


def melt_columns(frame, metrics: list, *, step, run=None, wall_time=None) -> pd.DataFrame:
    """Wide -> (run, step, metric, value, wall_time), missing values dropped; ``frame`` a
    DataFrame or a dict of its columns as arrays (:attr:`LogTable.arrays`).

    Built with numpy (metric as a categorical, values stacked column by column): pandas'
    melt costs twice the CSV parse on a million rows."""
    n = len(step) if step is not None else len(frame[metrics[0]]) if metrics else len(frame)
    columns = [frame[column] for column in metrics]
    if all(isinstance(c, np.ndarray) and c.dtype == np.float64 and c.shape == (n,) for c in columns):
        # a reader's float columns (the common case): joined in one call, not one copy each
        values = np.concatenate(columns) if columns else np.empty(0)
    else:
        values = np.empty(n * len(metrics))
        for i, series in enumerate(columns):
            if not pd.api.types.is_float_dtype(series.dtype):
                flags = flag_floats(pd.Series(series))  # a True/False flag: 1/0
                series = flags if flags is not None else pd.to_numeric(series, errors="coerce")
            values[i * n:(i + 1) * n] = np.asarray(series, dtype=float)
    keep = ~np.isnan(values)
    dense = bool(keep.all())  # the common case: no gaps, so no gathers at all
    width = len(metrics)
    # the code type pandas would coerce the codes to anyway (a copy of n * width codes), in one
    # call: slice fills cost ~0.3 us a metric (19 against 1.5 us for 69 metrics) to save ~20 us
    # at 10^6 rows
    codes = np.repeat(np.arange(width, dtype=np.min_scalar_type(-max(width, 1))), n)
    rows = None if dense else _stacked(np.arange(n), width)[keep]

    def spread(axis):
        return _stacked(np.asarray(axis), width) if dense else axis[rows]

    out = {}
    if run is not None:
        out["run"] = spread(run)
    out["step"] = spread(step if step is not None else np.arange(n))
    # the categories as a plain object index: pandas' string inference and uniqueness check
    # on a list cost ~50 us a call (the names are a table's columns, unique already)
    out["metric"] = pd.Categorical.from_codes(codes if dense else codes[keep],
                                              categories=pd.Index([str(m) for m in metrics], dtype=object))
    out["value"] = values if dense else values[keep]
    if wall_time is not None:
        out["wall_time"] = spread(wall_time)
    return _tidy_frame(out)


#: the column labels of each tidy layout (with or without run, wall_time), made once per process
_TIDY_LABELS: dict = {}


def _tidy_frame(columns: dict) -> pd.DataFrame:
    """The tidy frame of ``columns``: pandas 3 turns a dict's keys into an index of Arrow
    strings, ~50 us a frame, as much as the rest of the frame; the few tidy layouts get theirs
    once, and each frame a shallow copy of it (so a name set on one frame's labels stays there)."""
    key = tuple(columns)
    labels = _TIDY_LABELS.get(key)
    if labels is None:
        labels = _TIDY_LABELS[key] = pd.Index(list(key))
    frame = pd.DataFrame(dict(enumerate(columns.values())), copy=False)  # numbered: no labels inferred
    frame.columns = labels.copy()
    return frame


def fold_columns(step: np.ndarray, columns: dict) -> dict:
    """Sparse wide rows (each carries some of the metrics) folded to one row per step: each
    metric's last value logged at that step, rows sorted by step, metrics by name; rows
    without a step, and steps with no value at all, are dropped.  The same table as
    :func:`sparse_to_wide` of the melted rows (tested against it) without building the tidy
    frame: on a 5 KB Lightning log the melt and the fold cost ten times the parse.

    >>> fold_columns(np.array([2.0, 1.0, 1.0, np.nan]), {"b": np.array([5.0, np.nan, 3.0, 1.0]),
    ...                                                  "a": np.array([np.nan, 1.0, 2.0, 0.0])})
    {'step': array([1., 2.]), 'a': array([ 2., nan]), 'b': array([3., 5.])}
    """
    names = sorted(columns)
    stepped = ~np.isnan(step)
    values = (np.column_stack([np.asarray(columns[c], dtype=float) for c in names]) if names
              else np.empty((len(step), 0)))
    present = logged(values)  # (a NaN the log wrote is a value logged: see ..written_nan)
    used = present[stepped].any(axis=0)
    if not used.all():  # a metric never logged at a step
        names = [c for c, kept in zip(names, used.tolist()) if kept]
        values, present = values[:, used], present[:, used]
    keep = stepped & present.any(axis=1)
    if not keep.any():  # then no metric was logged either
        return {"step": np.empty(0)}
    if keep.all():  # the common case: only the steps copied (the table never shares the caller's)
        step = step.copy()
    else:
        step, values, present = step[keep], values[keep], present[keep]
    names = [metric_label(c) for c in names]
    if len(step) < 2 or bool((step[1:] > step[:-1]).all()):
        # the common case (one row per step, in order): each row is its step's last value
        return {"step": step, **{c: values[:, j] for j, c in enumerate(names)}}
    order = np.argsort(step, kind="stable")  # logging order kept within a step
    step, values, present = step[order], values[order], present[order]
    starts = np.flatnonzero(np.r_[True, step[1:] != step[:-1]])
    out = {"step": step[starts]}
    # the last row of each step that holds the metric: the largest such row index in the group
    rows = np.where(present, np.arange(len(step))[:, None], -1)
    last = np.maximum.reduceat(rows, starts, axis=0)
    for j, c in enumerate(names):
        out[c] = np.where(last[:, j] >= 0, values[np.maximum(last[:, j], 0), j], np.nan)
    return out


def _stacked(axis: np.ndarray, times: int) -> np.ndarray:
    """``axis`` repeated end to end ``times`` times (np.tile for one dimension)."""
    n = len(axis)
    out = np.empty(n * times, dtype=axis.dtype)
    for i in range(times):
        out[i * n:(i + 1) * n] = axis
    return out


def sparse_to_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """Rows that each carry some metrics (Lightning, W&B) folded to one row per (run, step):
    each metric's last value logged at that step, rows sorted by run and step, metric columns
    by name; rows without a step or a value are dropped.

    The same table as ``pivot_table(index=["run", "step"], columns="metric", values="value",
    aggfunc="last")`` (tested against it), built with one stable sort: pandas' pivot cost
    ~6 ms of fixed overhead, ten times the parse of a small log.

    >>> tidy = pd.DataFrame({"step": [2.0, 1.0, 1.0, 1.0], "metric": ["b", "a", "a", "b"],
    ...                      "value": [5.0, 1.0, 2.0, float("nan")]})
    >>> sparse_to_wide(tidy).to_dict("list")
    {'step': [1.0, 2.0], 'a': [2.0, nan], 'b': [nan, 5.0]}
    """
    step = tidy["step"].to_numpy(dtype=float)
    value = tidy["value"].to_numpy(dtype=float)
    metric = np.asarray(tidy["metric"], dtype=object)
    keep = ~np.isnan(step) & logged(value) & ~pd.isna(metric)
    step, value, metric = step[keep], value[keep], metric[keep]
    metric_codes, names = pd.factorize(metric, sort=True)
    if "run" in tidy.columns:
        run_codes, runs = pd.factorize(tidy["run"].to_numpy()[keep], sort=True)
    else:
        run_codes, runs = np.zeros(len(step), dtype=np.intp), None
    # rows ordered by (run, step, metric), the order they were logged kept within each
    order = np.lexsort((metric_codes, step, run_codes))
    step, value, metric_codes, run_codes = step[order], value[order], metric_codes[order], run_codes[order]
    new_row = np.ones(len(step), dtype=bool)
    new_row[1:] = (step[1:] != step[:-1]) | (run_codes[1:] != run_codes[:-1])
    row = np.cumsum(new_row) - 1
    # the last of each (row, metric): where the next entry is another cell
    last = np.ones(len(step), dtype=bool)
    last[:-1] = (row[1:] != row[:-1]) | (metric_codes[1:] != metric_codes[:-1])
    table = np.full((int(new_row.sum()), len(names)), np.nan)
    table[row[last], metric_codes[last]] = value[last]
    columns = {}
    if runs is not None:
        columns["run"] = np.asarray(runs)[run_codes[new_row]]
    columns["step"] = step[new_row]
    for j, name in enumerate(names):
        columns[metric_label(name)] = table[:, j]
    return pd.DataFrame(columns)


def fed_lines(feed, text: str) -> tuple[list, int]:
    """What ``feed`` gives for each line of ``text`` that gives something (not None), in order,
    and how many other lines hold text (the job's other output, which a reader's note counts).

    >>> fed_lines(lambda line: line.upper() if line.startswith("a") else None, "a1\\nb\\n\\na2")
    (['A1', 'A2'], 1)
    """
    records, skipped = [], 0
    for line in text.splitlines():
        record = feed(line)
        if record is not None:
            records.append(record)
        else:
            skipped += bool(line.strip())
    return records, skipped


def stepped_columns(records) -> dict:
    """The numpy columns of printed records, each ``(step, values)`` in the order printed:
    ``step`` and a float column per name (NaN where a row lacks it; the names in the order first
    seen, one logged as ``step`` or ``run`` renamed by :func:`metric_label`).  Consecutive records
    at one step make one row (an evaluation printed after the training line of its step); a
    step that goes back - a run appended to the file, a resume - is left to the loader's rules.

    >>> stepped_columns([(1, {"loss": 0.5}), (1, {"acc": 0.8}), (2, {"loss": 0.4})])
    {'step': array([1., 2.]), 'loss': array([0.5, 0.4]), 'acc': array([0.8, nan])}
    """
    steps: list = []
    rows: list = []
    for step, values in records:
        if rows and steps[-1] == step:
            rows[-1].update(values)
        else:
            steps.append(step)
            rows.append(dict(values))
    keys = dict.fromkeys(key for row in rows for key in row)
    return {"step": np.array(steps, dtype=float),
            **{metric_label(key): np.array([row.get(key, np.nan) for row in rows], dtype=float) for key in keys}}


def metric_label(name) -> str:
    """A metric's column name in a wide table: a metric logged as ``step`` or ``run`` (an MLflow
    key, a Lightning log call) is renamed, or it would overwrite the step axis or become the
    run key.

    >>> metric_label("step"), metric_label("reward")
    ('step (metric)', 'reward')
    """
    return f"{name} (metric)" if name in ("run", "step") else name


def load_runs(files: list, load, said=lambda note: True) -> tuple[list, list, list, set]:
    """Each ``(run, file, format)`` of ``files`` read with ``load(file, format)`` (the loader of
    :mod:`..logs`) as one run of a folder of runs: (each run's wide frame with its ``run``
    column, the notes ``said`` keeps prefixed by their run, a note for each run whose file could
    not be read - left out, the other runs read -, the formats read)."""
    parts, notes, failed, formats = [], [], [], set()
    for run, file, format in files:
        try:
            table = load(file, format)
        except InputError as exc:  # one run's broken file: said, and the other runs read
            failed.append(f"{run}: {exc}: left out")
            continue
        formats.add(table.format)
        notes += [f"{run}: {note}" for note in table.notes if said(note)]
        parts.append(table.frame.assign(run=run))
    return parts, notes, failed, formats


def runs_frame(parts: list) -> pd.DataFrame:
    """The wide frames of several runs (each with its ``run`` column) one after another, the
    ``run`` column first: a reader's folder of runs read as one log.

    >>> runs_frame([pd.DataFrame({"step": [0], "r": [1.0], "run": "a"}),
    ...             pd.DataFrame({"step": [0], "r": [2.0], "run": "b"})]).columns.tolist()
    ['run', 'step', 'r']
    """
    frame = pd.concat(parts, ignore_index=True)
    return frame[["run"] + [c for c in frame.columns if c != "run"]]


def headless(names) -> bool:
    """Is a CSV's first line (``names``) numbers rather than column names: a table without a
    header?  pandas' default labels (``0,1,2``, written by ``to_csv(index=False)``) are a header.

    >>> headless(["0", "0.3641957", "7"]), headless(["0", "1", "2"]), headless(["step", "1.5"])
    (True, False, False)
    """
    names = [str(name).strip() for name in names]
    return (len(names) >= 2 and names != [str(i) for i in range(len(names))]
            and all(printed_number(name) is not None for name in names))


def printed_number(value) -> float | None:
    """A printed value as a float (a number, or the text of one: "1.48e+03", "nan"); None for
    anything else (missing, a word, a list, a bool).  A NaN printed is a NaN the run logged, so
    it is marked written (:mod:`..written_nan`): a loss that turned NaN reads as diverged, not
    as values missing."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return scalar(float(value))
    except ValueError:
        return None
