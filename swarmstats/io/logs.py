"""``read_log``: one entry point for every common training log.

The format is taken from ``format=``, else sniffed from the name (``monitor.csv``,
``trainer_state.json``, ``metrics.csv``, ``result.json``, ``events.out.tfevents.*`` ...)
and the content (header columns, JSON keys).  A directory is read as a whole: a
folder of SB3 monitor files, a Lightning ``version_<n>`` folder, a Ray trial, an
MLflow run, a Hugging Face checkpoint, a TensorBoard log directory, a Spinning Up ``data/``
folder of run folders.

The result is tidy - one row per (run, step, metric) with its value (and the wall
time where the format records it) - or wide on request: one row per (run, step),
one column per metric, which is what the command line analyses.
"""

from __future__ import annotations

import codecs
import os
import re
import stat

import numpy as np
import pandas as pd

from .. import sentinels
from .._input.foreign import is_labelled, library_of, tidy_draws
from ..errors import InputError
from . import columnar, mlflow_server
from .columnar import columnar_kind, read_columnar
from .columns import find_step, table_roles
from .compressed import compression_of, decompressed, refuse_archive
from .decoding import check_readable, is_utf16, utf16_to_utf8
from .formats import (
    d3rlpy,
    marl_eval,
    mlflow,
    ray_tune,
    registry,
    sacred,
    sb3,
    spinup,
    tensorboard,
    tensorboard_csv,
    torchrl,
)
from .formats._table import (
    AXES,
    LogTable,
    check_repeated_header,
    headless,
    melt_columns,
    runs_frame,
)
from .long_tables import long_columns, widen
from .markdown_runs import has_titled_blocks, is_markdown, read_runs
from .plain_csv import numeric_table
from .resumed import drop_superseded
from .tabular import FORMATS as TABLE_FORMATS
from .tabular import (
    HEAD_BYTES,
    WANDB_RUN_FILES,
    BytesSource,
    decode_text,
    parse_json,
    read_json_file,
    read_path,
    read_searched_table,
    read_source,
    refuse_binary,
    refuse_binary_file,
    refuse_summary,
    sniff_layout,
)
from .text_numbers import read_text_numbers
from .unfinished import without_unfinished_row
from .written_nan import column_floats, logged

#: every format ``format=`` / ``--input-format`` takes: the generic tables, then the registry's
LOG_FORMATS = TABLE_FORMATS + registry.names()

#: what one unit of a format's ``step`` column is, for "per 100 <unit>" (default: steps)
STEP_UNITS = {fmt.name: fmt.step_unit for fmt in registry.REGISTRY if fmt.step_unit}

_DIRECTORY_FILES = (("trainer_state.json", "trainer-state"), ("metrics.csv", "lightning-csv"),
                    ("result.json", "ray-result"), ("progress.csv", None), ("metrics.jsonl", "prime-rl"),
                    ("results.jsonl", "verifiers"), ("evaluations.npz", "sb3-evaluations"))


