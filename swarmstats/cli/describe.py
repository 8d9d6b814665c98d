"""`swarmstats describe`: the distribution of each metric, with honest intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._result import plain_number
from ..description import MEDIAN_METHODS, describe
from ..errors import DivergedAtStart, InputError, NoValues
from ..io import LOG_FORMATS, select_metric
from ._loading import RUN, announce_direction, load, parts, run_label, say_left_out
from ._options import (
    EXIT_PASS,
    add_better_option,
    add_command,
    add_input_format_option,
    add_log_options,
    add_output_options,
    add_random_seed_option,
)
from ._output import plot_results, render, say


def add_parser(commands) -> None:
    describe = add_command(
        commands, "describe",
        description="n, mean with an autocorrelation-aware CI (and the i.i.d. one beside it), median "
                    "with an order-statistics CI, IQM, quantiles, extremes and their steps, the peak's "
                    "distance from the mean, lower-tail CVaR and a bimodality indicator.")
    add_log_options(describe, group="one description per run")
    add_random_seed_option(describe, "random seed of the median's bootstrap (default 0)")
    describe.add_argument("--median-method", choices=MEDIAN_METHODS, default="order-statistics",
                          help="interval of the median: order statistics with the ESS (default; "
                               "better calibrated under strong autocorrelation, fast at any length) "
                               "or a block bootstrap")
    describe.add_argument("--cluster", metavar="COLUMN",
                          help="column naming the cluster of each value (the prompt or example a "
                               "rollout answered, the agent a score came from): the intervals "
                               "allow for values of one cluster being alike; a verifiers eval is "
                               "clustered by example by itself")
    add_better_option(describe)
    add_input_format_option(describe, LOG_FORMATS)
    add_output_options(describe, plot="each distribution")


def run(args) -> int:
    # an eval's examples are pooled (clustered), not described one by one: the loader need not
    # announce them as runs
    args.pool_examples = args.group is None and args.cluster is None and args.run is None
    frame, columns, metrics = load(args)
    cluster = _cluster_column(frame, args)
    by_run = cluster is None and bool(frame.attrs.get("final_values"))
    if by_run:
        # runs' final values: the runs are independent, the values of one run (its agents') are
        # not, and run order is no time to read an autocorrelation in; the step is the run's number
        cluster = columns.step
        say(f"{frame.attrs.get('source')}: each run's final values, clustered by run (the step is the run's number)")
    announce_direction(args, metrics)
    results = []
    rng = np.random.default_rng(args.random_seed)
    for metric in metrics:
        for key, part in parts(frame, args):
            try:
                series, rows = select_metric(part, metric, step=columns.step, rows=True, diverged=True)
            except NoValues as exc:
                if not args.group:
                    raise
                if isinstance(exc, DivergedAtStart):  # skipped, but said
                    say(f"{run_label(metric, key, args)}: {exc}")
                continue  # a run that never logged this metric
            say_left_out(run_label(metric, key, args), series)
            clusters = part[cluster].to_numpy()[rows] if cluster is not None else None
            if by_run:  # the runs' numbers: "run 4", not "4.0"
                clusters = np.array([f"run {plain_number(value)}" for value in clusters], dtype=object)
            if clusters is not None and pd.isna(clusters).any():
                step = plain_number(series.index[int(np.flatnonzero(pd.isna(clusters))[0])])
                raise InputError(f"--cluster {cluster}: no label for {metric} at step {step} "
                                 "(every value needs one)")
            results.append(describe(series, random_state=rng, name=run_label(metric, key, args),
                                    median_method=args.median_method, clusters=clusters,
                                    better=args.better))
    if not results:
        raise InputError("no values to describe")
    render(args, "describe", results, frame=frame)
    if args.plot:
        plot_results(results, args.plot)
    return EXIT_PASS


def _cluster_column(frame, args) -> str | None:
    """The column whose values cluster the rows: ``--cluster``, or a verifiers eval's examples
    (its rollouts of one example are alike; they are not runs of a training to tell apart).
    A cluster column that was taken for the run key is pooled: one description, clustered."""
    cluster = args.cluster
    examples = frame.attrs.get("format") == "verifiers" and args.group == RUN and args.pool_examples
    if cluster is None and examples:
        cluster = RUN
        say(f"{frame.attrs.get('source')}: an evaluation's examples are not runs of a training: one "
            "description of every rollout, clustered by example (--group run describes each example)")
    if cluster is None:
        return None
    if cluster not in frame.columns:
        raise InputError(f"--cluster: no column {cluster!r}; columns: {', '.join(map(str, frame.columns))}")
    if args.group == RUN and (cluster == RUN or _same_rows(frame, cluster, RUN)):
        args.group = None  # the runs are the clusters: pooled
    elif cluster == args.group:
        raise InputError(f"--cluster {cluster} is also --group: a cluster cannot be described on its own "
                         "and clustered at once")
    return cluster


def _same_rows(frame, first: str, second: str) -> bool:
    """Whether two columns split the rows the same way."""
    pairs = frame[[first, second]].astype(str).drop_duplicates()
    return pairs[first].is_unique and pairs[second].is_unique
