"""marl-eval's JSON (InstaDeep's tools for aggregating MARL results, rliable-based): the
evaluations of multi-agent runs as Mava and BenchMARL write them::

    {"<environment>": {"<task>": {"<algorithm>": {"seed_0": {
        "step_0": {"step_count": 30720, "elapsed_time": 0.0, "mean_episode_return": [-79.125]},
        "step_1": {...}, ...,
        "absolute_metrics": {"mean_episode_return": [174.89]}}}}}}

Each (environment, task, algorithm, seed) is a run, its evaluations ``step_k`` the series, at
``step_count`` environment steps (else at k).  A metric's list holds one value per evaluation
episode (BenchMARL) or the evaluation's mean (Mava): it is read as its mean, and a list of
several values is noted.  ``absolute_metrics`` are no point of the series - by marl-eval's
convention the best policy's performance, which BenchMARL stores as the maximum over the
evaluations (an optimistic number) - and are left out with a note.  The runs of one
(environment, task, algorithm) are seeds of one configuration; the configurations are labelled
by the levels that differ between them.

>>> run = {"step_0": {"step_count": 10, "return": [1.0, 3.0]}, "step_1": {"step_count": 20, "return": [4.0]}}
>>> read({"vmas": {"balance": {"mappo": {"seed_0": run}}}}, "evaluation.json").frame.to_dict("list")
{'step': [10.0, 20.0], 'return': [2.0, 4.0]}
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..tabular import read_json_file, read_path
from ._table import ONE_CONFIGURATION, LogTable, sparse_to_wide

#: an evaluation's key in a run
_STEP = re.compile(r"^step_(\d+)$")
#: what marl-eval keeps beside the evaluations: not a point of the series
ABSOLUTE = "absolute_metrics"
#: the environment steps an evaluation was made at
STEP_COUNT = "step_count"
#: the levels above a run, in order
LEVELS = ("environment", "task", "algorithm", "seed")


def _evaluations(run) -> list:
    """[(k, evaluation dict)] of a run, in order of k; [] for a dict that is not a run."""
    if not isinstance(run, dict):
        return []
    found = [(int(match.group(1)), value) for key, value in run.items()
             if (match := _STEP.match(str(key))) and isinstance(value, dict)]
    return sorted(found, key=lambda item: item[0])


def runs(payload) -> list:
    """[((environment, task, algorithm, seed), run dict)] of a marl-eval document."""
    found = []
    if not isinstance(payload, dict):
        return found
    for environment, tasks in payload.items():
        for task, algorithms in (tasks.items() if isinstance(tasks, dict) else ()):
            for algorithm, seeds in (algorithms.items() if isinstance(algorithms, dict) else ()):
                for seed, run in (seeds.items() if isinstance(seeds, dict) else ()):
                    if _evaluations(run):
                        found.append(((str(environment), str(task), str(algorithm), str(seed)), run))
    return found


def is_marl_eval(payload) -> bool:
    """Is ``payload`` a marl-eval document (environment -> task -> algorithm -> seed -> step_k)?"""
    return bool(runs(payload))


def _value(value) -> tuple[float | None, int]:
    """A logged value as (its mean, how many values it held); (None, 0) for no number."""
    values = value if isinstance(value, list) else [value]
    numbers = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numbers or len(numbers) < len(values):
        return None, 0
    return float(np.mean(numbers)) if len(numbers) > 1 else numbers[0], len(numbers)


def _labels(keys: list) -> tuple[list, list]:
    """Each run's label (the levels that differ between the runs, the seed always) and its
    configuration's label (the same without the seed)."""
    varying = [i for i in range(3) if len({key[i] for key in keys}) > 1]
    names = ["/".join([key[i] for i in varying] + [key[3]]) for key in keys]
    configs = ["/".join(key[i] for i in varying) or ONE_CONFIGURATION for key in keys]
    return names, configs


def read_documents(documents: list, source: str) -> LogTable:
    """The runs of one or several marl-eval documents (``[(name, payload)]``)."""
    found = [(key, run) for name, payload in documents for key, run in runs(payload)]
    if not found:
        raise InputError(f"{source}: no marl-eval run (environment -> task -> algorithm -> seed -> step_k)")
    names, configs = _labels([key for key, _ in found])
    seen: dict = {}
    for i, name in enumerate(names):  # the same run in two files: both kept, told apart
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            names[i] = f"{name} #{seen[name]}"
    rows = {"run": [], "step": [], "metric": [], "value": []}
    averaged, dropped, absolute = 0, set(), False
    for (key, run), name in zip(found, names):
        evaluations = _evaluations(run)
        counted = all(isinstance(e.get(STEP_COUNT), (int, float)) for _, e in evaluations)
        for k, evaluation in evaluations:
            step = float(evaluation[STEP_COUNT]) if counted else float(k)
            for metric, logged in evaluation.items():
                if metric == STEP_COUNT:
                    continue
                if type(logged) is float:
                    number, count = logged, 1
                elif type(logged) is list and len(logged) == 1 and type(logged[0]) is float:
                    number, count = logged[0], 1  # Mava's one mean per evaluation: the common case
                else:
                    number, count = _value(logged)
                    if number is None:
                        dropped.add(str(metric))
                        continue
                averaged = max(averaged, count)
                rows["run"].append(name)
                rows["step"].append(step)
                rows["metric"].append(metric)
                rows["value"].append(number)
        absolute = absolute or ABSOLUTE in run
    tidy = pd.DataFrame(rows)
    if not len(tidy):
        raise InputError(f"{source}: no number in any marl-eval evaluation"
                         + (f" (left out {', '.join(sorted(dropped)[:5])}: not numbers)" if dropped else ""))
    if len(found) == 1:
        tidy = tidy.drop(columns=["run"])
    notes = [f"{len(found)} marl-eval run(s) ({', '.join(names[:6])}{' ...' if len(names) > 6 else ''}); "
             "the step is each evaluation's step_count"]
    if averaged > 1:
        notes.append(f"each evaluation's values averaged (up to {averaged}: one per evaluation episode)")
    if absolute:
        notes.append("absolute_metrics left out: not a point of the series (marl-eval's best policy, "
                     "or the best evaluation: an optimistic number)")
    if dropped:
        notes.append(f"left out {', '.join(sorted(dropped)[:5])}: values that are not numbers")
    table = LogTable(sparse_to_wide(tidy), "marl-eval", source, notes, step_unit="timesteps")
    if len(found) > 1:
        table.run_configs, table.configs_complete = dict(zip(names, configs)), True
    return table


def read(payload, name: str) -> LogTable:
    """One marl-eval document."""
    return read_documents([(name, payload)], name)


def documents_in(path: str, depth: int = 4) -> list:
    """The marl-eval documents in a folder and its subfolders (Mava's results/json/<algorithm>/
    <time>/metrics.json), ``depth`` levels down: [(file, payload)]."""
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        if root[len(path):].count(os.sep) >= depth:
            dirs[:] = []
        for file in sorted(files):
            if not file.lower().endswith(".json"):
                continue
            full = os.path.join(root, file)
            name, head = read_path(full, 4096)
            if b'"step_' not in head:
                continue  # (a marl-eval document names its evaluations early)
            payload = read_json_file(full)
            if is_marl_eval(payload):
                found.append((full, payload))
    return found