def read_log(source, *, format: str | None = None, wide: bool = False,
             mlflow_uri: str | None = None) -> pd.DataFrame:
    """Read a training log (a path, a directory, ``"-"`` for stdin, a file object, or a live
    MLflow tracking server: ``mlflow://HOST:PORT/experiments/NAME`` or ``.../runs/RUN_ID``,
    or ``experiments/NAME`` with ``mlflow_uri="http://HOST:PORT"``; see
    :mod:`swarmstats.io.mlflow_server`).

    Returns a tidy frame with columns ``run`` (when the log holds several runs),
    ``step``, ``metric``, ``value`` (and ``wall_time`` where recorded), or with
    ``wide=True`` one row per (run, step) and one column per metric.
    ``frame.attrs`` holds ``source``, ``format`` and ``notes``.

    >>> import io
    >>> text = '{"step": 0, "time": 1.5, "reward/mean": 0.2}\\n{"step": 1, "time": 3.0, "reward/mean": 0.3}\\n'
    >>> tidy = read_log(io.StringIO(text), format="prime-rl")
    >>> tidy[["step", "metric", "value"]].to_dict("records")
    [{'step': 0.0, 'metric': 'reward/mean', 'value': 0.2}, {'step': 1.0, 'metric': 'reward/mean', 'value': 0.3}]
    """
    if format is not None and format not in LOG_FORMATS:
        raise InputError(f"format must be one of {', '.join(LOG_FORMATS)}, got {format!r}")
    if is_labelled(source):  # MCMC draws in memory: each variable a metric, each chain a run
        return _draws(source, wide)
    if mlflow_uri is not None:
        source = mlflow_server.with_tracking_uri(source, mlflow_uri)
    table = _without_superseded_rows(_undefined_as_missing(_load(source, format)))
    if not wide:
        return _tidy(table)
    frame = table.frame
    frame.attrs.update(source=table.source, format=table.format, notes=list(table.notes))
    _run_configs(table, frame)
    unit = table.step_unit or STEP_UNITS.get(table.format)
    if unit and "step" in table.names:
        frame.attrs["step_unit"] = unit
    return frame


def _undefined_as_missing(table: LogTable) -> LogTable:
    """``table`` with the values that mean "undefined" (:mod:`swarmstats.sentinels`) set to
    NaN, and a note per metric saying how many."""
    for column in table.metrics:
        if not sentinels.has_sentinel(column):
            continue
        if table._frame is None:  # numpy columns, no frame built yet
            values = np.asarray(table.arrays[column], dtype=float)
            mask = sentinels.undefined(column, values)
            if mask.any():
                present = int(np.count_nonzero(logged(values)))
                table.arrays[column] = np.where(mask, np.nan, values)
                table.notes.append(sentinels.note(column, int(mask.sum()), present))
            continue
        frame = table.frame
        mask = sentinels.undefined(column, frame[column].to_numpy())
        if mask.any():
            present = int(np.count_nonzero(logged(column_floats(frame[column]))))
            frame[column] = frame[column].mask(mask)
            table.arrays = None  # the frame's column is a new array now
            table.notes.append(sentinels.note(column, int(mask.sum()), present))
    return table


def _without_superseded_rows(table: LogTable) -> LogTable:
    """``table`` without the rows a run resumed from a checkpoint logged again (see
    :mod:`.resumed`), and a note saying how many."""
    if table._frame is None and "step" in table.arrays:
        steps = np.asarray(table.arrays["step"], dtype=float)
        present = ~np.isnan(steps)
        back = np.diff(steps[present]) < 0
        if "run" in table.arrays and back.any():
            # runs one after another (a W&B chart's): only a step back within a run counts (the
            # frame and its run key cost ~1.5 ms for 8 runs)
            runs = np.asarray(table.arrays["run"])[present]
            starts = np.r_[0, np.flatnonzero(runs[1:] != runs[:-1]) + 1]
            if len(set(runs[starts].tolist())) == len(starts):  # each run's rows together
                back &= runs[1:] == runs[:-1]
        if not back.any():
            return table  # the common case, without building a frame
    frame = table.frame
    step = "step" if "step" in frame.columns else find_step(frame) if table.format in TABLE_FORMATS else None
    if step is None:
        return table
    kept, note = drop_superseded(frame, step)
    if note is not None:
        table._frame, table.arrays = kept, None
        table.notes.append(note)
    return table


def _draws(source, wide: bool) -> pd.DataFrame:
    """An ArviZ InferenceData or xarray Dataset / DataArray as a log (see :mod:`.._input.foreign`)."""
    tidy = tidy_draws(source, type(source).__name__)
    frame = tidy
    if wide:
        frame = tidy.pivot_table(index=["run", "step"], columns="metric", values="value",
                                 sort=False).reset_index()
        frame.columns.name = None
    frame.attrs.update(source=type(source).__name__, format=library_of(source),
                       notes=["each chain is a run and each draw a step"])
    return frame


