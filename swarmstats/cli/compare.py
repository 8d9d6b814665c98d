"""`swarmstats compare`: is the first set of runs better than the others, across seeds?

Each set is a glob, a folder of run folders or a list of files; each run's score is the mean
of one metric over the last part of the run (``--last``, a tenth by default).  The sets are
compared as :func:`swarmstats.compare_runs` compares them (mean, median and IQM with
stratified-bootstrap intervals, and the probability that a run of one set beats a run of the
other), and the claim "the first set is better than each of the others" is shown when the
interval of that probability lies above 1/2 (its level Bonferroni-split over the others).
``--plan DELTA`` says how many runs per set a difference of DELTA needs.

One table of runs' final values in several settings (an MLflow runs table, a BehaviorSpace
table, a Mesa batch run) is also taken: its settings are the sets, ``--names`` picks them (the
first compared with the others), and each run's final value is its score.
"""

from __future__ import annotations

import math
import os
import shlex

import numpy as np

from .._kernels.bootstrap import wilson_interval
from .._result import fmt
from ..compare import compare_runs, evaluation_plan
from ..direction import resolve
from ..errors import InputError
from ..io import LOG_FORMATS, read_log, select_metric
from ..io.runs import name_list
from ..sweeps.runs import ENVIRONMENT
from ._options import (
    EXIT_FAIL,
    EXIT_PASS,
    add_better_option,
    add_command,
    add_input_format_option,
    add_output_options,
    add_random_seed_option,
    finite,
)
from ._output import plot_results, render, say
from ._runs import (
    add_last_option,
    check_last,
    metric_runs_at,
    note_pooled,
    note_settings,
    refuse_diverged,
    tail,
)


def add_parser(commands) -> None:
    parser = add_command(
        commands, "compare",
        description="Compare sets of runs (seeds) by each run's final score - the mean of the "
                    "metric over the last part of the run - with intervals of the mean (Student's t), "
                    "the median (the runs' order statistics) and the IQM (a stratified bootstrap, "
                    "stretched for few runs) and the probability that a run of the first set beats "
                    "a run of each other set.  Exit 0 when the first set is shown better than every "
                    "other (that probability's interval above 1/2, and its exact permutation test "
                    "agreeing), 1 when it is not.",
        exits={0: "the first set is shown better than each of the others",
               1: "the improvement is not shown"})
    parser.add_argument("sets", metavar="SET", nargs="+",
                        help="a set of runs: a quoted glob, a folder of run folders, or a file (two or more "
                             "sets); or one table of runs' final values in several settings (an MLflow runs "
                             "table), whose settings --names picks")
    parser.add_argument("-m", "--metric", required=True, help="the metric that scores a run")
    parser.add_argument("--names", nargs="+", metavar="NAME",
                        help="a label per set (default: the SET as given); with one table of final values, "
                             "the settings to compare, the first with the others")
    parser.add_argument("--task", metavar="KEY",
                        help="the run parameter naming its task (a KEY=value path segment, params.json or "
                             "an MLflow parameter): scores become runs x tasks, and runs pair by task "
                             "(and seed)")
    add_last_option(parser)
    add_better_option(parser)
    parser.add_argument("--alpha", type=finite, default=0.05,
                        help="error rate of the claim, split over the sets compared (default 0.05)")
    parser.add_argument("--plan", type=finite, metavar="DELTA",
                        help="also say how many runs per set detect a difference DELTA in the mean "
                             "score with power 0.8")
    add_random_seed_option(parser, "random seed of the bootstrap (default 0)")
    add_input_format_option(parser, LOG_FORMATS, "the run files")
    add_output_options(parser, plot="the performance profiles")


