"""compare_runs vs rliable: the same estimates, stratified-bootstrap intervals at equal
repetitions, ratio of times.

Target (issue 4): >= 10x faster than rliable at equal bootstrap repetitions.

rliable 1.2 pins arch < 8, and arch 7.x does not import under pandas 3 (pandas changed the
signature of a private decorator arch uses).  To time rliable's real code in this process
the benchmark adapts that one decorator call before importing arch; nothing else is changed.

    python benchmarks/bench_compare.py [--reps 50000] [--runs 5] [--tasks 10]
"""

import argparse

import numpy as np
from _timing import machine, median_time, report

import swarmstats as ss


def import_rliable():
    import pandas.util._decorators as decorators

    original = decorators.deprecate_kwarg

    def compatible(*args, **kwargs):
        # arch 7.x calls deprecate_kwarg(old, new); pandas 3 expects (klass, old, new)
        if args and isinstance(args[0], str):
            args = (FutureWarning, *args)
        return original(*args, **kwargs)

    decorators.deprecate_kwarg = compatible
    from rliable import library, metrics

    return library, metrics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=10)
    args = parser.parse_args()
    library, metrics = import_rliable()
    print(machine())
    rng = np.random.default_rng(0)
    x = rng.normal(0.5, 0.2, size=(args.runs, args.tasks))
    y = rng.normal(0.6, 0.2, size=(args.runs, args.tasks))

    def aggregate(scores):
        return np.array([metrics.aggregate_mean(scores), metrics.aggregate_median(scores),
                         metrics.aggregate_iqm(scores)])

    def theirs():
        np.random.seed(0)  # rliable draws from the global numpy generator
        return library.get_interval_estimates({"x": x}, aggregate, reps=args.reps)

    def ours():
        return ss.compare_runs(x, n_boot=args.reps, random_state=0)

    points, intervals = theirs()
    result = ours()
    row = result.table.iloc[0]
    ours_points = [row["mean"], row["median"], row["iqm"]]
    assert np.allclose(points["x"], ours_points, rtol=1e-12), (points["x"], ours_points)
    for i, name in enumerate(("mean", "median", "iqm")):
        low, high = intervals["x"][:, i]
        # a percentile bootstrap of a few runs is too narrow: the mean's interval is Student's t,
        # the median's and IQM's percentile ones are stretched for few runs (stretched_for_few_runs)
        how = (" (ours: Student's t; rliable: percentile bootstrap)" if name == "mean"
               else " (ours: stretched for few runs; rliable: percentile bootstrap)")
        print(f"  {name}: {row[name]:.4f}; 95% CI ours [{row[name + '_low']:.4f}, {row[name + '_high']:.4f}]"
              f", rliable [{low:.4f}, {high:.4f}]{how}")
    # time the intervals of the three aggregates alone (no profile, no second set)
    from swarmstats._kernels.bootstrap import (
        percentile_interval,
        stretched_for_few_runs,
    )
    from swarmstats.compare import _bootstrap, _stratified_variance, aggregates

    def ours_intervals():
        low, high = percentile_interval(_bootstrap(aggregates, x, args.reps, np.random.default_rng(0)), 0.95)
        return stretched_for_few_runs(aggregates(x[None])[0], low, high, args.runs,
                                      _stratified_variance(x)[1], 0.95)

    report(f"mean/median/IQM CIs, {args.runs} runs x {args.tasks} tasks, {args.reps} reps",
           median_time(ours_intervals, repeats=5), median_time(theirs, repeats=3, warmup=0),
           "rliable.get_interval_estimates", ">= 10x")

    def theirs_improvement():
        np.random.seed(0)
        return library.get_interval_estimates({"x,y": (x, y)}, metrics.probability_of_improvement,
                                              reps=min(args.reps, 2000))

    point, _ = theirs_improvement()
    assert np.isclose(point["x,y"], ss.compare_runs(x, y, n_boot=10).improvement.loc[0, "probability"])
    from swarmstats._kernels.mann_whitney import mann_whitney_interval
    from swarmstats.compare import probability_of_improvement

    def ours_improvement():
        # not the same method: ours is the score interval (no resampling), which holds its
        # level with a few runs where the percentile bootstrap does not (docs/describe.md)
        point = float(probability_of_improvement(x[None], y[None])[0])
        return mann_whitney_interval(point, x.shape[0], y.shape[0], 0.95, x.shape[1])

    report(f"probability of improvement CI (ours: score interval; theirs: {min(args.reps, 2000)} reps)",
           median_time(ours_improvement, repeats=5), median_time(theirs_improvement, repeats=3, warmup=0),
           "rliable.get_interval_estimates", ">= 10x")
    full = median_time(lambda: ss.compare_runs(x, y, n_boot=args.reps, random_state=0), repeats=3)
    print(f"compare_runs(x, y) with everything (two sets, P(X > Y), profiles), {args.reps} reps: "
          f"{full:.2f} s (median)")


if __name__ == "__main__":
    main()