def _tidy(table: LogTable) -> pd.DataFrame:
    if table.format in TABLE_FORMATS:
        frame = table.frame
        columns, key = table_roles(frame)
        step = frame[columns.step].to_numpy() if columns.step else np.arange(len(frame))
        tidy = melt_columns(frame, columns.metrics + list(columns.bookkeeping), step=step,
                     run=key.labels if key.several else None, wall_time=None)
    else:
        columns = table.arrays if table.arrays is not None else table.frame
        names = list(table.arrays) if table.arrays is not None else table.frame.columns.tolist()
        metrics = [c for c in names if c not in AXES]
        axes = {axis: np.asarray(columns[axis]) if axis in names else None for axis in AXES}
        tidy = melt_columns(columns, metrics, **axes)
    tidy.attrs.update(source=table.source, format=table.format, notes=list(table.notes))
    _run_configs(table, tidy)
    return tidy


def _run_configs(table: LogTable, frame: pd.DataFrame) -> None:
    """What the log says of its runs, in ``frame.attrs``: each run's configuration, whether
    its rows are the runs' final values rather than series in time, and the step it was
    planned to end at (``planned_steps``: check-convergence's default budget), and which metrics
    are a series per agent beside the model's (``agent_metrics``)."""
    if table.planned_steps is not None:
        frame.attrs["planned_steps"] = table.planned_steps
    if table.agent_metrics:
        frame.attrs["agent_metrics"] = list(table.agent_metrics)
    if table.final_values:
        frame.attrs["final_values"] = True
        if table.series_elsewhere:
            frame.attrs["series_elsewhere"] = table.series_elsewhere
    if table.run_seeds:
        frame.attrs["run_seeds"] = dict(table.run_seeds)
    if table.run_configs:
        frame.attrs["run_configs"] = dict(table.run_configs)
        if table.configs_complete:
            frame.attrs["run_configs_complete"] = True


def _load(source, format: str | None) -> LogTable:
    if mlflow_server.is_source(source):
        if format not in (None, "mlflow"):
            raise InputError(f"{source} is an MLflow server: its format is mlflow, not {format}")
        return mlflow_server.read(source)
    if isinstance(source, (str, os.PathLike)) and source != "-":
        path = os.fspath(source)
        if stat.S_ISDIR(check_readable(path).st_mode):
            return _directory(path, format)
        for fmt in registry.of_layout("path"):
            if format == fmt.name or (format is None and fmt.sniff(path)):
                return fmt.read(path)
    if format is not None and format in registry.names() and registry.get(format).layout == "path":
        raise InputError(f"{format} logs are read from a file or directory path, not a stream")
    name, data = _read_head(source)
    if not data or data.isspace():
        raise InputError(f"{name} is empty")
    refuse_archive(name, data)
    packed = compression_of(data)
    if packed is not None:  # progress.csv.gz: the log it holds, read under its own name
        name, data = decompressed(name, data, source)
        data = utf16_to_utf8(name, data) if is_utf16(data) else data
        source = BytesSource(name, data)
        if not data or data.isspace():
            raise InputError(f"{name} is empty")
    kind = format if format in columnar.FORMATS else columnar_kind(data[:8])
    if kind is not None:  # Parquet / Arrow: a typed table, recognised by its header like a CSV's
        on_disk = isinstance(source, (str, os.PathLike)) and source != "-"
        frame = read_columnar(name, os.fspath(source) if on_disk else data, kind)
        return _convert(frame, name, os.path.basename(name), None if format in (None, kind) else format)
    refuse_binary(name, data[:HEAD_BYTES])
    on_disk = isinstance(source, (str, os.PathLike)) and source != "-"
    if len(data) >= HEAD_BYTES and on_disk:
        refuse_binary_file(os.fspath(source))
    unfinished = None
    # (a Markdown page is no log being written: its last line, a closing fence with no newline
    # after it, read as a row cut short)
    if not _is_document(name, data, format) and not is_markdown(os.path.basename(name)):
        cut, unfinished = without_unfinished_row(data, os.fspath(source) if on_disk else None)
        if unfinished is not None:  # the rows read are all there is to read now
            data, source = cut, BytesSource(name, cut)
    table = _file(name, data, format, source)
    if unfinished is not None:
        table.notes.insert(0, unfinished)
    if packed is not None:
        table.notes.insert(0, f"read from its {packed}-compressed file")
    return table


