"""`swarmstats describe`: the distribution of each metric, with honest intervals."""

from __future__ import annotations

import numpy as np

from ..description import MEDIAN_METHODS, describe
from ..errors import InputError, NoValues
from ..io import LOG_FORMATS, select_metric
from ._common import (
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_log_options,
    add_output_options,
    add_random_seed_option,
    load,
    parts,
    plot_results,
    render,
    run_label,
)


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
    add_input_format_option(describe, LOG_FORMATS)
    add_output_options(describe, plot="each distribution")


def run(args) -> int:
    frame, columns, metrics = load(args)
    results = []
    rng = np.random.default_rng(args.random_seed)
    for metric in metrics:
        for key, part in parts(frame, args):
            try:
                series = select_metric(part, metric, step=columns.step)
            except NoValues:
                if args.group:
                    continue  # a run that never logged this metric
                raise
            results.append(describe(series, random_state=rng, name=run_label(metric, key, args),
                                    median_method=args.median_method))
    if not results:
        raise InputError("no values to describe")
    render(args, "describe", results, frame=frame)
    if args.plot:
        plot_results(results, args.plot)
    return EXIT_PASS
