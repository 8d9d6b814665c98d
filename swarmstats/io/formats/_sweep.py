"""A sweep's runs as settings: each run's configuration read from its parameters, and a table
of each run's final values (a BehaviorSpace table measured at each run's end, a Mesa batch run
of last steps, ``mlflow.search_runs()``), which only ``describe`` reads."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import ONE_CONFIGURATION, LogTable


def plain_setting(value):
    """A run's setting as written: a whole number without the '.0' pandas gives a column it read
    as floats, a number as a plain int or float, anything else (a word) as it is.

    >>> plain_setting(np.float64(8.0)), plain_setting(np.int64(3)), plain_setting(0.25), plain_setting("ring")
    (8, 3, 0.25, 'ring')
    """
    if isinstance(value, (float, np.floating)):
        return int(value) if float(value).is_integer() else float(value)
    return int(value) if isinstance(value, np.integer) else value


def final_values(format: str, name: str, runs: np.ndarray, settings: list, metrics: dict, notes: list,
                 series_elsewhere: str = "", seeds=None) -> LogTable:
    """A sweep measured once per run, at its end - a BehaviorSpace table without "measure runs at
    every step", Mesa's ``batch_run`` at its default ``data_collection_period`` - as a row per
    measurement, in the order of the runs' numbers (``runs``), each row's run number its step (an
    order, not a time; the rows of one run - its agents - share it, and ``describe`` clusters by
    it), its setting (``settings``, :func:`setting_labels`) the ``run`` column, so that each
    setting's repetitions are described together, and ``metrics`` (name -> a value per row).
    The commands that read a series in time refuse it, saying ``series_elsewhere`` (where the
    series are, when they exist: an MLflow run's metric history).  ``seeds`` (a value per row,
    :func:`replicate_seeds`) is kept by run number for ``compare`` to pair settings on.

    >>> table = final_values("netlogo-table", "t.csv", np.array([2.0, 1.0]), ["n=10", "n=20"], {"r": np.array([0.5, 0.7])}, [])
    >>> table.frame.to_dict("list"), table.final_values
    ({'run': ['n=20', 'n=10'], 'step': [1.0, 2.0], 'r': [0.7, 0.5]}, True)
    """
    order = np.argsort(runs, kind="stable")
    arrays = {"step": np.asarray(runs, dtype=float)[order]}
    if len(set(settings)) > 1:
        arrays = {"run": np.asarray(settings, dtype=object)[order], **arrays}
    arrays.update({metric: np.asarray(values, dtype=float)[order] for metric, values in metrics.items()})
    said = (f"{len(set(settings))} settings, each described on its own" if len(set(settings)) > 1 else "one setting")
    notes = [f"each run's final measurement only ({len(set(runs.tolist()))} runs, {said}): no series in time, so "
             "nothing here converges, changes or trends; describe gives the final values' distribution"] + notes
    # each setting its own configuration, whatever its label looks like ("offset=-5" is no
    # replicate number)
    configs = {setting: setting for setting in settings} if "run" in arrays else {}
    run_seeds = ({float(run): plain_setting(seed) for run, seed in zip(np.asarray(runs, dtype=float).tolist(), seeds)}
                 if seeds is not None else {})
    return LogTable(None, format, name, notes, arrays=arrays, final_values=True, run_configs=configs,
                    configs_complete=bool(configs), series_elsewhere=series_elsewhere, run_seeds=run_seeds)


def _is_seed(parameter) -> bool:
    """A parameter that sets a replicate, not a setting: a name ending in ``seed``
    (``random-seed``) or ``rng`` (``seed-density`` is a setting)."""
    name = str(parameter).strip().lower()
    return name.endswith("seed") or name == "rng"


def replicate_seeds(frame, parameters: list):
    """Each row's seed (``frame`` a DataFrame or a dict of columns) when exactly one of
    ``parameters`` is a seed (:func:`_is_seed`) and every row has one, else None.

    >>> replicate_seeds({"lr": [0.1, 0.2], "seed": [1.0, 2.0]}, ["lr", "seed"])
    [1.0, 2.0]
    >>> replicate_seeds({"lr": [0.1, 0.2]}, ["lr"]) is None
    True
    """
    named = [p for p in parameters if _is_seed(p)]
    if len(named) != 1:
        return None
    values = list(np.asarray(frame[named[0]], dtype=object))
    if any(pd.isna(value) or str(value).strip() == "" for value in values):
        return None
    return values


def run_and_step_numbers(table, run: str, step: str, name: str, what: str) -> tuple:
    """The ``run`` and ``step`` columns of a sweep's table (a Mesa batch run, a BehaviorSpace
    table; a DataFrame or a dict of numpy columns) as floats, or one InputError naming the first
    data row that lacks either."""
    runs, steps = floats(table[run]), floats(table[step])
    missing = np.isnan(runs) | np.isnan(steps)
    if missing.any():
        raise InputError(f"{name}: data row {int(np.flatnonzero(missing)[0]) + 1} of {what} has no {run} or {step} number")
    return runs, steps


def floats(values) -> np.ndarray:
    """A column (a Series or an array) as floats, anything that is no number NaN; a column of
    numbers as it is (pandas' ``to_numeric`` costs ~60 us even then)."""
    values = np.asarray(values)
    if values.dtype.kind in "fiub":
        return values.astype(float, copy=False)
    return np.asarray(pd.to_numeric(values, errors="coerce"), dtype=float)


def sweep_configurations(frame, parameters: list, codes: np.ndarray, labels: list) -> list:
    """Each run's configuration, in the order of ``labels`` (``codes``: each row's run; ``frame``
    a DataFrame or a dict of numpy columns): the
    ``parameters`` that differ between the runs (:func:`setting_labels`), a seed left out - a
    parameter whose name ends in ``seed`` (``random-seed``) or is ``rng`` sets a replicate, not a
    setting (``seed-density`` is a setting).

    >>> frame = pd.DataFrame({"n": [10, 10, 20], "random-seed": [1, 2, 3]})
    >>> sweep_configurations(frame, ["n", "random-seed"], np.array([0, 1, 2]), ["a", "b", "c"])
    ['n=10', 'n=10', 'n=20']
    """
    first = np.unique(codes, return_index=True)[1]
    kept = [p for p in parameters if not _is_seed(p)]
    values = {p: np.asarray(frame[p])[first] for p in kept}
    settings = {label: {p: plain_setting(values[p][i]) for p in kept} for i, label in enumerate(labels)}
    return list(setting_labels(settings).values())


def require_series(frame: pd.DataFrame, file=None) -> pd.DataFrame:
    """``frame``, or the InputError that says it holds final values (:func:`final_values`): what
    reads a series in time (a verdict, a window, regimes, a run's last tenth) must never take a
    setting's repetitions, in run order, for one."""
    if frame.attrs.get("final_values"):
        source = frame.attrs.get("source")
        elsewhere = frame.attrs.get("series_elsewhere")  # (where the reader knows the series exist)
        elsewhere = f"; {elsewhere}" if elsewhere else ""
        raise InputError(f"{source} holds each run's final measurement only, not series in time: nothing in it "
                         f"converges, changes or trends. 'swarmstats describe {file or source}' describes the "
                         "final values" + (" of each setting" if "run" in frame.columns else "") + elsewhere)
    return frame


def setting_labels(configs: dict) -> dict:
    """Each run's configuration (``{run: {setting: value}}``, seeds already left out) as the
    settings that differ between the runs, or :data:`ONE_CONFIGURATION` for every run when none
    does (the runs are replicates).

    >>> setting_labels({"1": {"map": "MMM2", "lr": 5e-4}, "2": {"map": "3s5z", "lr": 5e-4}})
    {'1': 'map=MMM2', '2': 'map=3s5z'}
    >>> setting_labels({"1": {"lr": 5e-4}, "2": {"lr": 5e-4}})
    {'1': 'one configuration', '2': 'one configuration'}
    """
    keys = sorted(set().union(*configs.values()))
    differ = [key for key in keys if len({config.get(key) for config in configs.values()}) > 1]
    if not differ:
        return dict.fromkeys(configs, ONE_CONFIGURATION)
    return {run: ", ".join(f"{key}={config.get(key, 'unset')}" for key in differ)
            for run, config in configs.items()}
