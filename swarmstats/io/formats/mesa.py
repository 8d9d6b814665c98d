"""Mesa's batch runs (``mesa.batch_run``) saved as a table.

``batch_run`` returns a list of dicts, one per collected step of every run, which users turn
into a DataFrame and save: ``RunId, iteration, Step``, then the run's parameters (the keyword
arguments of the model), then the model's reporters; when the model has agent reporters, each
step is a row per agent instead, ``AgentID`` and the agents' reporters after the model's, whose
values repeat on every agent's row.  ``RunId`` numbers every run; ``iteration`` is the replicate
number, the runs of one parameter setting being its iterations.

Read as a generic table, the parameters were judged as metrics ("converged: constant at 10"),
``iteration`` was taken for a second step axis, and each model reporter was judged once per
agent - the same series a hundred times.  Here:

* the parameters are the columns after ``Step`` that hold one value within every run (up to the
  first that does not), each run's configuration: runs that differ only in their iteration (or
  in a parameter named as a seed: ``seed``, ``rng``) are replicates, summarised together;
* each model reporter is one series per run (``run`` = ``RunId=3``), read once per step;
* each agent reporter is one series per agent of each run (``RunId=3 AgentID=7``), whose
  configuration is the run's and the agent's: the same agent of the replicates of one setting
  is summarised together, agents are never pooled with one another.

A batch run keeps only each run's last step unless it was asked for more
(``data_collection_period=1``): such a table holds no series in time, and says so.

>>> frame = pd.DataFrame({"RunId": [0, 0, 1, 1], "iteration": [0, 0, 1, 1], "Step": [0, 1, 0, 1],
...                       "n": [10, 10, 10, 10], "Gini": [0.0, 0.2, 0.0, 0.3]})
>>> table = read_batch_run(frame, "results.csv")
>>> table.frame.to_dict("list"), table.run_configs
({'run': ['RunId=0', 'RunId=0', 'RunId=1', 'RunId=1'], 'step': [0.0, 1.0, 0.0, 1.0], 'Gini': [0.0, 0.2, 0.0, 0.3]}, {'RunId=0': 'one configuration', 'RunId=1': 'one configuration'})
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import InputError
from ._sweep import (
    final_values,
    floats,
    plain_setting,
    run_and_step_numbers,
    sweep_configurations,
)
from ._table import ONE_CONFIGURATION, LogTable, check_repeated_header, numeric_columns

#: the first columns of every row ``batch_run`` returns
HEADER = ("RunId", "iteration", "Step")
AGENT = "AgentID"


def _saved_index(name) -> bool:
    """pandas' name for the index ``to_csv`` writes unless told ``index=False``."""
    return str(name).startswith("Unnamed:") or str(name) == ""


def is_batch_run(columns) -> bool:
    """A header that starts as ``batch_run``'s rows do (after a saved index)."""
    names = [str(c) for c in columns]
    if names and _saved_index(names[0]):
        names = names[1:]
    return tuple(names[:3]) == HEADER


def read_batch_run(frame: pd.DataFrame, name: str) -> LogTable:
    """A batch run's table as runs and agents (module docstring).  Assembled as numpy columns:
    a DataFrame per part, joined and sorted, cost a 29 KB batch run ~30 ms."""
    check_repeated_header(frame, name)
    if len(frame.columns) and _saved_index(frame.columns[0]):
        frame = frame.iloc[:, 1:]
    if frame.empty:
        raise InputError(f"{name}: a Mesa batch run with no rows")
    columns = {column: frame[column].to_numpy() for column in frame.columns}
    return _batch_run(columns, lambda skip: numeric_columns(frame, name, skip=skip), name)


def read_batch_numbers(columns: dict, rows: int, name: str) -> LogTable:
    """:func:`read_batch_run` of a file whose every cell is a plain number, given as float
    ``columns`` (:mod:`..plain_csv`): pandas' column handling was half of such a read (a 29 KB
    batch run: ~1.5 of 3.4 ms)."""
    names = list(columns)
    if _saved_index(names[0]):
        columns = {name: columns[name] for name in names[1:]}
    return _batch_run(columns, lambda skip: {c: v for c, v in columns.items() if c not in skip}, name)


