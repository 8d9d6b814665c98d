"""Stable-Baselines3 and OpenAI baselines: monitor.csv, progress.csv."""

from __future__ import annotations

import io
import json
import os
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..plain_csv import numeric_table
from ..tabular import decode_text, parse_delimited
from ..unfinished import without_unfinished_row
from ._table import LogTable, check_repeated_header, metric_label, numeric_columns

SB3_STEP = "time/total_timesteps"
#: how far apart the worker files of one run may start: a vectorised environment makes its
#: workers one after another (seconds for slow simulators), and each writes its own header
WORKER_START_SECONDS = 30.0
BASELINES_STEPS = ("TimestepsSoFar", "total_timesteps", "steps", "timesteps_total", "nupdates")


def read_monitor(files: list[tuple[str, bytes]], source: str, *, folders: list | None = None) -> LogTable:
    """One or several monitor files: the workers of each run merged in time order
    (t_start + t) and numbered from episode 0.

    Files are workers of one run when their ``env_id`` agrees and they started together (see
    :func:`_monitor_runs`); files that ran at other times or on other environments are other
    runs, told apart by a ``run`` column named after each run's first file.  Merged, four
    unrelated runs in one folder (four environments, months apart) read as one 30,000-episode
    run.

    The table is assembled column by column with numpy and becomes a DataFrame once: on a
    10 KB monitor file the concat, sort, drop and inserts of a pandas assembly cost ~3 ms,
    six times the parse."""
    # a worker's file may end mid-row while its run goes on (a file read alone was cut already)
    finished = [(name, *without_unfinished_row(data)) for name, data in files]
    unfinished = [f"{name}: {note}" for name, _, note in finished if note is not None]
    parts = [part for part in (_monitor_part(name, data) for name, data, _ in finished) if part is not None]
    if not parts:
        raise InputError(f"{source}: no finished episode in the monitor file(s)")
    if folders is None:
        runs = _monitor_runs(parts)
    else:
        # one folder per run (rl-baselines3-zoo's ppo/CartPole-v1_1/0.monitor.csv): its files are
        # that run's workers, whatever their start times say about another folder's; files in
        # no subfolder (folder "") are grouped by their start times as usual
        of_folder = dict(zip((name for name, _ in files), folders))
        runs = []
        for folder in dict.fromkeys(folders):
            for run in _monitor_runs([part for part in parts if of_folder[part["name"]] == folder]):
                runs.append({**run, "folder": folder})
    # every worker's columns in the order they first appear (a column one worker lacks is
    # empty there); "t", seconds since each worker's start, is dropped: the wall time says it
    names = list(dict.fromkeys(c for part in parts for c in part["columns"] if c not in ("t", "wall_time")))
    tables = [_merged_run(run, names) for run in runs]
    merged = {key: np.concatenate([table[key] for table in tables]) for key in tables[0]}
    notes, configs = [], {}
    if len(runs) > 1:
        labels = _run_labels(runs)
        merged = {"run": np.repeat(np.array(labels, dtype=object), [len(t["step"]) for t in tables]), **merged}
        beside = "files that ran at other times or on other environments are other runs"
        how = (beside if folders is None else "one run per folder" if "" not in folders
               else f"one run per subfolder; of the files beside them, {beside}")
        notes.append(f"{len(runs)} runs in {len(parts)} monitor files ({how}): {', '.join(labels)}")
        environments = [run["env"] for run in runs]
        if None not in environments and len(set(environments)) > 1:
            configs = dict(zip(labels, map(str, environments)))
    elif len(parts) > 1:
        notes.append(f"{len(parts)} worker files merged by time")
    for part in parts:
        if part["sessions"] > 1:
            notes.append(f"{part['name']}: {part['sessions']} sessions appended in one file (t starts again, "
                         "as when a resumed training appends to its monitor file): read in the order "
                         "written, each session's start time taken as the previous one's end")
    return LogTable(None, "monitor", source, unfinished + notes, run_configs=configs, arrays=merged)


