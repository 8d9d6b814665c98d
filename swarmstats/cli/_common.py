"""What every command shares: the parser class, exit codes, loading, JSON and plots."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys

from ..errors import DivergedAtStart, InputError, NoValues

# Nothing heavy is imported here at module level: the root parser (``swarmstats --help``) is
# built from this module alone, and the analysis modules (pandas, scipy) are imported by the
# command that runs.

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2

#: every command: its module in swarmstats.cli and its one-line help (the list ``swarmstats
#: --help`` shows is built from this table alone, without importing a command)
COMMANDS = {
    "check-convergence": ("convergence", "has each metric converged? (a CI gate: exit 1 if not)"),
    "regimes": ("regimes", "where do regimes change, and how much? (offline changepoints)"),
    "quality-gap": ("quality", "is selection working? soft and hard quality-gap metrics (exit 1 if adverse)"),
    "describe": ("describe", "the distribution of each metric, with autocorrelation-aware intervals"),
    "proxy": ("proxy", "is each key's proxy score too noisy for a hard decision? (exit 1 if any is)"),
    "windows": ("windows", "adaptive evaluation windows: improving, degrading, stable or uncertain at each step "
                           "(a diagnostic rises or falls)"),
    "watch": ("watch", "follow a growing log (e.g. prime-rl metrics.jsonl) and print verdict changes"),
    "sweep": ("sweep", "analyse every run of a sweep (locally or on Dask) and summarise by setting"),
    "compare": ("compare", "is the first set of runs (seeds) better than the others? (exit 1 if not shown)"),
    "curves": ("curves", "across-seed learning curves with pointwise intervals, drawn"),
    "best-of": ("best_of", "the best of several runs, adjusted for being picked, and P(truly the best)"),
    "agents": ("agents", "multi-agent coupling: contagion, agreement, synergy gap, equilibria across runs (one line each)"),
    "divergence": ("divergence", "has the outcome stopped following the proxy? a Goodhart check (exit 1 if it has)"),
    "learning-signal": ("learning_signal", "is GRPO still learning? flat reward groups and the step they took over (exit 1 if collapsed)"),
    "report": ("report", "one self-contained HTML page (or PNG) with every metric's evidence"),
}


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


class UsageError(Exception):
    pass


# argparse types: a bad number is a usage error naming the option, never a traceback or a
# NaN carried into a loop (``--interval nan``) or a seed numpy refuses (``--seed -1``)
def finite(text: str) -> float:
    """A finite number (no nan, no inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def at_least(minimum: int, why: str = ""):
    """An integer >= ``minimum`` (``why`` says what a smaller one would break)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{why}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


seed = at_least(0, " (a random seed)")


class Renamed(argparse.Action):
    """An old option spelling that still works for one release, with a note saying the new one."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string != self.new:
            say(f"{option_string} is renamed {self.new} (the old name goes in the next release)")
        setattr(namespace, self.dest, values)


def add_random_seed_option(parser, help: str) -> None:
    """``--random-seed`` (``--seed`` until the next release: it read like the run column 'seed')."""
    parser.add_argument("--random-seed", "--seed", dest="random_seed", type=seed, default=0, metavar="S",
                        action=Renamed, new="--random-seed", help=help)


#: the columns the commands add to a table whose rows hold several runs
RUN, CONFIG = "run", "config of run"
#: the commands that read a log as a series in time (an evaluation's rollouts have no such order)
TIME_ORDERED = ("check-convergence", "windows", "regimes", "report")


def load(args):
    """The frame, its column roles and the metrics to analyse (validated).

    Several runs in one log are never merged: the run key (a run/seed/trial column, a
    label x seed pair, a step axis that starts again) becomes the ``run`` column and
    ``args.group``, so every command analyses each run on its own; ``--run`` keeps one.
    """
    from ..io import read_log
    from ..io.columns import table_roles

    frame = read_log(args.file, format=args.input_format, wide=True)
    if frame.attrs.get("format") == "verifiers" and getattr(args, "command", None) in TIME_ORDERED:
        examples = frame["run"].nunique() if "run" in frame.columns else 0
        raise InputError(f"{frame.attrs.get('source')} is an evaluation (verifiers results: {examples} "
                         f"examples, {len(frame)} rollouts), not a training log: its rollouts have no "
                         f"order in time, so nothing converges, changes or trends in it; 'swarmstats "
                         f"describe {args.file}' gives each score with an interval clustered by example")
    for note in frame.attrs.get("notes", []):  # what the reader found (runs, joins, gaps)
        say(f"{frame.attrs.get('source')}: {note}")
    group = getattr(args, "group", None)
    columns, key = table_roles(frame, step=args.step, group=group)
    frame = _runs(frame, key, args)
    # a metric named twice is analysed once
    metrics = list(dict.fromkeys(args.metric)) if args.metric else columns.metrics
    if not metrics:
        left = f"; left out: {_left_out(columns)}" if columns.bookkeeping else ""
        # an error drops the notes, and what the reader found may be the reason (a Lightning
        # run whose every logged value is NaN: it diverged)
        noted = "".join(f"; {note}" for note in frame.attrs.get("notes", []))
        raise InputError(f"{frame.attrs['source']} has no numeric metric column "
                         f"(columns: {', '.join(map(str, frame.columns))}){left}{noted}")
    for metric in metrics:
        if metric not in frame.columns:
            available = columns.metrics + list(columns.bookkeeping)
            raise InputError(f"no metric {metric!r}; available: {', '.join(available) or '(none)'}")
    metrics = _on_the_step_axis(frame, metrics, columns.step, named=bool(args.metric))
    metrics = _long_enough(frame, metrics, named=bool(args.metric))
    if not args.metric and columns.bookkeeping:
        say(f"left out {_left_out(columns)} (name one with -m to analyse it)")
    _say_if_steps_repeat(frame, metrics, columns.step, getattr(args, "group", None))
    return frame, columns, metrics


def _say_if_steps_repeat(frame, metrics: list, step: str | None, group: str | None) -> None:
    """Warn when every step of a metric holds the same number (2 or more) of values: two runs
    or agents appended to one file without a column naming them read as one series that
    alternates between them (two runs at 0.5 and 0.8: "converged" at 0.65, nobody's level)."""
    import numpy as np

    if step is None or step not in frame.columns:
        return
    steps = frame[step].to_numpy()
    if steps.dtype.kind in "iuf" and len(steps) > 1 and (np.diff(steps) > 0).all():
        return  # the common case, told in one pass for every metric: no step holds two rows
    for metric in metrics:
        present = frame[frame[metric].notna()]
        for name, rows in (present.groupby(group, sort=False) if group else [(None, present)]):
            counts = rows[step].value_counts()
            if len(counts) < 3:
                continue
            repeats = int(counts.mode().iloc[0])
            if repeats >= 2 and (counts == repeats).mean() >= 0.9:
                where = f"{metric} [{name}]" if name is not None else metric
                say(f"{where}: each step of '{step}' holds {repeats} values ({len(rows):,} values at "
                    f"{len(counts):,} steps), read in row order as one series: if they are {repeats} runs or "
                    "agents written into one file, add a column naming them (a run, seed or agent column "
                    "splits them)")
                break


#: fewer values than this and no command has a spread, a trend or a test to offer
MIN_VALUES = 3


def _long_enough(frame, metrics: list, *, named: bool) -> list:
    """The metrics with at least MIN_VALUES values.  A metric named with -m that is too
    short is an error; one chosen by default is left out with a note, and if none is left the
    log is too short to analyse (an error, not an empty "pass")."""
    # every present cell counts: a word, an infinity or a NaN the log wrote is then named by
    # the metric's reader
    counts = {m: _cells_logged(frame[m]) for m in metrics}
    short = [m for m in metrics if counts[m] < MIN_VALUES]
    if not short:
        return metrics
    if named and counts[short[0]] == 0:
        raise InputError(f"metric {short[0]!r} has no values (every cell is empty)")
    described = capped_list([f"{m} ({counts[m]})" for m in short])
    if named or len(short) == len(metrics):
        raise too_few(frame.attrs.get("source"), f"too few values to analyse: {described}",
                      "has the run just started?")
    say(f"left out {described}: fewer than {MIN_VALUES} values")
    return [m for m in metrics if m not in short]


def logged_in(frame, metrics: list) -> list:
    """The ``metrics`` that ``frame`` (one run's rows) logged at least once: in a log of several
    runs, a metric one run never logged (an evaluation only some seeds ran) is that run's to
    leave out, not an error for the whole command."""
    return [m for m in metrics if m in frame.columns and _cells_logged(frame[m]) > 0]


def _on_the_step_axis(frame, metrics: list, step: str | None, *, named: bool) -> list:
    """The metrics, said of each whose values sit in rows where the step is empty: those rows
    have no place on the axis and are left out of every analysis.  A JSON Lines log whose
    evaluation records carry no step read "metric 'eval_score' has no values (every cell is
    empty)" and stopped ``describe`` for every metric; the values among stepped ones went
    unsaid.  A metric logged only there is an error when named with -m, else left out."""
    if step is None or step not in frame.columns:
        return metrics
    stepless = frame[step].isna().to_numpy()
    if not stepless.any():
        return metrics
    kept = []
    for metric in metrics:
        there = _cells_logged(frame[metric][stepless])
        if not there:
            kept.append(metric)
            continue
        elsewhere = _cells_logged(frame[metric][~stepless])
        where = f"in rows whose {step!r} is empty ({there} value{'s' if there > 1 else ''}"
        if elsewhere:
            say(f"{metric}: {there} value{'s' if there > 1 else ''} logged in rows whose {step!r} is empty "
                f"left out ({elsewhere} on the step axis analysed)")
            kept.append(metric)
        elif named:
            raise InputError(f"metric {metric!r} is logged only {where}): those rows have no place on "
                             "the step axis; choose a step column they have with --step")
        else:
            say(f"left out {metric}: logged only {where}), which have no place on the step axis")
    if not kept:
        raise InputError(f"{frame.attrs.get('source')}: every metric is logged only in rows whose {step!r} "
                         "is empty; choose a step column they have with --step")
    return kept


def _cells_logged(column) -> int:
    """The cells of ``column`` that hold something written: a value, or a NaN the log wrote."""
    from ..io.written_nan import column_floats, is_written

    floats = column_floats(column)
    return int(column.notna().sum()) + (int(is_written(floats).sum()) if floats is not None else 0)


#: what the command found or chose on its own; printed to stderr once it succeeded (an
#: input error stays one line)
NOTES: list = []


def capped_list(items: list, limit: int = 10) -> str:
    """``items`` joined by commas, the first ``limit`` of them and a count of the rest (a log
    line of 200,000 keys, one value each, made a message of 2 MB).

    >>> capped_list(["a (1)", "b (1)", "c (2)"], limit=2)
    'a (1), b (1) and 1 more'
    """
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit:,} more" if len(items) > limit else "")


