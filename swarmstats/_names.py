"""How column and metric names are compared: without case or separators."""

from __future__ import annotations

import re


def normalise(name) -> str:
    """'Total Timesteps' -> 'total_timesteps': names compared without case or separators."""
    return re.sub(r"[\s\-./]+", "_", str(name).strip().lower())


#: the run or configuration a command appends to a metric's name: "reward [run=low_loss_lr]"
_RUN_LABEL = re.compile(r"\s+\[[^\[\]]*\]$")


def metric_part(name) -> str:
    """``name`` without the run or configuration label the commands append: what a name says
    about the metric is the metric's, not its run's (a reward in a run named ``low_loss_lr``
    read "lower is better"; a win rate labelled ``[run=1]`` was no longer a rate).

    >>> metric_part("reward [run=low_loss_lr]"), metric_part("l [env_args.map_name=3s5z]"), metric_part("loss")
    ('reward', 'l', 'loss')
    """
    return _RUN_LABEL.sub("", str(name or ""))
