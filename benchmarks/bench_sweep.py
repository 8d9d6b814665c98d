"""A sweep of many runs: 2 local workers against 1, and memory.

Target (issue 8): 1,000 runs x 10,000 steps - 2 local workers at least 1.7x faster than 1;
memory bounded (runs are read in the workers, one at a time, not all loaded at once).

    python benchmarks/bench_sweep.py [--runs 1000] [--steps 10000]
"""

import argparse
import os
import resource
import tempfile
import time

import numpy as np
import pandas as pd
from _timing import machine
from scipy.signal import lfilter

import swarmstats as ss


def write_runs(folder: str, runs: int, steps: int) -> str:
    rng = np.random.default_rng(0)
    for i in range(runs):
        t = np.arange(steps)
        reward = 0.6 - 0.3 * np.exp(-t / 2000) + lfilter([1], [1, -0.5], rng.normal(0, 0.05, steps))
        path = os.path.join(folder, f"lr={0.001 * (1 + i % 5):g}", f"seed={i}.csv")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pd.DataFrame({"step": t, "reward": reward.round(5)}).to_csv(path, index=False)
    return os.path.join(folder, "lr=*", "seed=*.csv")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as folder:
        pattern = write_runs(folder, args.runs, args.steps)
        times = {}
        for workers in (1, 2):
            start = time.perf_counter()
            result = ss.sweep(pattern, by=["lr"], metrics=["reward"], workers=workers, progress=False)
            times[workers] = time.perf_counter() - start
            assert result.n_failed == 0
        parent = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        data = args.runs * args.steps * 8 / 1e6
        print(f"{args.runs} runs x {args.steps} steps: 1 worker {times[1]:.1f} s, 2 workers {times[2]:.1f} s "
              f"-> speed-up {times[1] / times[2]:.2f}x  [target: >= 1.7x]")
        print(f"peak memory: parent {parent:.0f} MB, largest worker {children:.0f} MB, against "
              f"{data:.0f} MB of values in the sweep  [target: bounded, not all runs at once]")


if __name__ == "__main__":
    main()