def _is_document(name: str, data: bytes, format: str | None) -> bool:
    """Is the log one JSON document (parsed whole, never row by row)?"""
    if format is not None:
        return format == "json" or (format in registry.names() and registry.get(format).layout == "json")
    return sniff_layout(name, decode_text(name, data[:4096], final=False)) == "json"


def _read_head(source) -> tuple[str, bytes]:
    """A path's first 64 KiB (enough to sniff; a big CSV is then parsed by pandas from the
    path), or the whole of a stream."""
    if isinstance(source, (str, os.PathLike)) and source != "-":
        return read_path(os.fspath(source), HEAD_BYTES)
    return read_source(source)


def _whole(name: str, data: bytes, source) -> bytes:
    """All the bytes of the log (the head may be all there is)."""
    if len(data) < HEAD_BYTES or not isinstance(source, (str, os.PathLike)) or source == "-":
        return data
    return read_source(source)[1]


def _file(name: str, data: bytes, format: str | None, source) -> LogTable:
    base = os.path.basename(name)
    text_head = decode_text(name, data[:65536], final=len(data) <= 65536)
    # a table's header (no printed log starts so): not the printed formats' sniffs
    printed = () if format is None and _is_table_header(text_head, base) else registry.of_layout("text")
    for fmt in printed:
        if format == fmt.name or (format is None and not fmt.last_resort and fmt.sniff(text_head, base)):
            return _printed(fmt, name, _whole(name, data, source))
    if format is None and is_markdown(base):
        # (read as a table, its first line became the header: "no numeric metric column
        # (columns: ```)")
        table = _last_resort(name, data, source)
        if table is not None:
            return table
        raise InputError(f"{name}: no training log found in this Markdown file: it is read for a trainer's "
                         "printed output pasted into it (SB3's tables, a Trainer's dicts, nanoGPT's or "
                         "another logger's lines; see docs/logs.md); --input-format names one")
    if format is None and base.lower().endswith(".ipynb") and len(data) >= HEAD_BYTES:
        # a notebook's training output often comes after 64 KiB of other cells' output (an
        # install log, a dataset preview): its printed formats are looked for in the whole of it
        whole = _whole(name, data, source)
        text = decode_text(name, whole)
        for fmt in registry.of_layout("text"):
            if not fmt.last_resort and fmt.sniff(text, base):
                return _printed(fmt, name, whole)
    if format is None and base.lower().endswith(".ipynb"):  # (else refused: no log found in it)
        table = _last_resort(name, data, source)
        if table is not None:
            return table
    kind = format if format in TABLE_FORMATS else (None if format else sniff_layout(name, text_head))
    documents = registry.of_layout("json")
    if kind == "json" or format in {fmt.name for fmt in documents}:
        try:
            payload = parse_json(name, decode_text(name, _whole(name, data, source)))
        except InputError:
            # a text whose first line begins with "[" and is no JSON: XGBoost's and LightGBM's
            # "[0]\tvalidation_0-logloss:0.6" read "not valid JSON (line 1: Extra data)"
            found = _last_resort(name, data, source) if format is None else None
            if found is None:
                raise
            return found
        for fmt in documents:
            if format == fmt.name or (format in (None, "json") and fmt.sniff(payload, base)):
                return fmt.read(payload, name)
    if kind == "csv" and len(data) < HEAD_BYTES:  # then text_head is the whole file
        # (a generic table keeps pandas' column types: integer steps stay integers)
        fmt = _header_format(text_head, base) if format is None else None if format in TABLE_FORMATS else registry.get(format)
        table = _plain_numeric_log(name, data, fmt)
        if table is not None:
            return table
    # a big file is handed to pandas as a path (its parallel parser); a stream, or a file
    # already read whole, as the bytes read (reading and sniffing a small file again cost
    # ~40 us, a tenth of its parse)
    from_path = isinstance(source, (str, os.PathLike)) and source != "-" and len(data) >= HEAD_BYTES
    table_source = source if from_path else BytesSource(name, data)
    try:
        # _load has searched such a file for NUL bytes already, the whole of it
        frame = read_searched_table(table_source, format=_table_kind(format, kind), searched=from_path)
        table = _convert(frame, name, base, format)
    except InputError:  # (a line with a comma among lines without: "expected 1 field, saw 2")
        found = _last_resort(name, data, source) if format is None and kind in ("csv", "tsv") else None
        if found is None:
            raise
        return found
    if format is None and table.format in ("csv", "tsv") and not _has_numbers(table.frame):
        # no table with a number in it: a hand-written loop's printed lines, read as a table,
        # were a column of text ("no numeric metric column (columns: running reward: 8.82 at
        # episode 10)")
        found = _last_resort(name, data, source)
        if found is not None:
            return found
    return table


