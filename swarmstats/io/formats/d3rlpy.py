"""d3rlpy's logs (offline RL): a file per metric of ``epoch,step,value`` lines, no header.

d3rlpy's file logger writes each metric's mean over an epoch to
``d3rlpy_logs/<experiment>_<time>/<metric>.csv`` (``print(f"{epoch},{step},{value}", file=f)``),
beside ``params.json`` (the algorithm's settings): ``environment.csv`` is the evaluation's mean
return when an environment scorer or evaluator was given, ``loss.csv`` (``actor_loss``,
``critic_loss`` ...) the losses, ``time_step.csv``, ``time_sample_batch.csv`` and
``time_algorithm_update.csv`` the seconds each part took.  Read as a plain CSV, it had no
header ("its first line is numbers"), and its folder was "no log swarmstats recognises".

The step is d3rlpy's: the gradient steps so far (the epoch times its steps per epoch); the
epoch is kept beside it as another axis.  A file is read alone (the metric named after it), or
a folder whole: a run folder (each file a metric), or ``d3rlpy_logs`` (each run folder a run,
named after it).  ``params.json`` names neither the dataset nor the environment, so runs are
never taken for seeds of one setting from it.

>>> read_metric_file("environment.csv", "1,1000,12.5\\n2,2000,20.25\\n").frame.to_dict("list")
{'step': [1000.0, 2000.0], 'environment': [12.5, 20.25], 'epoch': [1.0, 2.0]}
"""

from __future__ import annotations

import re

from ._table import LogTable
from .scalar_files import VALUE, Writer

__all__ = ["D3RLPY", "is_metric_head", "is_metric_line", "read_folder", "read_metric_file"]

#: ``epoch,step,value``: two whole numbers, then the value as Python prints a float
D3RLPY = Writer("d3rlpy-csv", "d3rlpy", ("epoch", "step"),
                re.compile(r"^\s*\d+\s*,\s*\d+\s*,\s*" + VALUE + r"\s*$"), None, experiment="run")


def is_metric_line(line: str) -> bool:
    """Is ``line`` one d3rlpy writes (``epoch,step,value``)?"""
    return D3RLPY.is_line(line)


def is_metric_head(head: str, base: str) -> bool:
    """Does a CSV start like a d3rlpy metric file: ``epoch,step,value`` lines with no header?"""
    return D3RLPY.is_head(head, base)


def read_metric_file(name: str, text: str) -> LogTable:
    """One d3rlpy metric file, its metric named after it."""
    return D3RLPY.read_file(name, text)


def read_folder(path: str) -> LogTable | None:
    """A d3rlpy run folder, or a ``d3rlpy_logs`` folder of them (each a run); None for a folder
    that is neither."""
    return D3RLPY.read_folder(path)
