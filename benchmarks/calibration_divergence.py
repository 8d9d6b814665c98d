"""The Goodhart check (``swarmstats.divergence``) on simulated proxy-outcome pairs.

Printed: false alarms on pairs that keep moving together (the target: at most alpha = 5%),
and for divergences at half-way - the outcome flat, or falling as fast as the proxy rises -
the share flagged within 20% of the post-divergence span (the issue's target: at least 90%),
the median delay, early alarms, and how often the gap-trend interval covers the true trend.
The effect size is the final gap in SDs of the outcome's prediction from the proxy
(``scenarios.proxy_outcome_pair``).

    python benchmarks/calibration_divergence.py [runs per row]
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import proxy_outcome_pair  # noqa: E402

from swarmstats import divergence  # noqa: E402


def false_alarm_rate(runs, seed, **design):
    rng = np.random.default_rng(seed)
    return float(np.mean([divergence(*proxy_outcome_pair(rng, shape="none", **design)[:2]).diverged
                          for _ in range(runs)]))


def delays(runs, seed, **design):
    """(delay as a share of the post-divergence span, inf when never flagged; gap trend covered)."""
    rng = np.random.default_rng(seed)
    out, covered = [], []
    for _ in range(runs):
        proxy, outcome, start = proxy_outcome_pair(rng, **design)
        result = divergence(proxy, outcome)
        end = outcome.index[-1]
        out.append((result.alarm_step - start) / (end - start) if result.diverged else np.inf)
        if result.diverged and np.isinf(design.get("time_constant", 1000.0)):
            # with a straight proxy the true gap trend is constant: -(1 or 2) x the proxy's slope
            slope = -(2.0 if design["shape"] == "falls" else 1.0) / design.get("steps", 1000)
            covered.append(result.gap_trend_ci[0] <= slope <= result.gap_trend_ci[1])
    return np.array(out), np.array(covered, dtype=bool)


def main(runs=400):
    print("false alarms at alpha = 5% (pairs that keep moving together)")
    for label, design in [("normal noise", {}), ("Student-t(3) outcome noise", {"outcome_noise": "t3"}),
                          ("proxy noise 90% of the prediction's", {"proxy_share": 0.9}),
                          ("saturating (time constant 300)", {"time_constant": 300.0}),
                          ("20 evaluations", {"every": 50}),
                          ("AR(0.3) outcome noise (assumption broken)", {"outcome_noise": "ar0.3"})]:
        print(f"  {label:45s} {false_alarm_rate(runs, 1, **design):.3f}")
    print("\ndivergence at half-way: flagged within 20% of the span / median delay / early / gap CI covers")
    for shape in ("flat", "falls"):
        for gap in (6.0, 10.0, 15.0, 20.0, 30.0):
            delay, covered = delays(runs, 2, shape=shape, gap=gap, time_constant=np.inf)
            print(f"  {shape:5s} gap {gap:4.0f} SDs: {np.mean((delay > 0) & (delay <= 0.2)):.3f} / "
                  f"{np.median(delay):.3f} / {np.mean(delay <= 0):.3f} / {np.mean(covered):.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