def _has_numbers(frame: pd.DataFrame) -> bool:
    """Does any column of ``frame`` hold a number (or true/false)?  A column of NaN alone holds
    none: the fields a line of prose with commas in it gave the lines after it."""
    for column, dtype in zip(frame.columns, frame.dtypes):
        if dtype.kind in "iub":
            return True
        if dtype.kind == "f":
            values = frame[column].to_numpy()
            if len(values) and (values[0] == values[0] or not np.isnan(values).all()):
                return True
    return False


def _last_resort(name: str, data: bytes, source) -> LogTable | None:
    """The log in a table printed with its columns aligned (:mod:`.formats.printed_table`), or in
    what a hand-written loop printed in its own words, lines of one form
    (:mod:`.formats.printed_template`), for a file no format reads; None when there is none."""
    whole = _whole(name, data, source)
    for last in ("printed-table", "printed-template"):
        try:
            return _printed(registry.get(last), name, whole)
        except InputError:
            continue
    return None


def _printed(fmt, name: str, data: bytes) -> LogTable:
    """A printed log read by its format; in a Markdown file or a notebook, run by run when its
    runs were pasted (or trained) under texts saying what each was (:mod:`.markdown_runs`)."""
    if has_titled_blocks(name) and fmt.name != "hf-notebook":  # (its tables are named by its own reader)
        runs = read_runs(fmt.read, name, data, fmt.sniff)
        if runs is not None:
            return runs
    return fmt.read(name, data)


def _header_format(text: str, base: str):
    """The table format whose header test the first line of ``text``, split at its commas,
    passes (a progress.csv's, a Lightning metrics.csv's); None for any other first line."""
    fmt = registry.sniff_table(_header_fields(text), base)
    return fmt if fmt is not None and fmt.layout == "table" else None


def _header_fields(text: str) -> list:
    return [column.strip() for column in text.partition("\n")[0].rstrip("\r").split(",")]


#: a column name in a CSV header that names its columns plainly (no spaces, no colon)
_PLAIN_NAME = re.compile(r"[A-Za-z_][\w./-]*")


def _is_table_header(text: str, base: str) -> bool:
    """Is the first line of ``text`` a table's header: one a table format knows (Ray's, W&B's
    ``_step`` or chart export), or two or more plain names, quoted or not (``step,reward,sample``)?  Then the file is read as that table and the printed formats'
    sniffs are not asked.  A table's text cells can hold lines a printed format reads: a
    W&B history that logged a model's reasoning (``"Step 1: Add 3 and 4\\nStep 2: ..."``) was
    read as nanoGPT's output, its metric "Add 3 and" - and those sniffs, each a search of the
    64 KiB head for its words, cost ~0.3 ms on a Ray progress.csv's printed lists, a fifth of
    pandas' parse.  No printed log begins with such a line (``iter 0: loss 10.9, time 38.5ms``
    has spaces and colons; the headless number tables begin with numbers).

    >>> _is_table_header('_step,reward,sample\\n0,0.5,"Step 1: Add 3 and 4"', "history.csv")
    True
    >>> _is_table_header("iter 0: loss 10.9914, time 38532.31ms, mfu -100.00%", "train.log")
    False
    """
    fields = [f[1:-1] if len(f) > 1 and f[0] == f[-1] == '"' else f for f in _header_fields(text)]
    if len(fields) < 2:
        return False
    fmt = registry.sniff_table(fields, base)
    if fmt is not None:
        return fmt.layout == "table"
    return all(_PLAIN_NAME.fullmatch(field) for field in fields)


