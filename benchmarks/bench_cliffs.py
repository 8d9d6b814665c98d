"""No cliffs (issue 19): the time of quality_metrics and describe at n and n + 1 over a grid
of n that straddles every switch of method (the exact-resampling limit at n x n_boot = 25
million sits at n = 12,500 for the default 2,000 resamples), the largest ratio between
neighbours (target <= 3), and the peak memory of one call at n = 10^7 against the input's
size (target <= 3x).

    python benchmarks/bench_cliffs.py [--skip-ten-million]
"""

import argparse
import tracemalloc

import numpy as np
from _timing import machine, median_time

import swarmstats as ss


def quality_inputs(n):
    rng = np.random.default_rng(n)
    p = rng.beta(2, 2, n)
    return p, rng.uniform(size=n) < p


def describe_input(n):
    return np.random.default_rng(n).normal(size=n)


CALLS = {
    "quality_metrics": (quality_inputs, lambda data: ss.quality_metrics(*data, random_state=0)),
    "describe": (describe_input, lambda data: ss.describe(data, random_state=0)),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-ten-million", action="store_true")
    args = parser.parse_args()
    print(machine())
    sizes = [100, 1_000, 5_000, 12_499, 12_500, 12_501, 12_600, 20_000, 50_000, 100_000, 1_000_000]
    for name, (make, call) in CALLS.items():
        times = {}
        for n in sizes:
            data = make(n)
            times[n] = median_time(lambda: call(data), repeats=3)
        steps = [times[b] / times[a] for a, b in zip(sizes[:-1], sizes[1:]) if b == a + 1]
        print(f"{name}: " + ", ".join(f"n = {n:,} {t * 1e3:.0f} ms" for n, t in times.items()))
        print(f"  largest time ratio between n and n + 1: {max(max(steps), 1 / min(steps)):.2f}  "
              "[target: <= 3]")
        if not args.skip_ten_million:
            data = make(10_000_000)
            size = sum(a.nbytes for a in data) if isinstance(data, tuple) else data.nbytes
            tracemalloc.start()
            call(data)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"  n = 10^7: peak memory {peak / 1e6:.0f} MB, {peak / size:.1f}x the input "
                  f"({size / 1e6:.0f} MB)  [target: <= 3x]")


if __name__ == "__main__":
    main()
