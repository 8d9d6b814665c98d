"""`swarmstats curves`: across-seed learning curves with pointwise intervals, drawn."""

from __future__ import annotations

from ..curves import learning_curves
from ..errors import InputError
from ..io import LOG_FORMATS
from ._loading import MIN_VALUES, too_few
from ._options import (
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_output_options,
    add_random_seed_option,
    at_least,
)
from ._output import plot_results, render
from ._runs import metric_runs_at, note_diverged, note_pooled, note_settings


def add_parser(commands) -> None:
    parser = add_command(
        commands, "curves",
        description="One metric of several runs (seeds) on one step grid - each run interpolated "
                    "between its own logged steps, absent past its end - with the mean and its "
                    "pointwise t interval, and the median and IQM with bootstrap intervals, at "
                    "every step; -o draws them.",
        exits={0: "the curves were computed (and drawn with -o)"})
    parser.add_argument("paths", metavar="PATH", nargs="+",
                        help="the runs: quoted globs, folders of run folders, or files")
    parser.add_argument("-m", "--metric", required=True, help="the metric to draw")
    parser.add_argument("--points", type=at_least(2), default=200,
                        help="steps on the common grid (default 200, or the runs' own shared steps)")
    parser.add_argument("-o", "--output", "--plot", dest="plot", metavar="PNG",
                        help="draw the curves into this image (.png, .pdf, .svg)")
    add_random_seed_option(parser, "random seed of the bootstrap (default 0)")
    add_input_format_option(parser, LOG_FORMATS, "the run files")
    add_output_options(parser)


def run(args) -> int:
    runs = {}
    found = metric_runs_at(args.paths, args.metric, args.input_format)
    note_diverged(found, args.metric)
    found = [(spec, series) for spec, series in found if len(series)]  # (diverged before any value)
    note_pooled([spec for spec, _ in found],
                environments="curves across them mix their reward scales; pass the runs of one environment",
                workers="their spread is not a spread between seeds")
    note_settings([spec for spec, _ in found], "the band across them is not a band across seeds; pass the "
                  "runs of one setting")
    for spec, series in found:
        if len(series) < MIN_VALUES:
            raise too_few(spec.name, f"{len(series)} value(s) of {args.metric!r}")
        name = spec.name if spec.name not in runs else f"{spec.name} ({len(runs)})"  # a path given twice
        runs[name] = series
    if len(runs) < 2:
        raise InputError(f"{len(runs)} run found; learning curves across seeds need at least two")
    result = learning_curves(runs, points=args.points, random_state=args.random_seed, name=args.metric)
    render(args, "curves", [result])
    if args.plot:
        plot_results([result], args.plot, (8, 4.5))
    return EXIT_PASS
