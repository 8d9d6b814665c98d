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

# Offline, with hindsight: the default reads the climb as one regime with its slope, then the
# collapse; each change's size in noise SDs, with a p-value that allows for choosing the split.
result = swarmstats.detect_regimes(reward)
print(result.summary())
print(result.segments[["start", "end", "mean", "slope", "slope_ci_low", "slope_ci_high"]]
      .to_string(index=False, float_format="%.4g"))

# The fixed-scale mean model cuts the same climb into a staircase of levels.
print("model='mean':", swarmstats.detect_regimes(reward, model="mean").summary().splitlines()[0])

# A change of spread, not of level: the same level, but the noise triples from step 500 (a
# policy whose episodes start to vary).  The regimes see one regime; the spread test says where.
noisier = 0.6 + rng.normal(0, 0.03, 1000) * np.where(steps >= 500, 3.0, 1.0)
spread = swarmstats.detect_regimes(noisier)
print("noise that triples:", spread.summary().splitlines()[0])
print(spread.spread_changes[["step", "sd_before", "sd_after", "ratio", "pvalue"]].to_string(index=False,
                                                                                          float_format="%.3g"))

# Every optimal segmentation over a penalty range, and the elbow.
path = swarmstats.regime_path(reward)
print(path.summary().splitlines()[0])

# Online, as it would have run during training.  With a level as "no change", the climb itself
# raises alarms; following the line the reward has taken since the last change, an alarm is a
# change of level or of slope: where the climb levels off, and the collapse.
online = swarmstats.OnlineRegimeDetector()
online.update_many(reward)
print("online alarms (alarm step, estimated change step):", online.alarms)
along = swarmstats.OnlineRegimeDetector(model="trend")
along.update_many(reward)
print("online alarms along a line:", along.alarms)

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    ax = result.plot()
    ax.figure.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
