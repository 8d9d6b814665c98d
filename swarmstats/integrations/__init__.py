"""Trainer adapters.  Each imports its trainer only when used and fails with a one-line
install hint; importing swarmstats never imports a trainer.

- :func:`swarmstats.integrations.hf.callback` - a Hugging Face ``TrainerCallback`` (TRL too)
- :func:`swarmstats.integrations.lightning.callback` - a Lightning ``Callback``
- :func:`swarmstats.integrations.keras.callback` - a Keras 3 ``Callback`` (any backend)
- :func:`swarmstats.integrations.sb3.callback` - a Stable-Baselines3 ``BaseCallback``
- :func:`swarmstats.integrations.tune.stopper` - a Ray Tune ``Stopper``
- :func:`swarmstats.integrations.optuna.pruner` - an Optuna pruner
"""

from __future__ import annotations

from .. import errors
from ..errors import MissingDependency

__all__ = ["MissingDependency", "require", "monitor_for", "log_and_check", "plan_budget"]

#: What an adapter's ``budget`` means by default: read the run's last step from the trainer.
AUTO = "auto"


def require(module: str, extra: str):
    """Import the trainer ``module`` or fail with the install hint for swarmstats[extra]."""
    return errors.require(module, extra, "this adapter")


def monitor_for(monitor, options: dict):
    """The Monitor to use: the one given, or a new one from ``options``."""
    from ..streaming.monitor import Monitor

    if monitor is not None and options:
        raise TypeError("pass either monitor= or Monitor options, not both")
    return monitor if monitor is not None else Monitor(**options)


def check_budget(budget) -> None:
    """An adapter's ``budget``: "auto", or what the verdict accepts (None or a finite step
    number); InputError, a ValueError, otherwise."""
    from ..convergence.step_axis import check_budget as verdict_budget

    if budget != AUTO:
        verdict_budget(budget)


def plan_budget(monitor, budget, planned) -> None:
    """Give ``monitor`` the step its run ends at, once the host knows it: ``budget`` as the
    adapter was given it, or with "auto" the host's own plan (``planned``: a step number, or
    None / <= 0 when the host has none).  A budget already set on the Monitor is kept."""
    if budget is None or monitor.budget is not None or monitor.get_params().get("horizon") is not None:
        return  # no budget wanted, one set already, or flatness claimed over a horizon instead
    value = planned if budget == AUTO else budget
    if value is not None and value == value and 0 < value < float("inf"):
        monitor.budget = float(value)


def log_and_check(monitor, step, metrics: dict, stop: bool) -> bool:
    """Log ``metrics`` at ``step``; True when the host should now stop the run (``stop`` is
    set and the monitor says so).  Every adapter's hook is this plus its host's stop flag."""
    monitor.log(step, **metrics)
    return stop and monitor.should_stop
