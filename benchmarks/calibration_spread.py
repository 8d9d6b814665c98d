"""Monte-Carlo calibration of the changes of spread the regimes report (regimes/spread.py).

    python benchmarks/calibration_spread.py [--reps 400]   # size and power (docs/regimes.md)
    python benchmarks/calibration_spread.py --table        # the null quantiles (QUANTILES; ~10 min)

Size: the share of series with no change of spread in which one is reported - white noise,
heavy tails, AR(1), long memory, GARCH(1, 1) volatility clustering (stationary, but its calm and
busy stretches are real), a climb, a level shift with the same noise.  Power: the noise SD
multiplied by 1.5, 2 or 3 halfway.  Both for :func:`spread_changes` alone (no change of level
given) and through :func:`detect_regimes` (the default trend model, which may cut the series and
so leave some second differences out).  Same generators as the tests (benchmarks/scenarios.py).
"""

import argparse
import time

import numpy as np
from scenarios import ar1, arfima, garch

from swarmstats import detect_regimes
from swarmstats.regimes.spread import TRIM, self_normalised_profile, spread_changes


def rate(hits, reps):
    p = hits / reps
    return f"{p:6.1%} ± {np.sqrt(max(p * (1 - p), 1e-12) / reps):4.1%}"


def series(kind, n, rng, reps):
    """(reps, n) series of ``kind``; the ``xF`` kinds have their noise SD multiplied by F halfway."""
    if kind == "white":
        return rng.normal(size=(reps, n))
    if kind == "t(3)":
        return rng.standard_t(3, size=(reps, n))
    if kind == "t(1.5)":
        return rng.standard_t(1.5, size=(reps, n))
    if kind.startswith("AR("):
        return ar1(float(kind[3:-1]), n, rng, reps)
    if kind == "ARFIMA(0.3)":
        return arfima(0.3, n, rng, reps)
    if kind == "GARCH(.1,.8)":
        return garch(n, rng, reps, omega=0.1, a=0.1, b=0.8)
    if kind == "GARCH(.05,.94)":
        return garch(n, rng, reps)
    if kind == "GARCH(.15,.84)":
        return garch(n, rng, reps, omega=0.01, a=0.15, b=0.84)
    if kind == "climb":  # a learning curve: the trend's curvature is not noise
        t = np.arange(n)
        return 5 * (1 - np.exp(-t / (n / 5))) + rng.normal(size=(reps, n))
    if kind == "shift":  # a level shift of 3 SDs, the same noise
        return rng.normal(size=(reps, n)) + 3.0 * (np.arange(n) >= n // 2)
    if kind.startswith("x"):
        factor = float(kind[1:])
        return rng.normal(size=(reps, n)) * np.where(np.arange(n) >= n // 2, factor, 1.0)
    raise ValueError(kind)


NULLS = ("white", "t(3)", "t(1.5)", "AR(0.5)", "AR(0.9)", "AR(0.99)", "ARFIMA(0.3)", "GARCH(.1,.8)",
         "GARCH(.05,.94)", "GARCH(.15,.84)", "climb", "shift")
CHANGES = ("x1.5", "x2", "x3", "x0.5")


def table(reps=5_000_000, n=500, seed=99):
    """Upper quantiles of the trimmed sup of the self-normalised CUSUM under i.i.d. noise."""
    rng = np.random.default_rng(seed)
    low, high = int(TRIM * n), n - int(TRIM * n)
    sups = []
    for start in range(0, reps, 2_000):
        batch = rng.normal(size=(min(2_000, reps - start), n))
        sups.append([self_normalised_profile(row)[low - 1:high].max() for row in batch])
    sups = np.concatenate(sups)
    for p in (0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001, 5e-5, 2e-5, 1e-5,
              5e-6, 2e-6):
        print(f"{p}: {np.quantile(sups, 1 - p):.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--regimes", action="store_true", help="also through detect_regimes (slower)")
    args = parser.parse_args()
    if args.table:
        table()
        return
    rng = np.random.default_rng(7)
    for n in map(int, args.sizes.split(",")):
        started = time.perf_counter()
        cells = []
        for kind in NULLS + CHANGES:
            y = series(kind, n, rng, args.reps)
            steps = np.arange(n, dtype=float)
            # a level shift is given as a change of the regimes, as detect_regimes would find it
            given = [n // 2] if kind == "shift" else []
            alone = sum(len(spread_changes(row, steps, given)) > 0 for row in y)
            cell = f"{kind} {rate(alone, args.reps)}"
            if args.regimes:
                through = sum(len(detect_regimes(row).spread_changes) > 0 for row in y)
                cell += f" / {rate(through, args.reps)}"
            cells.append(cell)
        print(f"n = {n} ({time.perf_counter() - started:.0f} s): " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
