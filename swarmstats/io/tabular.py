"""CSV / TSV / JSON Lines / JSON-list logs -> a pandas DataFrame.

Files are only read.  Every problem becomes one :class:`InputError` naming the
file and what is wrong (missing, a directory, binary, empty, header only,
malformed row, non-numeric cell ...).
"""

from __future__ import annotations

import codecs
import io
import os
import re
import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DivergedAtStart, InputError, NoValues
from .columnar import FORMATS as COLUMNAR_FORMATS
from .columnar import columnar_kind, read_columnar
from .decoding import (
    check_header_width,
    check_readable,
    is_utf16,
    loads,
    records_frame,
    utf16_to_utf8,
)
from .runs import RunKey, find_runs, normalise
from .unfinished import without_unfinished_row
from .written_nan import (
    NAN_TOKENS,
    column_floats,
    is_written,
    mark,
    mentions_nan,
    nonfinite_kind,
    tokens_mask,
)

FORMATS = ("csv", "tsv", "jsonl", "json", "parquet", "arrow")
#: step axes by name, finest first (compared with ``normalise``: no case, "_" for separators)
STEP_COLUMNS = ("step", "_step", "global_step", "trainer/global_step", "total_timesteps",
                "time/total_timesteps", "timesteps", "timestepssofar", "num_timesteps", "env_steps",
                "steps", "frames", "training_iteration", "iteration", "iterations", "time/iterations",
                "epoch", "episode", "episodes", "time/episodes", "train/episode")
TIME_COLUMNS = ("time", "timestamp", "_runtime", "t", "_timestamp", "wall_time")
RUN_COLUMNS = ("run", "seed", "run_id")
_STEP_NAMES = tuple(dict.fromkeys(normalise(c) for c in STEP_COLUMNS))
_TIME_NAMES = {normalise(c) for c in TIME_COLUMNS}
#: what is left out of the default metric selection, by name (normalised), and why
_BOOKKEEPING = (
    ("a counter", re.compile(r"(^|_)(n_updates|num_updates|updates|num_episodes|n_episodes|episodes?|"
                             r"steps_done|num_steps|total_steps|n_steps|total_timesteps|timesteps|"
                             r"num_input_tokens_seen|total_flos|iterations?|step|epoch)$")),
    ("a clock", re.compile(r"(^|_)(time|times|runtime|timestamp|elapsed|duration|walltime|clock|"
                           r"datetime|date|ms|secs|seconds)$")),
    ("throughput", re.compile(r"(fps|per_second|per_sec|_per_s|throughput|(^|_)it_s)$")),
    ("a schedule: learning rate or exploration",
     re.compile(r"(^|_)(lr|learning_rate|exploration_rate|epsilon|clip_range|clip_range_vf)$|(^|_)lr_")),
)
#: namespaces of how the machine ran, not what the model learned: verl's timing_s/,
#: timing_per_token_ms/ and perf/ (FLOP utilisation, memory, tokens), RLlib's timers/ (a real
#: verl log's timing_s/update_actor was called "not converged" and failed the gate); matched on
#: the name as written, so that a metric merely named "timing_error" stays a metric
_SYSTEM_NAMESPACE = re.compile(r"^(timing|timing_s|timing_ms|timing_per_token_ms|timers|perf)/", re.IGNORECASE)
SYSTEM_MEASUREMENT = "a system measurement: time, memory or hardware use"
MISSING_TOKENS = {"", "none", "null", "nan", "na", "n/a"}
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl",
               ".ndjson": "jsonl", ".json": "json", ".ipynb": "json"}


@dataclass(frozen=True)
class Columns:
    """Which columns are steps, times, runs and metrics.

    ``metrics`` are analysed by default; ``bookkeeping`` maps the numeric columns left out
    of that default (counters, clocks, throughput, schedules) to the reason.
    """

    step: str | None
    metrics: list
    ignored: list
    bookkeeping: dict = field(default_factory=dict)


