"""Write examples/data/interactions.csv, the bundled example of scored interactions.

A made-up multi-agent run in SWARM's shape: 30 epochs of 60 interactions,
each scored by the proxy p = sigmoid(v_hat) from observables and accepted or
rejected by the counterparty.  For 20 epochs selection works (higher p, more
often accepted); from epoch 20 deceptive agents game the counterparties'
trust, and low-p interactions are accepted more often than high-p ones -
adverse selection.  Deterministic (fixed seed).

    python examples/make_example_interactions.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

from swarmstats import swarm_proxy

EPOCHS, PER_EPOCH, ONSET = 30, 60, 20


def make_interactions(seed: int = 2026) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for epoch in range(EPOCHS):
        n = PER_EPOCH
        progress = rng.uniform(-0.6, 1.0, n)
        p, v_hat = swarm_proxy(progress, rng.poisson(0.6, n), rng.poisson(0.4, n), rng.poisson(0.2, n),
                               rng.uniform(-0.5, 0.8, n), return_v_hat=True)
        # acceptance: trust tracks p before the onset, runs against it afterwards
        slope = 6.0 if epoch < ONSET else -6.0
        accept_probability = 1 / (1 + np.exp(-slope * (p - 0.5) - 0.4))
        rows.append(pd.DataFrame({
            "epoch": epoch, "step": epoch * n + np.arange(n),
            "initiator": [f"agent_{i}" for i in rng.integers(0, 8, n)],
            "counterparty": [f"agent_{i}" for i in rng.integers(0, 8, n)],
            "p": np.round(p, 5), "v_hat": np.round(v_hat, 5),
            "accepted": rng.uniform(size=n) < accept_probability}))
    return pd.concat(rows, ignore_index=True)


if __name__ == "__main__":
    path = Path(__file__).parent / "data" / "interactions.csv"
    path.parent.mkdir(exist_ok=True)
    make_interactions().to_csv(path, index=False)
    print(f"wrote {path}")
