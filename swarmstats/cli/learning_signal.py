"""`swarmstats learning-signal`: is a group-relative RL run (GRPO) still learning?  The share of
reward groups with no spread, and the step its collapse began (exit 1 when it collapsed)."""

from __future__ import annotations

from ..io import LOG_FORMATS
from ..signal_health import learning_signal
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
        commands, "learning-signal",
        description="The share of reward groups whose completions all scored the same (they give "
                    "GRPO no advantage) per logged step - TRL's frac_reward_zero_std - over the run and "
                    "now, with autocorrelation-aware intervals, and a collapse: a regime change into a "
                    "share of at least --collapse-level that lasts to the end.",
        exits={0: "the run still has a learning signal (or recovered it)",
               1: "the learning signal collapsed (or was never there)"})
    parser.add_argument("file", metavar="FILE", help="a log with the share per step (a TRL trainer_state.json, "
                                                      "a CSV or JSON Lines export)")
    parser.add_argument("--zero-std", default="frac_reward_zero_std", metavar="COL",
                        help="the column of the share of zero-spread groups (default frac_reward_zero_std)")
    parser.add_argument("--spread", default="reward_std", metavar="COL",
                        help="the column of the within-group reward SD, if logged (default reward_std)")
    parser.add_argument("--collapse-level", type=finite, default=0.5, metavar="SHARE",
                        help="a regime at or above this share of flat groups is a collapse (default 0.5)")
    add_input_format_option(parser, LOG_FORMATS)
    add_output_options(parser, plot="the share per step, its regimes and the collapse")


def run(args) -> int:
    from ..io import read_log
    from ..io.formats._sweep import require_series

    frame = require_series(read_log(args.file, format=args.input_format, wide=True), args.file)
    result = learning_signal(frame, zero_std=args.zero_std, spread=args.spread,
                             collapse_level=args.collapse_level)
    render(args, "learning-signal", [result])
    if args.plot:
        plot_results([result], args.plot, (8, 4))
    return EXIT_FAIL if result.collapsed else EXIT_PASS
