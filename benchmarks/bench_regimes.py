"""Regime detection's scaling (issue 19): for every model, time(n = 10^6) / time(n = 10^5) in
CPU seconds on white noise (a plateau: exact PELT's worst case), on a rise that settles on a
plateau after the first 5% (a converged run), and on a change every 500 points (target <= 15,
i.e. near-linear; <= 10 s CPU for the mean model at 10^6); and the seeded search against
exact PELT at n = 20,000.

    python benchmarks/bench_regimes.py [--skip-million] [--models mean,kernel]
"""

import argparse
import time

import numpy as np
from _timing import machine, median_time
from bench_pelt import piecewise

from swarmstats import detect_regimes
from swarmstats.regimes.costs import LevelOrTrendCost
from swarmstats.regimes.offline import MODELS
from swarmstats.regimes.pelt import pelt
from swarmstats.regimes.seeded import seeded_search


def white(n, seed):
    return np.random.default_rng(seed).normal(size=n)


def plateau(n, seed):
    t = np.arange(n)
    return 3 * (1 - np.exp(-t / (n / 60))) + np.random.default_rng(seed).normal(size=n)


def many_changes(n, seed):
    return piecewise(n, 500, seed)  # the PELT benchmark's series: levels N(0, 2^2) every 500 points


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-million", action="store_true")
    parser.add_argument("--models", default=",".join(MODELS))
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
    for model in args.models.split(","):
        for label, make in (("white noise", white), ("plateau after a rise", plateau),
                            ("a change every 500 points", many_changes)):
            small = make(100_000, 1)
            t_small = median_cpu(lambda: detect_regimes(small, model=model), repeats=3)
            line = f"{model}, {label}: n = 100,000 {t_small:.2f} s CPU (median of 3)"
            if not args.skip_million:
                large = make(1_000_000, 2)
                t_large = median_cpu(lambda: detect_regimes(large, model=model), repeats=1)
                line += f", n = 1,000,000 {t_large:.1f} s -> ratio {t_large / t_small:.1f}  [target: <= 15]"
            print(line, flush=True)


def median_cpu(function, repeats):
    """Median CPU time (all threads of this process) of ``function()``."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return float(np.median(times))


if __name__ == "__main__":
    main()