def _batch_run(columns: dict, numeric, name: str) -> LogTable:
    """The reader, on the table's ``columns`` (name -> numpy array, saved index dropped) and
    ``numeric(skip)``, its numeric columns but those in ``skip`` as floats (name -> array)."""
    run_ids, steps = run_and_step_numbers(columns, "RunId", "Step", name, "a Mesa batch run")
    rest = [c for c in columns if c not in HEADER]
    model_columns = rest[:rest.index(AGENT)] if AGENT in rest else rest
    agent_columns = rest[rest.index(AGENT) + 1:] if AGENT in rest else []
    codes, runs = pd.factorize(run_ids, sort=True)
    # each run's rows together, in the order written (batch_run's processes finish in any order)
    order = np.argsort(codes, kind="stable")
    same_run = codes[order][1:] == codes[order][:-1]
    final = not (same_run & (steps[order][1:] != steps[order][:-1])).any()
    if final:  # batch_run's default: each run's last step only
        parameters = _parameters_by_iteration(columns, model_columns, codes, run_ids)
        if parameters is None:
            raise InputError(f"{name}: a Mesa batch run that kept one step of each run ({len(runs)} runs) and "
                             "ran one iteration: batch_run keeps only each run's last step unless "
                             "data_collection_period is set, so there is no series in time, and with one "
                             "value per run the model's parameters cannot be told from its reporters. Run it "
                             "again with data_collection_period=1 (every step), or with iterations=2 or more")
    else:
        parameters = _parameters(columns, model_columns, order, same_run)
    reporters = model_columns[len(parameters):]
    if not reporters and not agent_columns:
        raise InputError(f"{name}: a Mesa batch run with parameters ({', '.join(parameters) or 'none'}) "
                         "but no reporter: the model's DataCollector collected nothing")
    labels = np.array([f"RunId={plain_setting(run)}" for run in runs], dtype=object)
    configs = sweep_configurations(columns, parameters, codes, labels.tolist())
    numbers = numeric([*HEADER, *parameters, AGENT])
    if not numbers:
        raise InputError(f"{name}: a Mesa batch run whose reporters hold no numbers "
                         f"({', '.join(map(str, reporters + agent_columns))})")
    model = [c for c in reporters if c in numbers]
    agent = [c for c in agent_columns if c in numbers]
    if final:
        return _final_values(name, run_ids, codes, configs, numbers, model, agent, parameters)
    parts, run_configs = [], {}
    if model:
        # the model's values repeat on every agent's row: one row per run and step
        step_codes, step_values = pd.factorize(steps)
        rows = np.sort(np.unique(codes * len(step_values) + step_codes, return_index=True)[1])
        parts.append((rows, labels[codes[rows]], np.full(len(rows), -1), model))
        run_configs.update(zip(labels.tolist(), configs))
    if agent:
        agent_codes, agents = pd.factorize(columns[AGENT])  # (in the order they first appear)
        agents = [str(plain_setting(agent)) for agent in agents] + ["(none)"]
        agent_codes = np.where(agent_codes < 0, len(agents) - 1, agent_codes)  # a row naming no agent
        width = len(agents)
        pairs, pair_keys = pd.factorize(codes * width + agent_codes)
        names, pair_configs = [], []
        for key in pair_keys.tolist():
            run, who, setting = labels[key // width], agents[key % width], configs[key // width]
            names.append(f"{run} {AGENT}={who}")
            pair_configs.append(f"{AGENT}={who}" if setting == ONE_CONFIGURATION else f"{setting}, {AGENT}={who}")
        parts.append((np.arange(len(run_ids)), np.array(names, dtype=object)[pairs], agent_codes, agent))
        run_configs.update(zip(names, pair_configs))
    rows = np.concatenate([part[0] for part in parts])
    # each run's model series, then its agents' (in the order they first appear), each as written
    ranked = np.lexsort((rows, np.concatenate([part[2] for part in parts]), codes[rows]))
    rows = rows[ranked]
    arrays = {"run": np.concatenate([part[1] for part in parts])[ranked], "step": steps[rows]}
    part_of = np.concatenate([np.full(len(part[0]), i) for i, part in enumerate(parts)])[ranked]
    for i, part in enumerate(parts):
        mine = part_of == i
        for column in part[3]:  # NaN in the other part's rows
            values = np.full(len(rows), np.nan)
            values[mine] = np.asarray(numbers[column], dtype=float)[rows[mine]]
            arrays[column] = values
    described = (f"parameters {', '.join(map(str, parameters))} (each run's configuration; runs that differ "
                 "only in their iteration are replicates)" if parameters else "no parameters")
    agents_said = (f"; agent reporters {', '.join(map(str, agent))} read per agent of each run" if agent else "")
    notes = [f"a Mesa batch run: {len(runs)} run(s), {described}{agents_said}"]
    return LogTable(None, "mesa-batch", name, notes, run_configs=run_configs, configs_complete=True, arrays=arrays,
                    agent_metrics=tuple(agent) if model else ())


def for_metrics(frame: pd.DataFrame, metrics=None) -> tuple[pd.DataFrame, str | None]:
    """(``frame`` with the rows of the part that holds ``metrics``, what was left out): a batch
    run read with its agents (``attrs["agent_metrics"]``) keeps its agents' rows and reporters
    only when an agent reporter is among ``metrics``, and its model's rows only when a model
    reporter is.  With no ``metrics`` (every one, by default) the model's reporters are kept
    and the note says what was left out: they describe the whole population, and each agent's
    reporter is a series of its own - a batch of 20 runs of 100 agents gave 2,000 verdicts on
    agents' wealth, which wanders by design, beside the model's one per setting.  Any other
    frame is returned as it is.

    >>> frame = pd.DataFrame({"run": ["RunId=0", "RunId=0 AgentID=1"], "step": [0.0, 0.0],
    ...                       "Gini": [0.1, None], "Wealth": [None, 2.0]})
    >>> frame.attrs["agent_metrics"] = ["Wealth"]
    >>> kept, note = for_metrics(frame)
    >>> kept.columns.tolist(), note
    (['run', 'step', 'Gini'], 'left out Wealth (agent reporter: a series per agent of each run, 1 agents in 1 runs; name one with -m to judge each agent)')
    >>> for_metrics(frame, ["Wealth"])[0]["run"].tolist()
    ['RunId=0 AgentID=1']
    """
    agent_metrics = frame.attrs.get("agent_metrics")
    named = set(metrics or ())
    if not agent_metrics or "run" not in frame.columns or named - set(frame.columns):
        return frame, None  # (a metric the log lacks: the caller's error lists every one)
    codes, runs = pd.factorize(frame["run"])
    agent_runs = of_agents(runs)
    wanted_agents, wanted_model = bool(named & set(agent_metrics)), bool(named - set(agent_metrics))
    if wanted_agents and wanted_model:
        return frame, None
    keep = agent_runs[codes] if wanted_agents else ~agent_runs[codes]
    kept = frame.loc[keep, [c for c in frame.columns if c not in agent_metrics or named]].reset_index(drop=True)
    kept.attrs.update(frame.attrs)
    if named:
        return kept, None
    return kept, (f"left out {', '.join(map(str, agent_metrics))} (agent reporter{'s' if len(agent_metrics) > 1 else ''}: "
                  f"a series per agent of each run, {int(agent_runs.sum()):,} agents in {int((~agent_runs).sum()):,} "
                  "runs; name one with -m to judge each agent)")


def of_agents(runs) -> np.ndarray:
    """Which of the run labels ``runs`` name an agent of a run (``RunId=3 AgentID=7``), not
    the run's model (``RunId=3``).

    >>> of_agents(["RunId=3", "RunId=3 AgentID=7"]).tolist()
    [False, True]
    """
    return np.array([f" {AGENT}=" in str(run) for run in runs], dtype=bool)


def _parameters(table: dict, columns: list, order: np.ndarray, same_run: np.ndarray) -> list:
    """The leading ``columns`` of the ``table`` that hold one value within every run (``order``
    puts each run's rows together, ``same_run`` says which neighbours share one): the model's
    keyword arguments, which ``batch_run`` writes before its reporters."""
    found = []
    for column in columns:
        values = pd.factorize(table[column])[0][order]  # (a missing value is a value: code -1)
        if (same_run & (values[1:] != values[:-1])).any():
            break
        found.append(column)
    return found


def _parameters_by_iteration(table: dict, columns: list, codes: np.ndarray, run_ids: np.ndarray):
    """For a batch run that kept one step of each run, where every column holds one value within
    a run: the leading ``columns`` that take one value per setting.  ``batch_run`` numbers its
    runs iteration by iteration, each iteration running every setting in one order, so a run's
    setting is its ``RunId`` modulo the runs of an iteration; a parameter repeats across the
    iterations of a setting, a stochastic reporter does not (a deterministic one does, and is
    taken for a parameter).  None when the batch ran one iteration: nothing tells them apart."""
    first = np.unique(codes, return_index=True)[1]
    iterations = floats(table["iteration"])[first]
    if np.isnan(iterations).any() or len(np.unique(iterations)) < 2:
        return None
    per_iteration = int(np.count_nonzero(iterations == iterations.min()))
    setting = (run_ids[first] - run_ids[first].min()) % per_iteration
    found = []
    for column in columns:
        values = pd.factorize(table[column][first])[0]
        if pd.DataFrame({"setting": setting, "value": values}).drop_duplicates()["setting"].duplicated().any():
            break  # two values in one setting: a reporter
        found.append(column)
    return found


def _final_values(name, run_ids, codes, configs, numbers, model, agent, parameters) -> LogTable:
    """A batch run that kept each run's last step: the model's reporters once per run, the agents'
    once per agent of each run, each row labelled with its run's setting (:func:`final_values`)."""
    model_rows = np.unique(codes, return_index=True)[1] if model else np.array([], dtype=int)
    agent_rows = np.arange(len(run_ids)) if agent else np.array([], dtype=int)
    rows = np.concatenate([model_rows, agent_rows])
    values = {column: np.concatenate([np.asarray(numbers[column], dtype=float)[model_rows],
                                      np.full(len(agent_rows), np.nan)]) for column in model}
    values.update({column: np.concatenate([np.full(len(model_rows), np.nan),
                                           np.asarray(numbers[column], dtype=float)[agent_rows]]) for column in agent})
    notes = [f"a Mesa batch run of each run's last step: {len(configs)} run(s), parameters "
             f"{', '.join(map(str, parameters)) or 'none'} (told from the reporters by what repeats across the "
             "iterations of a setting)" + (f"; agent reporters {', '.join(map(str, agent))} once per agent" if agent else "")]
    return final_values("mesa-batch", name, run_ids[rows], [configs[code] for code in codes[rows]], values, notes)



