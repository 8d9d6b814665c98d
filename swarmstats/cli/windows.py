"""`swarmstats windows`: the adaptive evaluation window and status at every step."""

from __future__ import annotations

import dataclasses

import pandas as pd

from .._result import fmt_interval
from ..io import LOG_FORMATS
from ..windows import STATUSES, WINDOW_POINTS, AdaptiveWindow, window_input
from ._loading import announce_direction, every_metric_run, load
from ._options import (
    EXIT_PASS,
    add_better_option,
    add_command,
    add_input_format_option,
    add_log_options,
    add_output_options,
    at_least,
    finite,
)
from ._output import plot_results, render


def add_parser(commands) -> None:
    windows = add_command(
        commands, "windows",
        description="At every step, the window that answers 'where is this score now?': cut at a "
                    "change, kept to a trend's span, grown until the mean is known to --precision. "
                    "Prints the per-step status table (or its summary with --summary).")
    add_log_options(windows)
    windows.add_argument("--min-length", type=at_least(2), default=20, help="shortest window judged (default 20)")
    windows.add_argument("--max-length", type=at_least(2), default=500, help="longest window (default 500)")
    windows.add_argument("--precision", type=finite,
                         help="target half-width of the mean's interval (default: a quarter noise SD)")
    windows.add_argument("--alpha", type=finite, default=0.05,
                         help="bound on any false change or trend call per --horizon steps (default 0.05)")
    windows.add_argument("--horizon", type=at_least(1), default=10_000,
                         help="steps over which alpha is spent (default 10000)")
    add_better_option(windows)
    windows.add_argument("--max-points", type=at_least(0), default=WINDOW_POINTS,
                         help=f"replay the window at every step of a series up to this many; a longer one "
                              f"is followed through the means of blocks of ceil(n / N) steps (default "
                              f"{WINDOW_POINTS}; 0: every step, ~150 us each, so 10^6 steps take minutes)")
    windows.add_argument("--summary", action="store_true", help="one summary per metric instead of every step")
    add_input_format_option(windows, LOG_FORMATS)
    add_output_options(windows, plot="series, window span and status over time")


def run(args) -> int:
    window = AdaptiveWindow(min_length=args.min_length, max_length=args.max_length,
                            precision=args.precision, alpha=args.alpha, horizon=args.horizon,
                            better=args.better)
    frame, columns, metrics = load(args)
    announce_direction(args, metrics)
    # (a run that never logged a metric, or only NaN, is skipped - the latter said - not fatal)
    results = [_fit(window, series, series.name, args.max_points)
               for series in every_metric_run(frame, metrics, columns.step, args)]

    def payload():
        entries = [r.to_dict() for r in results]
        if not args.summary:
            for entry, result in zip(entries, results):
                entry["table"] = result.table
        return {"results": entries}

    def text():
        for result in results:
            print(result.summary())
            if not args.summary:
                print(_table_text(result))
            print()

    summary_rows = (lambda: pd.DataFrame([_summary_row(r) for r in results])) if args.summary else None
    render(args, "windows", results, frame=frame, payload=payload, table=summary_rows, text=text)
    if args.plot:
        plot_results(results, args.plot)
    return EXIT_PASS


def _fit(window: AdaptiveWindow, series: pd.Series, name: str, points: int):
    """The window over ``series``, or over its block means when it is longer than ``points``
    (the table's rows are then the blocks, each at its last step; a note says so)."""
    followed, block = window_input(series, points)
    result = window.fit(followed, name=name)
    if block > 1:
        result = dataclasses.replace(result, block=block)
        result.notes.append(f"followed through the means of {block} consecutive steps ({len(followed):,} "
                            f"points of the {len(series):,}): the table's rows are those blocks, each at "
                            f"its last step, and a change is placed to within a block (--max-points 0 "
                            "replays every step, ~150 us each)")
    return result


def _summary_row(result) -> dict:
    last = result.table.iloc[-1]
    row = {"metric": result.name, "n": result.n, "status": result.final_status,
           "window": int(last["length"]), "level": last["level"], "level_low": last["level_low"],
           "level_high": last["level_high"], "mean": last["mean"], "ci_low": last["ci_low"],
           "ci_high": last["ci_high"], "changes": len(result.changes), "reason": result.final_reason}
    row.update({f"share_{status}": result.status_counts.get(status, 0) / result.n for status in STATUSES})
    return row


def _table_text(result) -> str:
    """Only the steps where the status or the window's start changes, to stay readable."""
    table = result.table
    keep = (table["status"] != table["status"].shift()) | table["change"]
    lines = ["  step        status      window  level now [CI]               reason"]
    for row in table[keep].to_dict("records"):
        ci = fmt_interval(row['level'], row['level_low'], row['level_high'])
        lines.append(f"  {str(row['step']):<10}  {row['status']:<10}  {row['length']:<6}  {ci:<27}  {row['reason']}")
    lines.append(f"  ({int(keep.sum())} of {len(table)} steps shown: those where the status changes; "
                 "--format csv lists every step)")
    return "\n".join(lines)
