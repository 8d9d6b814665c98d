"""A log compressed whole (``progress.csv.gz``, ``metrics.jsonl.xz``, ``trainer_state.json.bz2``)
read as the log it holds, and archives refused with what to do.

Logs are compressed to be kept and shared (a long run's JSON Lines, a dataset of runs); such
a file was refused as "binary data: a NUL byte at offset 8".  It is decompressed in memory, by
its magic bytes (not its name), and read under its name without the compression suffix, so
``monitor.csv.gz`` is sniffed as ``monitor.csv`` would be.  A tar or zip archive holds several
files: which of them is the log is not ours to guess.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

from ..errors import InputError

#: how many bytes a compressed log may hold once decompressed (a bomb of zeros stops here)
MAX_BYTES = 4 * 2**30
_KINDS = ((b"\x1f\x8b", "gzip", gzip.open), (b"BZh", "bzip2", bz2.open), (b"\xfd7zXZ\x00", "xz", lzma.open))
_SUFFIXES = (".gz", ".gzip", ".bz2", ".xz", ".tgz")
_ZIP = b"PK\x03\x04"


def compression_of(head: bytes) -> str | None:
    """The compression whose magic bytes ``head`` starts with ("gzip", "bzip2", "xz"), or None.

    >>> compression_of(gzip.compress(b"step,r\\n0,1\\n")), compression_of(b"step,r\\n")
    ('gzip', None)
    """
    found = next((kind for magic, kind, _ in _KINDS if head.startswith(magic)), None)
    if found == "bzip2" and not head[3:4].isdigit():  # "BZh" and a block size 1-9; else text
        return None
    return found


def refuse_archive(name: str, head: bytes) -> None:
    """A zip archive is refused with what to do (its files are not one log)."""
    if head.startswith(_ZIP):
        raise InputError(f"{name} is a zip archive: extract the log from it first (unzip), then pass the log "
                         "or its folder")


def decompressed(name: str, data: bytes, source) -> tuple[str, bytes]:
    """(the name without its compression suffix, the bytes the file holds) of a compressed
    log, ``data`` being its first bytes and ``source`` where the rest is (a path, or the
    bytes themselves); one clear InputError for a broken or archived one.

    >>> decompressed("logs/progress.csv.gz", gzip.compress(b"step,r\\n0,1\\n"), None)
    ('logs/progress.csv', b'step,r\\n0,1\\n')
    """
    kind = compression_of(data)
    opener = next(opener for _, name_, opener in _KINDS if name_ == kind)
    inner = _inner_name(name)
    try:
        if isinstance(source, (str, os.PathLike)) and source != "-":
            with opener(os.fspath(source), "rb") as handle:
                out = handle.read(MAX_BYTES + 1)
        else:
            import io

            with opener(io.BytesIO(data), "rb") as handle:
                out = handle.read(MAX_BYTES + 1)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise InputError(f"{name}: a {kind}-compressed file that cannot be decompressed ({exc})") from None
    if len(out) > MAX_BYTES:
        raise InputError(f"{name}: decompressed, it holds more than {MAX_BYTES // 2**30} GiB; decompress it "
                         "and pass the log itself")
    if len(out) > 262 and out[257:262] == b"ustar":
        raise InputError(f"{name} is a tar archive: extract the log from it first (tar -xf), then pass the "
                         "log or its folder")
    return inner, out


def _inner_name(name: str) -> str:
    """``name`` without its compression suffix (``.tgz`` is a ``.tar``)."""
    lower = name.lower()
    for suffix in _SUFFIXES:
        if lower.endswith(suffix):
            return name[: -len(suffix)] + (".tar" if suffix == ".tgz" else "")
    return name
