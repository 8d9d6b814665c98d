"""Which rows belong to which run: the run key of a table.

A log may hold several runs: a ``run`` / ``seed`` / ``run_id`` / ``trial_id`` column, a
configuration ``label`` crossed with a seed, or a step axis that starts again.  Analysed as
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

#: column names (compared lower-case, separators as "_") that name a run or a replicate
RUN_NAMES = ("run", "run_id", "run_name", "runid", "trial_id", "trial", "simulation_id", "experiment",
             "experiment_id", "exp_id", "label", "config", "config_name", "configuration", "seed",
             "random_seed", "rng_seed")
#: of those, the ones naming a replicate of a configuration (runs to compare with R-hat)
REPLICATE_NAMES = ("seed", "random_seed", "rng_seed")


def normalise(name) -> str:
    """'Total Timesteps' -> 'total_timesteps': names compared without case or separators."""
    return re.sub(r"[\s\-./]+", "_", str(name).strip().lower())


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
    replicate = [c for c in columns if normalise(c) in REPLICATE_NAMES]
    config_columns = [c for c in columns if c not in replicate]
    config_labels = _join(frame, config_columns) if replicate and config_columns else None
    stems = seed_stems(names) if config_labels is None and len(columns) == 1 and not restarts else None
    if stems is not None:
        config_labels = pd.Series(labels).map(stems).to_numpy(dtype=object)
    configs = list(dict.fromkeys(config_labels.tolist())) if config_labels is not None else []
    how = []
    if columns:
        how.append(("column " if len(columns) == 1 else "columns ") + " x ".join(f"'{c}'" for c in columns))
        if stems is not None:
            how[-1] += f", configurations {', '.join(configs[:8])} by the names' seed numbers"
    if restarts:
        how.append(f"the step column '{step}' starting again {restarts} time(s)")
    return RunKey(columns=tuple(columns), labels=labels, names=names, config_labels=config_labels,
                  configs=configs, restarts=restarts, how=" and ".join(how))


#: a run name that ends in its replicate number: "ppo_seed1", "sac-s3", "PPO_2", "dqn run 4"
_SEED_SUFFIX = re.compile(r"^(?P<stem>.*?[^\s_\-=./])(?:[\s_\-./]*(?:seed|rep|replicate|run|trial|s)[\s_\-=]*|[_\-])\d+$",
                          re.IGNORECASE)


def seed_stems(names) -> dict | None:
    """Each run name's configuration when every name ends in a replicate number after a
    separator or a word like "seed" (``ppo_seed1`` -> ``ppo``), the names hold at least two
    configurations and one of them has replicates; else None (one configuration's seeds, or
    names that say nothing - W&B's ``glowing-sun-12`` and ``dark-moon-3``).

    >>> seed_stems(["ppo_seed1", "ppo_seed2", "sac_seed1"])
    {'ppo_seed1': 'ppo', 'ppo_seed2': 'ppo', 'sac_seed1': 'sac'}
    >>> seed_stems(["PPO_1", "PPO_2"]), seed_stems(["lr0.001", "lr0.0003"]), seed_stems(["sun-12", "moon-3"])
    (None, None, None)
    """
    stems = {}
    for name in names:
        match = _SEED_SUFFIX.match(str(name))
        if match is None:
            return None
        stems[name] = match.group("stem")
    counts = pd.Series(list(stems.values())).value_counts()
    return stems if len(counts) >= 2 and counts.max() >= 2 else None


def _join(frame: pd.DataFrame, columns: list) -> np.ndarray:
    """Each row's run name: 'seed=3', 'label=a seed=3' - or the value alone in a 'run' column."""
    texts = [frame[c].map(_text).to_numpy(dtype=object) for c in columns]
    if len(texts) == 1 and normalise(columns[0]) == "run":
        return texts[0]
    parts = [np.array([f"{c}="], dtype=object) + t for c, t in zip(columns, texts)]
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + " " + part
    return joined


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


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