def _monitor_part(name: str, data: bytes) -> dict | None:
    """One monitor file: its header and numeric columns (None when it holds no episode yet)."""
    # only the JSON line is decoded here: the rows go to numpy (a small file) or to pandas as
    # bytes, twice as fast as a str (which pandas encodes back to UTF-8 first)
    first_bytes, _, rest = data.partition(b"\n")
    first = decode_text(name, first_bytes)  # a byte that is not UTF-8 is named, as anywhere
    if not first.startswith("#"):
        raise InputError(f"{name}: a monitor file starts with a '#{{...}}' JSON line")
    try:
        header = json.loads(first[1:])
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: the first line is not valid JSON ({exc.msg})") from None
    if not isinstance(header, dict) or "t_start" not in header:
        raise InputError(f"{name}: the first line has no t_start")
    try:
        parsed = _monitor_columns(name, rest)
    except UnicodeDecodeError:  # past the head the sniffer checked: say where, as for the head
        decode_text(name, data)
        raise
    if parsed is None:
        return None  # a worker that finished no episode yet
    names, columns = parsed
    missing = [c for c in ("r", "l", "t") if c not in names]
    if missing:
        raise InputError(f"{name}: a monitor file needs columns r, l, t (missing {', '.join(missing)})")
    text = [c for c in ("r", "l", "t") if c not in columns]
    if text:
        raise InputError(f"{name}: the monitor column(s) {', '.join(text)} hold no numbers")
    start = float(header["t_start"])
    elapsed, sessions = _sessions_in_order(columns["t"])
    columns["wall_time"] = start + elapsed
    end = float(np.nanmax(columns["wall_time"])) if len(columns["t"]) else start
    return {"name": name, "env": header.get("env_id"), "start": start, "end": end, "columns": columns,
            "sessions": sessions}


def _sessions_in_order(t: np.ndarray) -> tuple[np.ndarray, int]:
    """Seconds since the file's ``t_start`` for each episode, and how many sessions the file holds.

    SB3's ``Monitor(override_existing=False)`` - a resumed training - appends its episodes to
    the file without a new header: their ``t`` counts from the new session's start, which the
    file does not record, so ``t`` drops back.  Taken as written, ``t_start + t`` put the resumed
    episodes among the first session's, and sorting by it scrambled the run (300 resumed
    episodes of a real file came first).  Each session is placed right after the one before
    it: its episodes follow in the order written, and its times are a lower bound.  A small
    step back (to more than half the time before it: the clock set back, not a new session
    counting from 0) only holds the time where it was."""
    drops = np.flatnonzero(np.diff(t) < 0) + 1
    if not len(drops):
        return t, 1
    elapsed = t.copy()
    sessions = 1
    for first, last in zip(drops, [*drops[1:], len(t)]):
        restart = t[first] < t[first - 1] / 2
        sessions += int(restart)
        elapsed[first:last] += elapsed[first - 1] - (0.0 if restart else t[first])
    return elapsed, sessions


def _monitor_columns(name: str, rest: bytes) -> tuple[list, dict] | None:
    """The rows under a monitor file's JSON line: the header's names, and the columns of
    numbers as floats; None when there is no row yet.

    A file whose every cell is a number (or empty) is read by :mod:`..plain_csv` (on these
    sizes pandas' fixed costs are most of a ``read_csv``); any other by pandas, from bytes (from
    a str pandas encodes it back first: 3.1 -> 1.6 ms on 279 KB).  A column of words, such as
    an ``info_keywords`` entry, is left out."""
    parsed = numeric_table(rest)  # (a byte that is not UTF-8: see the caller)
    if parsed is not None:
        names, block = parsed
        return names, {c: block[:, i] for i, c in enumerate(names)}
    try:
        frame = parse_delimited(name, io.BytesIO(rest))  # (a row ending in ',' keeps its columns)
    except pd.errors.EmptyDataError:
        return None
    except pd.errors.ParserError as exc:
        # pandas counts lines from the column names; the file's first line is the JSON one
        message = re.sub(r"line (\d+)", lambda found: f"line {int(found.group(1)) + 1}",
                         str(exc).strip().splitlines()[-1])
        raise InputError(f"{name}: malformed row: {message}") from None
    if frame.empty:
        return None  # a header and no row: no episode finished yet, as for an empty file
    names = frame.columns.tolist()  # a plain list: each look-up in pandas' string index costs ~10 us
    block = frame.to_numpy()  # numbers only when every column is (booleans or words: objects)
    if block.dtype.kind in "fiu":  # then no header row repeated, nothing to convert
        block = block.astype(float, copy=False)
        return names, {c: block[:, i] for i, c in enumerate(names)}
    check_repeated_header(frame, name)
    return names, {c: np.asarray(v, dtype=float) for c, v in numeric_columns(frame, name).items()}


def _monitor_runs(parts: list) -> list:
    """The files grouped into runs: in order of start, a file joins a run of the same
    environment when it starts within ``WORKER_START_SECONDS`` of the run's first file or
    before the run's last episode ended (workers are made together and run side by side);
    otherwise it begins a run of its own.  Two runs of one environment started together
    cannot be told from workers of one run."""
    runs: list = []
    for part in sorted(parts, key=lambda p: p["start"]):
        for run in runs:
            together = part["start"] - run["start"] <= WORKER_START_SECONDS or part["start"] <= run["end"]
            if run["env"] == part["env"] and together:
                run["parts"].append(part)
                run["end"] = max(run["end"], part["end"])
                break
        else:
            runs.append({"env": part["env"], "start": part["start"], "end": part["end"], "parts": [part]})
    return runs


