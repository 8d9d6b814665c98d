"""MLflow file store: metric files (``<ts_ms> <value> <step>`` per line) and run folders; and
the runs table ``mlflow.search_runs()`` gives, read as each run's final values (one row per run is
no series: ``describe`` takes it, setting by setting, the commands that read a series refuse it)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ...errors import InputError
from ..written_nan import scalar
from ._sweep import final_values, replicate_seeds, sweep_configurations
from ._table import LogTable, numeric_columns, sparse_to_wide

#: the columns ``mlflow.search_runs()`` gives each run besides its ``metrics.``, ``params.`` and
#: ``tags.`` ones
RUNS_TABLE_COLUMNS = frozenset({"experiment_id", "status", "artifact_uri", "start_time", "end_time"})


def is_runs_table(columns) -> bool:
    """Is this header ``mlflow.search_runs()``'s, saved with ``to_csv``: one row per run, its
    ``run_id``, each metric's last value as ``metrics.<key>``, and the run's status and times?

    >>> is_runs_table(["run_id", "experiment_id", "status", "start_time", "metrics.loss", "params.lr"])
    True
    >>> is_runs_table(["run_id", "step", "metrics.loss"])   # a history with its runs' ids
    False
    """
    names = [str(column) for column in columns]
    return ("run_id" in names and any(name.startswith("metrics.") for name in names)
            and len(RUNS_TABLE_COLUMNS.intersection(names)) >= 2)


#: where a runs table's series are, for what needs them (a verdict, a window, ``watch``)
HISTORIES = ("the runs' metric histories are on the tracking server (mlflow://HOST:PORT/experiments/NAME), in "
             "a run's folder under mlruns/, or MlflowClient().get_metric_history(run_id, key) saved as a table")


def refuse_runs_table(name: str):
    """The InputError for a runs table where a series is needed (``watch``)."""
    raise InputError(f"{name} is an MLflow runs table (mlflow.search_runs(): one row per run, each metric's "
                     f"last value), not a time series; {HISTORIES}")


def read_runs_table(frame: pd.DataFrame, name: str) -> LogTable:
    """``mlflow.search_runs()`` saved as a table, as each finished run's final values
    (:func:`._sweep.final_values`): the ``metrics.<key>`` columns its metrics (named by their
    keys), the ``params.<key>`` columns each run's setting (a seed's left out: runs that differ
    only in it are replicates, described together), the runs in the order they started.  A run
    not ``FINISHED`` (running, failed, killed) has no final value: left out, and said.

    >>> frame = pd.DataFrame({"run_id": ["a", "b", "c"], "status": ["FINISHED"] * 3,
    ...     "start_time": ["2024-05-01 10:02", "2024-05-01 10:01", "2024-05-01 10:03"],
    ...     "metrics.loss": [0.3, 0.2, 0.4], "params.lr": [0.1, 0.1, 0.2], "params.seed": [1, 2, 1]})
    >>> read_runs_table(frame, "runs.csv").frame.to_dict("list")
    {'run': ['lr=0.1', 'lr=0.1', 'lr=0.2'], 'step': [1.0, 2.0, 3.0], 'loss': [0.2, 0.3, 0.4]}
    """
    names = [str(column) for column in frame.columns]
    notes = []
    if "status" in names:
        status = frame["status"].astype(str).str.strip().str.upper().to_numpy()
        finished = status == "FINISHED"
        if not finished.all():
            left = pd.Series(status[~finished]).value_counts()
            notes.append(f"left out {int((~finished).sum())} run(s) not finished ("
                         + ", ".join(f"{count} {state.lower()}" for state, count in left.items())
                         + "): a run still going, failed or killed has no final value")
            frame = frame.loc[finished]
    if frame.empty:
        raise InputError(f"{name}: an MLflow runs table with no finished run; {HISTORIES}")
    repeated = frame["run_id"].duplicated(keep=False).to_numpy()
    if repeated.any():  # (each run once: a run listed twice would count twice)
        row = int(np.flatnonzero(repeated)[1])
        raise InputError(f"{name}: run {frame['run_id'].iloc[row]!r} is listed twice in the MLflow runs table "
                         f"(data row {int(frame.index[row]) + 1}); two exports appended? keep one row per run")
    order = (pd.to_datetime(frame["start_time"], errors="coerce", utc=True) if "start_time" in names
             else pd.Series(pd.NaT, index=frame.index))
    if order.isna().any():  # (search_runs lists the newest first)
        order = pd.Series(np.arange(len(frame), 0, -1), index=frame.index)
    started = order.rank(method="first").to_numpy(dtype=float)
    metrics = [column for column in frame.columns if str(column).startswith("metrics.")]
    numbers = numeric_columns(frame, name, skip=[column for column in frame.columns if column not in metrics])
    values = {str(column)[len("metrics."):]: numbers[column] for column in metrics if column in numbers}
    if not values:
        raise InputError(f"{name}: an MLflow runs table whose metrics hold no numbers")
    parameters = {str(column)[len("params."):]: frame[column].to_numpy()
                  for column in frame.columns if str(column).startswith("params.")}
    settings = sweep_configurations(parameters, list(parameters), np.arange(len(frame)),
                                    frame["run_id"].astype(str).tolist())
    notes.append(f"an MLflow runs table (mlflow.search_runs()): each run's last value of each metric; {HISTORIES}")
    return final_values("mlflow-runs", name, started, settings, values, notes, series_elsewhere=HISTORIES,
                        seeds=replicate_seeds(parameters, list(parameters)))


def parse_metric_file(name: str, text: str, metric: str) -> pd.DataFrame:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise InputError(f"{name}: line {number} is not '<timestamp_ms> <value> [<step>]'")
        try:
            timestamp, value = int(fields[0]), scalar(float(fields[1]))  # a NaN there was logged
            step = int(fields[2]) if len(fields) == 3 else 0  # legacy two-field lines mean step 0
        except ValueError:
            raise InputError(f"{name}: line {number} has a non-numeric field: {line.strip()!r}") from None
        rows.append((step, metric, value, timestamp / 1000.0))
    return pd.DataFrame(rows, columns=["step", "metric", "value", "wall_time"])


def is_metric_file(text: str) -> bool:
    # the first five lines, without splitting the whole head (~60 us on 64 KiB: every table pays
    # this sniff) nor copying the rest of it (split's last part: ~35 us)
    end = -1
    for _ in range(5):
        end = text.find("\n", end + 1)
        if end < 0:
            break
    first = (text if end < 0 else text[:end]).splitlines()[:5]
    # each line split into at most four parts (a fourth means too many fields), the first line
    # that is no "timestamp value [step]" ending the test: a table's long rows are not split whole
    lines = [line for line in first if line.strip()]
    return bool(lines) and all(len(f) in (2, 3) and f[0].isdigit() and len(f[0]) >= 12
                               for f in (line.split(None, 3) for line in lines))


def read_metric_file(name: str, text: str) -> LogTable:
    metric = os.path.basename(name)
    tidy = parse_metric_file(name, text, metric)
    if tidy.empty:
        raise InputError(f"{name} has no values")
    return LogTable(sparse_to_wide(tidy), "mlflow", name)


def is_run_folder(directory: str) -> bool:
    return os.path.isdir(os.path.join(directory, "metrics")) and (
        os.path.exists(os.path.join(directory, "meta.yaml"))
        or os.path.isdir(os.path.join(directory, "params")))


def read_run_folder(directory: str) -> LogTable:
    """Every metric under metrics/ (a '/' in a key is a subdirectory)."""
    root = os.path.join(directory, "metrics")
    parts = []
    for folder, _, files in os.walk(root):
        for file in sorted(files):
            path = os.path.join(folder, file)
            metric = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, encoding="utf-8") as handle:
                parts.append(parse_metric_file(path, handle.read(), metric))
    if not parts or all(p.empty for p in parts):
        raise InputError(f"{directory}: the MLflow run has no metric values")
    tidy = pd.concat(parts, ignore_index=True)
    return LogTable(sparse_to_wide(tidy), "mlflow", directory)
