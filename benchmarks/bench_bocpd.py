"""BOCPD's cost per step does not grow with the stream: time per step at t ~ 1,000 and
t ~ 100,000 on one stationary stream (target: ratio <= 2).  Also the CUSUM's cost per step.

    python benchmarks/bench_bocpd.py
"""

import time

import numpy as np
from _timing import machine

from swarmstats.regimes import CusumDetector, OnlineRegimeDetector


def per_step(detector, values) -> float:
    start = time.perf_counter()
    detector.update_many(values)
    return (time.perf_counter() - start) / len(values)


def main():
    print(machine())
    x = np.random.default_rng(0).normal(size=101_000)
    detector = OnlineRegimeDetector(mean=0.0, sd=1.0)
    early = per_step(detector, x[:1000])
    detector.update_many(x[1000:100_000])
    late = per_step(detector, x[100_000:])
    print(f"BOCPD per step: {early * 1e6:.0f} us at t=1,000, {late * 1e6:.0f} us at t=100,000 "
          f"({detector.state.active_run_lengths} active run lengths) -> ratio {late / early:.2f}  "
          "[target: <= 2]")
    cusum = CusumDetector(mean=0.0, sd=1.0)
    print(f"CUSUM per step: {per_step(cusum, x[:100_000]) * 1e6:.1f} us")
    # along a line: a recursive least-squares update per step, written out in floats; the
    # ratio to the level reference (learnt too) is the cost of following a slope
    level, trend = [], []
    for _ in range(5):
        level.append(per_step(CusumDetector(), x[:100_000]))
        trend.append(per_step(CusumDetector(model="trend"), x[:100_000]))
    ratio = float(np.median(np.asarray(trend) / np.asarray(level)))
    print(f"CUSUM per step, learnt reference: level {np.median(level) * 1e6:.1f} us, along a line "
          f"{np.median(trend) * 1e6:.1f} us (medians of 5) -> ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
