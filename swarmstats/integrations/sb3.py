"""Stable-Baselines3: a ``BaseCallback`` logging finished episodes."""

from __future__ import annotations

from . import AUTO, check_budget, monitor_for, plan_budget, require


def callback(monitor=None, *, stop: bool = True, budget=AUTO, **monitor_options):
    """A Stable-Baselines3 callback: every finished episode (``infos[i]["episode"]``, which the
    Monitor wrapper adds) is logged as ``episode_reward`` and ``episode_length`` at
    ``num_timesteps``; training stops (``_on_step`` returns False) once the Monitor says so.

    ``budget`` is the step the run ends at: with "auto" (the default) it is read from the
    ``total_timesteps`` given to ``learn`` when training starts, so a stop means that training
    on to the end would change the metric's mean by less than the tolerance; None claims
    flatness only over the next stretch as long as the part kept (stops sooner; a slow climb may
    be stopped).  A budget set on a given Monitor is kept.

        model.learn(total_timesteps=100_000, callback=callback(metrics=["episode_reward"]))
    """
    callbacks = require("stable_baselines3.common.callbacks", "sb3")
    check_budget(budget)
    # (its reasons count SB3's timesteps, as check-convergence names a progress.csv's)
    options = {"metrics": ["episode_reward", "episode_length"], "stop_on": "episode_reward",
               "step_unit": "timesteps", **monitor_options} if monitor is None else monitor_options
    tracker = monitor_for(monitor, options)

    class SwarmstatsCallback(callbacks.BaseCallback):
        """Feeds finished episodes to a swarmstats Monitor (``.monitor``)."""

        def __init__(self):
            super().__init__()
            self.monitor = tracker
            self.stop = stop

        def _on_training_start(self) -> None:
            # learn()'s locals: total_timesteps already counts the timesteps done before
            plan_budget(self.monitor, budget, self.locals.get("total_timesteps"))

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", ()):
                episode = info.get("episode") if isinstance(info, dict) else None
                if episode:
                    self.monitor.log(self.num_timesteps, episode_reward=episode["r"],
                                     episode_length=episode["l"])
            return not (self.stop and self.monitor.should_stop)

    return SwarmstatsCallback()
