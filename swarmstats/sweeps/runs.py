"""Which runs a sweep holds, and their parameters.

A run is a log file, a run folder (anything ``read_log`` reads whole), or one group of a long
file.  Parameters come from ``key=value`` path segments (``adv=0.2/seed=3/epochs.csv``), a
``params.json`` beside the log (Ray trials), columns that are constant within the run, and
what the log itself says the run was (an SB3 monitor header's ``env_id``).
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field

import pandas as pd

from ..errors import InputError
from ..io import mlflow_server, read_log
from ..io.columns import table_roles
from ..io.formats._sweep import require_series
from ..io.formats.mesa import for_metrics
from ..io.formats.sb3 import WORKER_START_SECONDS, monitor_environment, worker_groups
from ..io.runs import normalise, setting_stems

#: The parameter naming a run's environment when its log says it (an SB3 monitor header):
#: runs of different environments are never summarised together.
ENVIRONMENT = "env_id"
#: The parameter naming a run's setting when only the runs' names tell settings apart
#: (``ppo_seed1``, ``ppo_seed2``, ``sac_seed1``: two settings; see :func:`settings_of`).
SETTING = "setting"
#: a run's whole configuration as its log records it (a sacred run's config.json, marl-eval's
#: algorithm): runs with the same one are replicates, whatever their names say
CONFIGURATION = "configuration"


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: where to read it (``path``) or its rows (``frame``), its parameters."""

    name: str
    path: str | None = None
    frame: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    params: dict = field(default_factory=dict)
    format: str | None = None


def path_params(path: str) -> dict:
    """``key=value`` segments of a path, numbers as floats.

    >>> path_params("sweep/adv=0.25/seed=3/epochs.csv")
    {'adv': 0.25, 'seed': 3.0}
    """
    params = {}
    for part in os.path.normpath(path).split(os.sep):
        stem = os.path.splitext(part)[0] if "." in part and "=" not in part.split(".")[0] else part
        for piece in stem.split(","):
            if "=" in piece:
                key, value = piece.split("=", 1)
                params[key] = _number(value)
    return params


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _folder_params(path: str) -> dict:
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    candidate = os.path.join(folder, "params.json")
    if os.path.isfile(candidate):
        try:
            with open(candidate, encoding="utf-8") as handle:
                loaded = json.load(handle)
        except (OSError, json.JSONDecodeError):
            return {}
        return {k: v for k, v in loaded.items() if isinstance(v, (int, float, str, bool))}
    return {}


def _read_whole(path: str) -> pd.DataFrame | None:
    """The log ``path`` holds when ``read_log`` reads it whole; None for a folder of runs."""
    try:
        return read_log(path, wide=True)
    except InputError:
        return None


