"""Timing helpers shared by the benchmarks: medians of repeats, never a single time."""

from __future__ import annotations

import platform
import statistics
import time


def median_time(function, *, repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``function()`` over ``repeats`` calls (after ``warmup`` calls)."""
    for _ in range(warmup):
        function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_ratio(ours, anchor, *, repeats: int = 31, warmup: int = 2) -> tuple[float, float, float]:
    """(median ratio ours / anchor, median ours, median anchor), the two timed in alternation
    round by round: on a shared, loaded machine the load changes between separate series of
    repeats, and each round's ratio sees the same load for both."""
    for _ in range(warmup):
        anchor()
        ours()
    ratios, mine, theirs = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        anchor()
        middle = time.perf_counter()
        ours()
        end = time.perf_counter()
        theirs.append(middle - start)
        mine.append(end - middle)
        ratios.append((end - middle) / (middle - start))
    return statistics.median(ratios), statistics.median(mine), statistics.median(theirs)


def machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(name: str, ours: float, anchor: float, anchor_name: str, target: str) -> None:
    print(f"{name}: swarmstats {ours * 1e3:.1f} ms, {anchor_name} {anchor * 1e3:.1f} ms "
          f"(medians) -> ratio {anchor / ours:.1f}x  [target: {target}]")
