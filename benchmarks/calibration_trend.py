"""Measured level, power and Sen-interval coverage of trend_test (the numbers in
docs/convergence.md, "Trend"), each with its binomial standard error.

    python benchmarks/calibration_trend.py [--reps 400] [--corrections yue-wang,hamed-rao]

Size: stationary series of the calibration table (no trend at all).  Power: the same
noise plus a straight line rising ``change`` marginal SDs over the series, and plus a curve
that rises fast and levels off (``rise`` (1 - exp(-5 t / n)), a learning curve).  Coverage:
how often Sen's interval holds the line's true slope.
"""

import argparse

import numpy as np
from calibration import rate
from scenarios import stationary

import swarmstats as ss

SIZE_KINDS = ("white", "ar0.5", "ar0.9", "ar0.97", "arma", "t2.5", "bernoulli", "bounded",
              "periodic", "garch", "garch-persistent")
LENGTHS = (100, 300, 1000)
POWER_KINDS = ("white", "ar0.5", "ar0.9")


def noise(kind, n, rng, reps):
    return rng.normal(size=(reps, n)) if kind == "white" else stationary(kind, n, rng, reps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--corrections", default="yue-wang")
    args = parser.parse_args()
    reps = args.reps
    corrections = args.corrections.split(",")
    rng = np.random.default_rng(0)
    print(f"level at 5% ({reps} stationary series each)")
    for kind in SIZE_KINDS:
        for n in LENGTHS:
            series = noise(kind, n, rng, reps)
            cells = []
            for correction in corrections:
                results = [ss.trend_test(x, correction=correction, sen_interval=False) for x in series]
                rejected = sum(r.pvalue < 0.05 for r in results)
                ols = sum(r.ols_pvalue < 0.05 for r in results)
                cells.append(f"{correction} {rate(rejected, reps)} (OLS slope {rate(ols, reps)})")
            print(f"  {kind:17s} n = {n:5d}: " + ", ".join(cells), flush=True)
    print("power at 5% and Sen 95% interval coverage, a line rising `change` marginal SDs")
    for kind in POWER_KINDS:
        for n in LENGTHS[:2]:
            for change in (1.0, 2.0):
                line = change * np.linspace(0.0, 1.0, n)
                slope = change / (n - 1)
                series = noise(kind, n, rng, reps) + line
                cells = []
                for correction in corrections:
                    results = [ss.trend_test(x, correction=correction) for x in series]
                    power = sum(r.pvalue < 0.05 for r in results)
                    covered = sum(r.sen_ci[0] <= slope <= r.sen_ci[1] for r in results)
                    cells.append(f"{correction} power {rate(power, reps)}, coverage {rate(covered, reps)}")
                print(f"  {kind:6s} n = {n:5d} change {change}: " + "; ".join(cells), flush=True)
    print("power at 5% on a curve rising `rise` marginal SDs and levelling off")
    for kind in POWER_KINDS[:2]:
        for n in (30, 100):
            for rise in (1.5, 3.0):
                series = noise(kind, n, rng, reps) + rise * (1.0 - np.exp(-5.0 * np.arange(n) / n))
                cells = []
                for correction in corrections:
                    power = sum(ss.trend_test(x, correction=correction, sen_interval=False).pvalue < 0.05
                                for x in series)
                    cells.append(f"{correction} {rate(power, reps)}")
                print(f"  {kind:6s} n = {n:5d} rise {rise}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
