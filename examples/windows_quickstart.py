"""Adaptive evaluation windows: a normal dip is not "degrading", a real drop is.

An agent improves with oscillation (the seeds' shape: a climb with runs of 5-10 declining
steps), then at step 400 its score drops for real.  A fixed 10-step window with an OLS
slope test calls every dip "degrading"; the adaptive window calls only the drop.

    python examples/windows_quickstart.py [--plot out.png]
"""

import sys

import numpy as np

import swarmstats

rng = np.random.default_rng(3)
level, value = [], 0.40
while len(level) < 400:
    for _ in range(rng.integers(8, 16)):
        value += 0.004
        level.append(value)
    for _ in range(rng.integers(5, 11)):
        value -= 0.003
        level.append(value)
score = np.r_[np.array(level[:400]), np.full(200, level[399] - 0.08)] + rng.normal(0, 0.02, 600)

# the simple controller's rule: OLS slope over the last 10 points, |t| > 2
t = np.arange(10) - 4.5
fixed = []
for i in range(9, len(score)):
    y = score[i - 9:i + 1]
    slope = t @ (y - y.mean()) / (t @ t)
    residual = y - y.mean() - slope * t
    fixed.append(slope / np.sqrt(residual @ residual / 8 / (t @ t)) < -2)
fixed = np.array(fixed)

result = swarmstats.AdaptiveWindow().fit(score, name="score")
adaptive = (result.table["status"] == "degrading").to_numpy()[9:]
print(result.summary())
print()
print(f"steps called 'degrading' before the drop: fixed window {int(fixed[:391].sum())}, "
      f"adaptive {int(adaptive[:391].sum())}")
first = np.flatnonzero(adaptive[391:])
print(f"the real drop at step 400 is called by the adaptive window at step "
      f"{400 + int(first[0]) if len(first) else 'never'}")

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    ax = result.plot()
    ax.figure.set_size_inches(10, 4)
    ax.figure.tight_layout()
    ax.figure.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