def _plain_numeric_log(name: str, data: bytes, fmt) -> LogTable | None:
    """A file of plain numbers (``data``) in a format (``fmt``, a table format or None) whose
    reader keeps numbers only (a progress.csv, a Lightning metrics.csv), read by
    :mod:`.plain_csv` and given to the reader as numpy columns: on these small files pandas'
    fixed costs and a DataFrame are most of the time.  None for any other file, which pandas
    then reads."""
    if fmt is None or fmt.layout != "table" or fmt.read_numbers is None:
        return None
    parsed = numeric_table(data.removeprefix(codecs.BOM_UTF8))
    if parsed is None:
        return None
    names, rows = parsed
    return fmt.read_numbers({c: rows[:, i] for i, c in enumerate(names)}, len(rows), name)


def _table_kind(format: str | None, kind: str | None) -> str | None:
    """How to parse the file as a table: the generic format named, the named format's
    ``parse_as``, or what was sniffed."""
    if format in TABLE_FORMATS or format is None:
        return format or kind
    return registry.get(format).parse_as


def _convert(frame: pd.DataFrame, name: str, base: str, format: str | None) -> LogTable:
    """A parsed table read as the format named, or the first whose header test passes."""
    fmt = registry.get(format) if format is not None and format not in TABLE_FORMATS else (
        None if format is not None else registry.sniff_table(frame.columns, base))
    if fmt is not None and fmt.layout == "table":
        return fmt.read(frame, name)
    if fmt is not None:
        raise InputError(f"{name} is not a {fmt.name} log")
    check_repeated_header(frame, name)
    kind = frame.attrs.get("format", "csv")
    if kind in ("csv", "tsv"):
        _refuse_headless(frame, name)
    # "70.3%", and "0,42" where the cells are not parted by commas: a spreadsheet's numbers as text
    frame, notes = read_text_numbers(frame, decimal_comma=frame.attrs.get("separator") in (";", "\t"))
    notes += _repeated_names(frame)
    long = long_columns(frame)
    if long is not None:  # one row per step and metric (read_log's own tidy frame, saved)
        frame, note = widen(frame, *long)
        notes.append(note)
    return LogTable(frame, kind, name, notes)


def _repeated_names(frame: pd.DataFrame) -> list:
    """A note for each column name the header repeats: pandas reads the second ``loss`` as
    ``loss.1``, and a log that wrote one metric twice (or two under one name) should say so."""
    names = {str(column) for column in frame.columns}
    notes = []
    for column in map(str, frame.columns):
        stem, dot, number = column.rpartition(".")
        if dot and number.isdigit() and stem in names:
            notes.append(f"the header names {stem!r} more than once: the column after the first is read as {column!r}")
    return notes


def _refuse_headless(frame: pd.DataFrame, name: str) -> None:
    """A CSV whose first line is numbers has no header: read as one, its first row named the
    columns (a metric called "0.3641957"), and the column of steps was left out as a counter,
    so slopes were quoted per row.  pandas' default labels (0, 1, 2, ...) are a header."""
    names = [str(column) for column in frame.columns]
    if headless(names):
        shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
        hint = (" (HARL's progress.txt holds the total timesteps, then the evaluation's average episode reward "
                "and its win rate, score rate or episode length: a header such as step,eval_avg_rew,eval_win_rate)"
                if os.path.basename(str(name)) == "progress.txt" and len(names) in (2, 3) else "")
        raise InputError(f"{name}: its first line is numbers ({shown}), not column names: a table "
                         f"without a header; add a header line naming the columns (step, reward, ...){hint}")


