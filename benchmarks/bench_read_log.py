"""read_log on 1,000,000-row logs vs pandas.read_csv on the same file.

Target (issue 7): reading a 1,000,000-row CSV log costs within 1.5x of pandas.read_csv.
Reported for a generic CSV (the wide frame the commands analyse, and the tidy frame) and an
SB3 progress.csv (namespaced keys, parsed and typed); then every real CSV log of
tests/fixtures/real (issue 19: <= 1.5x read_csv on every reader's real fixture), where a
monitor.csv's read_csv skips its JSON comment line, and every real JSON-lines log against
pandas.read_json(lines=True).  Last, the real logs that are no table
(verl's console, a Trainer's notebook table, what pymarl printed, pymarl's info.json and a
results/sacred folder of them, a folder of marl-eval JSON): read_log against read_csv of the
table they hold written as a CSV - what the same numbers cost when a trainer writes them as a
table.

    python benchmarks/bench_read_log.py [--rows 1000000] [--tables-only] [--scaled]

``--scaled`` reads the real logs furthest over the target (Ray's progress.csv, the nanoGPT W&B
chart, the BenchMARL W&B history) repeated to ~1 MB and ~10 MB as one run (each copy's steps
after the last), to tell the costs that stay per file from those that grow with its rows.
"""

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import machine, median_ratio
from bench_cli import write_log

from swarmstats.io import read_log


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--tables-only", action="store_true", help="only the real logs that are no table")
    parser.add_argument("--scaled", action="store_true", help="only the real logs repeated to 1 and 10 MB")
    args = parser.parse_args()
    print(machine())
    if args.scaled:
        scaled_fixtures()
        return
    if args.tables_only:
        printed_fixtures()
        return
    with tempfile.TemporaryDirectory() as folder:
        plain = os.path.join(folder, "log.csv")
        write_log(plain, args.rows)
        sb3 = os.path.join(folder, "progress.csv")
        rng = np.random.default_rng(1)
        pd.DataFrame({"rollout/ep_rew_mean": rng.normal(size=args.rows),
                      "time/total_timesteps": np.arange(args.rows) * 2048,
                      "train/loss": rng.normal(size=args.rows)}).to_csv(sb3, index=False, float_format="%.6g")
        for label, path in (("generic CSV", plain), ("SB3 progress.csv", sb3)):
            size = os.path.getsize(path) / 1e6
            wide_ratio, wide, theirs = median_ratio(lambda: read_log(path, wide=True),
                                                    lambda: pd.read_csv(path), repeats=7, warmup=1)
            tidy_ratio, tidy, _ = median_ratio(lambda: read_log(path), lambda: pd.read_csv(path),
                                               repeats=7, warmup=1)
            print(f"{label}, {args.rows} rows ({size:.0f} MB): read_log(wide=True) {wide:.3f} s, "
                  f"tidy {tidy:.3f} s, pandas.read_csv {theirs:.3f} s (medians) -> wide "
                  f"{wide_ratio:.2f}x, tidy {tidy_ratio:.2f}x read_csv (medians of ratios, "
                  "alternating)  [target: <= 1.5x]")
    real_fixtures()
    jsonl_fixtures()
    printed_fixtures()


def jsonl_fixtures():
    """The real JSON-lines logs against pandas' own reader of JSON lines."""
    root = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
    for path in sorted(root.rglob("*.jsonl")):
        if path.stat().st_size < 1000:
            continue  # (a Git LFS pointer: no table to read)
        wide, _, theirs = median_ratio(lambda: read_log(path, wide=True), lambda: pd.read_json(path, lines=True))
        tidy, _, _ = median_ratio(lambda: read_log(path), lambda: pd.read_json(path, lines=True))
        print(f"{path.relative_to(root)} ({path.stat().st_size / 1e3:.0f} KB): read_json(lines=True) "
              f"{theirs * 1e3:.2f} ms; read_log wide {wide:.2f}x, tidy {tidy:.2f}x  (medians of ratios, alternating)")


