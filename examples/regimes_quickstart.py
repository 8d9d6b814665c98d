"""Did something real change, or is it a normal dip?  Regime detection on a reward curve.

    python examples/regimes_quickstart.py [--plot out.png]
"""

import sys

import numpy as np

import swarmstats

rng = np.random.default_rng(7)
# An improving reward with dips (the seeds' shape), then a collapse at step 700.
steps = np.arange(1000)
reward = 0.45 + 0.15 * (1 - np.exp(-steps / 300)) + 0.03 * np.sin(steps / 12) + rng.normal(0, 0.04, 1000)
reward[700:] -= 0.2

# Offline, with hindsight: segments, and each change's size in noise SDs.
result = swarmstats.detect_regimes(reward, model="mean")
print(result.summary())
print(result.segments[["start", "end", "mean", "ci_low", "ci_high"]].round(3).to_string(index=False))

# A climb is better described with the linear model: one trend, then the collapse.
print(swarmstats.detect_regimes(reward, model="linear").summary().splitlines()[0])

# Every optimal segmentation over a penalty range, and the elbow.
path = swarmstats.regime_path(reward)
print(path.summary().splitlines()[0])

# Online, as it would have run during training.
online = swarmstats.OnlineRegimeDetector()
online.update_many(reward)
print("online alarms (alarm step, estimated change step):", online.alarms)

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    ax = result.plot()
    ax.figure.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