def _merged_run(run: dict, names: list) -> dict:
    """One run's workers merged by wall time, episodes numbered from 0."""
    parts = [part["columns"] for part in run["parts"]]
    wall_time = np.concatenate([part["wall_time"] for part in parts])
    order = np.argsort(wall_time, kind="stable")
    merged = {"step": np.arange(len(wall_time))}  # the episode number, across workers
    for column in names:
        merged[column] = np.concatenate([part.get(column, np.full(len(part["t"]), np.nan))
                                         for part in parts])[order]
    merged["wall_time"] = wall_time[order]
    merged["timesteps"] = np.cumsum(merged["l"])
    return merged


def _run_labels(runs: list) -> list:
    """Each run's name: its folder's (one run per folder), else its first file's name without
    the monitor suffix (made unique)."""
    labels = []
    for run in runs:
        stem = run.get("folder") or os.path.basename(run["parts"][0]["name"])
        for suffix in (".monitor.csv", "monitor.csv"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)].rstrip("._-") or stem
                break
        label, count = stem, 2
        while label in labels:
            label, count = f"{stem} ({count})", count + 1
        labels.append(label)
    return labels


def monitor_files(directory: str) -> list[str]:
    return sorted(os.path.join(directory, f) for f in os.listdir(directory)
                  if f == "monitor.csv" or f.endswith(".monitor.csv"))


def monitor_folders(directory: str) -> dict:
    """{subfolder: its monitor files} for the subfolders of ``directory`` that hold some: the
    layout of rl-baselines3-zoo's logs (``ppo/CartPole-v1_1/0.monitor.csv``, one folder a run)."""
    folders = {}
    for name in sorted(os.listdir(directory)):
        folder = os.path.join(directory, name)
        if os.path.isdir(folder):
            files = monitor_files(folder)
            if files:
                folders[name] = files
    return folders


def monitor_header(path: str) -> dict | None:
    """The JSON header line of a monitor file (``t_start``, ``env_id`` ...), read alone; None
    for a file that is not one (by name or by content) or cannot be read."""
    if not (os.path.basename(path) == "monitor.csv" or path.endswith(".monitor.csv")) or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8-sig") as handle:
            first = handle.readline(65536)
        header = json.loads(first[1:]) if first.startswith("#") else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return header if isinstance(header, dict) else None


def monitor_environment(path: str) -> str | None:
    """The environment a monitor file says it ran (``env_id`` in its JSON header line), or the
    one every monitor file of a folder names; None for other logs, a header that does not say,
    or a folder whose files name several.  Only the first line of each file is read: a sweep
    learns each run's environment without reading the runs."""
    try:
        files = monitor_files(path) if os.path.isdir(path) else [path]
    except OSError:  # an unreadable folder: the sweep reports it when it reads the run
        return None
    environments = set()
    for file in files:
        header = monitor_header(file)
        environment = header.get("env_id") if header is not None else None
        if not isinstance(environment, str) or not environment:
            return None
        environments.add(environment)
    return environments.pop() if len(environments) == 1 else None


def worker_groups(paths: list) -> list:
    """Monitor files given one by one that the reader would take for the workers of one run:
    in one folder, grouped by :func:`_monitor_runs` - the rule :func:`read_monitor` applies to
    a folder - from their headers alone (each file's end taken as its start: the episodes are
    not read).  Each group of two or more, in order of start."""
    folders: dict = {}
    for path in paths:
        header = monitor_header(path) if isinstance(path, str) else None
        if header is None or not isinstance(header.get("t_start"), (int, float)):
            continue
        start = float(header["t_start"])
        folders.setdefault(os.path.dirname(os.path.abspath(path)), []).append(
            {"name": path, "env": header.get("env_id"), "start": start, "end": start})
    return [[part["name"] for part in run["parts"]] for parts in folders.values()
            for run in _monitor_runs(parts) if len(run["parts"]) > 1]


def read_progress(frame: pd.DataFrame, name: str, format: str) -> LogTable:
    """SB3 (namespaced keys, step = time/total_timesteps) or baselines (bare keys)."""
    check_repeated_header(frame, name)
    # one DataFrame at the end: each pandas step costs ~50 us
    return progress_table(numeric_columns(frame, name), len(frame), name, format)


