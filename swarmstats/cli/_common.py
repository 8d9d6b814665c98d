"""What every command shares: the parser class, exit codes, loading, JSON and plots."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .._result import jsonable
from ..errors import InputError
from ..io import classify_columns, read_log

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


class UsageError(Exception):
    pass


def load(args):
    """The frame, its column roles and the metrics to analyse (validated)."""
    frame = read_log(args.file, format=args.input_format, wide=True)
    frame = _one_run_or_grouped(frame, args)
    columns = classify_columns(frame, step=args.step, group=getattr(args, "group", None))
    metrics = args.metric or columns.metrics
    if not metrics:
        raise InputError(f"{frame.attrs['source']} has no numeric metric column "
                         f"(columns: {', '.join(map(str, frame.columns))})")
    for metric in metrics:
        if metric not in frame.columns:
            raise InputError(f"no metric {metric!r}; available: {', '.join(columns.metrics) or '(none)'}")
    return frame, columns, metrics


def add_run_option(parser) -> None:
    parser.add_argument("--run", help="analyse only this run of a log that holds several "
                                      "(a W&B chart export, a TensorBoard directory with subruns ...)")


def _one_run_or_grouped(frame, args):
    """Several runs in one log: the one --run names, else per run (--group run) where the
    command supports it, else a clear error listing them."""
    runs = frame["run"].dropna().astype(str).unique().tolist() if "run" in frame.columns else []
    chosen = getattr(args, "run", None)
    source = frame.attrs.get("source")
    if chosen is not None:
        if not runs:
            raise InputError(f"--run: {source} holds a single run (no run column)")
        if chosen not in runs:
            raise InputError(f"--run: no run {chosen!r} in {source}; runs: {', '.join(runs[:20])}")
        attrs = dict(frame.attrs)
        frame = frame[frame["run"].astype(str) == chosen].reset_index(drop=True)
        frame.attrs.update(attrs)
        return frame
    if len(runs) > 1 and frame.attrs.get("format") not in ("csv", "tsv", "jsonl", "json"):
        if hasattr(args, "group"):
            if args.group is None:
                args.group = "run"
                print(f"swarmstats: {source} holds {len(runs)} runs; each is analysed "
                      "(--run NAME picks one)", file=sys.stderr)
        else:
            raise InputError(f"{source} holds {len(runs)} runs ({', '.join(runs[:8])}"
                             f"{' ...' if len(runs) > 8 else ''}); pick one with --run NAME")
    return frame


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
