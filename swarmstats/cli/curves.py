"""`swarmstats curves`: across-seed learning curves with pointwise intervals, drawn."""

from __future__ import annotations

from ..curves import learning_curves
from ..errors import InputError
from ..io import LOG_FORMATS
from ..io.runs import name_list
from ..sweeps.runs import settings_of
from ._loading import MIN_VALUES, too_few
from ._options import (
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_output_options,
    add_random_seed_option,
    at_least,
)
from ._output import new_figure, plot_results, render, save_figure, say
from ._runs import metric_runs_at, note_diverged, note_pooled


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
    found = metric_runs_at(args.paths, args.metric, args.input_format)
    note_diverged(found, args.metric)
    found = [(spec, series) for spec, series in found if len(series)]  # (diverged before any value)
    note_pooled([spec for spec, _ in found],
                environments="curves across them mix their reward scales; pass the runs of one environment",
                workers="their spread is not a spread between seeds")
    groups, told_by = _seeds_by_setting(found, args.metric)
    bands = {setting: runs for setting, runs in groups.items() if len(runs) >= 2}
    if len(groups) > 1 and bands:  # a band across the seeds of each setting
        say(f"the runs are of {len(groups)} settings by their {told_by} ({name_list(list(groups))}): "
            "a band across the seeds of each")
        alone = [setting for setting, runs in groups.items() if len(runs) < 2]
        if alone:
            each = " each" if len(alone) > 1 else ""
            say(f"{name_list(alone)}: one run{each}, no band across seeds: left out")
    else:  # one setting, or settings of one run each: drawn together, as given
        if len(groups) > 1:
            say(f"the runs are of {len(groups)} settings by their {told_by} ({name_list(list(groups))}), "
                "one run each: the band across them is not a band across seeds; pass the runs of one setting")
        bands = {None: {name: series for runs in groups.values() for name, series in runs.items()}}
        if len(bands[None]) < 2:
            raise InputError(f"{len(bands[None])} run found; learning curves across seeds need at least two")
    results = [learning_curves(runs, points=args.points, random_state=args.random_seed,
                               name=args.metric if setting is None else f"{args.metric} [{setting}]")
               for setting, runs in bands.items()]
    render(args, "curves", results)
    if args.plot:
        if len(results) == 1:
            plot_results(results, args.plot, (8, 4.5))
        else:
            plot_settings(results, list(bands), args.plot)
    return EXIT_PASS


def _seeds_by_setting(found, metric: str) -> tuple[dict, str | None]:
    """({setting (None: the runs are the seeds of one): {run name: series}}, what told the
    settings apart), settings in the order their first run came; a path given twice is a run
    of its own."""
    settings, told_by = settings_of([spec for spec, _ in found], told_by=True)
    settings = settings or {}
    groups: dict = {}
    for spec, series in found:
        if len(series) < MIN_VALUES:
            raise too_few(spec.name, f"{len(series)} value(s) of {metric!r}")
        runs = groups.setdefault(settings.get(spec.name), {})
        name = spec.name
        if name in runs:  # the same path given twice
            name = f"{name} ({sum(len(group) for group in groups.values())})"
        runs[name] = series
    return groups, told_by


def plot_settings(results, settings: list, path: str) -> None:
    """The bands of several settings in one panel, to compare them (Spinning Up's ``plot``
    draws its experiments so)."""
    from ..plots.distributions import overlay_curves

    fig, axes = new_figure(1, 1, (8, 4.5))
    overlay_curves(results, axes[0, 0], labels=settings)
    save_figure(fig, path)