def progress_table(columns: dict, rows: int, name: str, format: str) -> LogTable:
    """:func:`read_progress` of the numeric columns (name -> floats) of a table of ``rows`` rows."""
    step = progress_step(columns, format)
    if step is None:
        columns = {"step": np.arange(rows), **{metric_label(c): v for c, v in columns.items()}}
        notes = ["no step column: the row number is the step"]
    else:
        columns = {("step" if c == step else metric_label(c)): values for c, values in columns.items()}
        notes = [f"step = {step}"]
    if format == "baselines-progress":
        notes.append("some baselines forks write 0 as an empty cell; such cells read as missing")
    return LogTable(None, format, name, notes, arrays=columns)  # the wide frame built when asked for


def progress_step(columns, format: str) -> str | None:
    """The step column of a progress table (None: it has none): SB3's
    ``time/total_timesteps``, or the first of baselines' step names present; else a column
    named like a step axis whose values never go down (baselines' HER counts ``epoch``, and
    its printed tables were judged on their row numbers).

    >>> progress_step({"epoch": np.arange(3.0), "test/success_rate": np.ones(3)}, "sb3-progress")
    'epoch'
    """
    if format == "sb3-progress" and SB3_STEP in columns:
        return SB3_STEP
    found = None if format == "sb3-progress" else next((c for c in BASELINES_STEPS if c in columns), None)
    if found is None:
        from ..columns import step_names  # (columns imports the formats' helpers)

        found = next((name for name in step_names(columns) if _rising(columns[name])), None)
    return found


def _rising(values) -> bool:
    """Numbers present in at least two rows that never go down."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return len(values) >= 2 and bool(np.all(np.diff(values) >= 0))


def is_sb3_progress(columns) -> bool:
    return SB3_STEP in columns or any(str(c).startswith(("rollout/", "train/", "time/")) for c in columns)


def is_baselines_progress(columns) -> bool:
    return any(c in columns for c in BASELINES_STEPS) or any(
        c in columns for c in ("EpRewMean", "eprewmean", "mean 100 episode reward"))


#: the arrays of SB3's EvalCallback file: one row per evaluation, one column per episode
EVALUATION_ARRAYS = {"results": "eval/mean_reward", "ep_lengths": "eval/mean_ep_length",
                     "successes": "eval/success_rate"}


def is_evaluations(path: str) -> bool:
    return path.lower().endswith(".npz") and os.path.isfile(path)  # (the name first: no stat for a CSV)


def read_evaluations(path: str) -> LogTable:
    """SB3's ``evaluations.npz`` (EvalCallback): ``timesteps`` (one per evaluation) and
    ``results`` / ``ep_lengths`` / ``successes`` (evaluations x episodes), read as the means
    SB3 logs (``eval/mean_reward`` ...) at each evaluation's timestep, and their episodes'
    standard deviation (``eval/std_reward``).  Read without pickles: an .npz holding objects
    is refused, not executed."""
    import zipfile

    if not zipfile.is_zipfile(path):  # np.load would take it for a pickle, and say so
        raise InputError(f"{path}: not an .npz archive (a zip of .npy arrays)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except ValueError as exc:  # object arrays need pickle
        raise InputError(f"{path}: an .npz holding Python objects is not read (it would run code): {exc}") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a readable .npz archive ({exc})") from None
    if "timesteps" not in arrays or "results" not in arrays:
        raise InputError(f"{path}: not an SB3 evaluations file (it holds {', '.join(arrays) or 'nothing'}; "
                         "evaluations.npz holds timesteps and results)")
    steps = _numbers(arrays["timesteps"], path, "timesteps").ravel()
    if len(steps) == 0:
        raise InputError(f"{path}: no evaluation yet (timesteps is empty)")
    columns = {"step": steps}
    episodes = 0
    for key, name in EVALUATION_ARRAYS.items():
        if key not in arrays:
            continue
        values = _numbers(arrays[key], path, key)
        if values.ndim == 0 or len(values) != len(steps):
            rows = "a single number" if values.ndim == 0 else f"{len(values)} rows"
            raise InputError(f"{path}: {rows} of {key} for {len(steps)} timesteps")
        values = values.reshape(len(values), -1)  # evaluations x episodes
        if values.shape[1] == 0:
            continue
        episodes = episodes or values.shape[1]
        with np.errstate(invalid="ignore"):  # an evaluation of NaNs stays NaN, a missing value
            columns[name] = values.mean(axis=1)
            if key == "results" and values.shape[1] > 1:
                columns["eval/std_reward"] = values.std(axis=1)
    notes = [f"{len(steps)} evaluations of {episodes} episodes each (EvalCallback): each a mean at its "
             "timestep"]
    return LogTable(None, "sb3-evaluations", path, notes, arrays=columns)


def _numbers(array, path: str, key: str) -> np.ndarray:
    try:
        return np.asarray(array, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{path}: {key} holds something other than numbers ({np.asarray(array).dtype})") from None

