"""Ray Tune (and RLlib through it): a ``Stopper`` with one Monitor per trial."""

from __future__ import annotations

from . import require


def stopper(metric: str, *, step: str = "training_iteration", **monitor_options):
    """A ``ray.tune.Stopper``: each trial's ``metric`` (a key of the reported result, nested keys
    joined with '/', e.g. ``env_runners/episode_return_mean``) feeds that trial's Monitor; the
    trial stops once its Monitor says so.  ``stop_all`` is False.

        tuner = tune.Tuner(trainable, run_config=tune.RunConfig(stop=stopper("score")))
    """
    tune = require("ray.tune", "ray")
    from ..streaming.monitor import Monitor

    class SwarmstatsStopper(tune.Stopper):
        """Stops each trial when its metric has converged (``.monitors`` by trial id)."""

        def __init__(self):
            self.monitors: dict = {}

        def __call__(self, trial_id, result) -> bool:
            value = _lookup(result, metric)
            monitor = self.monitors.get(trial_id)
            if monitor is None:
                monitor = self.monitors[trial_id] = Monitor(metrics=[metric], stop_on=metric,
                                                            **monitor_options)
            monitor.log(result.get(step), **{metric: value})
            return monitor.should_stop

        def stop_all(self) -> bool:
            return False

    return SwarmstatsStopper()


def _lookup(result: dict, key: str):
    """``result[key]``, or the nested value that 'a/b' names."""
    if key in result:
        return result[key]
    value = result
    for part in key.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value
