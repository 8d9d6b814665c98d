"""The exact PELT kernel (regime detection, issue 3) vs ruptures' Pelt(model="l2", jump=1).

Same series, same penalty, same min_size: identical changepoints and the ratio of times
(target >= 100x at n = 4,000); then time(n = 1,000,000) / time(n = 100,000) for the mean
model (target <= 15, i.e. linear in practice); then short series, where every segment's cost
is tabled instead of pruning (the same answer, asserted): the default trend cost on 100 points
against the pruned search, and ruptures on the same mean-model series.

    python benchmarks/bench_pelt.py [--skip-scaling]
"""

import argparse
import time

import numpy as np
from _timing import machine, median_time, report

from swarmstats.regimes import pelt as pelt_module
from swarmstats.regimes.costs import LevelOrTrendCost, MeanCost
from swarmstats.regimes.pelt import pelt


def piecewise(n: int, segment: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    levels = rng.normal(0, 2, n // segment + 1)
    return levels[np.arange(n) // segment] + rng.normal(size=n)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    import ruptures as rpt

    print(machine())
    y = piecewise(4000, 400)
    penalty, min_size = 3 * np.log(len(y)), 5
    ours_cps = pelt(MeanCost(y), penalty, min_size)[0]
    start = time.perf_counter()
    theirs_cps = rpt.Pelt(model="l2", min_size=min_size, jump=1).fit(y).predict(pen=penalty)[:-1]
    theirs = time.perf_counter() - start
    ours = median_time(lambda: pelt(MeanCost(y), penalty, min_size), repeats=7)
    report(f"PELT mean n=4000 ({'identical' if ours_cps == theirs_cps else 'DIFFERENT'} "
           f"changepoints: {len(ours_cps)})", ours, theirs, "ruptures Pelt(l2, jump=1)", ">= 100x")
    if not args.skip_scaling:
        small, large = piecewise(100_000, 500, 1), piecewise(1_000_000, 500, 2)
        t_small = median_time(lambda: pelt(MeanCost(small), 3 * np.log(len(small)), 5), repeats=3)
        t_large = median_time(lambda: pelt(MeanCost(large), 3 * np.log(len(large)), 5), repeats=1)
        print(f"PELT mean scaling: n=100,000 {t_small:.2f} s, n=1,000,000 {t_large:.2f} s -> "
              f"ratio {t_large / t_small:.1f}  [target: <= 15]")
    short_series(rpt)


def short_series(rpt):
    """n = 100: what each alarm of an online detector and every short log pays."""
    y = piecewise(100, 40, 3)
    penalty = 3 * np.log(len(y))
    for label, cost in (("trend cost", LevelOrTrendCost(y, np.log(len(y)))), ("mean cost", MeanCost(y))):
        table = pelt(cost, penalty, 5)
        table_time = median_time(lambda cost=cost: pelt(cost, penalty, 5), repeats=31)
        limit, pelt_module.DENSE_UP_TO = pelt_module.DENSE_UP_TO, -1
        try:
            pruned = pelt(cost, penalty, 5)
            pruned_time = median_time(lambda cost=cost: pelt(cost, penalty, 5), repeats=31)
        finally:
            pelt_module.DENSE_UP_TO = limit
        assert table == pruned, (table, pruned)
        report(f"PELT n=100, {label}, tabled (the same answer)", table_time, pruned_time, "our pruned PELT", "-")
    theirs = median_time(lambda: rpt.Pelt(model="l2", min_size=5, jump=1).fit(y).predict(pen=penalty), repeats=31)
    report("PELT n=100, mean cost, tabled", median_time(lambda: pelt(MeanCost(y), penalty, 5), repeats=31),
           theirs, "ruptures Pelt(l2, jump=1)", "-")


if __name__ == "__main__":
    main()
