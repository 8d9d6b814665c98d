"""`swarmstats check-convergence` on a 1,000,000-row CSV with three metrics vs
`pandas.read_csv` alone on the same file.  Target: within 3x read_csv's time.

    python benchmarks/bench_cli.py [--rows 1000000]
"""

import argparse
import contextlib
import io
import os
import tempfile

import numpy as np
import pandas as pd
from _timing import machine, median_time
from scipy.signal import lfilter

from swarmstats.cli import main as cli_main


def write_log(path: str, rows: int) -> None:
    rng = np.random.default_rng(0)
    t = np.arange(rows)
    frame = pd.DataFrame({
        "step": t,
        "reward": 0.6 - 0.3 * np.exp(-t / (0.05 * rows)) + lfilter([1], [1, -0.7], rng.normal(0, 0.05, rows)),
        "loss": 1.0 + lfilter([1], [1, -0.3], rng.normal(0, 0.1, rows)),
        "entropy": 2.0 + 1e-7 * t + rng.normal(0, 0.1, rows),
    })
    frame.to_csv(path, index=False, float_format="%.6g")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.csv")
        write_log(path, args.rows)
        size = os.path.getsize(path) / 1e6

        def check():
            with contextlib.redirect_stdout(io.StringIO()):
                return cli_main(["check-convergence", path])

        code = check()
        ours = median_time(check, repeats=5)
        theirs = median_time(lambda: pd.read_csv(path), repeats=5)
        print(f"check-convergence on {args.rows} rows x 3 metrics ({size:.0f} MB, exit {code}): "
              f"{ours:.2f} s; pandas.read_csv alone {theirs:.2f} s (medians) -> "
              f"{ours / theirs:.2f}x read_csv  [target: <= 3x]")


if __name__ == "__main__":
    main()
