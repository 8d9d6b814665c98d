"""Where the runs are analysed: a local process pool (default) or a Dask cluster.

Runs are handed out one by one (``imap``-style, a bounded number in flight), so a sweep of
thousands of runs never holds them all in memory; results come back in the order of the runs,
so every backend produces the same output."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor

from ..errors import InputError, check_choice, require
from . import analyse

BACKENDS = ("local", "dask")


def run_all(specs, options, *, backend: str = "local", workers: int | None = None,
            scheduler: str | None = None, progress: bool = False) -> list:
    check_choice("backend", backend, BACKENDS)
    if workers is not None and int(workers) < 1:
        raise InputError(f"workers must be >= 1, got {workers!r}")
    if backend == "dask":
        return _dask(specs, options, workers, scheduler, progress)
    workers = int(workers) if workers else (os.cpu_count() or 1)
    if workers == 1:
        return [_tick(analyse.analyse_run(spec, options), i, len(specs), progress)
                for i, spec in enumerate(specs)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # chunks keep the per-task overhead small; map yields results in order as they finish
        chunk = max(1, min(16, len(specs) // (4 * workers)))
        results = pool.map(analyse.analyse_run, specs, [options] * len(specs), chunksize=chunk)
        return [_tick(result, i, len(specs), progress) for i, result in enumerate(results)]


def _dask(specs, options, workers, scheduler, progress):
    distributed = require("dask.distributed", "dask", "the dask backend")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    if scheduler:
        client = Client(scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=int(workers or 2), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        futures = client.map(analyse.analyse_run, specs, options=options, pure=False)
        return [_tick(result, i, len(specs), progress) for i, result in enumerate(client.gather(futures))]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _tick(result, index: int, total: int, progress: bool):
    if progress:
        done = index + 1
        width = 30
        filled = int(width * done / total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} runs")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return result
