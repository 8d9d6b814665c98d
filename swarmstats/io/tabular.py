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

import numpy as np
import pandas as pd

from ..errors import InputError
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
from .unfinished import without_unfinished_row
from .written_nan import (
    mark,
    mentions_nan,
    tokens_mask,
)

FORMATS = ("csv", "tsv", "jsonl", "json", "parquet", "arrow")
#: a line's text: a run of characters that are no line break (the breaks of ``str.splitlines``)
_LINE_TEXT = re.compile("[^\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl",
               ".ndjson": "jsonl", ".json": "json", ".ipynb": "json"}


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
        cut, unfinished = without_unfinished_row(data, None if complete else path)
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
    names = frame.columns.tolist()
    stripped = [str(c).strip() for c in names]
    if stripped != names:  # setting the columns rebuilds pandas' index: ~35 us, only when needed
        frame.columns = stripped
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
    # the lines are found one at a time: at most two are read, and splitting a 64 KiB head whole
    # cost ~15 us, the most of any sniff of a small CSV (a blank line has no run of non-breaks)
    lines = (line for found in _LINE_TEXT.finditer(text)
             if (line := found.group().strip()) and not line.startswith("#"))
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
    if mentions_nan(data, data.find(b"\n") + 1):  # (the common log: a byte search, and nothing more)
        frame = _with_written_nan(frame, source, sep, lambda: True)
    frame.attrs["separator"] = sep  # a ';' file's "0,42" is a decimal comma (see .text_numbers)
    return frame


#: the most bytes pandas parses in one pass: below it, the chunks it parses to bound its memory
#: only cost time (joined column by column: ~150-200 us of a 30-110 KB export's ~1.1 ms), and a
#: column's type is inferred from all of it at once rather than chunk by chunk
ONE_PASS_BYTES = 1_000_000


def _size(source) -> int:
    """The bytes of a path or of an in-memory file (the largest int for anything else)."""
    if isinstance(source, io.BytesIO):
        return source.getbuffer().nbytes
    if isinstance(source, (str, os.PathLike)):
        try:
            return os.path.getsize(source)
        except OSError:
            return sys.maxsize  # (pandas gives the message)
    return sys.maxsize


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
                            na_values=["None", "null", "NULL"], keep_default_na=True,
                            low_memory=_size(source) > ONE_PASS_BYTES)
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
    last = frame.iloc[-1].to_numpy()  # (a Series' iloc per column cost ~5 us: 0.3 ms on 70 columns)
    candidates = [i for i, dtype in enumerate(frame.dtypes.tolist())
                  if isinstance(dtype, np.dtype) and dtype.kind == "f" and np.isnan(last[i])]
    if not candidates or not mentions():
        return frame
    if hasattr(source, "seek"):
        source.seek(0)
    cells = pd.read_csv(source, sep=sep, usecols=candidates, dtype=str, na_filter=False,
                        skip_blank_lines=True, index_col=False, low_memory=_size(source) > ONE_PASS_BYTES)
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


#: what W&B keeps in a run's files/ folder beside the console output (output.log): a summary of
#: each metric's last value and metadata, never the series (that is in the binary run-<id>.wandb)
WANDB_RUN_FILES = ("wandb-summary.json", "wandb-metadata.json")


def refuse_summary(name: str, payload: dict) -> None:
    """A W&B run summary (``wandb-summary.json``: each metric's last value, ``_step``,
    ``_runtime``, ``_wandb``) is no series: say so, and where the series is."""
    if "_wandb" in payload or os.path.basename(name) == WANDB_RUN_FILES[0] or {"_step", "_runtime"} <= set(payload):
        raise InputError(f"{name} is a W&B run summary: each metric's last value (at _step "
                         f"{payload.get('_step', '?')}), not the series. Export the run's history instead - "
                         "run.history() or run.scan_history() with W&B's API, or the CSV of a chart on "
                         "the run's page - and read that")


#: the summaries a Hugging Face Trainer's example scripts save beside its output (trainer.save_metrics)
TRAINER_RESULTS_FILES = ("all_results.json", "train_results.json", "eval_results.json",
                         "test_results.json", "predict_results.json")


def refuse_results_summary(name: str, payload: dict) -> None:
    """A JSON object of one value per key is a run's final values, no series: a Hugging Face
    Trainer's ``all_results.json`` (``trainer.save_metrics``) said so, with the file that holds
    every logged step; any other such object said to be a summary (it read "expected a JSON list
    of records")."""
    if not payload or any(isinstance(value, (list, dict)) for value in payload.values()):
        return
    shown = ", ".join(f"{key}={str(value)[:24]}" for key, value in list(payload.items())[:4])
    shown += ", ..." if len(payload) > 4 else ""
    if os.path.basename(name) in TRAINER_RESULTS_FILES or {"train_runtime", "eval_runtime"} & set(payload):
        raise InputError(f"{name} is a Hugging Face Trainer's results summary, each metric's final value "
                         f"({shown}), not a series; read the trainer_state.json in its output_dir (or in the "
                         "latest checkpoint-N folder): its log_history holds every logged step")
    raise InputError(f"{name} holds one value per key ({shown}), not a series of records (a run's summary "
                     "or configuration?); read the log its values were taken from")


def _read_json(name: str, text: str) -> pd.DataFrame:
    payload = parse_json(name, text)
    if isinstance(payload, dict):
        # A dict holding one list of records (e.g. {"log_history": [...]}) is accepted.
        lists = [v for v in payload.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if len(lists) != 1:
            refuse_summary(name, payload)
            refuse_results_summary(name, payload)
            raise InputError(f"{name}: expected a JSON list of records")
        payload = lists[0]
    if not isinstance(payload, list) or not all(isinstance(r, dict) for r in payload):
        raise InputError(f"{name}: expected a JSON list of records (objects)")
    return records_frame(name, payload)
