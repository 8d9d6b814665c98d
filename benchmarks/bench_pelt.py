"""The exact PELT kernel (regime detection, issue 3) vs ruptures' Pelt(model="l2", jump=1).

Same series, same penalty, same min_size: identical changepoints and the ratio of times
(target >= 100x at n = 4,000); then time(n = 1,000,000) / time(n = 100,000) for the mean
model (target <= 15, i.e. linear in practice).

    python benchmarks/bench_pelt.py [--skip-scaling]
"""

import argparse
import time

import numpy as np
from _timing import machine, median_time, report

from swarmstats.regimes.costs import MeanCost
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


if __name__ == "__main__":
    main()
