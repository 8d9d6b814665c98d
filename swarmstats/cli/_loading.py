"""Loading a log for a command: the file read, its metrics chosen, their runs told apart, and
what was left out said on stderr."""

from __future__ import annotations

from ..errors import DivergedAtStart, InputError, NoValues
from ._output import capped_list, say

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
    from ..io.columns import left_out_text, listing, table_roles
    from ..io.formats._sweep import require_series

    frame = read_log(args.file, format=args.input_format, wide=True)
    if frame.attrs.get("format") == "verifiers" and getattr(args, "command", None) in TIME_ORDERED:
        examples = frame["run"].nunique() if "run" in frame.columns else 0
        raise InputError(f"{frame.attrs.get('source')} is an evaluation (verifiers results: {examples} "
                         f"examples, {len(frame)} rollouts), not a training log: its rollouts have no "
                         f"order in time, so nothing converges, changes or trends in it; 'swarmstats "
                         f"describe {args.file}' gives each score with an interval clustered by example")
    if getattr(args, "command", None) in TIME_ORDERED:
        require_series(frame, args.file)
    for note in frame.attrs.get("notes", []):  # what the reader found (runs, joins, gaps)
        say(f"{frame.attrs.get('source')}: {note}")
    frame = _agents_when_named(frame, args)
    group = getattr(args, "group", None)
    columns, key = table_roles(frame, step=args.step, group=group)
    frame = _runs(frame, key, args)
    # a metric named twice is analysed once
    metrics = list(dict.fromkeys(args.metric)) if args.metric else columns.metrics
    if not metrics:
        left = f"; left out: {left_out_text(columns.bookkeeping)}" if columns.bookkeeping else ""
        left += f"; not numbers: {listing(columns.text)}" if columns.text else ""
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
        say(f"left out {left_out_text(columns.bookkeeping)} (name one with -m to analyse it)")
    if not args.metric and columns.text:
        say(f"not analysed: {listing(columns.text)} (words, not numbers)")
    _say_if_steps_repeat(frame, metrics, columns.step, getattr(args, "group", None),
                         [c for c, why in columns.bookkeeping.items() if why in ("a counter", "another step axis")])
    return frame, columns, metrics


def _agents_when_named(frame, args):
    """``frame`` without a Mesa batch run's agents unless an agent reporter is named with -m
    or an agent's run with --run (:func:`~swarmstats.io.formats.mesa.for_metrics`)."""
    from ..io.formats.mesa import for_metrics, of_agents

    if getattr(args, "run", None) is not None and of_agents([args.run])[0]:
        return frame
    frame, note = for_metrics(frame, args.metric)
    if note:
        say(note)
    return frame


def _say_if_steps_repeat(frame, metrics: list, step: str | None, group: str | None, counters=()) -> None:
    """Warn when every step of a metric holds the same number (2 or more) of values: two runs
    or agents appended to one file without a column naming them read as one series that
    alternates between them (two runs at 0.5 and 0.8: "converged" at 0.65, nobody's level).
    Where one of ``counters`` rises within every step (mmdetection's ``iter`` within its
    ``epoch``), the values are the step's parts in order, and the note says so instead."""
    import numpy as np

    if step is None or step not in frame.columns or frame.attrs.get("final_values"):
        return  # (a run's final values share its number as their step: its agents, not two runs)
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
                within = next((c for c in counters if _rises_within(rows, step, c)), None)
                if within is not None:
                    say(f"{where}: each step of '{step}' holds {repeats} values, one per '{within}' within it "
                        f"({len(rows):,} values at {len(counts):,} steps): read in that order, spread over each step")
                    break
                say(f"{where}: each step of '{step}' holds {repeats} values ({len(rows):,} values at "
                    f"{len(counts):,} steps), read in row order as one series: if they are {repeats} runs or "
                    "agents written into one file, add a column naming them (a run, seed or agent column "
                    "splits them)")
                break


def _rises_within(rows, step: str, counter) -> bool:
    """Does ``counter`` rise at every row within each value of ``step`` (an iteration counted
    within each epoch), in the rows' order?"""
    import numpy as np
    import pandas as pd

    values = pd.to_numeric(rows[counter], errors="coerce").to_numpy(dtype=float)
    steps = rows[step].to_numpy()
    same = steps[1:] == steps[:-1]
    return bool(same.any() and not np.isnan(values).any() and (np.diff(values)[same] > 0).all())


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


def too_few(source, counted: str, hint: str | None = None) -> InputError:
    """The one error for an input too short to analyse: ``source: counted; at least 3 are needed
    for a spread or a test`` (and a ``hint``)."""
    hint = f" ({hint})" if hint else ""
    return InputError(f"{source}: {counted}; at least {MIN_VALUES} are needed for a spread or a test{hint}")


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
            how = (f"{key.how.partition(',')[0]}; {len({known[name] for name in key.names})} configuration(s) "
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
        if attrs.get("final_values"):
            say(f"{source} holds the final values of runs in {len(key.names)} settings ({name_list(key.names)}); "
                "each setting is described on its own (--run NAME picks one)")
        else:
            say(f"{source} holds {len(key.names)} {'agents' if key.of_agents else 'runs'} ({how}: "
                f"{name_list(key.names)}); each is analysed on its own (--run NAME picks one)")
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
