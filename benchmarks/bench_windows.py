"""AdaptiveWindow against a fixed 10-step window (OLS slope, |t| > 2) and river's ADWIN.

Prints (docs/windows.md and docs/performance.md record them):
* on improving-with-oscillation series (upward trend, runs of 5-10 declining steps): the share
  of steps called "degrading" by the fixed window and by the adaptive one (target: <= 1/5);
* on a drop of one noise SD after 500 stationary points: median detection delays of ADWIN and
  the adaptive window (target: <= 1.5x ADWIN's);
* on stationary series of 1,000 points: false alarms of both (target: no more than ADWIN);
* the amortised cost per update() at 1,000 and 100,000 steps (target: ratio <= 2), and ADWIN's.

    python benchmarks/bench_windows.py [--reps 200]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _timing import machine  # noqa: E402

from swarmstats import AdaptiveWindow  # noqa: E402
from tests.test_windows import alarm_onsets, fixed_window_status, oscillating  # noqa: E402


def adwin_alarms(x):
    from river.drift import ADWIN

    detector, alarms = ADWIN(), []
    for i, value in enumerate(x):
        detector.update(value)
        if detector.drift_detected:
            alarms.append(i)
    return alarms


def per_update(n, rng, repeats=3):
    x = rng.normal(size=n)
    times = []
    for _ in range(repeats):
        window = AdaptiveWindow()
        start = time.perf_counter()
        for value in x:
            window.update(value)
        times.append((time.perf_counter() - start) / n)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--memory-points", type=int, default=200_000)
    args = parser.parse_args()
    print(machine())
    rng = np.random.default_rng(2026)
    fixed = adaptive = total = 0
    for _ in range(args.reps // 4):
        x = oscillating(300, rng)
        fixed += int((fixed_window_status(x) == "degrading").sum())
        adaptive += int((AdaptiveWindow().fit(x).table["status"] == "degrading").sum())
        total += 300
    print(f"oscillating climb, {args.reps // 4} series x 300: 'degrading' on {fixed / total:.1%} of steps "
          f"(fixed 10-step window) vs {adaptive / total:.1%} (adaptive)  [target: adaptive <= 1/5 of fixed]")

    ours_false = adwin_false = 0
    for _ in range(args.reps):
        x = rng.normal(size=1000)
        ours_false += len(alarm_onsets(AdaptiveWindow().fit(x).table["status"].to_numpy()))
        adwin_false += len(adwin_alarms(x))
    print(f"stationary N(0, 1), {args.reps} series x 1000: false alarms adaptive {ours_false}, "
          f"ADWIN {adwin_false}  [target: adaptive <= ADWIN]")

    ours, theirs = [], []
    for _ in range(args.reps):
        x = rng.normal(size=1000)
        x[500:] -= 1.0
        status = AdaptiveWindow().fit(x).table["status"].to_numpy()
        first = [i for i in alarm_onsets(status, ("degrading",)) if i >= 500]
        seen = [i for i in adwin_alarms(x) if i >= 500]
        ours.append(first[0] - 500 if first else np.inf)
        theirs.append(seen[0] - 500 if seen else np.inf)
    print(f"drop of 1 SD at step 500, {args.reps} series: median delay adaptive {np.median(ours):.0f}, "
          f"ADWIN {np.median(theirs):.0f} (ratio {np.median(ours) / np.median(theirs):.2f}); missed: "
          f"adaptive {int(np.isinf(ours).sum())}, ADWIN {int(np.isinf(theirs).sum())}  [target: ratio <= 1.5]")

    short, long = per_update(1_000, rng), per_update(100_000, rng, repeats=1)
    print(f"update(): {short * 1e6:.1f} us per step over 1,000 steps, {long * 1e6:.1f} us over 100,000 "
          f"(ratio {long / short:.2f})  [target: <= 2]")
    against_adwin(rng)
    fit_memory(args.memory_points, rng)


def against_adwin(rng, n: int = 5_000, rounds: int = 5) -> None:
    """update() against river's ADWIN on the same stream, timed in alternation round by round
    (median of the per-round ratios).  ADWIN at its default clock=32 looks for a cut every 32
    updates; at clock=1 it looks every update, as AdaptiveWindow does."""
    from river.drift import ADWIN

    def timed(make, update, x):
        detector = make()
        start = time.perf_counter()
        for value in x:
            update(detector, value)
        return (time.perf_counter() - start) / len(x)

    ratios = {32: [], 1: []}
    ours_times = []
    for _ in range(rounds):
        x = rng.normal(size=n).tolist()
        ours = timed(AdaptiveWindow, lambda w, v: w.update(v), x)
        ours_times.append(ours)
        for clock in ratios:
            ratios[clock].append(ours / timed(lambda: ADWIN(clock=clock), lambda d, v: d.update(v), x))
    print(f"update() against river ADWIN, {rounds} rounds of {n:,} steps: {np.median(ours_times) * 1e6:.0f} us "
          f"per step, {np.median(ratios[32]):.0f}x ADWIN(clock=32) and {np.median(ratios[1]):.0f}x "
          "ADWIN(clock=1)  [target (issue 19): <= 10x]")


def fit_memory(n: int, rng) -> None:
    """How much one fit grows the process (max RSS), against the input's size."""
    import resource

    y = rng.normal(size=n)
    AdaptiveWindow().fit(y[:2_000])  # caches and imports first
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    table_bytes = AdaptiveWindow().fit(y).table.memory_usage(deep=True).sum()
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1e3
    print(f"fit() of {n} points grows the process by {grown / 1e6:.0f} MB, "
          f"{grown / y.nbytes:.0f}x the input; the table it returns {table_bytes / 1e6:.0f} MB, "
          f"{table_bytes / y.nbytes:.1f}x  [target (issue 19): <= 5x]")


if __name__ == "__main__":
    main()
