"""Output files are written whole or not at all, never onto an input, with an honest extension.

A report or a plot is first written to a temporary file beside its target and renamed into
place only once it is complete: a run that fails half-way leaves an existing file as it was
(opening the target first, as ``open(path, "w")`` does, empties it before anything can go
wrong).  The rename replaces a symlink at the target rather than writing through it into
whatever it points at.  An output path that is, or resolves to, one of the inputs is refused
before any work is done: ``swarmstats report log.csv -o log.csv`` would replace the log.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import InputError

#: image formats matplotlib writes (``--plot``)
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg")
#: what ``report`` writes: the page, or one image of the same panels
REPORT_SUFFIXES = (".html", ".htm", ".png")


def check_output(path, inputs=(), suffixes=(), *, what: str = "output") -> Path:
    """``path`` as a Path, or an InputError: a suffix not in ``suffixes``, a directory, or
    one of ``inputs`` (also through symlinks or another spelling).

    >>> check_output("plot.png", ["log.csv"], PLOT_SUFFIXES).name
    'plot.png'
    >>> check_output("log.csv", ["log.csv"], (".csv",))
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: the output log.csv is an input: it would be overwritten; choose another path
    >>> check_output("plot.csv", [], PLOT_SUFFIXES, what="plot")
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: the plot plot.csv has an extension that is not written (use .png, .pdf, .svg, .jpg, .jpeg)
    """
    target = Path(path)
    if suffixes and target.suffix.lower() not in suffixes:
        raise InputError(f"the {what} {path} has an extension that is not written "
                         f"(use {', '.join(suffixes)})")
    if target.is_dir():
        raise InputError(f"the {what} {path} is a directory; give a file name")
    resolved = _resolved(target)
    for source in inputs:
        if source is None or str(source) == "-":
            continue
        if resolved == _resolved(Path(source)) or _same_file(target, Path(source)):
            raise InputError(f"the {what} {path} is an input: it would be overwritten; choose another path")
    return target


def write_atomically(path, write) -> None:
    """Call ``write(temporary_path)`` and move the result to ``path`` only if it succeeds.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomically(folder / "a.txt", lambda tmp: pathlib.Path(tmp).write_text("whole"))
    >>> (folder / "a.txt").read_text()
    'whole'
    >>> def fail(tmp):
    ...     pathlib.Path(tmp).write_text("half")
    ...     raise ValueError("broke")
    >>> try:
    ...     write_atomically(folder / "a.txt", fail)
    ... except ValueError:
    ...     pass
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())   # untouched, no debris
    ('whole', ['a.txt'])
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror}") from None
    os.close(handle)
    try:
        write(temporary)
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise InputError(f"cannot write {path}: {exc.strerror}") from None
    except BaseException:
        _remove(temporary)
        raise


def _mode_for(target: Path) -> int:
    """The permissions a plain ``open(path, "w")`` would leave: the existing file's, or the
    umask's (a temporary file is created private, 0600)."""
    try:
        if target.exists() and not target.is_symlink():
            return target.stat().st_mode & 0o777
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _resolved(path: Path) -> Path:
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError):  # a symlink loop: compare the spelling
        return path.absolute()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _remove(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
