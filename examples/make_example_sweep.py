"""Write a small made-up SWARM-style sweep: adversarial fraction x seed, one epoch CSV per run.

    python examples/make_example_sweep.py OUT_DIR [--fractions 0,0.1,...] [--seeds 4]

Runs below the critical fraction (~0.33) stay cooperative; above it acceptance falls and
toxicity rises in the second half of the run (collapse).  Deterministic.
"""

import argparse
import os

import numpy as np
import pandas as pd

CRITICAL = 0.33


def make_run(fraction: float, seed: int, epochs: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(int(fraction * 1000) * 100 + seed)
    # how strongly this run collapses: a smooth step in the fraction, with seed-to-seed spread
    collapse = 1 / (1 + np.exp(-(fraction - CRITICAL + rng.normal(0, 0.03)) / 0.02))
    t = np.arange(epochs)
    late = np.clip((t - epochs / 3) / (epochs / 3), 0, 1) * collapse
    acceptance = np.clip(0.92 - 0.75 * late + rng.normal(0, 0.02, epochs), 0, 1)
    toxicity = np.clip(0.20 + 0.45 * late + rng.normal(0, 0.02, epochs), 0, 1)
    total = rng.integers(40, 60, epochs)
    accepted = np.round(acceptance * total).astype(int)
    welfare = accepted * (1.5 - 2 * toxicity) + rng.normal(0, 1, epochs)
    return pd.DataFrame({"simulation_id": f"adv{fraction:g}-s{seed}", "epoch": t, "total_interactions": total,
                         "accepted_interactions": accepted, "rejected_interactions": total - accepted,
                         "toxicity_rate": toxicity.round(4), "quality_gap": (0.3 - 0.4 * late).round(4),
                         "total_welfare": welfare.round(3)})


def write_sweep(folder: str, fractions, seeds: int) -> list:
    paths = []
    for fraction in fractions:
        for seed in range(seeds):
            path = os.path.join(folder, f"adv={fraction:g}", f"seed={seed}", "epochs.csv")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            make_run(fraction, seed).to_csv(path, index=False)
            paths.append(path)
    return paths


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--fractions", default="0,0.1,0.2,0.25,0.3,0.35,0.4,0.5")
    parser.add_argument("--seeds", type=int, default=4)
    args = parser.parse_args()
    written = write_sweep(args.out, [float(f) for f in args.fractions.split(",")], args.seeds)
    print(f"wrote {len(written)} runs under {args.out}")
