"""Write examples/data/reward_log.csv, the bundled example training log.

A made-up RL run of 600 logged steps (every 10 environment steps):
``reward`` climbs like the seeds' alphabet-sort run (noisy, non-monotonic)
and is still improving at the end; ``loss`` relaxes and settles;
``entropy`` is stationary from the start.  Deterministic (fixed seed).

    python examples/make_example_log.py
"""

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.signal import lfilter


def make_log(n: int = 600, seed: int = 2026) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    index = np.arange(n)
    wobble = lfilter([1.0], [1.0, -0.6], rng.normal(0.0, 0.05, n))
    reward = 0.45 + 0.15 * (1 - np.exp(-index / 900)) + wobble
    loss = 0.8 + 1.5 * np.exp(-index / 25) + lfilter([1.0], [1.0, -0.5], rng.normal(0.0, 0.06, n))
    entropy = 1.1 + rng.normal(0.0, 0.04, n)
    frame = pd.DataFrame({"step": index * 10, "reward": reward.round(4), "loss": loss.round(4),
                          "entropy": entropy.round(4)})
    frame.loc[index % 9 == 4, "loss"] = np.nan  # a sparse column, as real logs have
    return frame


if __name__ == "__main__":
    path = Path(__file__).parent / "data" / "reward_log.csv"
    path.parent.mkdir(exist_ok=True)
    with open(path, "w") as handle:
        handle.write("# made-up RL training log bundled with swarmstats (examples/make_example_log.py)\n")
        make_log().to_csv(handle, index=False)
    print(f"wrote {path}")
