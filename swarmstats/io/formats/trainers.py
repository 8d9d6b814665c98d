"""Trainer logs: Hugging Face trainer_state.json, Lightning CSVLogger metrics.csv,
Ray Tune result.json / progress.csv, prime-rl metrics.jsonl, verifiers results.jsonl."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import InputError
from ._table import (
    LogTable,
    check_repeated_header,
    fold_columns,
    numeric_axis,
    numeric_columns,
    numeric_frame,
    planned_end,
    shadowed_axes_note,
)

#: keys of the final summary entry of a trainer_state.json log_history
HF_SUMMARY_KEYS = {"train_runtime", "total_flos", "train_samples_per_second"}
#: Ray's bookkeeping keys (never metrics)
RAY_BOOKKEEPING = ("time_this_iter_s", "time_total_s", "timestamp", "done", "trial_id",
                   "iterations_since_restore", "time_since_restore", "pid", "node_ip", "hostname",
                   "date", "experiment_id", "training_iteration")


def read_trainer_state(payload, name: str) -> LogTable:
    if not isinstance(payload, dict) or not isinstance(payload.get("log_history"), list):
        raise InputError(f"{name}: a trainer_state.json holds a 'log_history' list")
    rows = [row for row in payload["log_history"]
            if isinstance(row, dict) and not (HF_SUMMARY_KEYS & set(row))]
    if not rows:
        raise InputError(f"{name}: log_history has no logged step")
    notes = ["the final training-summary entry is not a data point"] if len(rows) < len(
        payload["log_history"]) else []
    if any(row.get("step") is not None for row in rows):
        rows, placed = place_stepless_entries(rows)
        notes += placed
    frame = pd.json_normalize(rows, sep="/")
    if "step" not in frame:
        raise InputError(f"{name}: log_history entries have no 'step'")
    step = numeric_axis(frame["step"], name, "step")
    metrics = numeric_columns(frame.drop(columns=["step"]), name)
    metrics.pop("epoch", None)
    folded = fold_columns(step, metrics)
    # the planned end, unless the Trainer got there (its last log can fall short of it: a run of
    # 692 steps logging every 100 logs last at step 600)
    planned = planned_end(payload.get("max_steps"))
    reached = planned_end(payload.get("global_step"))
    if planned is not None and reached is not None and reached >= planned:
        planned = None
    return LogTable(None, "trainer-state", name, notes, arrays=folded, planned_steps=planned)


def place_stepless_entries(rows: list) -> tuple[list, list]:
    """(entries, notes): a log_history entry without a ``step`` - a script that appends
    ``trainer.predict()``'s metrics itself writes ``predict_loss`` with the epoch alone - taken
    at the step logged just before it when its epoch is that entry's (the same point of
    training) and it logs none of that entry's metrics (it would overwrite them); otherwise
    left out.  Either way the notes say which metrics: dropped as rows without a step,
    ``predict_*`` vanished unsaid.

    >>> rows = [{"epoch": 1.0, "eval_loss": 0.66, "step": 549}, {"epoch": 1.0, "predict_loss": 0.65},
    ...         {"epoch": 1.0, "eval_loss": 0.61}, {"epoch": 1.5, "predict_bleu": 3.0}]
    >>> entries, notes = place_stepless_entries(rows)
    >>> entries[1]["step"], len(entries)
    (549, 2)
    >>> for note in notes:
    ...     print(note)
    1 log_history entry without a 'step' (predict_loss) taken at the step logged just before it, at the same epoch
    1 log_history entry without a 'step' (predict_bleu) left out: no step was logged at its epoch (1.5)
    1 log_history entry without a 'step' (eval_loss) left out: it repeats metrics of the entry before it, at the same epoch
    """
    kept = []
    # what became of the step-less entries: (epoch, their metric names) per outcome
    outcomes = {"placed": [], "elsewhere": [], "repeats": []}
    last = None  # the last entry that logged a step
    for row in rows:
        if row.get("step") is not None:
            kept.append(row)
            last = row
            continue
        logged = [key for key in row if key != "epoch"]
        epoch = row.get("epoch")
        if last is None or epoch is None or epoch != last.get("epoch"):
            outcomes["elsewhere"].append((epoch, logged))
        elif set(logged) & set(last):
            outcomes["repeats"].append((epoch, logged))
        else:
            kept.append({**row, "step": last["step"]})
            outcomes["placed"].append((epoch, logged))
    notes = []
    for outcome, entries in outcomes.items():
        if not entries:
            continue
        one = len(entries) == 1
        names = list(dict.fromkeys(name for _, logged in entries for name in logged))
        listed = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        given = [str(e) for e in dict.fromkeys(epoch for epoch, _ in entries) if e is not None]
        epochs = ", ".join(given[:5]) + (", ..." if len(given) > 5 else "")
        told = {"placed": f"taken at the step logged just before {'it' if one else 'each'}, at the same epoch",
                "elsewhere": (f"left out: no step was logged at {'its' if one else 'their'} "
                              f"epoch{'' if one else 's'} ({epochs or 'none given'})"),
                "repeats": (f"left out: {'it repeats' if one else 'they repeat'} metrics of the entry "
                            f"before {'it' if one else 'them'}, at the same epoch")}[outcome]
        notes.append(f"{len(entries)} log_history entr{'y' if one else 'ies'} without a 'step' ({listed}) {told}")
    return kept, notes


def read_lightning(frame: pd.DataFrame, name: str) -> LogTable:
    """Sparse rows (each carries only the keys logged in that call) folded by step."""
    check_repeated_header(frame, name)
    if "step" not in frame.columns.tolist():  # a list: no hash index built for one look-up
        raise InputError(f"{name}: a Lightning metrics.csv has a 'step' column")
    numbers = numeric_columns(frame, name)
    if "step" not in numbers:  # a step column with a word in it is dropped as text: say where
        numbers["step"] = numeric_axis(frame["step"], name, "step")
    return lightning_table(numbers, name)


def lightning_table(numbers: dict, name: str) -> LogTable:
    """:func:`read_lightning` of the numeric columns (name -> floats)."""
    if "step" not in numbers:
        raise InputError(f"{name}: a Lightning metrics.csv has a 'step' column")
    step = np.asarray(numbers["step"], dtype=float)
    metrics = {c: np.asarray(v, dtype=float) for c, v in numbers.items() if c not in ("step", "epoch")}
    folded = fold_columns(step, metrics)
    return LogTable(None, "lightning-csv", name, _nan_rows_note(metrics, step), arrays=folded)


def _nan_rows_note(metrics: dict, steps: np.ndarray) -> list:
    """Lightning writes a row only for a logging call, so a row whose every value is missing
    logged NaN (or inf): from the first such row on, a run that diverged.  Said here, for
    every command (check-convergence, report and sweep judge such a metric as diverged; the
    other analyses drop NaN as missing)."""
    if not metrics or not len(steps):
        return []
    values = np.column_stack(list(metrics.values()))
    dead = ~np.isfinite(values).any(axis=1)
    if not dead.any():
        return []
    first = int(np.flatnonzero(dead)[0])
    step = steps[first]
    tail = " and every row after it" if dead[first:].all() else ""
    return [f"{int(dead.sum())} logged row(s) hold only NaN or inf, from step "
            f"{int(step) if float(step).is_integer() else step}{tail}: the run diverged there"]


def read_ray(frame: pd.DataFrame, name: str, format: str) -> LogTable:
    """result.json (nested, flattened with '/') or progress.csv; step = training_iteration,
    wall_time = timestamp.  A reported value named like one of those axes (a trainable's own
    ``step`` counter) is left out with a note: the axis is Ray's.

    The table is assembled as numpy columns: selecting the kept columns, a DataFrame of them
    and its copy cost a real 54-column progress.csv twice pandas' parse."""
    names = frame.columns.tolist()
    if "training_iteration" not in names:
        raise InputError(f"{name}: Ray results carry 'training_iteration'")
    skip = [c for c in names if str(c).startswith("config/") or c in RAY_BOOKKEEPING]
    axes = {"step": _ray_axis(frame["training_iteration"])}
    if "timestamp" in names:
        axes["wall_time"] = _ray_axis(frame["timestamp"])
    reported = [c for c in names if c in axes]
    numbers = numeric_columns(frame, name, skip=skip + reported)
    notes = shadowed_axes_note(reported, RAY_AXES, "Ray")
    arrays = {"step": axes["step"], **{c: np.asarray(v, dtype=float) for c, v in numbers.items()}}
    if "wall_time" in axes:
        arrays["wall_time"] = axes["wall_time"]
    return LogTable(None, format, name, notes, arrays=arrays)