def read_table(source, *, format: str | None = None) -> pd.DataFrame:
    """Read a log file (path, ``"-"`` for stdin, or a file-like object) into a DataFrame.

    The format is taken from ``format``, else the file extension, else the content.

    >>> frame = read_table(io.StringIO("# a comment\\nstep,reward\\n0,0.5\\n1,0.6\\n"))
    >>> frame.to_dict("list")
    {'step': [0, 1], 'reward': [0.5, 0.6]}
    """
    return read_searched_table(source, format=format, searched=False)


def read_searched_table(source, *, format: str | None, searched: bool) -> pd.DataFrame:
    """:func:`read_table`, told whether the caller already searched the whole file for a NUL
    byte (:func:`refuse_binary_file`, ~6 ms on 32 MB): ``read_log`` does before it sniffs."""
    if format is not None and format not in FORMATS:
        raise InputError(f"--input-format must be one of {', '.join(FORMATS)}, got {format!r}")
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) and source != "-" else None
    name, data = _read_head(path) if path is not None else read_source(source)
    if not data or data.isspace():
        raise InputError(f"{name} is empty")
    head = data[:HEAD_BYTES]
    kind = format if format in COLUMNAR_FORMATS else columnar_kind(head)
    if kind is not None:  # binary and self-describing: pyarrow reads it from the path or the bytes
        return read_columnar(name, path if path is not None else data, kind)
    refuse_binary(name, head)
    complete = path is None or len(data) < HEAD_BYTES
    if not complete and not searched:
        refuse_binary_file(path)
    head_text = decode_text(name, head, final=complete)
    if format is None:
        format = sniff_layout(name, head_text)
    unfinished = None
    if format != "json":
        cut, unfinished = without_unfinished_row(name, data, None if complete else path)
        if unfinished is not None:  # the rows read are all there is to read now
            data, complete = cut, True
    if format in ("csv", "tsv"):
        sep = "\t" if format == "tsv" else ","
        frame = _read_delimited_path(name, path, head, sep) if path is not None and not complete else None
        if frame is None:
            data = data if complete else read_source(source)[1]
            frame = _read_delimited(name, data, sep)
    elif format == "jsonl":
        data = data if complete else read_source(source)[1]
        frame = _read_json_lines(name, decode_text(name, data))
    else:
        data = data if complete else read_source(source)[1]
        frame = _read_json(name, decode_text(name, data))
    if frame.shape[1] == 0:
        raise InputError(f"{name} has no columns")
    if len(frame) == 0:
        raise InputError(f"{name} has a header but no data rows")
    frame.attrs["source"] = name
    frame.attrs["format"] = format
    if unfinished is not None:
        frame.attrs["notes"] = [unfinished]
    return frame


#: bytes read from a path before deciding how to parse it
HEAD_BYTES = 65536


def _read_head(path: str) -> tuple[str, bytes]:
    return read_path(path, HEAD_BYTES)


def read_path(path: str, limit: int | None = None) -> tuple[str, bytes]:
    """The bytes of a file (the first ``limit`` of them), or one clear InputError.  UTF-16
    text is returned as UTF-8 (then the whole file is read: it cannot be cut mid-character)."""
    check_readable(path, directory_ok=False)
    try:
        with open(path, "rb") as handle:
            data = handle.read() if limit is None else handle.read(limit)
            if is_utf16(data) and limit is not None:
                data += handle.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if is_utf16(data):
        data = utf16_to_utf8(path, data)
    refuse_lfs_pointer(path, data)
    return path, data


def refuse_binary(name: str, data: bytes) -> None:
    """A NUL byte anywhere in what was read (not only the first 8 KiB): not a text log."""
    _refuse_nul_at(name, data.find(b"\x00"))


