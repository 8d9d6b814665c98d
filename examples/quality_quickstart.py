"""Is selection working, or adverse?  Soft and hard quality-gap metrics with intervals.

    python examples/quality_quickstart.py [--plot out.png]
"""

import sys
from pathlib import Path

import pandas as pd

import swarmstats

# 1. One batch: SWARM's worked example (swarm-metrics.md section 8).
report = swarmstats.quality_metrics([0.9, 0.8, 0.3, 0.6, 0.2], [1, 1, 0, 1, 0], random_state=0)
print(report.summary())

# 2. A run: 30 epochs of scored interactions; selection turns adverse at epoch 20.
interactions = pd.read_csv(Path(__file__).parent / "data" / "interactions.csv")
table = swarmstats.quality_by(interactions, "epoch", random_state=0)
print()
print(table[["epoch", "n", "quality_gap", "quality_gap_low", "quality_gap_high", "toxicity",
             "hard_toxicity", "adverse_selection_pvalue"]].round(3).to_string(index=False))

# The whole-run average hides the late turn: selection worked for two thirds of the run.
# Eight agents made every interaction, so the agents, not the 1,800 interactions, are the
# units of the whole-run test (initiators and counterparties both ways).
test = swarmstats.adverse_selection_test(interactions.p, interactions.accepted, groups=interactions.epoch,
                                         clusters=(interactions.initiator, interactions.counterparty))
print("\nwhole run:", test.summary())

# The per-epoch gap is a score series like any other: find the regime change ...
regimes = swarmstats.detect_regimes(table.set_index("epoch")["quality_gap"])
print(regimes.summary().splitlines()[0])

# ... and compare SWARM's streak rule with the interval-aware one (gap below 0 for 3 epochs).
for rule in ("swarm", "interval"):
    warning = swarmstats.early_warning(table, level=0.0, direction="below", consecutive=3, rule=rule)
    print(warning.summary())

# 3. Reproduce p from the observables SWARM logs (progress, rework, rejections, misuse, engagement).
p, v_hat = swarmstats.swarm_proxy(0.7, rework=1, engagement=0.4, return_v_hat=True)
print(f"\nproxy: v_hat = {v_hat:.2f}, p = {p:.6f}")

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4))
    last = interactions[interactions.epoch >= 20]
    swarmstats.quality_metrics(last.p, last.accepted, random_state=0).plot(ax=left)
    swarmstats.early_warning(table, level=0.0, direction="below", rule="interval").plot(ax=right)
    fig.tight_layout()
    fig.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
