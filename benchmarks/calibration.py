"""Monte-Carlo calibration of the convergence verdict against issue 13's targets.

Every row prints the measured rate with its binomial standard error next to the target;
the numbers in docs/convergence.md come from this script.  Same generators as the tests
(benchmarks/scenarios.py), more replicates.

    PYTHONHASHSEED=0 python benchmarks/calibration.py [--reps 400] [--live-reps 200]
    python benchmarks/calibration.py --memory-only --reps 200   # the long-memory flag rates
    python benchmarks/calibration.py --short-only --reps 300    # short persistent runs

(the stationary cells seed from hash((kind, n)): fixing the hash seed repeats the docs' run)
"""

import argparse
import time

import numpy as np
from scenarios import (
    SKEWED,
    STATIONARY,
    ar1,
    arfima,
    late_drop,
    learning_curve,
    running_mean,
    seeds_case,
    skewed,
    slow_plus_noise,
    stationary,
)

import swarmstats as ss
from swarmstats._kernels.long_memory import spectral_memory


def rate(hits, reps):
    p = hits / reps if reps else float("nan")
    se = np.sqrt(max(p * (1 - p), 1e-12) / reps) if reps else float("nan")
    return f"{p:6.1%} ± {se:4.1%} (of {reps})"


def share(results, verdict):
    return sum(r.verdict == verdict for r in results)


def first_stop(values, min_steps=100, budget=None):
    monitor = ss.ConvergenceMonitor(budget=budget)
    monitor.update_many(values)
    return next((n for n, v in monitor.history if v == "converged" and n >= min_steps), None)


def fixed(reps):
    test = ss.ConvergenceTest()

    def fit(series):
        return [test.fit(row) for row in series]

    print("## fixed-sample verdict (alpha = 0.05, default tolerance 0.75 noise SD)")
    print("seeds' case, 0.49 + 0.11 per 100 steps, noise SD 0.08 - target: converged <= 5%")
    for n in (50, 100, 200):
        for phi in (0.0, 0.5):
            res = fit(seeds_case(n, phi, np.random.default_rng(n + int(10 * phi)), reps))
            print(f"  n={n:<4} phi={phi:<4} converged {rate(share(res, 'converged'), reps)}; "
                  f"not_converged {share(res, 'not_converged') / reps:.1%}")
    print("learning curve 3 SD (1 - exp(-t/tau)), stopped at tau and 2 tau - target: converged <= 5%")
    for tau in (50, 200):
        for phi in (0.5, 0.9):
            for k in (1, 2):
                res = fit(learning_curve(tau, phi, k * tau, np.random.default_rng(tau + k + int(10 * phi)), reps))
                print(f"  tau={tau:<4} phi={phi:<4} at {k} tau: converged {rate(share(res, 'converged'), reps)}")
    print("same, stopped at 8 tau, phi = 0.5 - target: converged >= 80%, CI covers the asymptote >= 90% of those")
    for tau in (50, 200):
        res = fit(learning_curve(tau, 0.5, 8 * tau, np.random.default_rng(tau + 8), reps))
        conv = [r for r in res if r.converged]
        print(f"  tau={tau:<4} converged {rate(len(conv), reps)}; covers 3 "
              f"{rate(sum(r.ci[0] <= 3 <= r.ci[1] for r in conv), len(conv))}; "
              f"median warm-up {np.median([r.warmup for r in res]):.0f}")
    print("stationary - target: not_converged <= alpha (share converged beside it)")
    for kind in STATIONARY:
        cells = []
        for n in (300, 1000, 5000):
            res = fit(stationary(kind, n, np.random.default_rng(abs(hash((kind, n))) % 2 ** 32), reps))
            cells.append(f"n={n}: {share(res, 'not_converged') / reps:5.1%} ({share(res, 'converged') / reps:4.0%})")
        print(f"  {kind:<17}" + "   ".join(cells))
    res = fit(ar1(0.5, 5000, np.random.default_rng(5000), reps))
    print(f"AR(0.5), n = 5000 - target: converged >= 90%: {rate(share(res, 'converged'), reps)}")
    res = fit(late_drop(1000, np.random.default_rng(5), reps))
    print(f"1-SD drop over the last 10% of 1000 AR(0.5) points - target: not_converged >= 90%: "
          f"{rate(share(res, 'not_converged'), reps)}")
    res = fit(ar1(0.5, 2000, np.random.default_rng(7), reps) + np.linspace(0, 1, 2000))
    print(f"drift of 1 SD over 2000 AR(0.5) steps - not_converged: {rate(share(res, 'not_converged'), reps)}")
    print("95% CI of the mean - target: coverage >= 93% (or insufficient_data)")
    for phi in (0.7, 0.9, 0.97):
        for n in (1000, 5000):
            res = fit(ar1(phi, n, np.random.default_rng(int(phi * 100) + n), reps))
            judged = [r for r in res if r.verdict != "insufficient_data"]
            print(f"  AR({phi}) n={n}: all {rate(sum(r.ci[0] <= 0 <= r.ci[1] for r in res), reps)}; "
                  f"judged {rate(sum(r.ci[0] <= 0 <= r.ci[1] for r in judged), len(judged))}")
    print("  skewed stationary noise (rare values on one side): coverage; mean error toward the bulk "
          "in standard errors (the warm-up rule must not cut rare values away)")
    for kind, (truth, bulk) in SKEWED.items():
        for n in (100, 500):
            series = skewed(kind, n, np.random.default_rng(len(kind) + n), reps)
            res = fit(series)
            se = np.std(skewed(kind, 200_000, np.random.default_rng(0), 1)) / np.sqrt(n)
            print(f"  {kind} n={n}: all {rate(sum(r.ci[0] <= truth <= r.ci[1] for r in res), reps)}; "
                  f"toward the bulk {np.mean([bulk * (r.mean - truth) / se for r in res]):+.2f} SE; "
                  f"warm-up set aside in {sum(r.warmup > 0 for r in res) / reps:.0%}")
    for d in (0.2, 0.3):
        for n in (1000, 5000):
            res = fit(arfima(d, n, np.random.default_rng(int(d * 10) + n), reps))
            conv = [r for r in res if r.converged]
            print(f"  ARFIMA d={d} n={n} (long memory): coverage {rate(sum(r.ci[0] <= 0 <= r.ci[1] for r in res), reps)}; "
                  f"flagged {sum(r.long_memory for r in res) / reps:.0%}; converged {len(conv) / reps:.0%}, "
                  f"covering {rate(sum(r.ci[0] <= 0 <= r.ci[1] for r in conv), len(conv))}; "
                  f"not_converged {share(res, 'not_converged') / reps:.1%}")
    for n in (300, 1000, 5000):
        res = fit(slow_plus_noise(n, np.random.default_rng(n + 99), reps))
        conv = [r for r in res if r.converged]
        print(f"  slow AR(0.99), SD 0.3, under unit noise, n={n}: coverage "
              f"{rate(sum(r.ci[0] <= 0 <= r.ci[1] for r in res), reps)}; converged {len(conv) / reps:.1%}, "
              f"covering {rate(sum(r.ci[0] <= 0 <= r.ci[1] for r in conv), len(conv))}; "
              f"not_converged {share(res, 'not_converged') / reps:.1%}")


