"""Bytes and text to Python values, with limits: every way a hostile file can break a parser
becomes one :class:`InputError` naming the file (and the line or row).

What it guards against, and why each limit is where it is:

* **Not a regular file** - a FIFO blocks ``open()`` forever, a device never ends, a symlink
  loop is not "missing".  Only regular files (and directories, read as run folders) are read.
* **JSON nested too deeply** - Python's parser recurses and raises ``RecursionError`` near
  1,000 levels (so does flattening a little below that); no log nests more than a handful.
* **Integers longer than** :data:`MAX_INT_DIGITS` **digits** - Python refuses to convert
  them (CVE-2020-10735); a logged number that long is not a measurement.
* **Headers wider than** :data:`MAX_COLUMNS` **or repeating more than**
  :data:`MAX_REPEATED_NAMES` **names** - pandas renames duplicate column names in quadratic
  time (20,000 repeats: 7 s; a 600 KB line of commas: minutes), and a wide header costs
  superlinear time too.
* **UTF-16 text** (a byte-order mark) - Windows tools write it; it is transcoded, not called
  binary.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import stat

from ..errors import InputError
from .written_nan import json_constant

#: longest integer literal read; Python's own conversion limit is 4,300
MAX_INT_DIGITS = 400
#: widest header read (a W&B export of every logged key rarely has a few thousand)
MAX_COLUMNS = 20_000
#: most repeated column names read (each repeat costs pandas a rename)
MAX_REPEATED_NAMES = 1_000


def check_readable(path: str, *, directory_ok: bool = True) -> os.stat_result:
    """The ``stat`` of ``path`` if it is a regular file (or a directory), else one InputError:
    missing, a dangling symlink, a symlink loop, a FIFO or device, unreadable.

    >>> check_readable("/no/such/log.csv")
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: no such file: /no/such/log.csv
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(f"{path} is a symlink to a file that does not exist "
                             f"({os.readlink(path)})") from None
        raise InputError(f"no such file: {path}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{path} is a symlink loop, not a regular file") from None
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        if directory_ok:
            return info
        raise InputError(f"{path} is a directory; pass a log file")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "a device")
        raise InputError(f"{path} is {kind}, not a regular file: save the log to a file first "
                         "(or pipe it in as '-')")
    if not os.access(path, os.R_OK):
        raise InputError(f"cannot read {path}: permission denied")
    return info


def loads(name: str, text: str, *, line: int | None = None):
    """One JSON document, with the depth and integer limits; errors name the file and line.

    >>> loads("log.json", '{"step": 1, "r": [0.5]}')
    {'step': 1, 'r': [0.5]}
    >>> loads("log.json", "[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    swarmstats.io.decoding.BadJSON: log.json: JSON nested too deeply (hundreds of levels); is this a log?
    """
    where = f"{name}: line {line}" if line is not None else name
    # each integer through a Python hook cost ~0.3 us (a pymarl info.json holds thousands of
    # steps): the hook is only needed where a run of digits is long enough to refuse
    long_digits = _has_long_digits(text)
    try:
        if not long_digits:
            return json.loads(text, parse_constant=json_constant)
        return json.loads(text, parse_int=_integer, parse_constant=json_constant)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}: " if line is None else ""
        reason = f"not valid JSON ({at}{exc.msg})"
    except RecursionError:
        reason = "JSON nested too deeply (hundreds of levels); is this a log?"
    except _TooLong as exc:
        reason = f"a number with {exc.args[0]} digits (more than {MAX_INT_DIGITS}); is this a log?"
    raise BadJSON(f"{where}: {reason}", reason)


class BadJSON(InputError):
    """Text that is not a JSON document swarmstats reads; ``reason`` is the message without
    the file and line (a log follower reports it with its own line number)."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


class _TooLong(ValueError):
    pass


#: bytes with every ASCII digit made "1" and everything else "0": a run of digits longer than
#: an integer literal may be is then one byte search (a regular expression for it cost 5x the
#: parse of a 126 KB pymarl info.json; this costs a tenth of it)
_DIGITS_AS_ONES = bytes(0x31 if 0x30 <= b <= 0x39 else 0x30 for b in range(256))
_TOO_MANY_DIGITS = b"1" * (MAX_INT_DIGITS + 1)


def _has_long_digits(text: str) -> bool:
    """Does ``text`` hold a run of more than :data:`MAX_INT_DIGITS` digits (in a string it is
    harmless, but only an integer literal's run is refused: the parse's hook tells them apart)?"""
    if len(text) <= MAX_INT_DIGITS:
        return False
    data = text.encode("utf-8", "surrogatepass")
    return data.translate(_DIGITS_AS_ONES).find(_TOO_MANY_DIGITS) >= 0


def _integer(text: str):
    if len(text) > MAX_INT_DIGITS:
        raise _TooLong(len(text.lstrip("-")))
    return int(text)


def records_frame(name: str, records: list):
    """Records (dicts, perhaps nested) as a flat frame, nested keys joined with '/'."""
    import pandas as pd

    try:
        return pd.json_normalize(records, sep="/") if records else pd.DataFrame()
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply to flatten; is this a log?") from None


def check_header_width(name: str, first_line: bytes, sep: str) -> None:
    """Refuse, before pandas reads it, a header wider than :data:`MAX_COLUMNS` or repeating
    more than :data:`MAX_REPEATED_NAMES` names.

    >>> check_header_width("log.csv", b"step,reward", ",")
    >>> check_header_width("log.csv", b"a," * 5000, ",")
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: log.csv: the header repeats column names 4,999 times; is this a log?
    """
    fields = first_line.count(sep.encode()) + 1
    if fields > MAX_COLUMNS:
        raise InputError(f"{name}: the first line has {fields:,} columns (more than {MAX_COLUMNS:,}); "
                         "is this a log?")
    if fields > MAX_REPEATED_NAMES:
        names = [cell.strip() for cell in first_line.split(sep.encode())]
        repeats = len(names) - len(set(names))
        if repeats > MAX_REPEATED_NAMES:
            raise InputError(f"{name}: the header repeats column names {repeats:,} times; is this a log?")


#: the byte-order marks of UTF-16 text
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def is_utf16(data: bytes) -> bool:
    """Does ``data`` start with a UTF-16 byte-order mark and read as UTF-16 text after it?
    (The mark alone is two bytes any binary file may start with.)"""
    if not data.startswith(UTF16_BOMS):
        return False
    head = data[:4096]
    text = head[: len(head) - len(head) % 2].decode("utf-16", errors="replace")
    return all(ch.isprintable() or ch in "\t\r\n" for ch in text.lstrip("\ufeff"))


def utf16_to_utf8(name: str, data: bytes) -> bytes:
    """UTF-16 text (with its byte-order mark) as UTF-8 bytes.

    >>> utf16_to_utf8("log.csv", "step,r\\n0,1\\n".encode("utf-16"))
    b'step,r\\n0,1\\n'
    """
    try:
        return data.decode("utf-16").encode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} starts like UTF-16 text but is not (byte {exc.start})") from None
