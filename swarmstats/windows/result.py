"""A whole series' window states (:class:`WindowResult`): the table and its summary."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt, fmt_interval


@dataclass(frozen=True, repr=False)
class WindowResult(Result):
    """Per-step window states of a whole series (``table``) and their summary."""

    name: str | None
    n: int
    table: pd.DataFrame
    changes: list
    status_counts: dict
    final_status: str
    final_reason: str
    min_length: int
    max_length: int
    precision: float | None
    alpha: float
    notes: list = field(default_factory=list)
    better: str | None = "higher"  # None: a diagnostic with no better side (rising / falling)
    #: steps per point: > 1 when the window followed the means of consecutive blocks of a
    #: longer series (:func:`window_input`)
    block: int = 1
    _values: np.ndarray | None = None

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.pop("table", None)
        return out

    def _span(self) -> str:
        if self.block == 1:
            return f"{self.n:,} points"  # (logged points: on an SB3 log 100 of them span 25,600 timesteps)
        return f"{self.n:,} points, each the mean of {self.block} steps"

    def summary(self) -> str:
        name = f"{self.name}: " if self.name else ""
        moving = ("rising", "falling") if self.better is None else ("improving", "degrading")
        shares = ", ".join(f"{status} {self.status_counts.get(status, 0) / self.n:.0%}"
                           for status in moving + ("stable", "uncertain"))
        side = "no better side" if self.better is None else f"{self.better} is better"
        last = self.table.iloc[-1]
        if self.n < self.min_length:
            # the mean of a few points is no level: six evaluations of a loss falling 15.4 ->
            # 0.30 read "level now 3.183" (the window's table keeps that mean, as it says)
            level = (f"  level now not judged ({self.n} of the {self.min_length} points needed); the last "
                     f"value is {fmt(last['value'])}, the values so far lie in [{fmt(self.table['value'].min())}, "
                     f"{fmt(self.table['value'].max())}] ({side})")
        else:
            level = (f"  level now {fmt_interval(last['level'], last['level_low'], last['level_high'])}; "
                     f"window {int(last['length'])} points, mean "
                     f"{fmt_interval(last['mean'], last['ci_low'], last['ci_high'])} ({side})")
        lines = [f"{name}now {self.final_status} - {self.final_reason}", level,
                 f"  over {self._span()}: {shares}; {len(self.changes)} change(s)"]
        for change in self.changes[:10]:
            lines.append(f"  change at step {change['start']} (seen at {change['step']}): "
                         f"{change['direction']} by {fmt(abs(change['shift']), 3)} "
                         f"({fmt(abs(change['shift_sds']), 2)} noise SDs)")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)
