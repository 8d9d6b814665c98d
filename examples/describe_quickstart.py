"""Report the distribution, not the peak: describe() and compare_runs() across seeds.

    python examples/describe_quickstart.py [--plot out.png]
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

import swarmstats

log = pd.read_csv(Path(__file__).parent / "data" / "reward_log.csv", comment="#").set_index("step")

# One run: where the values lie, how far the peak is from the mean, and an interval on
# the mean that respects autocorrelation (the i.i.d. one beside it is far too narrow).
result = swarmstats.describe(log["reward"], random_state=0)
print(result.summary())

# Several seeds of two settings: compare final scores with stratified-bootstrap intervals,
# the probability of improvement and performance profiles.
rng = np.random.default_rng(1)
baseline = 0.55 + rng.normal(0, 0.05, size=(10, 3))   # 10 seeds x 3 tasks
tuned = 0.60 + rng.normal(0, 0.05, size=(10, 3))
comparison = swarmstats.compare_runs(baseline, tuned, names=("baseline", "tuned"), random_state=0)
print()
print(comparison.summary())

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4))
    result.plot(ax=left)
    comparison.plot(ax=right)
    fig.tight_layout()
    fig.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