def _wandb_console(path: str) -> str | None:
    """The console output W&B saved for a run (``files/output.log``), when ``path`` is such a
    run's folder (``wandb/run-<time>-<id>``) or its ``files/``: the only text there that holds
    the printed training log (SB3's tables, a Trainer's dicts, verl's step lines)."""
    for folder in (path, os.path.join(path, "files")):
        output = os.path.join(folder, "output.log")
        if os.path.isfile(output) and any(os.path.isfile(os.path.join(folder, f)) for f in WANDB_RUN_FILES):
            return output
    return None


def _with_events_said(table: LogTable, path: str, format: str | None) -> LogTable:
    """``table`` (a folder's monitor files, read first) with a note naming the TensorBoard runs
    beside them, which hold the training's own metrics (SB3's ``tensorboard_log``: losses,
    ``rollout/ep_rew_mean``) and were not read.  A folder of both was read as its monitor files
    without a word about the rest."""
    if format is not None:
        return table
    events = tensorboard.event_files(path)
    if events:
        runs = sorted({os.path.relpath(os.path.dirname(file), path).replace(os.sep, "/") for file in events})
        shown = ", ".join(runs[:4]) + (f" and {len(runs) - 4} more" if len(runs) > 4 else "")
        table.notes.append(f"the monitor files were read; the TensorBoard event files beside them ({shown}) "
                           "were not: pass --input-format tensorboard (format='tensorboard') to read those")
    return table


def _lightning_versions(path: str) -> list:
    """The version_<n> folders of a Lightning log directory that hold a metrics.csv."""
    found = [d for d in os.listdir(path) if re.fullmatch(r"version_\d+", d)
             and os.path.isfile(os.path.join(path, d, "metrics.csv"))]
    return sorted(found, key=lambda d: int(d.split("_")[1]))


def _versions_as_runs(path: str, versions: list) -> LogTable:
    """lightning_logs/: each version_<n> is a run (a new fit() writes a new version)."""
    parts, empty, said = [], [], []
    for version in versions:
        table = _load(os.path.join(path, version, "metrics.csv"), "lightning-csv")
        said += [f"{version}: {note}" for note in table.notes]
        values = table.frame.drop(columns=[c for c in AXES if c in table.frame])
        if not np.isfinite(values.to_numpy(dtype=float)).any() and not table.notes:
            empty.append(version)  # every value empty: nothing to analyse, but say so
        parts.append(table.frame.assign(run=version))
    frame = runs_frame(parts)
    notes = [f"{len(versions)} version folder(s), one run each"] + said
    if empty:
        notes.append(f"{', '.join(empty)} logged no value (every metric empty)")
    return LogTable(frame, "lightning-csv", path, notes)


def _latest_checkpoint(path: str) -> tuple[str, int] | None:
    """(the newest ``checkpoint-N`` folder holding a trainer_state.json, how many there are) of
    a Hugging Face Trainer's output_dir; None when it has none."""
    found = [entry for entry in os.listdir(path) if re.fullmatch(r"checkpoint-\d+", entry)
             and os.path.isfile(os.path.join(path, entry, "trainer_state.json"))]
    if not found:
        return None
    return max(found, key=lambda entry: int(entry.split("-")[1])), len(found)


