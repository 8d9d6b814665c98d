"""TensorBoard event files and log directories (extra ``[tensorboard]``): every scalar, both
``simple_value`` (PyTorch, tensorboardX) and TF2's scalar tensors, with no down-sampling."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ...errors import InputError, require
from ..tabular import refuse_lfs_pointer
from ..written_nan import scalar
from ._table import LogTable, sparse_to_wide

PREFIX = "events.out.tfevents."


def event_files(path: str) -> list[str]:
    if os.path.isfile(path):
        return [path]
    found = []
    for folder, _, files in os.walk(path):
        found += [os.path.join(folder, f) for f in sorted(files) if f.startswith(PREFIX)]
    return sorted(found)


def read(path: str) -> LogTable:
    files = event_files(path)
    if not files:
        raise InputError(f"{path}: no TensorBoard event files (events.out.tfevents.*)")
    for file in files:  # a clone without Git LFS holds pointers, not event files
        try:
            with open(file, "rb") as handle:
                refuse_lfs_pointer(file, handle.read(64))
        except OSError as exc:
            raise InputError(f"cannot read {file}: {exc.strerror}") from None
    event_accumulator = require("tensorboard.backend.event_processing.event_accumulator", "tensorboard",
                                "reading TensorBoard event files")
    tensor_util = require("tensorboard.util.tensor_util", "tensorboard", "reading TensorBoard event files")
    root = path if os.path.isdir(path) else os.path.dirname(path)
    records = []
    folders = {os.path.relpath(os.path.dirname(file), root).replace(os.sep, "/") for file in files}
    groups = set()
    for file in files:
        run = os.path.relpath(os.path.dirname(file), root).replace(os.sep, "/")
        # size_guidance 0 keeps every point: the default reservoir-samples 10,000 per tag
        accumulator = event_accumulator.EventAccumulator(
            file, size_guidance={event_accumulator.SCALARS: 0, event_accumulator.TENSORS: 0})
        try:
            accumulator.Reload()
        except Exception as exc:  # a corrupt or truncated record
            raise InputError(f"{file}: cannot read the event file ({type(exc).__name__}: {exc})") from None
        tags = accumulator.Tags()
        scalars = tags.get("scalars", [])
        group = _scalars_group(run, scalars, folders)
        if group is not None:  # one add_scalars() curve: a metric of its parent's run
            groups.add(run)
            parent, metric = group
            records += [(parent, e.step, metric, scalar(float(e.value)), e.wall_time)
                        for e in accumulator.Scalars(scalars[0])]
            continue
        for tag in scalars:
            records += [(run, e.step, tag, scalar(float(e.value)), e.wall_time) for e in accumulator.Scalars(tag)]
        for tag in tags.get("tensors", []):
            for event in accumulator.Tensors(tag):
                value = tensor_util.make_ndarray(event.tensor_proto)
                if value.size == 1:
                    records.append((run, event.step, tag, scalar(float(value.reshape(()))), event.wall_time))
    if not records:
        raise InputError(f"{path}: the event files hold no scalar")
    tidy = pd.DataFrame(records, columns=["run", "step", "metric", "value", "wall_time"])
    if tidy["run"].nunique() == 1:
        tidy = tidy.drop(columns=["run"])
    # a restart can write overlapping steps: the later record of a (run, step, tag) wins
    tidy = tidy.sort_values("wall_time", kind="stable")
    notes = [f"{len(files)} event file(s)"]
    tidy, copies = _without_axis_copies(tidy)
    notes += copies
    if groups:
        notes.append(f"{len(groups)} add_scalars() curve(s), each written by a writer in a subfolder "
                     "of its own, read as metrics of the run they belong to (not as runs)")
    wide, several = _fold(tidy)
    notes += several
    return LogTable(wide, "tensorboard", path, notes)


#: the last parts of a tag that name the x-axis rl_games and rsl_rl (IsaacGym, IsaacLab,
#: legged_gym) logged a copy of a metric against, and what they count
COPY_AXES = {"/iter": "iterations", "/time": "seconds of training"}
#: the copies kept before any other sibling, in this order: against frames, or the bare tag
KEPT_FIRST = ("/step", "/frame", "")


def _without_axis_copies(tidy: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """``tidy`` without the copies of a metric logged again against another x-axis, and a note
    naming them.  rl_games logs ``rewards/step``, ``rewards/iter`` and ``rewards/time`` - one
    value each time, against frames, iterations and seconds - and ``scores/mean`` beside
    ``scores/time``; rsl_rl logs ``Train/mean_reward`` and ``Train/mean_reward/time``: read as
    metrics of one table, each reward was judged two or three times, "per 100 steps" of seconds
    or iterations among them, and the table's step axis mixed frames, iterations and seconds.
    A tag ending in ``/iter`` or ``/time`` is left out only when it holds, in the same order, the
    values of a sibling: ``X/step``, ``X/frame`` or ``X`` itself first, then any other ``X/...``.

    >>> tidy = pd.DataFrame({"step": [4096, 1, 12, 8192, 2, 25], "metric": ["rewards/step", "rewards/iter",
    ...     "rewards/time"] * 2, "value": [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]})
    >>> kept, notes = _without_axis_copies(tidy)
    >>> kept["metric"].unique().tolist()
    ['rewards/step']
    >>> print(notes[0])
    rewards/iter, rewards/time left out: the values of rewards/step again, against iterations and seconds of training (rl_games and rsl_rl log a metric against several x-axes)
    """
    keys = ["run", "metric"] if "run" in tidy.columns else ["metric"]
    rows = {(key if isinstance(key, tuple) else (None, key)): where
            for key, where in tidy.groupby(keys, sort=False).indices.items()}
    copies = [(run, str(tag), suffix) for run, tag in rows for suffix in COPY_AXES
              if str(tag).endswith(suffix) and len(str(tag)) > len(suffix)]
    if not copies:
        return tidy, []
    values = tidy["value"].to_numpy(dtype=float)
    children = {}  # (run, parent) -> its tags
    for run, tag in rows:
        parent, slash, _ = str(tag).rpartition("/")
        if slash:
            children.setdefault((run, parent), []).append(str(tag))
    out = np.ones(len(tidy), dtype=bool)
    dropped, sources, axes = [], [], []
    for run, tag, suffix in copies:
        base = tag[:-len(suffix)]
        first = [base + end for end in KEPT_FIRST]
        others = sorted(t for t in children.get((run, base), []) if not t.endswith(tuple(COPY_AXES)))
        later = [base + "/iter"] if suffix == "/time" else []
        mine = values[rows[(run, tag)]]
        for candidate in dict.fromkeys(first + others + later):
            where = rows.get((run, candidate))
            if where is not None and len(where) == len(mine) and np.array_equal(values[where], mine, equal_nan=True):
                out[rows[(run, tag)]] = False
                dropped.append(tag)
                sources.append(candidate)
                axes.append(COPY_AXES[suffix])
                break
    if not dropped:
        return tidy, []
    names = list(dict.fromkeys(dropped))
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    kept = list(dict.fromkeys(sources))
    return tidy[out], [f"{shown} left out: the values of {', '.join(kept[:6])}{' ...' if len(kept) > 6 else ''} "
                       f"again, against {' and '.join(dict.fromkeys(axes))} (rl_games and rsl_rl log a "
                       "metric against several x-axes)"]


def _fold(tidy: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """The records (in the order written) as one row per step - and, for a tag that logged
    several values at one step without its step ever going back, one row per value.

    CleanRL logs ``charts/episodic_return`` once per finished episode at the global step, and
    episodes of several environments end at one step: folded to one row per step, the last
    of them was kept and the others dropped without a word (half the episodes of a real-shaped
    run).  Where a tag's step goes back, the later records replace the earlier (a restart), as
    before.  Returns the wide table and a note per tag read so."""
    keys = ["run", "metric"] if "run" in tidy.columns else ["metric"]
    step = tidy["step"].to_numpy(dtype=float)
    position = tidy.groupby([*keys, "step"], sort=False).cumcount().to_numpy()
    repeats = tidy.assign(_again=position > 0).groupby(keys, sort=False)["_again"].any()
    if not repeats.any():
        return sparse_to_wide(tidy), []  # the common case: a value per step
    backward = tidy.assign(_s=step).groupby(keys, sort=False)["_s"].apply(
        lambda s: bool((np.diff(s.to_numpy()) < 0).any()))
    several = [key for key, again in repeats.items() if again and not backward[key]]
    if not several:
        return sparse_to_wide(tidy), []
    chosen = pd.MultiIndex.from_tuples([k if isinstance(k, tuple) else (k,) for k in several])
    in_several = pd.MultiIndex.from_frame(tidy[keys]).isin(chosen)
    occurrence = np.where(in_several, position, 0)
    # (step, occurrence) pairs ranked in order: the fold's step, mapped back after it
    order = np.lexsort((occurrence, step))
    new = np.ones(len(order), dtype=bool)
    new[1:] = (step[order][1:] != step[order][:-1]) | (occurrence[order][1:] != occurrence[order][:-1])
    rank = np.empty(len(order), dtype=float)
    rank[order] = np.cumsum(new) - 1
    steps_of_rank = step[order][new]
    wide = sparse_to_wide(tidy.assign(step=rank))
    wide["step"] = steps_of_rank[wide["step"].to_numpy(dtype=int)]
    counts = tidy[in_several].groupby(keys, sort=False).agg(values=("step", "size"), steps=("step", "nunique"))
    notes = [f"{key[-1] if isinstance(key, tuple) else key}: {row['values']:,} values at {row['steps']:,} steps "
             "(several logged at one step, as CleanRL logs the episodes of several environments that end "
             "at the same step): each kept, in the order written" for key, row in counts.iterrows()]
    return wide, notes


def _scalars_group(run: str, scalars: list, folders: set) -> tuple[str, str] | None:
    """(its run, its metric) when the event file in folder ``run`` is one curve of an
    ``add_scalars(main_tag, {key: value})`` call: PyTorch's SummaryWriter writes each key to a
    writer of its own in ``<log_dir>/<main_tag with "_" for "/">_<key>``, tensorboardX in
    ``<log_dir>/<main_tag>/<key>``, the scalar tagged ``main_tag`` in both; TensorBoard shows
    them as runs, and read so, MAPPO's per-agent rewards were runs of one metric.  The folder
    above must hold the main writer's own event file.  The metric is ``main_tag``, or
    ``main_tag/key`` when the key says more.

    >>> _scalars_group("loss_train", ["loss"], {".", "loss_train"}), _scalars_group("seed1", ["loss"], {"."})
    (('.', 'loss/train'), None)
    """
    if len(scalars) != 1:
        return None
    tag = scalars[0]
    for marker in (tag.replace("/", "_") + "_", tag + "/"):  # PyTorch's layout, tensorboardX's
        for at in [0] + [i + 1 for i, char in enumerate(run) if char == "/"]:
            if not run.startswith(marker, at):
                continue
            key, parent = run[at + len(marker):], run[:at - 1] if at else "."
            if key and parent in folders:
                return parent, tag if key == tag else f"{tag}/{key}"
    return None
