"""A run on an MLflow tracking server, followed as a growing file is: the values logged
since the last poll."""

from __future__ import annotations

import math

from ...errors import InputError
from .. import mlflow_server


class ServerFollower:
    """A run on an MLflow tracking server, followed as :class:`~swarmstats.io.follow.Follower` follows a file: each
    poll reads the run's metric histories again and hands on the values logged since the last
    one, a record per (step, metric).  A server that stops answering is an event, not the end
    of the watch: the next poll tries again."""

    def __init__(self, source: str):
        self.path = source
        self.skipped, self.first_skip = 0, None
        self.events: list[tuple[str, str]] = []
        self.restarted = False
        self.verl = False  # (see Follower)
        self._poller = mlflow_server.RunPoller(source)  # an unknown run, no server: exit 2 now
        self._down = False

    @staticmethod
    def step_unit(step_key: str | None) -> str | None:
        """MLflow's steps are the run's own: "steps"."""
        return None

    @staticmethod
    def planned_steps(record: dict) -> float | None:
        """An MLflow run's metric history states no planned end."""
        return None

    def records(self) -> list[dict]:
        try:
            points = self._poller.new_points()
        except InputError as exc:
            if not self._down:
                self._down = True
                self.events.append(("unreadable", f"{exc}; waiting"))
            return []
        self._down = False
        self.restarted = self._poller.restarted
        # a NaN logged to MLflow is a missing value, as read_log reads it
        return [{"step": int(step) if float(step).is_integer() else float(step), metric: value}
                for step, metric, value in zip(points["step"], points["metric"], points["value"])
                if math.isfinite(value)]

    def take_events(self) -> list:
        events, self.events = self.events, []
        return events

    def close(self) -> None:
        pass
