"""`swarmstats divergence`: has the outcome stopped following the proxy?  A Goodhart check
between a dense proxy (training reward, judge score) and a sparse outcome (held-out
evaluations), exit 1 when they diverge."""

from __future__ import annotations

from ..errors import InputError
from ..io import LOG_FORMATS
from ..proxy_outcome import divergence
from ._options import (
    EXIT_FAIL,
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_output_options,
    finite,
)
from ._output import plot_results, render


def add_parser(commands) -> None:
    parser = add_command(
        commands, "divergence",
        description="Put the proxy on the outcome's step axis (its mean since the previous evaluation), "
                    "predict each evaluation from the ones before, and flag the outcome falling further "
                    "and further behind its prediction - or, when they never agreed, the proxy improving "
                    "while the outcome gets worse.  The chance of a false alarm over the whole run is at "
                    "most --alpha.  Reports the onset, each one's change since, and the gap's trend.",
        exits={0: "no divergence (tracking, or too little data to tell: see the verdict)",
               1: "the outcome diverged from the proxy"})
    parser.add_argument("file", metavar="FILE", help="a log with both columns (or the proxy's, with --outcome-file)")
    parser.add_argument("--proxy", required=True, metavar="COL", help="the dense proxy column (e.g. train/reward)")
    parser.add_argument("--outcome", required=True, metavar="COL",
                        help="the sparse outcome column (e.g. eval/accuracy); rows without it are skipped")
    parser.add_argument("--outcome-file", metavar="FILE2", help="read the outcome column from this file instead")
    for option, what in (("--better", "the outcome"), ("--proxy-better", "the proxy")):
        parser.add_argument(option, choices=("auto", "higher", "lower"), default="auto",
                            help=f"which way {what} improves (default auto: lower for a loss, error, "
                                 "perplexity, toxicity ..., else higher)")
    parser.add_argument("--alpha", type=finite, default=0.05,
                        help="false-alarm rate over the whole run, 0.01 to 0.2 (default 0.05)")
    parser.add_argument("--ci", type=finite, default=0.95, help="interval level (default 0.95)")
    add_input_format_option(parser, LOG_FORMATS)
    add_output_options(parser, plot="the outcome against its prediction from the proxy, the onset and the alarm")


def run(args) -> int:
    proxy = _column(args.file, args.proxy, args.input_format)
    outcome = _column(args.outcome_file or args.file, args.outcome, args.input_format)
    result = divergence(proxy, outcome, better=args.better, proxy_better=args.proxy_better, alpha=args.alpha,
                        ci=args.ci)
    render(args, "divergence", [result])
    if args.plot:
        plot_results([result], args.plot, (8, 4.5))
    return EXIT_FAIL if result.diverged else EXIT_PASS


def _column(path, column, input_format):
    """One column of a one-run log as a Series indexed by step (missing values kept: the
    estimator skips them)."""
    from ..io import read_log
    from ..io.formats._sweep import require_series

    frame = require_series(read_log(path, format=input_format, wide=True))
    if "run" in frame.columns and frame["run"].nunique() > 1:
        raise InputError(f"{path}: the log holds {frame['run'].nunique()} runs; give one run at a time")
    if column not in frame.columns:
        shown = ", ".join(str(c) for c in frame.columns if c not in ("step", "run"))
        raise InputError(f"{path}: no column {column!r} (columns: {shown})")
    steps = frame["step"] if "step" in frame.columns else frame.index
    return frame.set_axis(steps, axis=0)[column].rename(column)