def refuse_binary_file(path: str) -> None:
    """The NUL check over a whole file, through a memory map (a byte search runs at memory
    speed: ~10 ms for 32 MB), so a big file that pandas parses from its path is checked too."""
    import mmap

    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            where = -1 if is_utf16(view[:4096]) else view.find(b"\x00")  # UTF-16 is transcoded
    except (OSError, ValueError):
        return  # an empty or unmappable file: the readers say what is wrong with it
    _refuse_nul_at(path, where)


def _refuse_nul_at(name: str, where: int) -> None:
    if where >= 0:
        raise InputError(f"{name} does not look like a text log (it contains binary data: a NUL "
                         f"byte at offset {where:,})")


#: how a Git LFS pointer file begins (the repository holds this instead of the file)
LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def refuse_lfs_pointer(name: str, head: bytes) -> None:
    """A Git LFS pointer is not the log: say so, and how to fetch the real file."""
    if head.lstrip().startswith(LFS_POINTER):
        raise InputError(f"{name} is a Git LFS pointer, not the log itself (the repository stores "
                         "the file in LFS): run 'git lfs pull' to fetch it")


def _read_delimited_path(name: str, path: str, head: bytes, sep: str):
    """A big delimited file parsed by pandas straight from its path (its parallel reader, no
    copy in memory).  None when the file needs the careful path: '#' comment lines (seen as
    a first field starting with '#'), a BOM or a ';' separator."""
    if head.startswith(codecs.BOM_UTF8) or head.lstrip().startswith(b"#") or b"\n" not in head:
        return None  # (a header longer than the head is checked whole on the careful path)
    first_line = head[: head.find(b"\n") if b"\n" in head else len(head)]
    check_header_width(name, first_line, sep)
    if sep == "," and b";" in first_line and b"," not in first_line:
        return None
    try:
        frame = parse_delimited(name, path, sep)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError, InputError):
        return None  # the careful path gives the precise message
    first = frame.iloc[:, 0] if frame.shape[1] else None
    if first is not None and first.dtype == object and first.astype(str).str.lstrip().str.startswith("#").any():
        return None
    frame.columns = [str(c).strip() for c in frame.columns]
    return _with_written_nan(frame, path, sep, lambda: _file_mentions_nan(path))