def _directory(path: str, format: str | None) -> LogTable:
    """A run folder read as a whole."""
    monitors = sb3.monitor_files(path)
    folders = sb3.monitor_folders(path) if format in (None, "monitor") else {}
    if format == "tensorboard" or (format is None and not monitors and not folders
                                   and tensorboard.event_files(path)):
        return tensorboard.read(path)
    if monitors and not folders and format in (None, "monitor"):
        return _with_events_said(sb3.read_monitor([read_path(file) for file in monitors], path), path, format)
    if folders:  # one run per subfolder (rl-baselines3-zoo's logs/ppo/CartPole-v1_1/0.monitor.csv)
        # monitor files beside those folders are runs too, told apart by time and environment
        # as in any folder: read alone, the folder's own files hid the subfolders' runs
        files = [("", file) for file in monitors] if format in (None, "monitor") else []
        files += [(folder, file) for folder, inside in folders.items() for file in inside]
        return _with_events_said(sb3.read_monitor([read_path(file) for _, file in files], path,
                                                  folders=[folder for folder, _ in files]), path, format)
    if format in (None, "mlflow") and mlflow.is_run_folder(path):
        return mlflow.read_run_folder(path)
    if format in (None, "pymarl-info", "sacred-metrics"):
        table = sacred.read_folder(path, format, _load)
        if table is not None:
            return table
    if format in (None, "torchrl-csv"):  # an experiment's scalars/, or a log_dir of experiments
        table = torchrl.read_folder(path)
        if table is not None:
            return table
    if format in (None, "d3rlpy-csv"):  # a run folder of epoch,step,value files, or d3rlpy_logs/
        table = d3rlpy.read_folder(path)
        if table is not None:
            return table
    if format in (None, "tensorboard-csv"):  # a folder of run-<run>-tag-<tag>.csv downloads
        table = tensorboard_csv.read_folder(path, _load)
        if table is not None:
            return table
    if format in (None, "marl-eval"):  # Mava's results/json/<algorithm>/<time>/metrics.json
        documents = marl_eval.documents_in(path)
        if documents:
            return marl_eval.read_documents(documents, path)
    if format in (None, "spinup-progress"):  # a Spinning Up run folder, or a data folder of runs
        table = spinup.read_folder(path, format, _load)
        if table is not None:
            return table
    if format in (None, "ray-result", "ray-progress"):  # a Tune experiment: a folder per trial
        table = ray_tune.read_experiment(path, _load)
        if table is not None:
            return table
    versions = _lightning_versions(path)
    if versions and format in (None, "lightning-csv"):
        return _versions_as_runs(path, versions)
    for file, kind in _DIRECTORY_FILES:
        candidate = os.path.join(path, file)
        if os.path.isfile(candidate) and (format is None or kind in (None, format)):
            return _load(candidate, format if format else kind)
    latest = _latest_checkpoint(path) if format in (None, "trainer-state") else None
    if latest is not None:  # a Trainer's output_dir while it trains: checkpoint-N folders only
        table = _load(os.path.join(path, latest[0], "trainer_state.json"), "trainer-state")
        table.notes.insert(0, f"read {latest[0]}/trainer_state.json, the latest of {latest[1]} checkpoint "
                              "folder(s): each holds the whole log history up to its step")
        return table
    console = _wandb_console(path) if format is None else None
    if console is not None:
        table = _load(console, None)
        table.notes.insert(0, f"read {os.path.relpath(console, path)}, the run's console output that W&B "
                              "saved (its wandb-summary.json holds each metric's last value only)")
        return table
    logs = [f for f in sorted(os.listdir(path)) if f.lower().endswith((".csv", ".tsv", ".jsonl", ".json"))
            and os.path.isfile(os.path.join(path, f)) and f not in ("params.json",) + WANDB_RUN_FILES]
    if len(logs) == 1:
        return _load(os.path.join(path, logs[0]), format)  # a run folder holding one log
    summary = os.path.join(path, WANDB_RUN_FILES[0])
    if os.path.isfile(summary):  # a W&B run's files/ without its console output
        payload = read_json_file(summary)
        refuse_summary(summary, payload if isinstance(payload, dict) else {"_wandb": None})
    listing = ", ".join(sorted(os.listdir(path))[:12]) or "(empty)"
    raise InputError(f"{path} is a directory with no log swarmstats recognises (contents: {listing}); "
                     "pass a log file, or --input-format")
