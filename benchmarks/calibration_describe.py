"""Measured coverage of the intervals of describe() and quality_metrics() (the numbers in
docs/describe.md and docs/quality.md), printed with binomial standard errors.

    python benchmarks/calibration_describe.py [--reps 1000]
"""

import argparse

import numpy as np
from calibration import ar1, rate

import swarmstats as ss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    args = parser.parse_args()
    reps = args.reps
    rng = np.random.default_rng(0)
    for phi, n in ((0.9, 1000), (0.9, 2000), (0.5, 1000), (0.0, 1000), (0.0, 10), (0.0, 30)):
        series = ar1(phi, n, rng, reps)
        hits = {"mean": 0, "mean i.i.d.": 0, "median bootstrap": 0, "median order-statistics": 0}
        for x in series:
            boot = ss.describe(x, n_boot=500, random_state=rng, median_method="bootstrap")
            order = ss.describe(x, n_boot=0, median_method="order-statistics")
            hits["mean"] += boot.ci[0] <= 0 <= boot.ci[1]
            hits["mean i.i.d."] += boot.ci_iid[0] <= 0 <= boot.ci_iid[1]
            hits["median bootstrap"] += boot.median_ci[0] <= 0 <= boot.median_ci[1]
            hits["median order-statistics"] += order.median_ci[0] <= 0 <= order.median_ci[1]
        print(f"AR(1) phi = {phi}, n = {n}: " + ", ".join(f"{k} {rate(v, reps)}" for k, v in hits.items()))
    covered = 0
    for _ in range(reps):
        p = rng.beta(2, 2, 200)
        accepted = rng.uniform(size=200) < p
        gap = ss.quality_metrics(p, accepted, n_boot=1000, random_state=rng).soft["quality_gap"]
        covered += gap.ci_low <= 0.2 <= gap.ci_high
    print(f"quality gap, p ~ Beta(2, 2), accepted ~ Bernoulli(p), n = 200: {rate(covered, reps)}")


if __name__ == "__main__":
    main()