def short(reps):
    """Short persistent runs, where Geyer's sum reads the run's persistence too low."""
    test = ss.ConvergenceTest()
    print("## short persistent runs: not_converged of stationary series - target: <= alpha")
    cases = [(f"AR({phi})", lambda n, rng, phi=phi: ar1(phi, n, rng, reps)) for phi in (0.9, 0.97, 0.99)]
    cases += [(f"running mean of {rows} rows", lambda n, rng, rows=rows: running_mean(rows, n, rng, reps))
              for rows in (10, 25)]
    for name, make in cases:
        cells = []
        for n in (40, 60, 100, 150, 300):
            found = [test.fit(row).verdict for row in make(n, np.random.default_rng(n + len(name)))]
            cells.append(f"n={n}: {found.count('not_converged') / reps:5.1%}")
        print(f"  {name:<24}" + "   ".join(cells))
    print("a trend of D SD over the run under that noise: not_converged")
    trends = [("white", lambda n, rng: rng.normal(size=(reps, n))),
              ("AR(0.5)", lambda n, rng: ar1(0.5, n, rng, reps)),
              ("AR(0.9)", lambda n, rng: ar1(0.9, n, rng, reps)),
              ("running mean of 25 rows", lambda n, rng: running_mean(25, n, rng, reps))]
    for name, make in trends:
        cells = []
        for n, d in ((40, 3), (60, 2.5), (100, 2), (100, 4), (300, 1), (300, 2)):
            series = make(n, np.random.default_rng(7 * n + len(name))) + d * np.arange(n) / n
            found = [test.fit(row).verdict for row in series]
            cells.append(f"n={n}, D={d}: {found.count('not_converged') / reps:5.1%}")
        print(f"  {name:<24}" + "   ".join(cells))


