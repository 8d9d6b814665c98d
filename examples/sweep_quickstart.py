"""A sweep of 40 runs (adversarial fraction x seed): per-setting intervals, regime shares and
where collapse begins.

    python examples/sweep_quickstart.py [--plot out.png]
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from make_example_sweep import write_sweep  # noqa: E402

import swarmstats  # noqa: E402

with tempfile.TemporaryDirectory() as folder:
    write_sweep(folder, [0.0, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5], seeds=5)
    result = swarmstats.sweep(f"{folder}/adv=*/seed=*/epochs.csv", by=["adv"], phase="adv",
                              metrics=["toxicity_rate"], workers=2, progress=False)

print(result.summary())
if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    ax = result.plot()
    ax.figure.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
