"""A log still being written: a last line cut off mid-row is left out, with a note.

A trainer appends a row at a time, and a reader that opens the file between two writes (or a
copy taken while it ran) sees the last row half written: ``-98.0,99,416.1\\n-6`` (a monitor
file cut in ``-61.0,62,416.9``) was read as an episode of reward -6; ``3,0.`` (``3,0.75``) as
0.0.  Every writer this package reads (SB3, pandas, the csv module, JSON Lines loggers) ends
each row with a newline, so a last line without one that is also visibly short - fewer fields
than the row before it, or a JSON line that does not parse - is a row not yet finished.  For
line-oriented text only (delimited rows, JSON Lines): a JSON document is parsed whole, and a
cut one is refused by its parser.

A last line with all its fields and no newline cannot be told from a complete row of a file
written without a final newline (``"\\n".join(rows)``): it is kept.

>>> data, note = without_unfinished_row(b"step,reward\\n0,0.5\\n1,0.6\\n2")
>>> data, note
(b'step,reward\\n0,0.5\\n1,0.6\\n', "the last line ('2') ends mid-row, as a log still being written does: left out")
>>> without_unfinished_row(b"step,reward\\n0,0.5\\n1,0.6")[1] is None  # complete, no newline
True
"""

from __future__ import annotations

import csv
import json
import os

#: bytes read from the end of a big file to find its last two lines
TAIL_BYTES = 65536
_SEPARATORS = (",", "\t", ";")


def without_unfinished_row(data: bytes, path: str | None = None) -> tuple[bytes, str | None]:
    """``data`` without its last line when that line is an unfinished row, and a note saying so
    (None when nothing was cut; the note names no file: the log's source is said beside it, and
    a reader of several files names the one).  ``path``: the file ``data`` is the first bytes
    of, when it is only the head of a big file - its end is read to decide, and the whole file
    when a row is cut.
    """
    whole = path is None or os.path.getsize(path) <= len(data)
    tail, size = (data, len(data)) if whole else _tail(path)
    if tail is None:
        return data, None
    start = unfinished_line_start(tail)
    if start is None:
        return data, None
    last = tail[start:].decode("utf-8", errors="replace").strip()
    shown = last if len(last) <= 40 else last[:37] + "..."
    note = f"the last line ({shown!r}) ends mid-row, as a log still being written does: left out"
    if whole:
        return data[:start], note
    with open(path, "rb") as handle:  # up to where the unfinished row began when the tail was read:
        full = handle.read(size - (len(tail) - start))  # a log that grew since is read as it was
    return full, note


def unfinished_line_start(data: bytes) -> int | None:
    """Where the last line of ``data`` begins when it is an unfinished row (see the module
    docstring); None when the data ends with a newline or its last line looks complete.

    >>> unfinished_line_start(b'{"step": 0}\\n{"step": 1, "rew')
    12
    >>> unfinished_line_start(b"a\\tb\\n1\\t2\\n3\\t"), unfinished_line_start(b"a\\tb\\n1\\t2\\n3")
    (None, 8)

    A carriage return ends a line as a newline does: a terminal's progress printed with ``\\r``
    (``print("\\rEpisode 3\\tAverage Score: 0.52", end="")``) is a line per update.

    >>> unfinished_line_start(b"\\rEpisode 1\\tScore: 0.5\\rEpisode 2\\tScore: 0.6") is None
    True
    >>> unfinished_line_start(b"a,b\\r\\n1,2\\r\\n3")   # Windows line ends
    10
    """
    if not data or data.endswith((b"\n", b"\r")):
        return None
    start = _line_start(data, len(data))
    last = data[start:]  # not stripped: a tab that ends it is an empty field
    if start == 0 or not last.strip():
        return None  # one line (a header alone is not cut), or trailing blanks
    end = start - 1 - (data[start - 2: start] == b"\r\n")  # where the line before ends
    previous = data[_line_start(data, end): end]
    if last.lstrip().startswith(b"{") or previous.lstrip().startswith(b"{"):
        try:
            json.loads(last)
        except ValueError:  # a JSON line cut short
            return start
        return None
    if last.count(b'"') % 2:
        return start  # cut inside a quoted field
    if not previous.strip() or previous.lstrip().startswith(b"#"):
        return None
    for separator in _SEPARATORS:
        before, after = _fields(previous, separator), _fields(last, separator)
        if before > 1 and after < before:
            return start
    return None


def _line_start(data: bytes, end: int) -> int:
    """Where the line holding ``data[end - 1]`` begins: after the last newline or carriage return before ``end``."""
    return max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1


def _fields(line: bytes, separator: str) -> int:
    """How many fields ``line`` holds, quotes respected (a comma inside quotes is not a separator)."""
    return len(next(csv.reader([line.decode("utf-8", errors="replace")], delimiter=separator), []))


def _tail(path: str) -> tuple[bytes | None, int]:
    """The last bytes of a big file and its size then; None for UTF-16 text (read whole and
    transcoded elsewhere: its bytes are not lines of ASCII)."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - TAIL_BYTES))
        tail = handle.read(size - handle.tell())
    if b"\x00" in tail:
        return None, size
    return tail, size