def run(args) -> int:
    check_last(args.last)
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha must be in (0, 1), got {args.alpha}")
    if len(args.sets) == 1:
        names, read = settings_scores(args)
    else:
        names = list(args.names) if args.names else list(args.sets)
        if len(names) != len(args.sets) or len(set(names)) != len(names):
            raise InputError(f"--names: give {len(args.sets)} different labels, one per set; got {names}")
        read = {name: run_scores(pattern, args.metric, args.last, args.input_format, args.task)
                for name, pattern in zip(names, args.sets)}
    scores = {name: _matrix(name, found, args.task) for name, found in read.items()}
    if args.task is not None:
        _same_tasks(read)
    pooled = f"their scores are compared as one pool; pass --task {ENVIRONMENT} to compare environment by environment"
    note_pooled([spec for found in read.values() for spec in found["specs"]],
                environments=pooled if args.task is None else None,
                workers="comparing them compares workers of one setting, not seeds")
    if args.task is None:
        for name, found in read.items():
            note_settings(found["specs"], "its spread is taken as a spread between seeds; pass the runs of "
                          "one setting as a set", where=f" of set {name}")
    better = resolve(args.better, args.metric)
    others = len(names) - 1
    level = 1 - args.alpha / others  # each claim at alpha / (k - 1): all of them together keep alpha
    result = compare_runs(scores, ci=level, random_state=args.random_seed)
    claims = [_paired_claim(names[0], other, read, better, level)
              or _claim(result, names[0], other, better, level) for other in names[1:]]
    shown = all(claim["shown"] for claim in claims)
    plan = _plan(args, read) if args.plan is not None else None
    render(args, "compare", [result],
           payload=lambda: {**result.to_dict(), "better": better, "claims": claims, "shown": shown,
                            "plan": plan},
           table=result.to_frame,
           text=lambda: _text(result, claims, shown, better, plan, args))
    if args.plot:
        plot_results([result], args.plot, (7, 4))
    return EXIT_PASS if shown else EXIT_FAIL


def run_scores(pattern: str, metric: str, last: float, input_format: str | None,
               task: str | None = None) -> dict:
    """A set's runs: ``scores`` (the mean of ``metric`` over each run's last ``last``), ``seeds``
    (each run's seed - a ``seed=`` path segment, params.json or an MLflow parameter - or None when
    some run has none, or two share one), ``tasks`` (each run's ``task`` parameter, with
    ``task``) and ``runs`` (each run's values)."""
    values, seeds, tasks, runs, specs = [], [], [], [], []
    found = metric_runs_at(pattern, metric, input_format)
    refuse_diverged(found, metric, "a run's score is the mean of its last part, which they never logged")
    for spec, series in found:
        specs.append(spec)
        seeds.append(spec.params.get("seed"))
        if task is not None:
            if task not in spec.params:
                raise InputError(f"{spec.name}: no {task!r} parameter to say its task (--task); it has "
                                 f"{', '.join(map(str, spec.params)) or 'none'}")
            tasks.append(spec.params[task])
        kept = series.to_numpy()
        runs.append(kept)
        values.append(float(np.mean(tail(kept, last))))
    if len(values) < 2:
        raise InputError(f"{pattern}: {len(values)} run(s); a set needs at least two to compare seeds "
                         "(one run per set - two checkpoints' evaluations - says nothing about seeds: "
                         "to pick the better run by its own values, swarmstats best-of PATH PATH -m "
                         f"{metric} --last 1)")
    keys = list(zip(tasks, seeds)) if task is not None else seeds
    known = all(seed is not None for seed in seeds) and len(set(keys)) == len(keys)
    return {"scores": np.array(values), "seeds": seeds if known else None,
            "tasks": tasks if task is not None else None, "runs": runs, "specs": specs}


