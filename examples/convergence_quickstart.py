"""Has my training run converged?  The Python side of `swarmstats check-convergence`.

    python examples/convergence_quickstart.py [--plot out.png]
"""

import sys
from pathlib import Path

import numpy as np

import swarmstats

log = swarmstats.read_table(Path(__file__).parent / "data" / "reward_log.csv")

# One verdict per metric, with the numbers and plain reasons behind it.
for metric in ("reward", "loss"):
    series = log.set_index("step")[metric].dropna()
    result = swarmstats.check_convergence(series, name=metric, precision=0.01)
    print(result.summary(), end="\n\n")

# The pieces are public too: warm-up, trend, autocorrelation, ESS.
loss = log["loss"].dropna().to_numpy()
warmup = swarmstats.detect_warmup(loss)
print(warmup.summary())
print(swarmstats.trend_test(loss[warmup.index:]).summary())
print(f"g = {swarmstats.integrated_autocorr_time(loss[warmup.index:]):.2f}, "
      f"ESS = {swarmstats.ess(loss[warmup.index:], method='plain'):.0f}")

# Several seeds: per-run verdicts, R-hat and bulk/tail ESS across them.
rng = np.random.default_rng(0)
seeds = [0.8 + rng.normal(0, 0.05, 400) for _ in range(4)]
print(swarmstats.check_convergence(seeds, rhat_threshold=1.05).summary().splitlines()[0])

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    ax = swarmstats.check_convergence(log.set_index("step")["loss"].dropna(), name="loss").plot()
    ax.figure.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
