"""ESS vs ArviZ on one run of 1,000,000 points: same number, ratio of times.

Target: no slower than ArviZ (ratio >= 1).

    python benchmarks/bench_ess.py [--n 1000000]
"""

import argparse
import warnings

import numpy as np
from _timing import machine, median_time, report
from scipy.signal import lfilter

import swarmstats as ss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import arviz as az
    print(machine())
    y = lfilter([1.0], [1.0, -0.9], np.random.default_rng(0).normal(size=args.n))
    chain = y[None, :]
    for method in ("bulk", "mean", "tail"):
        ours_value = ss.ess(y, method=method)
        theirs_value = float(az.ess(chain, method=method))
        assert np.isclose(ours_value, theirs_value, rtol=1e-8), (ours_value, theirs_value)
        ours = median_time(lambda: ss.ess(y, method=method), repeats=5)
        theirs = median_time(lambda: az.ess(chain, method=method), repeats=5)
        report(f"ess method={method} n={args.n} (both {ours_value:.1f})", ours, theirs,
               "arviz.ess", ">= 1x")
    plain = median_time(lambda: ss.integrated_autocorr_time(y), repeats=5)
    print(f"integrated_autocorr_time n={args.n}: {plain * 1e3:.1f} ms (median)")


if __name__ == "__main__":
    main()
