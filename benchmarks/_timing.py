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


def machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(name: str, ours: float, anchor: float, anchor_name: str, target: str) -> None:
    print(f"{name}: swarmstats {ours * 1e3:.1f} ms, {anchor_name} {anchor * 1e3:.1f} ms "
          f"(medians) -> ratio {anchor / ours:.1f}x  [target: {target}]")
