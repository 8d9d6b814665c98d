"""`swarmstats proxy`: is each key's score too noisy for a hard threshold decision?"""

from __future__ import annotations

import pandas as pd

from .._input.interactions import agent_columns
from .._result import fmt
from ..errors import InputError
from ..io import FORMATS, read_interactions
from ..proxy import ProxyVarianceTracker
from ._loading import MIN_VALUES, too_few
from ._options import (
    EXIT_FAIL,
    EXIT_PASS,
    Renamed,
    add_command,
    add_exit_zero_option,
    add_input_format_option,
    add_output_options,
    at_least,
    finite,
)
from ._output import aligned_lines, new_figure, render, save_figure, say

#: keys listed in the text output (all of them go to JSON and CSV)
TEXT_ROWS = 50


def add_parser(commands) -> None:
    proxy = add_command(
        commands, "proxy",
        description="Per key (agent, policy, checkpoint ...): the noise of the proxy score p, the "
                    "probability that a hard decision at the threshold is on the wrong side, how "
                    "often it would flip between rounds against what noise alone explains, and "
                    "with outcomes the calibration of p (Brier, log loss, ECE, AUC, reliability).",
        exits={0: "no key is too noisy for a hard decision",
               1: "at least one key is too noisy"})
    proxy.add_argument("file", metavar="FILE",
                       help="scores table (CSV/TSV/JSONL), SWARM history JSON or event JSONL, or -")
    proxy.add_argument("--p", default="p", help="column of the score p (default p)")
    proxy.add_argument("--key", help="column naming the key (agent, policy ...); default: one key")
    proxy.add_argument("--outcome", help="column of the 0/1 outcome, for calibration")
    proxy.add_argument("--v-hat", dest="v_hat", help="column of the raw score v_hat (p = sigmoid(k v_hat))")
    proxy.add_argument("--threshold", type=finite, default=0.5, help="hard decision p >= T (default 0.5)")
    proxy.add_argument("--band", type=finite, default=0.2, help="uncertain band 0.5 +- B (default 0.2)")
    # not --alpha: everywhere else that is a significance level (default 0.05)
    proxy.add_argument("--max-wrong-side", "--alpha", dest="max_wrong_side", type=finite, default=0.1,
                       metavar="P", action=Renamed, new="--max-wrong-side",
                       help="tolerated wrong-side probability of a hard decision (default 0.1)")
    proxy.add_argument("--halflife", type=finite, help="half-life of the EWMA mean and SD, in observations")
    proxy.add_argument("--window", type=at_least(2), help="length of the trailing window whose SD is reported")
    proxy.add_argument("--nan-policy", choices=("raise", "omit"), default="raise",
                       help="rows with a missing p: an error (default) or skipped")
    add_input_format_option(proxy, FORMATS)
    add_output_options(proxy, plot="per-key means against the threshold (and the reliability diagram)")
    add_exit_zero_option(proxy, "if a key is too noisy")


def run(args) -> int:
    tracker = ProxyVarianceTracker(threshold=args.threshold, band=args.band, max_wrong_side=args.max_wrong_side,
                                   halflife=args.halflife, window=args.window, nan_policy=args.nan_policy)
    frame = read_interactions(args.file, format=args.input_format, p=args.p, accepted=None)
    for option, column in (("--key", args.key), ("--outcome", args.outcome), ("--v-hat", args.v_hat)):
        if column is not None and column not in frame.columns:
            raise InputError(f"no column {column!r} for {option}; columns are "
                             f"{', '.join(map(str, frame.columns))}")
    if args.key is None:
        _say_agents_named(frame)
    tracker.update_many(frame[args.p], keys=None if args.key is None else frame[args.key].to_numpy(object),
                        outcomes=None if args.outcome is None else frame[args.outcome],
                        v_hat=None if args.v_hat is None else frame[args.v_hat])
    scores = int(pd.to_numeric(frame[args.p], errors="coerce").notna().sum())  # validated above
    if scores < MIN_VALUES:
        raise too_few(frame.attrs.get("source"), f"{scores} score(s) of {args.p!r}")
    report = tracker.result()
    render(args, "proxy", [report], frame=frame, table=report.to_frame, text=lambda: print(_text(report)),
           payload=lambda: {"passed": not report.too_noisy, **report.to_dict()})
    if args.plot:
        _plot(report, args.plot)
    return EXIT_FAIL if report.too_noisy and not args.exit_zero else EXIT_PASS


def _say_agents_named(frame) -> None:
    """With no --key every score is one key's; when the scores name their agents, say how to
    judge each apart: pooled, a SWARM log's SD (0.109) was the spread between agents' levels
    (0.39 to 0.75) more than any agent's own noise (0.04 to 0.075)."""
    named = [c for c in agent_columns(frame) or () if frame[c].nunique() >= 2]
    if named:
        say(f"every score is judged as one key's, the agents' levels mixed into its noise; the scores "
            f"name their agents: --key {named[0]} judges each apart"
            + (f" (or --key {named[1]})" if len(named) > 1 else ""))


def _text(report) -> str:
    shown = report.table.head(TEXT_ROWS)
    rows = []
    for key, row in shown.iterrows():
        flips = f"{fmt(row['thrash_rate'], 2)} ({fmt(row['expected_thrash_rate'], 2)})"
        verdict = "TOO NOISY" if row["too_noisy"] else "ok"
        rows.append(["(all)" if key is None else str(key),  # no --key: every score is one key's
                     int(row["n"]), fmt(row["mean"], 3), fmt(row["sd"], 3), fmt(row["wrong_side_probability"], 2),
                     flips, f"{verdict}: {row['reason']}"])
    lines = [report.headline()] + aligned_lines(
        ["key", "n", "mean", "sd", "wrong-side", "flips (noise)", "verdict"], rows, indent="  ")
    if len(report.table) > TEXT_ROWS:
        lines.append(f"  ... {len(report.table) - TEXT_ROWS} more key(s) (--format csv lists all)")
    lines += report.detail_lines()
    verdict = {"too_noisy": "TOO NOISY: some keys cannot be hard-thresholded reliably",
               "ok": "every key is clear of the threshold",
               "insufficient_data": "too few observations per key to judge"}[report.verdict]
    lines.append(f"\n{verdict} (tolerated wrong-side probability {report.max_wrong_side})")
    return "\n".join(lines)


def _plot(report, path: str) -> None:
    panels = 2 if report.reliability is not None else 1
    height = max(3.5, 0.18 * min(len(report.table), 40) + 1.5)
    fig, axes = new_figure(1, panels, (7 * panels, height))
    report.plot(ax=axes[0, 0])
    if panels == 2:
        report.plot(ax=axes[0, 1], kind="reliability")
    save_figure(fig, path)