def real_fixtures():
    """The small real logs: what a user's first call costs, dominated by fixed overheads."""
    root = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
    for path in sorted(root.rglob("*.csv")):
        skip = 1 if path.name.endswith("monitor.csv") else 0
        wide, _, theirs = median_ratio(lambda: read_log(path, wide=True), lambda: pd.read_csv(path, skiprows=skip))
        tidy, _, _ = median_ratio(lambda: read_log(path), lambda: pd.read_csv(path, skiprows=skip))
        print(f"{path.relative_to(root)} ({path.stat().st_size / 1e3:.0f} KB): read_csv "
              f"{theirs * 1e3:.2f} ms; read_log wide {wide:.2f}x, tidy {tidy:.2f}x  (medians of "
              "ratios, alternating)")


def repeated(path: Path, step: str, size: float, out: Path) -> None:
    """``path`` (a CSV log) written to ``out`` as one run of ~``size`` bytes: its rows again and
    again, each copy's ``step`` after the last copy's, every other cell as written (a file
    whose every cell is quoted keeps its quotes)."""
    import csv

    lines = path.read_text().splitlines()
    quoting = csv.QUOTE_ALL if lines[0].startswith('"') else csv.QUOTE_MINIMAL
    rows = list(csv.reader(lines))
    header, body = rows[0], rows[1:]
    at = header.index(step)
    steps = [float(row[at]) if row[at] else None for row in body]
    span = max(s for s in steps if s is not None) + 1
    copies = max(int(size // path.stat().st_size), 1)
    with out.open("w", newline="") as handle:
        writer = csv.writer(handle, quoting=quoting, lineterminator="\n")
        writer.writerow(header)
        for k in range(copies):
            for row, value in zip(body, steps):
                if value is not None:
                    row = [*row[:at], f"{value + k * span:g}", *row[at + 1:]]
                writer.writerow(row)


def scaled_fixtures():
    """The real logs furthest over 1.5x read_csv, repeated to ~1 and ~10 MB as one run: does
    the ratio fall as the file grows (fixed costs) or hold (costs per row)?"""
    root = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
    with tempfile.TemporaryDirectory() as folder:
        for name, step in (("ray/ppo-deepcomp/progress.csv", "training_iteration"),
                           ("wandb/nanogpt-chart.csv", "Step"), ("wandb/benchmarl-mappo-history.csv", "_step")):
            for size in (1e6, 1e7):
                path = Path(folder) / f"{size:.0e}-{Path(name).name}"
                repeated(root / name, step, size, path)
                wide, _, theirs = median_ratio(lambda: read_log(path, wide=True), lambda: pd.read_csv(path),
                                               repeats=15)
                tidy, _, _ = median_ratio(lambda: read_log(path), lambda: pd.read_csv(path), repeats=15)
                print(f"{name} repeated to {path.stat().st_size / 1e6:.1f} MB: read_csv {theirs * 1e3:.1f} ms; "
                      f"read_log wide {wide:.2f}x, tidy {tidy:.2f}x  (medians of ratios, alternating)")
                path.unlink()


def printed_fixtures():
    import io

    root = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
    for path in (root / "verl" / "qwen2-7b_math.log", root / "hf-notebook" / "gemma_7b_english_quotes.ipynb",
                 root / "pymarl" / "sacred" / "1" / "cout.txt", root / "pymarl" / "sacred" / "1" / "info.json",
                 root / "pymarl" / "sacred", root / "marl-eval"):
        table = read_log(path, wide=True).to_csv(index=False).encode()
        size = path.stat().st_size if path.is_file() else sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        ratio, ours, theirs = median_ratio(lambda: read_log(path, wide=True),
                                           lambda: pd.read_csv(io.BytesIO(table)), repeats=15)
        print(f"{path.relative_to(root)} ({size / 1e3:.0f} KB, its table "
              f"{len(table) / 1e3:.0f} KB): read_log wide {ours * 1e3:.2f} ms, read_csv of the table "
              f"{theirs * 1e3:.2f} ms -> {ratio:.1f}x (medians of ratios, alternating)")


if __name__ == "__main__":
    main()
