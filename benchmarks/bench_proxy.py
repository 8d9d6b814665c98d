"""ProxyVarianceTracker: update_many against pandas groupby, and the cost of one update().

Targets (issue 5): update_many with 1,000 keys and 1,000,000 values within 2x of
pandas ``groupby(key).agg(["mean", "var"])`` on the same data (ours also counts flips,
the share above the threshold and the uncertain band); one ``update()`` call costs a few
microseconds, reported as a ratio against a loop of bare Python function calls.

    python benchmarks/bench_proxy.py [--n 1000000] [--keys 1000]
"""

import argparse
import statistics
import time

import numpy as np
import pandas as pd
from _timing import machine, median_time

from swarmstats import ProxyVarianceTracker


def per_call(function, values, keys, repeats=5):
    """Median over repeats of the time per call of function(value, key) in a plain loop."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for value, key in zip(values, keys):
            function(value, key)
        times.append((time.perf_counter() - start) / len(values))
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=1000)
    args = parser.parse_args()
    print(machine())
    rng = np.random.default_rng(0)
    p = rng.uniform(size=args.n)
    for label, keys in (("integer keys", rng.integers(0, args.keys, args.n)),
                        ("string keys", np.array([f"agent_{i}" for i in range(args.keys)],
                                                 dtype=object)[rng.integers(0, args.keys, args.n)])):
        frame = pd.DataFrame({"key": keys, "p": p})
        tracker = ProxyVarianceTracker()
        tracker.update_many(p, keys=keys)  # (returns the last key's state)
        expected = frame.groupby("key")["p"].agg(["mean", "var"])
        some = expected.index[0]
        assert np.isclose(tracker[some].mean, expected.loc[some, "mean"], rtol=1e-12)
        assert np.isclose(tracker[some].sd ** 2, expected.loc[some, "var"], rtol=1e-12)
        ours = median_time(lambda: ProxyVarianceTracker().update_many(p, keys=keys), repeats=9)
        theirs = median_time(lambda: frame.groupby("key")["p"].agg(["mean", "var"]), repeats=9)
        print(f"update_many, {args.keys} {label}, {args.n} values: swarmstats {ours * 1e3:.1f} ms, "
              f"pandas groupby.agg(mean, var) {theirs * 1e3:.1f} ms (medians) -> "
              f"swarmstats / pandas = {ours / theirs:.2f}  [target: <= 2]")

    calls = 200_000
    values = rng.uniform(size=calls).tolist()
    keys = rng.integers(0, args.keys, calls).tolist()
    tracker = ProxyVarianceTracker()

    def bare(value, key=None):
        return value

    update = per_call(tracker.update, values, keys)
    baseline = per_call(bare, values, keys)
    print(f"update(p, key): {update * 1e6:.2f} us per call; a bare Python function call "
          f"{baseline * 1e6:.3f} us -> ratio {update / baseline:.0f}  [target: a few microseconds]")
    full = ProxyVarianceTracker(halflife=50, window=20)
    outcomes = (rng.uniform(size=calls) < 0.5).tolist()
    start = time.perf_counter()
    for value, key, outcome in zip(values, keys, outcomes):
        full.update(value, key=key, outcome=outcome, v_hat=0.1)
    print(f"update(p, key, outcome, v_hat) with EWMA and window: "
          f"{(time.perf_counter() - start) / calls * 1e6:.2f} us per call")


if __name__ == "__main__":
    main()
