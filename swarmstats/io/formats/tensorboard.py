"""TensorBoard event files and log directories (extra ``[tensorboard]``): every scalar, both
``simple_value`` (PyTorch, tensorboardX) and TF2's scalar tensors, with no down-sampling."""

from __future__ import annotations

import os

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
        for tag in tags.get("scalars", []):
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
    return LogTable(sparse_to_wide(tidy), "tensorboard", path,
                    [f"{len(files)} event file(s)"])