def settings_scores(args) -> tuple[list[str], dict]:
    """The settings ``--names`` picks from one table of runs' final values (``args.sets[0]``)
    as sets, each :func:`run_scores`-shaped: a run's score is its final value of the metric.

    The runs of a table are in one file: no task and no series for ``--plan``'s noise.  Where
    the table names each run's seed (an MLflow run's ``params.seed``), the settings pair on the
    seeds they share, as sets of run folders do; a run holding several values of the metric (a
    Mesa run's agents) has no one score, and is refused rather than averaged behind the user's
    back."""
    path = args.sets[0]
    usage = ("compare needs two or more sets of runs (the first is compared with the others), or one "
             "table of runs' final values in several settings (an MLflow runs table) and --names")
    if not os.path.isfile(path):
        raise InputError(usage)
    frame = read_log(path, format=args.input_format, wide=True)
    if not frame.attrs.get("final_values"):
        raise InputError(f"{usage}; {path} is one set")
    settings = list(dict.fromkeys(frame["run"])) if "run" in frame.columns else []
    if len(settings) < 2:
        raise InputError(f"{path}: the final values of runs in one setting; compare needs two or more "
                         "settings (or sets of runs)")
    if not args.names:
        raise InputError(f"{path} holds runs' final values in {len(settings)} settings ({name_list(settings)}): "
                         "say which to compare, the first with the others: --names "
                         + " ".join(shlex.quote(str(setting)) for setting in settings[:2]))
    names = list(args.names)
    unknown = [name for name in names if name not in settings]
    if unknown:
        raise InputError(f"--names: no setting {unknown[0]!r} in {path}; its settings: {name_list(settings)}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise InputError(f"--names: give two or more different settings of {path}; got {names}")
    if args.task is not None:
        raise InputError(f"--task: {path} holds one final value per run and setting; its settings are "
                         "compared as labelled, with no task to pair runs on")
    if args.plan is not None:
        raise InputError(f"--plan: {path} holds one final value per run; the plan reads each run's noise "
                         "from its values over time")
    for note in frame.attrs.get("notes", [])[1:]:  # the runs left out (unfinished); the first says
        say(f"{path}: {note}")                     # what a final-values table cannot show
    say(f"{path}: each run's final {args.metric} is its score; the settings {name_list(names)} are compared")
    read = {}
    for name in names:
        part = frame[frame["run"] == name]
        try:
            series = select_metric(part, args.metric, step="step")
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
        if series.index.has_duplicates:
            raise InputError(f"{path}: a run of {name} holds several values of {args.metric} (one per agent?); "
                             "compare scores each run by one value")
        if len(series) < 2:
            raise InputError(f"{path}: {len(series)} run(s) of {name} with a value of {args.metric}; a set "
                             "needs at least two to compare seeds")
        values = series.to_numpy()
        read[name] = {"scores": values, "seeds": _table_seeds(series.index, frame.attrs.get("run_seeds")),
                      "tasks": None, "runs": [values[i:i + 1] for i in range(len(values))], "specs": []}
    return names, read


def _table_seeds(runs, seeds: dict | None) -> list | None:
    """The seed of each run (by its run number, the table's step) when the table names every
    one and no seed repeats within the setting, else None (the runs are then independent)."""
    if not seeds:
        return None
    found = [seeds.get(float(run)) for run in runs]
    if any(seed is None for seed in found) or len(set(map(str, found))) != len(found):
        return None
    return found


def _matrix(name: str, found: dict, task: str | None) -> np.ndarray:
    """A set's scores as runs x tasks (one column without ``--task``), each task's runs in seed
    order when the seeds are known."""
    scores = found["scores"]
    if task is None:
        return scores
    columns = {}
    for i, label in enumerate(found["tasks"]):
        columns.setdefault(label, []).append(i)
    counts = {label: len(rows) for label, rows in columns.items()}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{label} {count}" for label, count in sorted(counts.items(), key=str))
        raise InputError(f"{name}: the tasks have different numbers of runs ({listed}); runs x tasks "
                         "needs as many runs on every task")
    order = sorted(columns, key=str)
    if found["seeds"] is not None:
        columns = {label: sorted(rows, key=lambda i: str(found["seeds"][i])) for label, rows in columns.items()}
    return np.column_stack([scores[columns[label]] for label in order])


def _same_tasks(read: dict) -> None:
    tasks = {name: sorted(set(found["tasks"]), key=str) for name, found in read.items()}
    first, *rest = tasks
    for name in rest:
        if tasks[name] != tasks[first]:
            raise InputError(f"--task: {first} ran {', '.join(map(str, tasks[first]))} but {name} ran "
                             f"{', '.join(map(str, tasks[name]))}; compare the same tasks")


def _claim(result, first: str, other: str, better: str, level: float) -> dict:
    """P(a run of ``first`` is better than a run of ``other``), the sets as independent samples.

    Shown when its score interval lies above 1/2 and the exact permutation test of the same
    probability agrees at the interval's one-sided level: with a few runs rliable's percentile
    bootstrap alone claimed an edge between sets of 2 seeds of one setting 18% of the time (the
    interval lies above 1/2 exactly when the test rejects, for every outcome of 3 to 8 runs a
    side but two at the border, where the interval is the stricter)."""
    row = result.improvement.set_index(["x", "y"]).loc[(first, other)]  # P(first > other)
    probability, low, high = float(row["probability"]), float(row["low"]), float(row["high"])
    pvalue = float(row["p_greater"])
    if better == "lower":  # P(X > Y) + P(Y > X) = 1 with ties halved: better means smaller
        probability, low, high, pvalue = 1 - probability, 1 - high, 1 - low, float(row["p_less"])
    one_sided = (1 - level) / 2
    return {"better": first, "than": other, "paired": False, "pairs": None, "paired_on": None,
            "probability": probability, "low": low, "high": high, "pvalue": pvalue,
            "runs_needed": _runs_needed(result, first, other, one_sided),
            "shown": bool(low > 0.5 and pvalue <= one_sided)}


def _runs_needed(result, first: str, other: str, one_sided: float) -> int | None:
    """Runs per set below which no ordering of the scores is improbable enough for the
    permutation test at ``one_sided`` (None when the sets already have enough): the smallest
    p-value with m and n runs on k tasks is 1 / C(m + n, m)^k."""
    table = result.table.set_index("name")
    runs = [int(table.loc[name, "n_runs"]) for name in (first, other)]
    tasks = int(table.loc[first, "n_tasks"])
    if math.comb(sum(runs), runs[0]) ** tasks * one_sided >= 1:
        return None
    size = 2
    while math.comb(2 * size, size) ** tasks * one_sided < 1:
        size += 1
    return size


def _units(found: dict) -> tuple[dict, str] | None:
    """What a set's runs pair on, {key: score}, and its name: (task, seed) pairs, seeds, or
    tasks (each task's mean score); None when neither seeds nor tasks are known."""
    scores, seeds, tasks = found["scores"], found["seeds"], found["tasks"]
    if seeds is not None:
        keys = list(zip(tasks, seeds)) if tasks is not None else seeds
        return dict(zip(keys, scores)), "(task, seed) pairs" if tasks is not None else "seeds"
    if tasks is not None:
        return {label: float(np.mean(scores[[t == label for t in tasks]])) for label in set(tasks)}, "tasks"
    return None


def _paired_claim(first: str, other: str, read: dict, better: str, level: float):
    """The share of shared seeds, tasks or (task, seed) pairs on which ``first`` beats ``other``
    (ties half), with a Wilson interval; None when the sets cannot be paired."""
    mine, theirs = _units(read[first]), _units(read[other])
    if mine is None or theirs is None or mine[1] != theirs[1] or set(mine[0]) != set(theirs[0]):
        return None
    keys = list(mine[0])
    sign = 1.0 if better == "higher" else -1.0
    difference = sign * (np.array([mine[0][k] for k in keys]) - np.array([theirs[0][k] for k in keys]))
    wins = float(np.sum(difference > 0) + 0.5 * np.sum(difference == 0))
    low, high = wilson_interval(wins, len(keys), level)
    # the exact sign test must agree (ties dropped): Wilson's interval alone claimed 5 wins in
    # 5 seeds, which chance gives 1 time in 32, at a one-sided 2.5%
    strict, untied = int(np.sum(difference > 0)), int(np.sum(difference != 0))
    pvalue = float(sum(math.comb(untied, k) for k in range(strict, untied + 1)) / 2.0 ** untied)
    one_sided = (1 - level) / 2
    needed = math.ceil(math.log2(1 / one_sided)) if 2.0 ** -untied > one_sided else None
    return {"better": first, "than": other, "paired": True, "pairs": len(keys), "paired_on": mine[1],
            "probability": wins / len(keys), "low": float(low), "high": float(high),
            "pvalue": pvalue, "runs_needed": needed, "shown": bool(low > 0.5 and pvalue <= one_sided)}


def _plan(args, read: dict) -> dict:
    """Runs per set (and evaluation points per run) for a difference ``--plan``: the scores'
    values, with each run's second half for its noise (see :func:`evaluation_plan`)."""
    runs = {name: found["runs"] for name, found in read.items()}
    tails = {name: [tail(values, args.last) for values in set_runs]
             for name, set_runs in runs.items()}
    halves = {name: [values[len(values) // 2:] for values in set_runs] for name, set_runs in runs.items()}
    short = min(len(tail) for set_tails in tails.values() for tail in set_tails)
    if short < 4:
        raise InputError(f"--plan: a run's score averages only {short} value(s) (--last {args.last}); "
                         "the plan needs at least 4 per run to tell its noise from the seeds' spread")
    plan = evaluation_plan(args.plan, tails, alpha=args.alpha, noise_runs=halves)
    return {"delta": args.plan, "sd": plan.sd, "power": plan.power, "alpha": args.alpha,
            "runs_per_set": int(plan.table["runs_per_set"].iloc[0]),
            "runs_now": {name: len(found["scores"]) for name, found in read.items()},
            "between_sd": plan.between_sd, "noise_sd": plan.noise_sd, "points": plan.points,
            "floor": plan.floor, "rows": plan.table.to_dict("records"), "notes": plan.notes,
            "summary": plan.summary()}


def _text(result, claims, shown, better, plan, args) -> None:
    print(result.summary())
    for claim in claims:
        verdict = "shown" if claim["shown"] else "not shown"
        how = (f"it wins on {fmt(claim['probability'] * claim['pairs'], 3)} of {claim['pairs']} shared "
               f"{claim['paired_on']}"
               if claim["paired"] else "P(one of its runs beats one of the other's)")
        test = f", {'sign test' if claim['paired'] else 'permutation'} p = {fmt(claim['pvalue'], 2)}"
        print(f"{claim['better']} better than {claim['than']} ({better} {args.metric} is better): {how} = "
              f"{fmt(claim['probability'], 3)} [{fmt(claim['low'], 3)}, {fmt(claim['high'], 3)}]{test} - {verdict}")
        if claim["runs_needed"]:
            what = (f"the sign test needs at least {claim['runs_needed']} {claim['paired_on']} that differ"
                    if claim["paired"] else
                    f"the exact permutation test needs at least {claim['runs_needed']} runs per set")
            print(f"  with these runs no outcome is improbable enough to show it: {what}")
    print(f"{'the first set is shown better than every other' if shown else 'the improvement is not shown'} "
          f"(each interval at {fmt(1 - args.alpha / len(claims), 3)}, so all together keep alpha = {args.alpha})")
    if plan is not None:
        now = ", ".join(f"{name} {count}" for name, count in plan["runs_now"].items())
        print(f"plan: a difference of {fmt(plan['delta'])} in the mean score needs {plan['runs_per_set']} runs "
              f"per set for power 0.8 at alpha {plan['alpha']} (across-seed SD {fmt(plan['sd'], 3)}, pooled; "
              f"runs now: {now})")
        print("  " + plan["summary"].replace("\n", "\n  "))
