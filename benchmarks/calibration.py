"""Measured calibration of the convergence verdict (the numbers in docs/convergence.md).

Same designs as tests/test_convergence_calibration.py, printed as rates with their
binomial standard errors.

    python benchmarks/calibration.py [--reps 400]
"""

import argparse

import numpy as np
from scipy.signal import lfilter

import swarmstats as ss


def ar1(phi, n, rng, reps):
    burn = 0 if phi == 0 else int(min(50 / (1 - abs(phi)), 5000))
    return lfilter([1.0], [1.0, -phi], rng.normal(size=(reps, n + burn)), axis=-1)[:, burn:]


def rate(hits, reps):
    p = hits / reps
    return f"{p:6.1%} +- {np.sqrt(max(p * (1 - p), 1e-12) / reps):.1%}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    reps = args.reps
    test = ss.ConvergenceTest()
    print(f"stationary AR(1), {reps} replicates, alpha = 0.05: share called not_converged "
          "(share insufficient_data)")
    for phi in (0.0, 0.5, 0.9):
        for n in (500, 5000):
            verdicts = [test.fit(row).verdict for row in ar1(phi, n, np.random.default_rng(1000 + int(10 * phi) + n), reps)]
            print(f"  phi={phi:<4} n={n:<5} {rate(verdicts.count('not_converged'), reps)} "
                  f"({verdicts.count('insufficient_data') / reps:.1%})")
    rng = np.random.default_rng(7)
    drift = ar1(0.5, 2000, rng, reps) + np.linspace(0, np.sqrt(1 / 0.75), 2000)
    print(f"drift of 1 noise SD over 2000 steps (phi=0.5): not_converged "
          f"{rate(sum(test.fit(row).verdict == 'not_converged' for row in drift), reps)}")
    series = ar1(0.5, 2000, np.random.default_rng(8), reps)
    series[:, :200] += np.linspace(3, 0, 200) * series.std()
    results = [test.fit(row) for row in series]
    good = sum(r.converged and abs(r.warmup - 200) <= 100 for r in results)
    print(f"transient over the first 10%: converged with warm-up within 5% of n {rate(good, reps)}; "
          f"median warm-up {np.median([r.warmup for r in results]):.0f}")
    covered = sum(r.ci[0] <= 0 <= r.ci[1] for r in (test.fit(row) for row in ar1(0.7, 2000, np.random.default_rng(9), reps)))
    print(f"95% CI of the mean, AR(1) phi=0.7, n=2000: coverage {rate(covered, reps)}")
    caught = sum(ss.check_convergence(0.49 + np.linspace(0, 0.11, 100)
                                      + np.random.default_rng(s).normal(0, 0.08, 100)).verdict
                 == "not_converged" for s in range(reps))
    print(f"the seeds' case (0.49 -> 0.60 over 100 steps, noise SD 0.08): not_converged {rate(caught, reps)}")


if __name__ == "__main__":
    main()