def too_few(source, counted: str, hint: str | None = None) -> InputError:
    """The one error for an input too short to analyse: ``source: counted; at least 3 are needed
    for a spread or a test`` (and a ``hint``)."""
    hint = f" ({hint})" if hint else ""
    return InputError(f"{source}: {counted}; at least {MIN_VALUES} are needed for a spread or a test{hint}")


def aligned_lines(headers: list, rows: list, indent: str = "") -> list:
    """A text table: the header line, then one line per row, every column but the last padded
    to its widest cell (a fixed width let an agent named "opportunistic_2" push its row over)."""
    widths = [max([len(str(header))] + [len(str(row[i])) for row in rows]) for i, header in enumerate(headers[:-1])]

    def join(cells):
        return indent + "  ".join(str(c).ljust(w) for c, w in zip(cells[:-1], widths)) + "  " + str(cells[-1])

    return [join(headers)] + [join(row) for row in rows]


def say(message: str) -> None:
    """Note one line for stderr: what a command found or chose on its own."""
    NOTES.append(f"swarmstats: {message}")


def one_line(message: str) -> str:
    """``message`` on one line with control characters shown as escapes: a column named with a
    newline or a terminal escape code cannot split the error or repaint the terminal.

    >>> one_line("no column 'rew\\nard'\\x1b[2J")
    "no column 'rew\\\\nard'\\\\x1b[2J"
    """
    return re.sub(r"[\x00-\x08\x0a-\x1f\x7f]", lambda m: repr(m.group())[1:-1], message)


