"""Monitor.log overhead per call (a training step logs a handful of metrics), reported against
a bare Python function call; the target is "small next to a training step" (a step of even a
tiny model costs milliseconds).

    python benchmarks/bench_monitor.py [--steps 100000]
"""

import argparse
import statistics
import time

import numpy as np
from _timing import machine

from swarmstats import Monitor


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100_000)
    args = parser.parse_args()
    print(machine())
    rng = np.random.default_rng(0)
    values = rng.normal(size=(args.steps, 3)).tolist()

    def bare(step, **metrics):
        return metrics

    for label, make in (("convergence, default schedule (re-check at 50% growth)", Monitor),
                        ("convergence, check_every=200", lambda: Monitor(check_every=200)),
                        ("convergence + window", lambda: Monitor(checks=("convergence", "window")))):
        times = []
        for _ in range(3):
            monitor = make()
            start = time.perf_counter()
            for step, (a, b, c) in enumerate(values):
                monitor.log(step, reward=a, loss=b, kl=c)
            times.append((time.perf_counter() - start) / args.steps)
        per_call = statistics.median(times)
        start = time.perf_counter()
        for step, (a, b, c) in enumerate(values):
            bare(step, reward=a, loss=b, kl=c)
        baseline = (time.perf_counter() - start) / args.steps
        print(f"Monitor.log, 3 metrics, {label}: {per_call * 1e6:.1f} us per call "
              f"({per_call / baseline:.0f} bare calls; {args.steps} steps)")


if __name__ == "__main__":
    main()