class BytesSource:
    """Bytes already read, offered again as a file (standard input can be read only once)."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data = name, data

    def read(self):
        return self._data


def decode_text(name: str, data: bytes, final: bool = True) -> str:
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        return decoder.decode(data, final=final)
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 text (byte {exc.start}); is it a binary file?") from None


def read_source(source) -> tuple[str, bytes]:
    if not isinstance(source, (str, bytes, os.PathLike)) and source is not sys.stdin and not hasattr(source, "read"):
        # an array or a list of values reached a reader: say so, rather than numpy's "truth
        # value of an array is ambiguous" from the comparison below
        raise InputError(f"expected a file path, '-' for stdin or an open file, got {type(source).__name__}"
                         " (values in memory go to the analysis functions directly: "
                         "check_convergence(values), describe(values) ...)")
    if isinstance(source, str) and source == "-" or source is sys.stdin:
        data = sys.stdin.buffer.read()
        return "<stdin>", utf16_to_utf8("<stdin>", data) if is_utf16(data) else data
    if hasattr(source, "read"):
        data = source.read()
        name = getattr(source, "name", "<stream>")
        data = data.encode() if isinstance(data, str) else data
        return name, utf16_to_utf8(name, data) if is_utf16(data) else data
    return read_path(os.fspath(source))


def sniff_layout(name: str, text: str) -> str:
    """How the text of ``name`` is laid out: "csv", "tsv", "jsonl" or "json" (one document).

    >>> sniff_layout("metrics.json", '{"step": 1, "r": 0.5}' + chr(10) + '{"step": 2, "r": 0.6}')
    'jsonl'
    >>> sniff_layout("trainer_state.json", '{' + chr(10) + '  "log_history": []' + chr(10) + '}')
    'json'
    """
    extension = os.path.splitext(name)[1].lower()
    lines = (line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    if extension == ".json":
        # JSON Lines named .json (detectron2's metrics.json, mmdetection's .log.json): two lines
        # that are each an object; a document spreads its first object over lines, or has one
        head = [line for _, line in zip(range(2), lines)]
        one_object_each = len(head) == 2 and all(line.startswith("{") and line.endswith("}") for line in head)
        return "jsonl" if one_object_each else "json"
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension]
    first = next(lines, "")
    if first.startswith("["):
        return "json"
    if first.startswith("{"):
        return "jsonl"
    return "tsv" if "\t" in first and "," not in first else "csv"


def _has_comment_lines(data: bytes) -> bool:
    """Does any line start with '#' (after blanks)?  A one-byte search first: most logs have no '#'."""
    if b"#" not in data:
        return False
    raw = np.frombuffer(data, dtype=np.uint8)
    starts = np.concatenate([[0], np.flatnonzero(raw == ord("\n")) + 1])
    starts = starts[starts < len(raw)]
    for _ in range(64):  # step over leading blanks (bounded: deeper indents are not comments)
        blank = (raw[starts] == ord(" ")) | (raw[starts] == ord("\t"))
        if not blank.any():
            break
        starts = np.minimum(np.where(blank, starts + 1, starts), len(raw) - 1)
    return bool((raw[starts] == ord("#")).any())


def _read_delimited(name: str, data: bytes, sep: str) -> pd.DataFrame:
    # Only whole lines starting with '#' are comments (pandas' comment= would
    # also cut a '#' inside a field).  Fast path: no comment line, and pandas'
    # C parser reads the bytes without a decoded copy.
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    first_line = data[: data.find(b"\n") if b"\n" in data else len(data)]
    if sep == "," and b";" in first_line and b"," not in first_line:
        sep = ";"  # European-locale CSV
    check_header_width(name, first_line, sep)
    source = io.BytesIO(data)  # the bytes read (a path may hold UTF-16, transcoded in data)
    if _has_comment_lines(data):
        data = b"\n".join(line for line in data.splitlines() if not line.lstrip().startswith(b"#"))
        if not data.strip():
            raise InputError(f"{name} has only comment lines")
        source = io.BytesIO(data)
    try:
        # UTF-8: the BOM is cut above ("utf-8-sig" decoding cost ~40 us on a small file)
        frame = parse_delimited(name, source, sep)
    except pd.errors.EmptyDataError:
        raise InputError(f"{name} is empty") from None
    except pd.errors.ParserError as exc:
        message = str(exc).strip().splitlines()[-1]
        raise InputError(f"{name}: malformed row: {message}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 text (byte {exc.start}); is it a binary file?") from None
    names = frame.columns.tolist()
    stripped = [str(c).strip() for c in names]
    if stripped != names:  # setting the columns rebuilds pandas' index: ~35 us, only when needed
        frame.columns = stripped
    if not mentions_nan(data, data.find(b"\n") + 1):  # the common log: a byte search, and nothing more
        return frame
    return _with_written_nan(frame, source, sep, lambda: True)


def parse_delimited(name: str, source, sep: str = ",") -> pd.DataFrame:
    """pandas' parse of a delimited log.  Never with the first column as the index: a row ending
    in a separator ("0,0.3,") has one field more than the header, and pandas would then take
    the steps as the index and shift every column one place left - 'step' read the losses and
    the last metric was empty.  A row whose extra field holds a value is an error (pandas would
    drop the value with a warning)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        frame = pd.read_csv(source, sep=sep, skip_blank_lines=True, index_col=False,
                            na_values=["None", "null", "NULL"], keep_default_na=True)
    if any(issubclass(w.category, pd.errors.ParserWarning) and "does not match" in str(w.message)
           for w in caught):
        raise InputError(f"{name}: malformed rows: the rows hold more fields than the header names "
                         f"({frame.shape[1]}); a column without a name in the header?")
    return frame