def flush_notes(keep: bool = True) -> None:
    if keep:
        for note in NOTES:
            print(one_line(note), file=sys.stderr)
    NOTES.clear()


# Option groups declared once: every command spells and explains them the same way.
#: what FILE may be, for every command that reads a log
LOG_FILE = "log file (CSV, TSV, JSON Lines, JSON list, any log read_log knows) or - for stdin"
USAGE_ERROR = "usage or input error (one line on stderr; --debug shows the traceback)"


def add_command(commands, name: str, *, description: str, exits: dict | None = None,
                note: str | None = None):
    """A command's parser, its exit codes listed in the epilog (after ``note``): ``exits`` says
    what 0 (and 1) mean for it; 2 is a usage or input error unless ``exits`` says more."""
    codes = {0: "success", 2: USAGE_ERROR, **(exits or {})}
    epilog = "exit codes:\n" + "\n".join(f"  {code}  {text}" for code, text in sorted(codes.items()))
    if note:
        epilog = f"{note}\n\n{epilog}"
    return commands.add_parser(name, help=COMMANDS[name][1], description=description, epilog=epilog,
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def add_log_options(parser, *, file: str = LOG_FILE,
                    metric: str = "metric column (repeatable; default: every metric column)",
                    step: str = "column to use as the step axis (default: a column named like a step)",
                    runs: bool = True, group: str | None = None) -> None:
    """FILE, which metrics (``-m``), the step axis, and - for logs of several runs - ``--run``
    and (with ``group``, what a run gets) ``--group``."""
    parser.add_argument("file", metavar="FILE", help=file)
    parser.add_argument("-m", "--metric", action="append", default=None, help=metric)
    parser.add_argument("--step", help=step)
    if runs:
        add_run_option(parser)
    if group is not None:
        parser.add_argument("--group", help=f"column naming the run/seed: {group}")


def add_input_format_option(parser, formats, what: str = "FILE") -> None:
    parser.add_argument("--input-format", choices=formats,
                        help=f"format of {what} (needed for odd names and stdin)")


def add_output_options(parser, *, formats=("text", "json", "csv"), plot: str | None = None) -> None:
    """``--format`` and, with ``plot`` (what the image shows), ``--plot``."""
    parser.add_argument("--format", choices=formats, default="text", help="output format")
    if plot is not None:
        parser.add_argument("--plot", metavar="PNG",
                            help=f"also draw {plot} into this image (.png, .pdf, .svg)")


def add_exit_zero_option(parser, failing: str) -> None:
    parser.add_argument("--exit-zero", action="store_true",
                        help=f"report only: exit 0 even {failing} (still 2 on errors)")


def add_shared_options(parser) -> None:
    """What every command accepts (declared here once, added to each by the CLI)."""
    shared = parser.add_argument_group("every command")
    shared.add_argument("--no-color", action="store_true", help="no colour (NO_COLOR is honoured too)")
    shared.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    shared.add_argument("--mlflow-uri", metavar="URI",
                        help="read the logs from this MLflow tracking server (http://HOST:PORT); "
                             "each log is then experiments/NAME_OR_ID or runs/RUN_ID")


def add_better_option(parser) -> None:
    parser.add_argument("--better", choices=("auto", "higher", "lower"), default="auto",
                        help="which direction is an improvement (default auto: lower for a loss, "
                             "error, perplexity, toxicity, WER/CER, regret, cost; else higher)")


def announce_direction(args, metrics) -> None:
    """Say which way is better for each metric when it was guessed from the names (for what
    describes a movement: a diagnostic has no better side and rises or falls)."""
    if args.better != "auto":
        return
    from ..direction import guessed_direction

    sides = {}
    for metric in metrics:
        sides.setdefault(guessed_direction(metric), []).append(str(metric))
    said = "; ".join(f"{side} is better for {', '.join(names)}" if side else
                     f"no better side for {', '.join(names)} (a diagnostic: rising or falling)"
                     for side, names in sides.items())
    say(f"{said} (guessed from the names; --better overrides)")


def _left_out(columns) -> str:
    reasons = {}
    for column, why in columns.bookkeeping.items():
        reasons.setdefault(why, []).append(str(column))
    return "; ".join(f"{', '.join(names)} ({why})" for why, names in reasons.items())


def add_run_option(parser) -> None:
    parser.add_argument("--run", help="analyse only this run of a log that holds several "
                                      "(a run/seed column, a W&B chart export, a TensorBoard directory ...)")


def _runs(frame, key, args):
    """Name each row's run; keep the one --run names, else have the command split by run."""
    from ..io.runs import name_list

    source = frame.attrs.get("source")
    chosen = getattr(args, "run", None)
    if getattr(args, "group", None) is not None:
        if chosen is not None:
            raise InputError("--run and --group cannot be combined: --group already splits the runs")
        return frame
    if not key.several:
        if chosen is not None:
            raise InputError(f"--run: {source} holds a single run (no run, seed or trial column, "
                             "and the step axis never starts again)")
        return frame
    attrs = dict(frame.attrs)
    frame = frame.assign(**{RUN: key.labels})
    configs, how = key.config_labels, key.how
    known = attrs.get("run_configs")  # what the log says each run was (a monitor's environment)
    if known and set(key.names) <= set(known):
        environments = frame[RUN].map(known).to_numpy(dtype=object)
        # a run's whole configuration (sacred's config.json) outranks what its name suggests
        whole = attrs.get("run_configs_complete", False)
        configs = environments if configs is None or whole else _on_environments(configs, environments)
        if whole:
            how = (f"{key.how.partition(',')[0]}; {len(set(known.values()))} configuration(s) "
                   "by what the log records of each run, seeds aside")
    if configs is not None:
        frame[CONFIG] = configs
    if chosen is not None:
        if chosen not in key.names and len(key.columns) == 1:
            chosen = f"{key.columns[0]}={chosen}"  # --run 3 for the run 'seed=3'
        if chosen not in key.names:
            raise InputError(f"--run: no run {args.run!r} in {source}; runs: {name_list(key.names)}")
        frame = frame[frame[RUN] == chosen].reset_index(drop=True)
        frame.attrs.update(attrs)
        return frame
    frame.attrs.update(attrs)
    args.group = RUN
    args.config = CONFIG if configs is not None else None
    if not (attrs.get("format") == "verifiers" and getattr(args, "pool_examples", False)):
        say(f"{source} holds {len(key.names)} runs ({how}: {name_list(key.names)}); each is "
            "analysed on its own (--run NAME picks one)")
    return frame


def _on_environments(configs, environments):
    """Settings told apart by the runs' names, split further where one spans environments:
    the runs of ``ppo`` on CartPole and on Pendulum are not replicates of each other."""
    out = configs.copy()
    for config in dict.fromkeys(configs.tolist()):
        rows = configs == config
        if len(set(environments[rows].tolist())) > 1:
            out[rows] = [f"{config} on {env}" for env in environments[rows]]
    return out


def parts(frame, args):
    """(run name or None, rows) for each run the command analyses: the whole table unless
    ``args.group`` names the run column."""
    group = getattr(args, "group", None)
    if not group:
        return [(None, frame)]
    out = []
    for name, part in frame.groupby(group, sort=group != RUN):
        part = part.reset_index(drop=True)
        part.attrs.update(frame.attrs)
        out.append((name, part))
    return out


def metric_runs(frame, metric: str, step, args, *, diverged: bool = False) -> list:
    """The metric's series in each run that logged it, named ``metric [run]`` (a run that
    never logged this metric is skipped; any other bad cell is an error; ``diverged``: see
    :func:`~swarmstats.io.select_metric`, and a run that diverged before logging a finite value
    is an empty series whose ``attrs["diverged"]`` says so - see :func:`finite_runs`)."""
    from ..io import select_metric

    runs = []
    for key, part in parts(frame, args):
        try:
            series = select_metric(part, metric, step=step, diverged=True)
        except DivergedAtStart as exc:
            if not diverged:  # skipped as a run without the metric, but not without a word
                say(f"{run_label(metric, key, args)}: {exc}")
                continue
            import pandas as pd

            series = pd.Series([], dtype=float, name=metric)
            series.attrs["diverged"] = exc.divergence
        except NoValues:  # a run that never logged this metric
            continue
        if not diverged:
            say_left_out(run_label(metric, key, args), series)
        runs.append(series.rename(run_label(metric, key, args)))
    return runs


def say_left_out(name: str, series, *, divergence: bool = True) -> None:
    """Say on stderr what ``select_metric(diverged=True)`` left out of ``series``: inf or NaN
    between finite values (skipped steps), and - for a command with no verdict to give
    (``divergence``) - an end in infinite or NaN values, the values before being analysed."""
    from ..convergence.reasons import skipped_text, where_diverged

    info = series.attrs.get("diverged")
    if divergence and info is not None:
        say(f"{name}: {where_diverged(info)}: the run diverged there; the {len(series):,} values before "
            "are analysed")
    if "skipped" in series.attrs:
        say(f"{name}: {skipped_text(series.attrs['skipped'])}")


def every_metric_run(frame, metrics: list, step, args) -> list:
    """:func:`metric_runs` of each metric, in order; an error when no run has a value of any."""
    found = [series for metric in metrics for series in metric_runs(frame, metric, step, args)]
    if not found:
        raise InputError(f"no values of {', '.join(map(str, metrics))} in any run")
    return found


def finite_runs(runs: list, metric: str) -> list:
    """The runs of :func:`metric_runs` that logged a finite value (the others diverged before
    they did); an error when none did."""
    from ..io.runs import name_list

    kept = [series for series in runs if len(series)]
    if runs and not kept:
        raise InputError(f"metric {metric!r}: every run diverged before logging a finite value "
                         f"({name_list([series.name for series in runs])})")
    return kept


def run_label(name: str, run, args) -> str:
    """'reward [seed=3]' for a metric of one run ('[run=a]' for a --group column's value)."""
    if run is None:
        return name
    return f"{name} [{run}]" if args.group == RUN and "=" in str(run) else f"{name} [{args.group}={run}]"


#: the version of the JSON every command prints (bump it when a key changes meaning)
SCHEMA_VERSION = 1


def dump_json(command: str, payload: dict, frame=None) -> None:
    """The one JSON envelope: ``schema_version``, ``command``, ``input`` (the log read, when
    there is one), then the command's own keys.  Strict JSON: no NaN (null instead)."""
    from .._result import jsonable

    envelope = {"schema_version": SCHEMA_VERSION, "command": command}
    if frame is not None:
        envelope["input"] = {"source": frame.attrs.get("source"), "format": frame.attrs.get("format"),
                             "rows": int(len(frame))}
    json.dump(jsonable({**envelope, **payload}), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def render(args, command: str, results, *, frame=None, payload=None, table=None, text=None) -> None:
    """Print ``results`` in the format asked for: the one place output formats are decided.

    json - the envelope around ``payload()`` (default ``{"results": [each to_dict()]}``);
    csv - ``table()`` (default: every result's ``to_frame()``, stacked, ``metric`` first);
    text - ``text()`` (default: every summary, a blank line between)."""
    if args.format == "json":
        dump_json(command, payload() if payload else {"results": [r.to_dict() for r in results]}, frame)
    elif args.format == "csv":
        (table() if table else stacked_frames(results)).to_csv(sys.stdout, index=False)
    elif text is not None:
        text()
    else:
        print("\n\n".join(r.summary() for r in results))


def stacked_frames(results):
    """Every result's ``to_frame()`` in one frame, tagged by the result's name in a first
    ``metric`` column when the table lacks one."""
    import pandas as pd

    frames = []
    for result in results:
        part = result.to_frame()
        if "metric" not in part.columns:
            part = part.assign(metric=getattr(result, "name", None))
        frames.append(part)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return table[["metric", *[c for c in table.columns if c != "metric"]]] if len(table.columns) else table


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

    from ..io.outputs import PLOT_SUFFIXES, check_output, write_atomically
    from ..plots import literal_text

    literal_text(fig)  # before the layout, which renders every text
    fig.tight_layout()
    try:
        check_output(path, suffixes=PLOT_SUFFIXES, what="plot")
        write_atomically(path, lambda temporary: fig.savefig(temporary, dpi=110))
    finally:
        plt.close(fig)


def plot_results(results, path: str, panel: tuple = (9, 3.2)) -> None:
    """Each result's own plot, one row of size ``panel`` each, into one image."""
    fig, axes = new_figure(len(results), 1, (panel[0], panel[1] * len(results)))
    for result, ax in zip(results, axes[:, 0]):
        result.plot(ax=ax)
    save_figure(fig, path)
