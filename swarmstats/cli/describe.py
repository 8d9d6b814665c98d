"""`swarmstats describe`: the distribution of each metric, with honest intervals."""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from ..describe import MEDIAN_METHODS, describe
from ..errors import InputError, NoValues
from ..io import LOG_FORMATS, select_metric
from ._common import (
    EXIT_PASS,
    add_input_format_option,
    add_output_options,
    add_random_seed_option,
    add_run_option,
    dump_json,
    load,
    parts,
    plot_results,
    run_label,
)


def add_parser(commands) -> None:
    describe = commands.add_parser(
        "describe", help="the distribution of each metric, with autocorrelation-aware intervals",
        description="n, mean with an autocorrelation-aware CI (and the i.i.d. one beside it), median "
                    "with a block-bootstrap CI, IQM, quantiles, extremes and their steps, the peak's "
                    "distance from the mean, lower-tail CVaR and a bimodality indicator.",
        epilog="exit codes:\n  0  success\n  2  usage or input error (one line on stderr)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    describe.add_argument("file", metavar="FILE", help="log file (CSV, TSV, JSON Lines, JSON list) or -")
    describe.add_argument("-m", "--metric", action="append", default=None,
                          help="metric column (repeatable; default: every metric column)")
    describe.add_argument("--step", help="column to use as the step axis")
    add_run_option(describe)
    describe.add_argument("--group", help="column naming the run/seed: one description per run")
    add_random_seed_option(describe, "random seed of the median's bootstrap (default 0)")
    describe.add_argument("--median-method", choices=MEDIAN_METHODS, default="bootstrap",
                          help="interval of the median: block bootstrap (default) or order statistics "
                               "with the ESS (better under strong autocorrelation)")
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
    if args.format == "json":
        dump_json("describe", {"results": [r.to_dict() for r in results]}, frame)
    elif args.format == "csv":
        pd.DataFrame([r.to_row() for r in results]).to_csv(sys.stdout, index=False)
    else:
        print("\n\n".join(r.summary() for r in results))
    if args.plot:
        plot_results(results, args.plot)
    return EXIT_PASS
