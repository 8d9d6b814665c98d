"""tensorboardX's ``export_scalars_to_json``: the scalars a ``SummaryWriter`` logged, saved as one
JSON object, ``{tag: [[wall_time, step, value], ...]}``.

The multi-agent code built on MAPPO's (on-policy, MAT, HAPPO and their forks) writes one beside
its TensorBoard logs as ``logs/summary.json``, each tag prefixed by the writer's log folder and,
for ``add_scalars``, doubled (``/home/u/results/.../logs/average_episode_rewards/average_episode_rewards``).
Read as a log it stopped at "expected a JSON list of records".  Each tag is a metric, named
without the folder the tags share when that folder is a path (it starts with ``/`` or a drive)
and without the doubling; a point without a step (``global_step=None``) is left out (noted).

>>> read_export({"/r/logs/reward/reward": [[1.7e9, 0, 1.5], [1.7e9, 10, 2.5]]}, "summary.json").frame.to_dict("list")
{'step': [0.0, 10.0], 'reward': [1.5, 2.5]}
"""

from __future__ import annotations

import re

from ...errors import InputError
from ._table import LogTable
from .sacred import MetricLists

#: a tag that starts with a folder of the file system: the writer's log folder
_PATH = re.compile(r"^(/|~|[A-Za-z]:[\\/])")


def is_export(payload) -> bool:
    """Is ``payload`` a tensorboardX export: every entry a list of [wall_time, step, value]?"""
    return isinstance(payload, dict) and bool(payload) and all(
        isinstance(points, list) and bool(points) and isinstance(points[0], list) and len(points[0]) == 3
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in points[0][::2])
        for points in payload.values())


def metric_names(tags: list) -> dict:
    """Each tag's metric name: the log folder that the tags ``add_scalars`` wrote share dropped
    (they start with the writer's folder, a path; ``add_scalar``'s tags are written as given),
    and ``add_scalars``' doubling (``a/b/a/b``, its main tag and the one key MAPPO gives it) undone.

    >>> metric_names(["/r/logs/agent0/rew/agent0/rew", "/r/logs/loss/loss", "train/lr"])
    {'/r/logs/agent0/rew/agent0/rew': 'agent0/rew', '/r/logs/loss/loss': 'loss', 'train/lr': 'train/lr'}
    >>> metric_names(["/r/logs/loss/train", "/r/logs/loss/val"])
    {'/r/logs/loss/train': 'loss/train', '/r/logs/loss/val': 'loss/val'}
    """
    parts = {tag: tag.split("/") for tag in tags}
    paths = [split for tag, split in parts.items() if _PATH.match(tag)]
    shared = 0
    if paths:
        # the writer's folder ends where a doubled tag's two halves begin; else it is the start
        # the paths share, less the main tag they may share too (all but the last two parts of one)
        folders = {len(split) - 2 * half for split in paths if (half := _doubled(split))}
        if len(folders) == 1:
            shared = folders.pop()
        else:
            shortest = min(len(split) for split in paths)
            while shared < shortest - 1 and len({split[shared] for split in paths}) == 1:
                shared += 1
            shared = max(shared - 1, 0) if len(paths) > 1 else max(len(paths[0]) - 2, 0)
    names = {}
    for tag, split in parts.items():
        rest = split[shared:] if _PATH.match(tag) else split
        half = len(rest) // 2
        if len(rest) % 2 == 0 and rest[:half] == rest[half:]:
            rest = rest[:half]
        names[tag] = "/".join(rest)
    return names


def _doubled(split: list) -> int:
    """How many parts each half of the doubled end of a tag's parts holds (``add_scalars(k,
    {k: v})``: ``.../k/k``), the longest; 0 when its end is not doubled."""
    return next((half for half in range(len(split) // 2, 0, -1) if split[-2 * half:-half] == split[-half:]), 0)


def read_export(payload, name: str) -> LogTable:
    """The scalars of a tensorboardX export (module docstring)."""
    if not is_export(payload):
        raise InputError(f"{name}: a tensorboardX export maps each tag to its [wall_time, step, value] points")
    found = MetricLists(name)
    without_step = 0
    for tag, metric in metric_names(list(payload)).items():
        points = [point for point in payload[tag] if isinstance(point, list) and len(point) == 3]
        stepped = [point for point in points if point[1] is not None]
        without_step += len(points) - len(stepped)
        found.add(metric, [point[2] for point in stepped], [point[1] for point in stepped])
    table = found.table("tensorboardx-json", "metric")
    if without_step:
        table.notes.append(f"{without_step} point(s) logged without a step left out")
    return table
