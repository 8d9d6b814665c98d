"""A governance loop that hard-thresholds a noisy proxy thrashes; track the noise and see it.

Six agents with fixed true quality; every round the proxy scores each one with noise
(SD 0.15) and the governor accepts or rejects.  Hard decisions on single scores flip
round after round for agents near the threshold; decisions on the running mean (what the
tracker recommends once a key is flagged) settle.

    python examples/proxy_governance.py [--plot out.png]
"""

import sys

import numpy as np

import swarmstats

rng = np.random.default_rng(11)
quality = {"steady": 0.80, "harmful": 0.20, "decent": 0.65, "shaky": 0.40,
           "borderline_up": 0.53, "borderline_down": 0.47}
rounds, threshold, noise = 100, 0.5, 0.15

tracker = swarmstats.ProxyVarianceTracker(threshold=threshold, halflife=20)
hard_flips = dict.fromkeys(quality, 0)
mean_flips = dict.fromkeys(quality, 0)
last_hard, last_mean = {}, {}
for _ in range(rounds):
    for agent, true_p in quality.items():
        p = float(np.clip(true_p + rng.normal(0, noise), 0.0, 1.0))
        beneficial = rng.uniform() < true_p  # what actually happened
        state = tracker.update(p, key=agent, outcome=beneficial)
        hard = p >= threshold                 # the thrashing rule: one score, one decision
        soft = state.mean >= threshold        # a decision on the evidence so far
        hard_flips[agent] += agent in last_hard and hard != last_hard[agent]
        mean_flips[agent] += agent in last_mean and soft != last_mean[agent]
        last_hard[agent], last_mean[agent] = hard, soft

report = tracker.result()
print(report.summary())
print()
print(f"{'agent':<16} {'true p':>6}  {'hard flips':>10}  {'mean-decision flips':>19}")
for agent, true_p in quality.items():
    print(f"{agent:<16} {true_p:>6.2f}  {hard_flips[agent]:>10}  {mean_flips[agent]:>19}")

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4))
    report.plot(ax=left)
    report.plot(ax=right, kind="reliability")
    fig.tight_layout()
    fig.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
