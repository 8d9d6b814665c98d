"""trend_test vs pyMannKendall's original_test: same S and p-value, ratio of times.

Target: >= 100x faster at n = 10,000.  Our call computes more (Sen's CI, HAC slope).

    python benchmarks/bench_trend.py [--n 10000]
"""

import argparse

import numpy as np
from _timing import machine, median_time, report

import swarmstats as ss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    args = parser.parse_args()
    import pymannkendall as mk

    print(machine())
    rng = np.random.default_rng(0)
    y = rng.normal(size=args.n) + 2e-5 * np.arange(args.n)
    ours_result = ss.trend_test(y, correction="none")
    theirs_result = mk.original_test(y)
    assert ours_result.s == theirs_result.s
    assert abs(ours_result.pvalue - theirs_result.p) < 1e-12
    assert np.isclose(ours_result.sen_slope, theirs_result.slope, rtol=1e-12)
    like_for_like = median_time(
        lambda: ss.trend_test(y, correction="none", sen_interval=False), repeats=15)
    full = median_time(lambda: ss.trend_test(y), repeats=15)
    theirs = median_time(lambda: mk.original_test(y), repeats=5)
    report(f"trend_test n={args.n}, S, p and Sen slope as pyMannKendall computes "
           f"(S={ours_result.s}, p={ours_result.pvalue:.3g})",
           like_for_like, theirs, "pymannkendall.original_test", ">= 100x")
    report(f"trend_test n={args.n}, defaults (+ Yue-Wang correction, Sen CI, HAC slope)", full,
           theirs, "pymannkendall.original_test", "(for information)")


if __name__ == "__main__":
    main()
