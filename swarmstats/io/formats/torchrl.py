"""TorchRL's CSV logger (also BenchMARL's, which logs through it): a file per metric.

``torchrl.record.loggers.CSVLogger(exp_name, log_dir)`` writes each scalar to
``<log_dir>/<exp_name>/scalars/<name>.csv``, one ``step,value`` line per call and no header
(``fd.write(",".join([str(global_step), str(value)]) + "\\n")``); a name with ``/`` makes
subfolders, and BenchMARL replaces its ``/`` by ``_`` (``eval_reward_episode_reward_mean.csv``).
Read as a plain CSV, the first line became the header: the metric was named ``0.3641957`` and
its steps, named ``0``, were left out as a counter - the slope was quoted per row, not per step.

A file is read alone (the metric named after it), or a folder is read whole: the ``scalars``
folder, the experiment folder holding it, or a folder of experiments (each a run); a run
resumed into its files as :mod:`.scalar_files` says.

>>> table = read_scalar_file("scalars/reward.csv", "0,1.5\\n100,2.5\\n")
>>> table.frame.to_dict("list")
{'step': [0.0, 100.0], 'reward': [1.5, 2.5]}
"""

from __future__ import annotations

import re

from ._table import LogTable
from .scalar_files import VALUE, Writer, metric_name

__all__ = ["SCALARS", "TORCHRL", "is_scalar_head", "is_scalar_line", "metric_name", "read_folder",
           "read_scalar_file"]

#: the folder of TorchRL's CSV logger that holds the scalars (beside ``videos`` and ``texts``)
SCALARS = "scalars"
#: ``str(step),str(float(value))``
TORCHRL = Writer("torchrl-csv", "TorchRL", ("step",),
                 re.compile(r"^\s*-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?\s*,\s*" + VALUE + r"\s*$"), SCALARS)


def is_scalar_line(line: str) -> bool:
    """Is ``line`` one TorchRL writes (``step,value``, the value as Python prints a float)?"""
    return TORCHRL.is_line(line)


def is_scalar_head(head: str, base: str) -> bool:
    """Does a CSV start like a TorchRL scalar file: ``step,value`` lines with no header?"""
    return TORCHRL.is_head(head, base)


def read_scalar_file(name: str, text: str) -> LogTable:
    """One TorchRL scalar file, its metric named after it."""
    return TORCHRL.read_file(name, text)


def read_folder(path: str) -> LogTable | None:
    """A TorchRL experiment (its ``scalars`` folder, or the folder holding it) or a log_dir of
    experiments (each a run, named after its folder); None for a folder that is neither."""
    return TORCHRL.read_folder(path)
