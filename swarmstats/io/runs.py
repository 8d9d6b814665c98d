"""Which rows belong to which run: the run key of a table.

A log may hold several runs: a ``run`` / ``seed`` / ``run_id`` / ``trial_id`` column, a
configuration ``label`` crossed with a seed, or a step axis that starts again.  A simulation's
table of agents (Mesa's ``Step,AgentID,...``: a row per agent at every step) holds a series
per agent, split the same way; the agents are never replicates of one another.  Analysed as
one series, such a table mixes runs - run a's start becomes a "warm-up", run b's start a
"regime change" - so every command finds the key first and analyses each run on its own.

>>> import pandas as pd
>>> frame = pd.DataFrame({"label": ["a"] * 4 + ["b"] * 4, "seed": [1, 1, 2, 2] * 2,
...                       "epoch": [0, 1] * 4, "welfare": range(8)})
>>> key = find_runs(frame, step="epoch")
>>> key.columns, key.names
(('label', 'seed'), ['label=a seed=1', 'label=a seed=2', 'label=b seed=1', 'label=b seed=2'])
>>> find_runs(frame[frame.label == "a"], step="epoch").names
['seed=1', 'seed=2']
>>> key.configs
['label=a', 'label=b']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._names import normalise

#: column names (compared lower-case, separators as "_") that name an agent of a simulation:
#: Mesa's DataCollector writes its agent table with ``AgentID`` beside ``Step``
AGENT_NAMES = ("agent", "agent_id", "agentid", "agent_name")
#: column names (compared lower-case, separators as "_") that name a run, a replicate or an agent
RUN_NAMES = ("run", "run_id", "run_name", "runid", "trial_id", "trial", "simulation_id", "experiment",
             "experiment_id", "exp_id", "label", "config", "config_name", "configuration", "seed",
             "random_seed", "rng_seed") + AGENT_NAMES
#: of those, the ones naming a replicate of a configuration (runs to compare with R-hat)
REPLICATE_NAMES = ("seed", "random_seed", "rng_seed")


@dataclass(frozen=True)
class RunKey:
    """How the rows of a table split into runs.

    ``labels`` holds each row's run name (None for a single run); ``config_labels`` each
    row's configuration (the key without its seed part; None when there is no seed part or
    nothing else).
    """

    columns: tuple
    labels: np.ndarray | None
    names: list
    config_labels: np.ndarray | None
    configs: list
    restarts: int  # splits made because the step axis started again
    how: str

    @property
    def several(self) -> bool:
        return len(self.names) > 1

    @property
    def of_agents(self) -> bool:
        """Whether every column of the key names an agent (a simulation's table of agents)."""
        return bool(self.columns) and all(normalise(c) in AGENT_NAMES for c in self.columns)


SINGLE = RunKey(columns=(), labels=None, names=[], config_labels=None, configs=[], restarts=0, how="")


def find_runs(frame: pd.DataFrame, *, step: str | None = None, exclude=()) -> RunKey:
    """The run key of ``frame``: named run columns, blocky text columns, then step restarts."""
    n = len(frame)
    if n == 0:
        return SINGLE
    columns = [c for c in frame.columns
               if c not in exclude and c != step and normalise(c) in RUN_NAMES
               and frame[c].nunique(dropna=True) > 1]
    columns += [c for c in frame.columns
                if c not in exclude and c != step and c not in columns and _is_block_label(frame[c])]
    labels = _join(frame, columns) if columns else None
    restarts = 0
    if step is not None and step in frame.columns:
        labels, restarts = _split_restarts(frame[step], labels)
    if labels is None:
        return SINGLE
    names = list(dict.fromkeys(labels.tolist()))
    if len(names) < 2:
        return SINGLE
    settings = _run_settings(frame, labels, [c for c in frame.columns
                                             if c not in exclude and c != step and c not in columns])
    if settings:  # a sweep's runs in one file: each run's setting names it, before its seed
        columns = settings + columns
        labels = _join(frame, columns)
        restarts = 0
        if step is not None and step in frame.columns:
            labels, restarts = _split_restarts(frame[step], labels)
        names = list(dict.fromkeys(labels.tolist()))
    replicate = [c for c in columns if normalise(c) in REPLICATE_NAMES]
    config_columns = [c for c in columns if c not in replicate]
    config_labels = _join(frame, config_columns) if replicate and config_columns else None
    # agents differ by design: without a seed to replicate them, each is its own setting (pooled
    # as replicates, ten agents of different wealth read "the runs disagree: R-hat 1.07")
    agents = any(normalise(c) in AGENT_NAMES for c in columns)
    stems = None
    if config_labels is None and (len(columns) == 1 or agents) and not restarts and not replicate:
        stems = ({name: name for name in names} if agents or normalise(columns[0]) in SETTING_NAMES
                 else setting_stems(names))
    if stems is not None:
        config_labels = pd.Series(labels).map(stems).to_numpy(dtype=object)
    configs = list(dict.fromkeys(config_labels.tolist())) if config_labels is not None else []
    how = []
    if columns:
        how.append(("column " if len(columns) == 1 else "columns ") + " x ".join(f"'{c}'" for c in columns))
        if stems is not None and len(configs) < len(names):
            how[-1] += f", configurations {name_list(configs)} by the names' seed numbers"
        elif stems is not None and agents:
            how[-1] += ", each agent on its own, never a replicate of another"
        elif stems is not None:
            how[-1] += ", each its own setting, as no two names differ only in a run number"
    if restarts:
        how.append(f"the step column '{step}' starting again {restarts} time(s)")
    return RunKey(columns=tuple(columns), labels=labels, names=names, config_labels=config_labels,
                  configs=configs, restarts=restarts, how=" and ".join(how))


#: a run name that ends in its replicate number after a word saying so: "ppo_seed1",
#: "dqn run 4", "run2", "sac-s3" (a lone "s" only after a separator: "glowing-suns-12" is not one)
_REPLICATE_WORD = re.compile(r"(?P<stem>.*?)[\s_\-./]*(?:seed|replicate|rep|run|trial)[\s_\-=]*\d+"
                             r"|(?P<short>.*?[^\s_\-=./])[\s_\-./]+s[\s_\-=]*\d+", re.IGNORECASE)
#: ... or after a separator ("PPO_2", "#3"), or a name that is a number ("0", a monitor
#: file's); not a number glued to a word ("v2", "model2": a version as often as a replicate),
#: a setting's decimals ("lr0.001") or an exponent ("lr1e-4")
_REPLICATE_NUMBER = re.compile(r"(?:(?P<stem>.*?)[\s_\-#]+)?\d+")
_EXPONENT = re.compile(r".*\d[eE][-+]?\d+")
#: a date, and perhaps a time, at the end of a name ("ppo_2024-01-05_14-32-00", "exp_20240105_1432",
#: Ray's trial folders): when a run was made, which says nothing about its setting
_TIMESTAMP = re.compile(r"(?P<stem>.*?)[\s_\-.]*(?:19|20)\d{2}-?[01]\d-?[0-3]\d"
                        r"(?:[T_\-\s]?[0-2]\d[-:]?[0-5]\d(?:[-:]?[0-5]\d(?:\.\d+)?)?)?")
#: a Unix time at the end of a name, glued or not: seconds (2001-2033) with their fraction, as
#: ``str(time.time())`` prints them, or milliseconds - nanoGPT's suggested W&B run name is
#: ``'run' + str(time.time())`` ("gpt2_char_to_token1729534595.422701" in a real W&B export)
_UNIX_TIME = re.compile(r"(?P<stem>.*?)[\s_\-.]*(?:1\d{9}(?:\.\d+)?|1\d{12})")
#: W&B's generated run names ("glowing-sun-12"): two words and a counter that say nothing
#: about the run's setting
_GENERATED_NAME = re.compile(r"[a-z]+-[a-z]+-\d+")
#: a key column whose values are settings, never replicates of one another
SETTING_NAMES = ("label", "config", "config_name", "configuration")


def replicate_stem(name) -> str:
    """The name without the replicate number it ends in: the setting it is a run of.

    >>> [replicate_stem(n) for n in ("ppo_seed1", "sac-s3", "run2", "PPO_2", "a2c-CartPole-v1_2", "0", "#3")]
    ['ppo', 'sac', '', 'PPO', 'a2c-CartPole-v1', '', '']
    >>> [replicate_stem(n) for n in ("a2c-CartPole-v1", "baseline", "t1", "lr0.001", "lr1e-4")]
    ['a2c-CartPole-v1', 'baseline', 't1', 'lr0.001', 'lr1e-4']
    >>> [replicate_stem(n) for n in ("ppo_2024-01-05_14-32-00", "ppo_20240106_0915", "lr0.001_2024-01-05")]
    ['ppo', 'ppo', 'lr0.001']
    >>> [replicate_stem(n) for n in ("gpt2_char_to_token1729534595.422701", "run_1729491541", "gpt2", "ppo_12345")]
    ['gpt2_char_to_token', 'run', 'gpt2', 'ppo']
    """
    text = str(name)
    stamped = _TIMESTAMP.fullmatch(text) or _UNIX_TIME.fullmatch(text)
    if stamped is not None:  # a time stamp marks a replicate as a run number does
        return replicate_stem(stamped.group("stem")) if stamped.group("stem") else ""
    match = _REPLICATE_WORD.fullmatch(text)
    if match is not None:
        return match.group("stem") if match.group("stem") is not None else match.group("short")
    match = None if _EXPONENT.fullmatch(text) else _REPLICATE_NUMBER.fullmatch(text)
    if match is not None:
        return match.group("stem") or ""
    return text


def setting_stems(names) -> dict | None:
    """Each run name's setting when the names hold more than one; None when they are the
    replicates of one setting (``PPO_1``, ``PPO_2``) or say nothing about it (W&B's
    ``glowing-sun-12`` and ``dark-moon-3``: pooled as replicates, the one guess possible).

    A run number at the end of a name marks a replicate; whatever else differs names another
    setting, whose runs are never summarised with these (an R-hat over ``a2c-CartPole-v1`` and
    ``dqn-CartPole-v1`` says that two algorithms differ, not that either has not converged).

    >>> setting_stems(["ppo_seed1", "ppo_seed2", "sac_seed1"])
    {'ppo_seed1': 'ppo', 'ppo_seed2': 'ppo', 'sac_seed1': 'sac'}
    >>> setting_stems(["a2c-Pong-v4", "ppo-Pong-v4"])
    {'a2c-Pong-v4': 'a2c-Pong-v4', 'ppo-Pong-v4': 'ppo-Pong-v4'}
    >>> setting_stems(["run1", "run2", "baseline"])
    {'run1': 'run1 ... run2', 'run2': 'run1 ... run2', 'baseline': 'baseline'}
    >>> setting_stems(["PPO_1", "PPO_2"]), setting_stems(["sun-12", "moon-3"]), setting_stems(["glowing-sun-12", "dark-moon-3"])
    (None, {'sun-12': 'sun', 'moon-3': 'moon'}, None)
    """
    stems = {name: replicate_stem(name) for name in names}
    if len(set(stems.values())) < 2 or all(_GENERATED_NAME.fullmatch(str(name)) for name in names):
        return None
    numbered = [name for name, stem in stems.items() if stem == ""]  # "run1", "run2": runs of no named setting
    if numbered:
        label = f"{numbered[0]} ... {numbered[-1]}" if len(numbered) > 1 else str(numbered[0])
        stems.update({name: label for name in numbered})
    return stems


def name_list(values, shown: int = 8) -> str:
    """'a, b, c' - the first ``shown`` of them, and how many there are beyond."""
    return ", ".join(map(str, values[:shown])) + (f" ... ({len(values)} in all)" if len(values) > shown else "")


def record_run(record: dict) -> tuple[str | None, tuple]:
    """The run one record of a log names (its run, seed or trial keys, as :func:`find_runs`
    reads the columns of a table), and those keys; ``(None, ())`` when it names none.  For a
    log read a line at a time (``swarmstats watch``), where no column can be seen whole.

    >>> record_run({"step": 3, "seed": 2, "reward": 0.5}), record_run({"run": "a", "loss": 1.0})
    (('seed=2', ('seed',)), ('a', ('run',)))
    >>> record_run({"label": "ppo", "seed": 1.0, "r": 1}), record_run({"step": 0, "r": 1})
    (('label=ppo seed=1', ('label', 'seed')), (None, ()))
    """
    keys = tuple(key for key, value in record.items()
                 if normalise(key) in RUN_NAMES and value is not None and _text(value) != "")
    if not keys:
        return None, ()
    if len(keys) == 1 and normalise(keys[0]) == "run":
        return _text(record[keys[0]]), keys
    return " ".join(f"{key}={_text(record[key])}" for key in keys), keys


def _join(frame: pd.DataFrame, columns: list) -> np.ndarray:
    """Each row's run name: 'seed=3', 'label=a seed=3' - or the value alone in a 'run' column."""
    texts = [_texts(frame[c]) for c in columns]
    if len(texts) == 1 and normalise(columns[0]) == "run":
        return texts[0]
    parts = [np.array([f"{c}="], dtype=object) + t for c, t in zip(columns, texts)]
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + " " + part
    return joined


def _texts(column: pd.Series) -> np.ndarray:
    """:func:`_text` of every value of ``column``, each distinct value named once (a call a row
    cost ~1 ms on a 1,200-row W&B export)."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    names = np.array([_text(value) for value in uniques] + [""], dtype=object)  # code -1: missing
    return names[codes]


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


#: hyperparameters by their whole name (or a key's last part: ``train/gamma``): settings of the
#: run, never metrics (:func:`swarmstats.io.columns.bookkeeping_by_name`), and where one value is
#: logged for each run, what tells the runs of a sweep apart (:func:`_run_settings`)
#: (not tau, lambda, discount or momentum: SWARM's interactions carry a transfer tau, and a
#: simulation's prices a discount; a Lagrange multiplier is the algorithm's coefficient)
SETTING_COLUMNS = ("gamma", "gae_lambda", "batch_size", "minibatch_size", "num_envs", "n_envs",
                   "hidden_size", "hidden_dim", "num_layers", "n_layers", "weight_decay", "dropout",
                   "buffer_size", "target_update_interval", "train_freq", "update_epochs", "n_epochs",
                   "num_minibatches",
                   # how the job ran and the data it was given (a run's world_size or
                   # max_seq_length logged on every row read "converged" as a metric)
                   "world_size", "num_gpus", "n_gpu", "n_gpus", "num_workers", "gradient_accumulation_steps",
                   "max_seq_length", "warmup_steps", "image_size", "input_size", "num_generations",
                   "max_new_tokens")
#: the kinds of bookkeeping that are a run's settings when one value is logged for each run
_SETTING_KINDS = ("a schedule", "a coefficient", "a setting")


def _run_settings(frame: pd.DataFrame, labels: np.ndarray, candidates: list) -> list:
    """The columns of ``candidates`` that are a setting of each run: named as a hyperparameter
    (a learning rate, gamma, a batch size ...), one value in every row of each run (``labels``),
    and more than one across them.  A W&B export of a sweep (``[{**run.config, **row} for run
    in runs for row in run.scan_history()]``) holds every run's ``lr`` beside its seed: read by
    the seed and the step starting again, runs of two learning rates were pooled as seeds of one
    setting ("the runs disagree: R-hat 1.95").  A metric is never taken, however constant:
    only names that say a setting.

    >>> frame = pd.DataFrame({"lr": [1e-3] * 4 + [3e-4] * 4, "seed": [0, 0, 1, 1] * 2, "r": range(8)})
    >>> _run_settings(frame, _join(frame, ["seed"]) + np.array(["#1"] * 4 + ["#2"] * 4, dtype=object), ["lr", "r"])
    ['lr']
    """
    from .columns import bookkeeping_by_name

    found = []
    codes, uniques = pd.factorize(pd.Series(labels))
    if len(uniques) < 2:
        return found
    for column in candidates:
        if not (bookkeeping_by_name(column) or "").startswith(_SETTING_KINDS):
            continue
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
        if np.isnan(values).any():
            continue  # a setting is logged in every row of its run
        per_run = pd.Series(values).groupby(codes).agg(["min", "max"])
        if (per_run["min"] == per_run["max"]).all() and per_run["min"].nunique() > 1:
            found.append(column)
    return found


def _is_block_label(column: pd.Series) -> bool:
    """A text column whose values come in contiguous blocks (a configuration name repeated
    on every row of its run), at least two of them, each at least three rows long."""
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return False
    values = column.dropna().astype(str)
    if len(values) < 6 or len(values) < len(column):
        return False
    if not pd.to_numeric(values, errors="coerce").isna().all():
        return False  # numbers stored as text are a metric, not a label
    changes = int((values.to_numpy()[1:] != values.to_numpy()[:-1]).sum())
    distinct = values.nunique()
    return 2 <= distinct <= len(values) // 3 and changes == distinct - 1


def _split_restarts(steps: pd.Series, labels):
    """Split each run where its step axis goes backwards (a new run appended to the file)."""
    numeric = pd.to_numeric(steps, errors="coerce").to_numpy(dtype=float, copy=True)
    # an infinite step is a broken cell (its row is dropped from every metric), not a place
    # the axis stood before a new run began: 0..296, inf, 300 read as two runs
    numeric[np.isinf(numeric)] = np.nan
    if np.isnan(numeric).all():
        return labels, 0
    present = numeric[~np.isnan(numeric)]
    if not (np.diff(present) < 0).any():
        return labels, 0  # the common case, decided without per-run bookkeeping
    groups = labels if labels is not None else np.full(len(numeric), "", dtype=object)
    out = groups.copy()
    restarts = 0
    for name in dict.fromkeys(groups.tolist()):
        rows = np.flatnonzero(groups == name)
        values = numeric[rows]
        valid = ~np.isnan(values)
        back = np.zeros(len(rows), dtype=bool)
        present = np.flatnonzero(valid)  # a restart: a step below the previous recorded one
        back[present[1:]] = np.diff(values[present]) < 0
        if not back.any():
            continue
        segment = np.cumsum(back)
        restarts += int(back.sum())
        prefix = f"{name} " if name else ""
        out[rows] = [f"{prefix}#{k + 1}" for k in segment]
    if labels is None and restarts == 0:
        return None, 0
    return out, restarts