def _with_written_nan(frame: pd.DataFrame, source, sep: str, mentions) -> pd.DataFrame:
    """``frame`` with the NaN cells the file wrote as a token (``nan``, ``NaN``) marked as
    written (:mod:`.written_nan`), in the columns whose last value is NaN: only there can a
    written NaN end a metric, the sign of a run that diverged.  ``mentions()`` says whether
    the file could hold such a token at all (asked once such columns are found: for a big
    file it is a pass over its bytes); the cells are read again, as text, only then."""
    if frame.empty:
        return frame
    last = frame.iloc[-1]
    candidates = [i for i, dtype in enumerate(frame.dtypes.tolist())
                  if isinstance(dtype, np.dtype) and dtype.kind == "f" and np.isnan(last.iloc[i])]
    if not candidates or not mentions():
        return frame
    if hasattr(source, "seek"):
        source.seek(0)
    cells = pd.read_csv(source, sep=sep, usecols=candidates, dtype=str, na_filter=False,
                        skip_blank_lines=True, index_col=False)
    if len(cells) != len(frame):
        return frame  # (the two reads always agree on the rows; never mark a wrong one)
    for position, column in zip(candidates, range(cells.shape[1])):
        written = tokens_mask(cells.iloc[:, column].to_numpy())
        if written.any():
            frame.isetitem(position, mark(frame.iloc[:, position].to_numpy(), written))
    return frame


def _file_mentions_nan(path: str) -> bool:
    """:func:`.written_nan.mentions_nan` of a big file, searched in place."""
    import mmap

    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return mentions_nan(data, data.find(b"\n") + 1)


def _read_json_lines(name: str, text: str) -> pd.DataFrame:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        # (a last line cut off mid-row was left out before: see .unfinished)
        record = loads(name, stripped, line=number)
        if not isinstance(record, dict):
            raise InputError(f"{name}: line {number} is not a JSON object")
        records.append(record)
    return records_frame(name, records)


def parse_json(name: str, text: str):
    """The JSON document in ``text``, or an InputError naming the file and the line."""
    return loads(name, text)


def read_json_file(path: str):
    """The JSON document in the file at ``path`` (read whole), or one InputError."""
    name, data = read_path(path)
    return parse_json(name, decode_text(name, data))