#: the Ray columns read as a LogTable's axes
RAY_AXES = {"step": "training_iteration", "wall_time": "timestamp"}


def _ray_axis(column: pd.Series) -> np.ndarray:
    """An axis column as numbers (integers stay integers), a cell that is not a number missing."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        return column.to_numpy()
    return pd.to_numeric(column, errors="coerce").to_numpy()


def read_prime_rl(frame: pd.DataFrame, name: str) -> LogTable:
    """A ``metrics.jsonl`` of one JSON object per line, each with its ``step``: prime-rl's, and
    the same shape Dreamer's loggers write, where each group of metrics (training episodes,
    evaluations, losses) has lines of its own at a step another group's lines share.  Lines at
    one step are folded into one row; a log whose step goes back (a run resumed from a
    checkpoint) is left as written, for :mod:`swarmstats.io.resumed`."""
    if "step" not in frame:
        raise InputError(f"{name}: prime-rl metrics.jsonl lines carry 'step'")
    numbers = numeric_frame(frame, name)
    if "wall_time" not in numbers:  # (a line that logged both keeps its own wall_time)
        numbers = numbers.rename(columns={"time": "wall_time"})
    notes = ["a key absent from a line is missing at that step (prime-rl leaves non-finite values out; "
             "Dreamer's loggers write each group of metrics on lines of their own)"]
    step = numbers["step"].to_numpy(dtype=float)
    between = np.diff(step)
    if len(step) > 1 and (between == 0).any() and not (between < 0).any():
        metrics = {c: numbers[c].to_numpy(dtype=float) for c in numbers.columns if c != "step"}
        return LogTable(None, "prime-rl", name, notes, arrays=fold_columns(step, metrics))
    return LogTable(numbers, "prime-rl", name, notes)


def read_verifiers(frame: pd.DataFrame, name: str) -> LogTable:
    """Rollouts grouped by example: run = example id, step = rollout number within it."""
    key = "example_id" if "example_id" in frame else ("id" if "id" in frame else None)
    if key is None:
        raise InputError(f"{name}: verifiers results rows carry 'example_id' (or 'id')")
    text_like = ("prompt", "completion", "answer", "task", "info", "error", "stop_condition")
    # a field named like an axis (a training step the evaluation was run at) would collide with it
    shadowed = [c for c in frame.columns if c in ("run", "step") and c != key]
    frame = frame.drop(columns=[c for c in frame.columns if c in text_like or c in shadowed or str(c).startswith(
        ("prompt/", "info/", "timing/", "token_usage/"))])
    numbers = numeric_frame(frame.drop(columns=[key]), name)
    runs = frame[key].astype(str).to_numpy()
    step = pd.Series(frame.groupby(key, sort=False).cumcount().to_numpy())
    table = numbers.copy()
    table.insert(0, "step", step.to_numpy())
    table.insert(0, "run", runs)
    rename = {c: c[len("metrics/"):] for c in table.columns if str(c).startswith("metrics/")
              and c[len("metrics/"):] not in table.columns}
    return LogTable(table.rename(columns=rename), "verifiers", name,
                    [f"an evaluation of {len(np.unique(runs))} examples, {len(runs)} rollouts (the "
                     "run column names each rollout's example)"]
                    + ([f"{', '.join(map(repr, shadowed))} left out: the example and the rollout's number "
                        "within it are the run and step axes"] if shadowed else []))
