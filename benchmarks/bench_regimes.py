"""The default regime detector's scaling (issue 15): time(n = 10^6) / time(n = 10^5) on white
noise (a plateau: exact PELT's worst case) and on a series with a change every 500 points
(target <= 15, i.e. near-linear), and the seeded search against exact PELT at n = 20,000.

    python benchmarks/bench_regimes.py [--skip-million]
"""

import argparse
import time

import numpy as np
from _timing import machine, median_time
from bench_pelt import piecewise

from swarmstats import detect_regimes
from swarmstats.regimes.costs import LevelOrTrendCost
from swarmstats.regimes.pelt import pelt
from swarmstats.regimes.seeded import seeded_search


def white(n, seed):
    return np.random.default_rng(seed).normal(size=n)


def many_changes(n, seed):
    return piecewise(n, 500, seed)  # the PELT benchmark's series: levels N(0, 2^2) every 500 points


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-million", action="store_true")
    args = parser.parse_args()
    print(machine())
    y = many_changes(20_000, 0)
    cost = LevelOrTrendCost(y, np.log(len(y)))
    penalty = 3 * np.log(len(y))
    start = time.perf_counter()
    exact = pelt(cost, penalty, 5)[0]
    t_pelt = time.perf_counter() - start
    t_seeded = median_time(lambda: seeded_search(cost, penalty, 5), repeats=3)
    same = seeded_search(cost, penalty, 5) == exact
    print(f"level-or-line cost, n = 20,000, a change every 500: exact PELT {t_pelt:.2f} s, seeded "
          f"{t_seeded:.2f} s (median of 3) -> {t_pelt / t_seeded:.0f}x, "
          f"{'the same' if same else 'DIFFERENT'} changepoints ({len(exact)})")
    for label, make in (("white noise", white), ("a change every 500 points", many_changes)):
        small = make(100_000, 1)
        t_small = median_time(lambda: detect_regimes(small), repeats=3, warmup=0)
        line = f"detect_regimes default, {label}: n = 100,000 {t_small:.1f} s (median of 3)"
        if not args.skip_million:
            large = make(1_000_000, 2)
            t_large = median_time(lambda: detect_regimes(large), repeats=1, warmup=0)
            line += f", n = 1,000,000 {t_large:.1f} s -> ratio {t_large / t_small:.1f}  [target: <= 15]"
        print(line)


if __name__ == "__main__":
    main()
