"""Parquet and Arrow (IPC / Feather) files: recognised by their magic bytes, read by pyarrow.

Both are binary, so the text readers refused them as "binary data".  They carry their own
column names and types, so nothing is sniffed inside them: the table is handed on as a frame,
and the log formats recognise it by its header as they would a CSV's (a Parquet export of an
SB3 progress table is read as one).  pyarrow is an optional dependency (``pip install
"swarmstats[arrow]"``); without it the error says so.
"""

from __future__ import annotations

import os

import pandas as pd

from ..errors import InputError, require

#: the columnar formats and the bytes their files begin with
MAGIC = {
    "parquet": (b"PAR1",),
    # the Arrow IPC file format, Feather v1, and the IPC stream format (a continuation marker)
    "arrow": (b"ARROW1", b"FEA1", b"\xff\xff\xff\xff"),
}
FORMATS = tuple(MAGIC)


def columnar_kind(head: bytes) -> str | None:
    """"parquet" or "arrow" when ``head`` (a file's first bytes) starts like one, else None.

    >>> columnar_kind(b"PAR1\\x15\\x04"), columnar_kind(b"step,reward\\n")
    ('parquet', None)
    """
    for kind, prefixes in MAGIC.items():
        if head.startswith(prefixes):
            return kind
    return None


def read_columnar(name: str, source, kind: str) -> pd.DataFrame:
    """The table in a Parquet or Arrow file (``source``: a path, or the file's bytes)."""
    require("pyarrow", "arrow", f"reading {'Parquet' if kind == 'parquet' else 'Arrow'} files")
    import pyarrow as pa

    where = os.fspath(source) if isinstance(source, (str, os.PathLike)) else pa.BufferReader(source)
    try:
        table = _parquet(where) if kind == "parquet" else _arrow(where, source)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name} is not a readable {'Parquet' if kind == 'parquet' else 'Arrow'} "
                         f"file ({reason})") from None
    if table.num_columns == 0:
        raise InputError(f"{name} has no columns")
    if table.num_rows == 0:
        raise InputError(f"{name} has a header but no data rows")
    frame = table.to_pandas()
    frame.columns = [str(column) for column in frame.columns]
    frame.attrs["format"] = kind
    return frame


def _parquet(where):
    import pyarrow.parquet as pq

    return pq.read_table(where)


def _arrow(where, source):
    import pyarrow as pa
    import pyarrow.feather as feather

    head = _head(source)
    if head.startswith(b"\xff\xff\xff\xff"):  # the IPC stream format
        with pa.ipc.open_stream(where) as reader:
            return reader.read_all()
    return feather.read_table(where)  # the IPC file format, and Feather v1


def _head(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:8])
    with open(os.fspath(source), "rb") as handle:
        return handle.read(8)