def memory(reps):
    print("## long memory in the spectrum: share of series flagged (a fractionally integrated "
          "model beats every short-memory one by BIC > 6)")
    kinds = [(kind, lambda n, rng, kind=kind: stationary(kind, n, rng, reps)) for kind in STATIONARY]
    kinds.append(("slow AR(0.99) + noise", lambda n, rng: slow_plus_noise(n, rng, reps)))
    kinds += [(f"ARFIMA d={d}", lambda n, rng, d=d: arfima(d, n, rng, reps)) for d in (0.1, 0.2, 0.3)]
    for name, make in kinds:
        cells = []
        for n in (300, 1000, 5000):
            series = make(n=n, rng=np.random.default_rng(n + len(name)))
            cells.append(f"n={n}: {rate(sum(spectral_memory(x).long_memory for x in series), reps)}")
        print(f"  {name:<22}" + "   ".join(cells))


def live(reps):
    print("## live: ConvergenceMonitor defaults, the verdict read after every step")
    print("still improving - target: a stop while the remaining rise exceeds the tolerance <= 5%")
    print("(budget: the stream's last step passed as budget=, as the trainer adapters do)")
    cases = [(f"seeds' case to 1000 steps, phi={phi}", seeds_case(1000, phi, np.random.default_rng(1), reps),
              0.49 + 0.0011 * np.arange(1000)) for phi in (0.0, 0.5)]
    for tau, phi in ((50, 0.5), (50, 0.9), (200, 0.5), (200, 0.9)):
        t = np.arange(10 * tau)
        cases.append((f"learning curve tau={tau} phi={phi} to 10 tau",
                      learning_curve(tau, phi, 10 * tau, np.random.default_rng(tau), reps),
                      np.r_[3 * (1 - np.exp(-t / tau))[:-1], 3.0]))
    cases.append(("climb of 0.5 SD per 1000 steps over 4000 steps", ar1(0.5, 4000, np.random.default_rng(7), reps)
                  + 0.0005 * np.arange(4000), 0.0005 * np.arange(4000)))
    for name, series, mean in cases:
        for budget in (None, len(mean) - 1):
            stops = wrong_claim = remaining = 0
            for row in series:
                stop = first_stop(row, budget=budget)
                if stop is None:
                    continue
                stops += 1
                monitor = ss.ConvergenceMonitor(budget=budget)
                monitor.update_many(row[:stop])
                claim = monitor.last_result
                ahead = min(stop - 1 + int(claim.horizon), len(mean) - 1)
                wrong_claim += abs(mean[ahead] - mean[stop - 1]) > claim.tolerance
                remaining += abs(mean[-1] - mean[stop - 1]) > claim.tolerance
            known = "budget known" if budget is not None else "no budget"
            print(f"  {name}, {known}: stopped {stops / reps:.0%}; remaining rise > tolerance "
                  f"{rate(remaining, reps)}; claim wrong over its own horizon {rate(wrong_claim, reps)}")
    test = ss.ConvergenceTest()
    for n in (400, 600, 800, 1000):
        conv = sum(test.fit(row).converged for row in ar1(0.5, n, np.random.default_rng(n), reps))
        print(f"  fixed-sample AR(0.5), n={n}: converged {rate(conv, reps)}")
    for budget in (None, 5999):
        stops = np.array([s if s is not None else np.inf
                          for s in (first_stop(row, budget=budget)
                                    for row in ar1(0.5, 6000, np.random.default_rng(9), reps))])
        known = f"budget {budget}" if budget is not None else "no budget"
        print(f"  live AR(0.5), {known}: stop by 2400 (3x the n where the fixed verdict reaches 90%) "
              f"{rate(int(np.sum(stops <= 2400)), reps)}; median stop {np.median(stops):.0f}, 90th percentile "
              f"{np.percentile(stops, 90):.0f}, never {np.mean(np.isinf(stops)):.1%}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--live-reps", type=int, default=200)
    parser.add_argument("--live-only", action="store_true", help="skip the fixed-sample rows")
    parser.add_argument("--memory-only", action="store_true", help="only the long-memory flag rates")
    parser.add_argument("--short-only", action="store_true", help="only the short persistent runs")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.memory_only or args.short_only:
        (memory if args.memory_only else short)(args.reps)
        print(f"({time.perf_counter() - start:.0f} s)")
        return
    if not args.live_only:
        fixed(args.reps)
        short(args.reps)
        memory(args.reps)
    live(args.live_reps)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
