"""`swarmstats best-of`: the best of several runs (seeds, checkpoints, agents), adjusted for
being picked, and the chance that it is truly the best."""

from __future__ import annotations

from ..direction import resolve
from ..errors import InputError
from ..io import LOG_FORMATS
from ..winners import best_of
from ._options import (
    EXIT_PASS,
    add_better_option,
    add_command,
    add_input_format_option,
    add_output_options,
    add_random_seed_option,
    finite,
)
from ._output import plot_results, render
from ._runs import (
    add_last_option,
    check_last,
    metric_runs_at,
    note_pooled,
    refuse_diverged,
    tail,
)


def add_parser(commands) -> None:
    parser = add_command(
        commands, "best-of",
        description="Pick the best of several runs by the mean of one metric over each run's last "
                    "part (--last) and report it twice: as measured, with its naive interval, and "
                    "adjusted for having been picked as the best (the hybrid conditional interval "
                    "and median-unbiased estimate of Andrews, Kitagawa & McCloskey 2024), with the "
                    "probability that it is truly the best (empirical Bayes).  A run's values are "
                    "autocorrelated: its standard error uses their autocorrelation, pooled over the runs.",
        exits={0: "the winner was reported"})
    parser.add_argument("paths", metavar="PATH", nargs="+",
                        help="the runs: quoted globs, folders of run folders, or files")
    parser.add_argument("-m", "--metric", required=True, help="the metric that scores a run")
    add_last_option(parser)
    add_better_option(parser)
    parser.add_argument("--ci", type=finite, default=0.95, help="interval level (default 0.95)")
    add_random_seed_option(parser, "random seed of the posterior draws (default 0)")
    add_input_format_option(parser, LOG_FORMATS, "the run files")
    add_output_options(parser, plot="every run's score and the winner's adjusted interval")


def run(args) -> int:
    check_last(args.last)
    arms = {}
    found = metric_runs_at(args.paths, args.metric, args.input_format)
    refuse_diverged(found, args.metric, "a run's score is the mean of its last part, which they never logged")
    note_pooled([spec for spec, _ in found],
                environments="the best of them may be the environment with the largest rewards, not "
                             "the best run; pass the runs of one environment",
                workers="the best of them is a worker, not a setting")
    for spec, series in found:
        values = tail(series.to_numpy(), args.last)
        if len(values) < 4:
            raise InputError(f"{spec.name}: its last {args.last:g} holds {len(values)} value(s) of "
                             f"{args.metric!r}; a standard error needs at least 4 (raise --last)")
        arms[spec.name if spec.name not in arms else f"{spec.name} ({len(arms)})"] = values
    if len(arms) < 2:
        raise InputError(f"{len(arms)} run found; the best of them needs at least two")
    result = best_of(arms, better=resolve(args.better, args.metric), ci=args.ci, autocorrelated=True,
                     random_state=args.random_seed)
    render(args, "best-of", [result])
    if args.plot:
        plot_results([result], args.plot, (8, 4.5))
    return EXIT_PASS