def _read_json(name: str, text: str) -> pd.DataFrame:
    payload = parse_json(name, text)
    if isinstance(payload, dict):
        # A dict holding one list of records (e.g. {"log_history": [...]}) is accepted.
        lists = [v for v in payload.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if len(lists) != 1:
            raise InputError(f"{name}: expected a JSON list of records")
        payload = lists[0]
    if not isinstance(payload, list) or not all(isinstance(r, dict) for r in payload):
        raise InputError(f"{name}: expected a JSON list of records (objects)")
    return records_frame(name, payload)


def classify_columns(frame: pd.DataFrame, *, step: str | None = None,
                     group: str | None = None, runs=()) -> Columns:
    """Split columns into the step axis, metric columns, bookkeeping and the rest.

    Step, time and run columns (by name, and ``runs``) are never metrics; nor are
    non-numeric columns or an unnamed saved index.  Counters (monotone integer columns),
    clocks, throughput and learning-rate or exploration schedules are ``bookkeeping``:
    numeric, but not analysed unless named.

    >>> frame = pd.DataFrame({"total timesteps": [0, 8, 16, 24, 32], "fps": [90, 88, 91, 87, 90],
    ...                       "ep_rew_mean": [0.1, 0.3, 0.2, 0.5, 0.4]})
    >>> columns = classify_columns(frame)
    >>> columns.step, columns.metrics, columns.bookkeeping
    ('total timesteps', ['ep_rew_mean'], {'fps': 'throughput'})
    """
    for label, column in (("--step", step), ("--group", group)):
        if column is not None and column not in frame.columns:
            raise InputError(f"{label}: no column {column!r}; columns are {_listing(frame.columns)}")
    if step is None:
        step = find_step(frame, exclude={group, *runs})
    reserved = {step, group, *runs}
    metrics, ignored, bookkeeping = [], [], {}
    for column in frame.columns:
        name = normalise(column)
        if column in reserved or name in RUN_COLUMNS or str(column).startswith("Unnamed:"):
            ignored.append(column)
        elif not _is_numeric_column(frame[column]):
            if _only_written_nan(frame[column]):  # named with -m, it is judged (and said) as diverged
                bookkeeping[column] = "NaN in every row, as written: a run that diverged before logging a value"
            else:
                ignored.append(column)
        elif name in _STEP_NAMES and _is_axis(frame[column]):
            bookkeeping[column] = "another step axis"
        elif name in _TIME_NAMES:
            bookkeeping[column] = "a clock"
        elif (why := _bookkeeping(name, frame[column], column)) is not None:
            bookkeeping[column] = why
        else:
            metrics.append(column)
    return Columns(step=step, metrics=metrics, ignored=ignored, bookkeeping=bookkeeping)


def table_roles(frame: pd.DataFrame, *, step: str | None = None,
                group: str | None = None) -> tuple[Columns, RunKey]:
    """The columns' roles and the run key together (the key's columns are never metrics;
    an explicit ``group`` column is the key)."""
    if step is not None and step not in frame.columns:
        raise InputError(f"--step: no column {step!r}; columns are {_listing(frame.columns)}")
    if step is not None:
        _refuse_boolean_steps(frame[step], step)
    axis = step if step is not None else find_step(frame, exclude={group})
    key = find_runs(frame, step=axis, exclude={group}) if group is None else find_runs(
        frame[[group]].rename(columns={group: "run"}))
    if step is not None and group is None and not key.columns:
        # one table whose only runs would be its axis starting again (runs told apart by a
        # column may interleave their rows)
        _refuse_backward_steps(frame[step], step)
    runs = (group,) if group is not None else key.columns
    return classify_columns(frame, step=axis, group=group, runs=runs), key


def _refuse_boolean_steps(steps: pd.Series, name) -> None:
    """A column of True/False is no step axis: each False after a True read as a run starting
    again (150 "runs" of one or two points from a flag column given as --step)."""
    if pd.api.types.is_bool_dtype(steps.dtype):
        raise InputError(f"the step column {name!r} holds True/False, not steps; choose a column of "
                         "step numbers (or none: the row number is then the step)")


def _refuse_backward_steps(steps: pd.Series, name) -> None:
    """A step column named with --step that goes down more often than up is no axis running
    forward (a log written newest first, a countdown, a metric named by mistake): each drop
    would start a "run" - 300 one-point runs from a reversed log."""
    numbers = pd.to_numeric(steps, errors="coerce").to_numpy(dtype=float)
    moves = np.diff(numbers[np.isfinite(numbers)])
    drops, rises = int((moves < 0).sum()), int((moves > 0).sum())
    if drops > rises:
        raise InputError(f"--step: the column {name!r} goes down at {drops:,} of its {len(moves):,} "
                         "moves, so it is no step axis running forward (a log written newest first, "
                         "a countdown?); sort the log by it, or choose another step column")


def find_step(frame: pd.DataFrame, exclude=()) -> str | None:
    """The step axis: the finest column named like one (``total timesteps``, ``global_step``,
    ``epoch``, ``episode`` ...), compared without case or separators, and shaped like one:
    numbers that never go down except where a new run starts (a few drops)."""
    named = step_names([c for c in frame.columns if c not in exclude])
    return next((column for column in named if _is_axis(frame[column])), None)


def step_names(keys) -> list:
    """The keys named like a step axis, finest first (no case or separators compared).

    >>> step_names(["reward", "epoch", "Total Timesteps"])
    ['Total Timesteps', 'epoch']
    """
    by_name = {}
    for key in keys:
        by_name.setdefault(normalise(key), key)
    return [by_name[name] for name in _STEP_NAMES if name in by_name]


def is_bookkeeping_name(name) -> bool:
    """Named like a step axis, a clock, a counter, throughput or a schedule: for streams,
    where a column's shape is not known yet (the table rule adds the counter shape)."""
    if _SYSTEM_NAMESPACE.match(str(name)):
        return True
    name = normalise(name)
    return (name in _STEP_NAMES or name in _TIME_NAMES
            or any(pattern.search(name) for _, pattern in _BOOKKEEPING))


def _present_numbers(column: pd.Series) -> np.ndarray:
    """The column's values as floats, cells that are not numbers left out."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=float, na_value=np.nan)  # no conversion pass at 10^6 rows
    else:
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    missing = np.isnan(values)
    return values[~missing] if missing.any() else values


def _is_axis(column: pd.Series, values: np.ndarray | None = None) -> bool:
    values = _present_numbers(column) if values is None else values
    if len(values) < 2:
        return len(values) == len(column)
    drops = np.diff(values) < 0
    return bool(drops.sum() <= max(1, 0.02 * len(values)))


def _bookkeeping(name: str, column: pd.Series, raw=None) -> str | None:
    if _SYSTEM_NAMESPACE.match(str(raw)):
        return SYSTEM_MEASUREMENT
    for why, pattern in _BOOKKEEPING:
        if pattern.search(name):
            return why
    return "a counter" if _is_counter(column) else None


def _is_counter(column: pd.Series) -> bool:
    """Integer values that go up at (nearly) every row: a count of something done so far,
    shaped like a step axis (a few drops where a new run starts)."""
    values = _present_numbers(column)
    if len(values) < 5 or not np.all(values[:1000] == np.round(values[:1000])):
        return False  # most metrics show a fraction in their first rows: no pass over them all
    if not np.all(values == np.round(values)):
        return False
    return bool(np.mean(np.diff(values) > 0) >= 0.9 and _is_axis(column, values))


def _only_written_nan(column: pd.Series) -> bool:
    """Is every value of this column that holds no number a NaN the log wrote (and one at least)?"""
    floats = column_floats(column)
    if floats is not None:
        return bool(is_written(floats).any())
    words = column.dropna().astype(str).str.strip().str.lower()
    return bool(words.isin(NAN_TOKENS).any())


def _is_numeric_column(column: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(column):
        return False
    if pd.api.types.is_numeric_dtype(column):
        return bool(column.notna().any())
    present = column.dropna().astype(str).str.strip()
    present = present[~present.str.lower().isin(MISSING_TOKENS)]
    if present.empty:
        return False
    converted = pd.to_numeric(present, errors="coerce")
    return bool(converted.notna().mean() > 0.5)


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
        raise InputError(f"no metric {metric!r}; available: {_listing(classify_columns(frame).metrics)}")
    column = frame[metric]
    if pd.api.types.is_bool_dtype(column):
        raise InputError(f"column {metric!r} holds booleans, not a metric")
    if not pd.api.types.is_numeric_dtype(column):
        text = column.astype(str).str.strip()
        missing = column.isna() | text.str.lower().isin(MISSING_TOKENS)
        converted = pd.to_numeric(text.where(~missing), errors="coerce")
        bad = converted.isna() & ~missing
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(f"column {metric!r} has a non-numeric value {column.iloc[row]!r} "
                             f"(data row {row + 1})")
        written = tokens_mask(text.to_numpy()) & missing.to_numpy()  # "nan" as text: written
        column = pd.Series(mark(converted.to_numpy(dtype=float), written), index=converted.index)
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
        _refuse_boolean_steps(steps, step)
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
                     "steps": steps, "at_end": bool(skipped[finite[-1]:].any())}


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


def _listing(columns) -> str:
    columns = list(columns)
    return ", ".join(map(str, columns[:20])) + (" ..." if len(columns) > 20 else "") or "(none)"
