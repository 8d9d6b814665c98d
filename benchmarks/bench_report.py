"""`swarmstats report` on a 1,000,000-step log: the time it takes, and where it goes.

Targets: issue 9, "reasonable time" - the numbers use every point (the adaptive window
follows block means beyond 20,000 steps); the plots draw a down-sampled view that keeps
extremes (min/max per bucket); issue 19, <= 15 s and a process growth <= 10x the CSV's size.

    python benchmarks/bench_report.py [--steps 1000000]
"""

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd
from _timing import machine
from scipy.signal import lfilter

from swarmstats.html_report import build_report
from swarmstats.io import read_log


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1_000_000)
    args = parser.parse_args()
    print(machine())
    rng = np.random.default_rng(0)
    t = np.arange(args.steps)
    reward = 0.6 - 0.3 * np.exp(-t / (0.05 * args.steps)) + lfilter([1], [1, -0.7], rng.normal(0, 0.05, args.steps))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.csv")
        pd.DataFrame({"step": t, "reward": reward}).to_csv(path, index=False, float_format="%.6g")
        import resource

        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1e3  # kB -> bytes (Linux)
        start = time.perf_counter()
        frame = read_log(path, wide=True)
        read = time.perf_counter() - start
        report = build_report(frame)
        analysed = time.perf_counter() - start
        out = os.path.join(folder, "report.html")
        report.write(out)
        total = time.perf_counter() - start
        section = report.sections[0]
        print(f"{args.steps} steps, one metric: read {read:.1f} s, analyses {analysed - read:.1f} s, "
              f"figures and page {total - analysed:.1f} s; total {total:.1f} s; page "
              f"{os.path.getsize(out) / 1e3:.0f} KB ({section.convergence.verdict}, "
              f"{len(section.regimes.changepoints)} regime change(s))  [target: <= 15 s]")
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1e3 - before
        size = os.path.getsize(path)
        print(f"max RSS growth {grown / 1e6:.0f} MB for a {size / 1e6:.0f} MB CSV -> {grown / size:.1f}x  "
              "[target: <= 10x]")


if __name__ == "__main__":
    main()