def discover(paths, *, group: str | None = None, format: str | None = None, metrics=None) -> list[RunSpec]:
    """The runs behind ``paths`` (files, globs, directories of run folders), or the groups of
    one long file when ``group`` names its run column.  ``metrics``: what will be analysed
    (None: every metric), which decides whether a Mesa batch run's agents are runs of it
    (:func:`~swarmstats.io.formats.mesa.for_metrics`; what was left out is said in
    ``attrs["left_out"]`` of each run's frame)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    expanded = []
    for path in map(os.fspath, paths):
        if mlflow_server.is_source(path):  # a tracking server: its runs, with their parameters
            expanded.append(path)
            continue
        # '**' crosses folders, as in the shell with globstar
        matches = sorted(glob.glob(path, recursive=True)) if any(ch in path for ch in "*?[") else [path]
        if not matches:
            raise InputError(f"no file matches {path!r}")
        expanded += matches
    if group is not None:
        if len(expanded) != 1:
            raise InputError("--group splits one long file into runs: pass exactly one file")
        frame = require_series(read_log(expanded[0], format=format, wide=True), expanded[0])
        if group not in frame.columns:
            raise InputError(f"--group: no column {group!r}; columns are {', '.join(map(str, frame.columns))}")
        return [RunSpec(name=f"{group}={key}", frame=part.reset_index(drop=True),
                        params=_constant_columns(part, exclude={group}), format=format)
                for key, part in frame.groupby(group, sort=True)]
    if any(mlflow_server.is_source(path) for path in expanded):
        return [spec for path in expanded for spec in
                (_server_runs(path, format) if mlflow_server.is_source(path) else discover(path, format=format))]
    if len(expanded) == 1 and os.path.isfile(expanded[0]):
        split = _runs_in_one_file(expanded[0], format, metrics)
        if split:
            return split
    runs = []
    for path in expanded:
        if not os.path.exists(path):
            raise InputError(f"no such file or directory: {path}")
        whole = _read_whole(path) if os.path.isdir(path) else None
        if os.path.isdir(path) and whole is None:
            children = sorted(os.path.join(path, child) for child in os.listdir(path)
                              if not child.startswith("."))
            runs += [RunSpec(name=child, path=child, params=_params(child), format=format)
                     for child in children]
        else:
            params = _params(path)
            # a folder read whole may still hold several runs (SB3 monitor files of other
            # runs beside each other): each is a run of the sweep, never one merged run
            split = _split_runs(whole, format) if whole is not None else []
            # a run read from a subfolder of its own (a Ray Tune trial) keeps that folder's
            # parameters (its params.json, its key=value name), as when it is given alone
            runs += [RunSpec(name=os.path.join(path, spec.name), frame=spec.frame,
                             params={**params, **_own_folder_params(path, spec.name), **spec.params}, format=format)
                     for spec in split]
            if not split:
                runs.append(RunSpec(name=path, path=path, params=params, format=format))
    if not runs:
        raise InputError("the sweep has no runs")
    return runs


def _own_folder_params(path: str, run: str) -> dict:
    """The parameters of the subfolder of ``path`` a run is named after; {} when there is none."""
    folder = os.path.join(path, run)
    return _params(folder) if os.path.isdir(path) and os.path.isdir(folder) else {}


def _params(path: str) -> dict:
    """A run's parameters: what its log says it was, then its path segments and params.json
    (which win when they name the same parameter)."""
    environment = monitor_environment(path)
    said = {ENVIRONMENT: environment} if environment else {}
    return {**said, **path_params(path), **_folder_params(path)}


def environments_of(specs) -> list:
    """The distinct environments the runs' logs name (an SB3 monitor header's ``env_id``)."""
    return sorted({str(spec.params[ENVIRONMENT]) for spec in specs if ENVIRONMENT in spec.params})


#: parameters that tell replicates of one setting apart (compared without case or separators)
SEED_PARAMETERS = frozenset({"seed", "random_seed", "env_seed", "seed_offset", "replicate", "repeat",
                             "run", "run_id", "trial_id", "trial_name", "experiment_tag"})


def settings_of(specs, *, told_by: bool = False):
    """{run name: its setting} when the runs' parameters or names say they are of more than
    one setting; None when they read as the seeds of one (``PPO_1``, ``PPO_2``) or say nothing.

    Parameters first (a Ray trial's ``params.json``, ``key=value`` path segments): when every
    run has some and those other than a seed (:data:`SEED_PARAMETERS`) differ, each distinct set
    is a setting, named by the parameters that vary (``lr=0.001``) - a Ray trial's folder name
    (``PPO_CartPole-v1_3b2f1_00000_0_lr=0.0010,seed=1_2024-01-05_14-32-00``) is unique to the
    trial, and read as a name made every trial a setting of its own.

    A name is what tells the runs apart: their paths without the folders and file names they
    all share (``runs/ppo_seed1/progress.csv`` -> ``ppo_seed1``) and without the log's
    extension.  A run number at its end marks a seed; anything else that differs, a setting
    (:func:`swarmstats.io.runs.setting_stems`): ``a2c-CartPole-v1`` and ``dqn-CartPole-v1``
    are two algorithms, whose spread is not a spread between seeds.

    >>> specs = [RunSpec(name=f"runs/{n}/progress.csv") for n in ("ppo_seed1", "ppo_seed2", "sac_seed1")]
    >>> settings_of(specs)
    {'runs/ppo_seed1/progress.csv': 'ppo', 'runs/ppo_seed2/progress.csv': 'ppo', 'runs/sac_seed1/progress.csv': 'sac'}
    >>> settings_of([RunSpec(name=f"sweep/adv=0.2/seed={k}/epochs.csv") for k in (1, 2)]) is None
    True
    """
    if len(specs) < 2:
        return (None, None) if told_by else None
    recorded = [spec.params.get(CONFIGURATION) for spec in specs]
    if all(config is not None for config in recorded):
        by_records = {spec.name: str(config) for spec, config in zip(specs, recorded)} if len(set(recorded)) > 1 else None
        return (by_records, "recorded configurations") if told_by else by_records
    by_parameters = _parameter_settings(specs)
    if by_parameters is not None:
        return (by_parameters, "parameters") if told_by else by_parameters
    by_names = _name_settings(specs)
    return (by_names, "names" if by_names is not None else None) if told_by else by_names


def _name_settings(specs) -> dict | None:
    """:func:`settings_of` by the runs' names."""
    parts = [_name_parts(spec) for spec in specs]
    lead = 0
    while all(len(p) > lead + 1 for p in parts) and len({p[lead] for p in parts}) == 1:
        lead += 1
    trail = 0
    while all(len(p) > lead + trail + 1 for p in parts) and len({p[-1 - trail] for p in parts}) == 1:
        trail += 1
    labels = ["/".join(p[lead:len(p) - trail]) for p in parts]
    stems = setting_stems(labels)
    if stems is None:
        return None
    return {spec.name: stems[label] for spec, label in zip(specs, labels)}


def _parameter_settings(specs) -> dict | None:
    """:func:`settings_of` by the runs' parameters: None unless every run has parameters and
    those other than a seed that every run has differ between runs (then names are not looked at)."""
    if not all(spec.params for spec in specs):
        return None
    shown = [{key: json.dumps(value, sort_keys=True, default=str) for key, value in spec.params.items()
              if normalise(key) not in SEED_PARAMETERS and key not in (SETTING, ENVIRONMENT)} for spec in specs]
    # keys every run has (a Ray trial's folder name parses into keys of its own, one per trial)
    keys = [key for key in shown[0] if all(key in params for params in shown[1:])]
    varying = [key for key in keys if len({params[key] for params in shown}) > 1]
    if not varying:
        return None
    return {spec.name: ",".join(f"{key}={spec.params.get(key)}" for key in varying) for spec in specs}


def _name_parts(spec: RunSpec) -> list:
    """A run's name as path segments, a log file's extension dropped (``0.monitor.csv`` -> ``0``)."""
    parts = os.path.normpath(spec.name).split(os.sep)
    if spec.path is not None and os.path.isfile(spec.path):
        last = parts[-1]
        stem = last[: -len(".monitor.csv")] if last.endswith(".monitor.csv") else os.path.splitext(last)[0]
        parts[-1] = stem or last
    return parts


def worker_notes(specs, consequence: str = "they are not independent seeds") -> list:
    """A note for each set of runs given one by one that look like the workers of one
    vectorised run (SB3 monitor files in one folder, on one environment, started together):
    read as their folder they are one run; split, they are not seeds."""
    notes = []
    for group in worker_groups([spec.path for spec in specs if spec.path is not None]):
        names = ", ".join(os.path.basename(path) for path in group)
        notes.append(f"{names} (in {os.path.dirname(group[0]) or '.'}) started within "
                     f"{WORKER_START_SECONDS:g} s of each other on one environment: the workers of one "
                     f"vectorised run, read as one when their folder is given; here each is a run, and "
                     f"{consequence}")
    return notes


def _server_runs(source: str, format: str | None) -> list[RunSpec]:
    """Each run an MLflow server holds under ``source``, its logged parameters as the run's."""
    frame = read_log(source, format=format, wide=True)
    params = frame.attrs.get("run_params", {})
    if "run" not in frame.columns:  # one run, named by its source
        return [RunSpec(name=source, frame=frame, params=next(iter(params.values()), {}), format=format)]
    return [RunSpec(name=str(label), frame=part.drop(columns="run").reset_index(drop=True),
                    params=params.get(label, {}), format=format)
            for label, part in frame.groupby("run", sort=False)]


def links_out(specs) -> list:
    """Notes for runs reached through a symlink that leads out of the folder holding it (the
    sweep reads them, but a reader of its result should know they live elsewhere)."""
    notes = []
    for spec in specs:
        if spec.path is None or not os.path.islink(spec.path):
            continue
        target = os.path.realpath(spec.path)
        home = os.path.realpath(os.path.dirname(os.path.abspath(spec.path)))
        if os.path.commonpath([target, home]) != home:
            notes.append(f"{spec.name} is a symlink to {target}, outside {home}")
    return notes


def _runs_in_one_file(path: str, format: str | None, metrics=None) -> list:
    """One file holding several runs (a run/seed/trial column, label x seed, step restarts) is
    split by its run key, never analysed as one merged run."""
    frame, left_out = for_metrics(require_series(read_log(path, format=format, wide=True), path), metrics)
    if left_out:
        frame.attrs["left_out"] = left_out
    return _split_runs(frame, format)


def _split_runs(frame: pd.DataFrame, format: str | None) -> list:
    """The runs of one table read whole (see :func:`_runs_in_one_file`); [] for one run."""
    _, key = table_roles(frame)
    if not key.several:
        return []
    environments = frame.attrs.get("run_configs", {})  # a monitor folder's runs on several environments
    # (or each run's whole configuration, which decides its setting: see settings_of)
    recorded = CONFIGURATION if frame.attrs.get("run_configs_complete") else ENVIRONMENT
    frame = frame.assign(**{"run": key.labels})
    return [RunSpec(name=str(name), frame=part.drop(columns=["run"]).reset_index(drop=True),
                    params={**({recorded: environments[name]} if name in environments else {}),
                            **_constant_columns(part, exclude={"run"})}, format=format)
            for name, part in frame.groupby("run", sort=False)]


def _constant_columns(frame: pd.DataFrame, exclude=frozenset()) -> dict:
    """Columns holding one value in the whole run: its settings."""
    params = {}
    for column in frame.columns:
        if column in exclude:
            continue
        values = frame[column].dropna().unique()
        if len(values) == 1 and isinstance(values[0], (int, float, str)) or (
                len(values) == 1 and hasattr(values[0], "item")):
            value = values[0].item() if hasattr(values[0], "item") else values[0]
            params[str(column)] = value
    return params
