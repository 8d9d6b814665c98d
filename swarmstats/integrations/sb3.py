"""Stable-Baselines3: a ``BaseCallback`` logging finished episodes."""

from __future__ import annotations

from . import monitor_for, require


def callback(monitor=None, *, stop: bool = True, **monitor_options):
    """A Stable-Baselines3 callback: every finished episode (``infos[i]["episode"]``, which the
    Monitor wrapper adds) is logged as ``episode_reward`` and ``episode_length`` at
    ``num_timesteps``; training stops (``_on_step`` returns False) once the Monitor says so.

        model.learn(total_timesteps=100_000, callback=callback(metrics=["episode_reward"]))
    """
    callbacks = require("stable_baselines3.common.callbacks", "sb3")
    options = {"metrics": ["episode_reward", "episode_length"], "stop_on": "episode_reward",
               **monitor_options} if monitor is None else monitor_options
    tracker = monitor_for(monitor, options)

    class SwarmstatsCallback(callbacks.BaseCallback):
        """Feeds finished episodes to a swarmstats Monitor (``.monitor``)."""

        def __init__(self):
            super().__init__()
            self.monitor = tracker
            self.stop = stop

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", ()):
                episode = info.get("episode") if isinstance(info, dict) else None
                if episode:
                    self.monitor.log(self.num_timesteps, episode_reward=episode["r"],
                                     episode_length=episode["l"])
            return not (self.stop and self.monitor.should_stop)

    return SwarmstatsCallback()
