"""Warm-up detection vs pymbar's detect_equilibration (the maximum-ESS rule).

Same series, same rule: ``method="ess"`` with pymbar's own g estimator
(``tau_method="zero-crossing"``, evaluated exactly at every origin) must give the
same t0; the default Geyer estimator is shown beside it.  Ratio of median times.
Target: >= 50x faster at n = 20,000.  pymbar is timed once per series (it is slow).

    python benchmarks/bench_warmup.py [--n 20000] [--seeds 3]
"""

import argparse
import time
import warnings

import numpy as np
from _timing import machine, median_time, report
from scipy.signal import lfilter

import swarmstats as ss


def clean_series(n: int, seed: int = 0, kind: str = "step", phi: float = 0.5) -> np.ndarray:
    """AR(1) noise after a transient: a sharp step over the first 5% of n ("step"),
    or an exponential relaxation with time constant n/100 ("exponential")."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    transient = 5.0 * (t < 0.05 * n) if kind == "step" else 10.0 * np.exp(-t / (0.01 * n))
    return transient + lfilter([1.0], [1.0, -phi], rng.normal(size=n))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pymbar import timeseries
    print(machine())
    for kind, seed in [(kind, seed) for kind in ("step", "exponential") for seed in range(args.seeds)]:
        y = clean_series(args.n, seed, kind)
        same_rule = median_time(
            lambda: ss.detect_warmup(y, method="ess", tau_method="zero-crossing"), repeats=7)
        t0 = ss.detect_warmup(y, method="ess", tau_method="zero-crossing").index
        geyer = median_time(lambda: ss.detect_warmup(y, method="ess"), repeats=7)
        t0_geyer = ss.detect_warmup(y, method="ess").index
        start = time.perf_counter()
        their_t0 = int(timeseries.detect_equilibration(y)[0])
        anchor = time.perf_counter() - start
        report(f"detect_warmup(ess, zero-crossing) n={args.n} {kind} seed={seed}", same_rule,
               anchor, "pymbar.detect_equilibration", ">= 50x")
        print(f"  t0: swarmstats {t0}, pymbar {their_t0} -> {'same' if t0 == their_t0 else 'DIFFERENT'}")
        report("  with the default Geyer g", geyer, anchor, "pymbar.detect_equilibration",
               "(for information)")
        print(f"  t0 with Geyer's g: {t0_geyer}")


if __name__ == "__main__":
    main()
