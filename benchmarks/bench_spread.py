"""Changes of spread (regimes/spread.py) vs ruptures' binary segmentation on its Gaussian
mean-and-variance cost (`Binseg(model="normal")`), the nearest anchor that looks for a change
of spread.

Same series (white noise whose SD doubles at a third of its length), timed in alternation
round by round; both must find the change within 1% of the length (asserted).  ruptures is
told there is one change (`n_bkps=1`, its cheapest use); ours searches its seeded intervals
and tests each.  Also time(n = 10^6) / time(n = 10^5) for ours.

    python benchmarks/bench_spread.py
"""

import time
import warnings

import numpy as np
from _timing import machine, median_ratio

from swarmstats.regimes.spread import spread_changes


def series(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=n) * np.where(np.arange(n) >= n // 3, 2.0, 1.0)


def main():
    import ruptures as rpt

    # ruptures 1.1.5+ says on every fit that it adds a small bias to the covariance
    warnings.filterwarnings("ignore", message="New behaviour in v1.1.5")
    print(machine())
    for n in (2_000, 10_000):
        y = series(n)
        steps = np.arange(n, dtype=float)
        ours = spread_changes(y, steps, [])
        theirs = rpt.Binseg(model="normal", min_size=20, jump=1).fit(y[:, None]).predict(n_bkps=1)[0]
        assert abs(int(ours["changepoint"].iloc[0]) - n // 3) <= n // 100, ours
        assert abs(theirs - n // 3) <= n // 100, theirs
        ratio, mine, anchor = median_ratio(
            lambda: spread_changes(y, steps, []),
            lambda: rpt.Binseg(model="normal", min_size=20, jump=1).fit(y[:, None]).predict(n_bkps=1),
            repeats=7, warmup=1)
        print(f"n = {n:,}: swarmstats {mine * 1e3:.1f} ms, ruptures Binseg(normal) {anchor * 1e3:.1f} ms "
              f"(medians) -> {1 / ratio:.0f}x faster (median of per-round ratios)")
    times = {}
    for n in (100_000, 1_000_000):
        y, steps = series(n), np.arange(n, dtype=float)
        spread_changes(y, steps, [])
        runs = []
        for _ in range(3):
            start = time.process_time()
            spread_changes(y, steps, [])
            runs.append(time.process_time() - start)
        times[n] = float(np.median(runs))
        print(f"n = {n:,}: {times[n]:.3f} s CPU (median of 3)")
    print(f"time(10^6) / time(10^5) = {times[1_000_000] / times[100_000]:.1f}  [target: <= 15]")


if __name__ == "__main__":
    main()
