"""Monte-Carlo calibration of the default regime detector against issue 15's targets.

Each row prints the measured rate (with its binomial standard error) or the mean count per
series next to the target; the numbers in docs/regimes.md come from this script.  Same
generators as the calibration tests (benchmarks/scenarios.py).

    python benchmarks/calibration_regimes.py [--reps 200] [--large]

``--large`` adds n = 10,000 and 100,000 (slow: the exact search is quadratic on a plateau).
"""

import argparse
import time

import numpy as np
from scenarios import ar1, garch, learning_curve

from swarmstats import detect_regimes
from swarmstats.regimes.scoring import f1_score


def rate(hits, reps):
    p = hits / reps
    return f"{p:6.1%} ± {np.sqrt(max(p * (1 - p), 1e-12) / reps):4.1%} (of {reps})"


def per_series(counts):
    counts = np.asarray(counts, float)
    return f"{counts.mean():.3f} ± {counts.std(ddof=1) / np.sqrt(len(counts)) if len(counts) > 1 else 0:.3f} per series (of {len(counts)})"


def noise(kind, n, rng, reps):
    if kind == "t(3)":
        return rng.standard_t(3, size=(reps, n))
    if kind == "GARCH(1,1)":
        return garch(n, rng, reps, omega=0.1, a=0.1, b=0.8)
    return ar1(0.9, n, rng, reps)


def slope_change_bound(n=2000, at=1000, slope=0.01, long_run_variance=3.0):
    """P(|error| <= 20) for an efficient estimator of the bend (local Fisher information)."""
    from scipy import stats

    t = np.arange(n)
    design = np.c_[np.ones(n), t, np.maximum(t - at, 0)]
    step = (t >= at).astype(float)
    residual = step - design @ np.linalg.lstsq(design, step, rcond=None)[0]
    sd = 1 / np.sqrt(slope**2 * residual @ residual / long_run_variance)
    return 2 * stats.norm.cdf(20 / sd) - 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--large", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    reps = args.reps
    started = time.time()

    curves = learning_curve(200, 0.5, 1000, rng, reps)
    few = sum(len(detect_regimes(y).changepoints) <= 1 for y in curves)
    print(f"learning curve 3(1 - e^(-t/200)) + AR(0.5), n = 1000: <= 1 change in {rate(few, reps)}  [target >= 90%]")

    t = np.arange(2000)
    bends = np.where(t >= 1000, (t - 1000) * 0.01, 0.0) + ar1(0.5, 2000, rng, reps)
    near = sum(any(abs(c - 1000) <= 20 for c in detect_regimes(y).changepoints) for y in bends)
    print(f"slope change 0 -> 1 SD / 100 steps at 1000, AR(0.5), n = 2000: found within 20 steps in "
          f"{rate(near, reps)}  [target >= 90%; an efficient estimator: {slope_change_bound():.0%}]")

    shifts = np.where(t >= 1000, 1.0, 0.0) + ar1(0.5, 2000, rng, reps)
    scores = [f1_score([1000], detect_regimes(y).changepoints, margin=10).f1 for y in shifts]
    print(f"1-SD level shift at 1000, AR(0.5), n = 2000: F1 (margin 10) {np.mean(scores):.3f}  [target >= 0.6]")

    sizes = [(200, reps), (500, reps), (1000, reps)]
    if args.large:
        sizes += [(10_000, max(reps // 10, 10)), (100_000, 3)]
    for kind in ("t(3)", "GARCH(1,1)", "AR(0.9)"):
        for n, count in sizes:
            series = noise(kind, n, rng, count)
            spurious = [len(detect_regimes(y).changepoints) for y in series]
            target = "<= 0.1" if n <= 1000 else "<= 0.2"
            print(f"{kind:11s} n = {n:>6}: spurious changes {per_series(spurious)}  [target {target}]")
    print(f"({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
