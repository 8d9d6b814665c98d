"""What every command shares: the parser class, exit codes, loading, JSON and plots."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .._result import jsonable
from ..errors import InputError
from ..io import classify_columns, read_table

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


class UsageError(Exception):
    pass


def load(args):
    """The frame, its column roles and the metrics to analyse (validated)."""
    frame = read_table(args.file, format=args.input_format)
    columns = classify_columns(frame, step=args.step, group=getattr(args, "group", None))
    metrics = args.metric or columns.metrics
    if not metrics:
        raise InputError(f"{frame.attrs['source']} has no numeric metric column "
                         f"(columns: {', '.join(map(str, frame.columns))})")
    for metric in metrics:
        if metric not in frame.columns:
            raise InputError(f"no metric {metric!r}; available: {', '.join(columns.metrics) or '(none)'}")
    return frame, columns, metrics


def dump_json(payload) -> None:
    json.dump(jsonable({"schema_version": 1, **payload}), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def use_color(args) -> bool:
    return (not args.no_color and not os.environ.get("NO_COLOR") and args.format == "text"
            and sys.stdout.isatty())


def paint(text: str, verdict: str | None, color: bool) -> str:
    if not color or verdict is None:
        return text
    code = {"converged": "32", "not_converged": "31", "insufficient_data": "33"}.get(verdict)
    return f"\033[{code}m{text}\033[0m" if code else text


def new_figure(rows: int, columns: int, size: tuple):
    """A figure and its grid of Axes on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(rows, columns, figsize=size, squeeze=False)


def save_figure(fig, path: str) -> None:
    """Write ``fig`` to ``path`` (an InputError if it cannot be written) and close it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise InputError(f"cannot write the plot to {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


def plot_results(results, path: str) -> None:
    """Each result's own plot, one row each, into one PNG."""
    fig, axes = new_figure(len(results), 1, (9, 3.2 * len(results)))
    for result, ax in zip(results, axes[:, 0]):
        result.plot(ax=ax)
    save_figure(fig, path)
