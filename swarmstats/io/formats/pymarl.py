"""What pymarl prints: its logger's "Recent Stats" blocks (sacred's ``cout.txt``, a terminal
capture, a ``nohup.out``)::

    [INFO 22:41:12] my_main Recent Stats | t_env:      10001 | Episode:      258
    battle_won_mean:           0.0000	dead_allies_mean:         10.0000	...
    test_return_mean:          1.9843	test_return_std:           1.0594

pymarl (and the codebases built on it: epymarl, pymarl2) prints every statistic it has logged,
four to a line, every ``log_interval`` timesteps, at the ``t_env`` of the latest episode.  What
it prints is not the value logged last but the mean of the last five values logged (epsilon:
the last one), to four decimals (``utils/logging.py``, ``print_recent_stats``): a moving
average, smoother and more autocorrelated than the statistic, which the note says.  The run's
sacred folder holds the values themselves (``info.json``, read as ``pymarl-info``).

>>> text = ("[INFO 22:41:12] my_main Recent Stats | t_env:      10001 | Episode:      258\\n"
...         "loss:                      0.0518\\treturn_mean:               1.7322\\t\\n"
...         "[INFO 22:41:13] my_main t_env: 10040 / 2050000\\n")
>>> read_console("cout.txt", text).frame.to_dict("list")
{'step': [10001.0], 'episode': [258.0], 'loss': [0.0518], 'return_mean': [1.7322]}
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...errors import InputError
from ._table import LogTable, printed_number
from .console import visible
from .notebooks import printed_text

#: the line that opens a block: the t_env and the episode count it was printed at
_HEADER = re.compile(r"Recent Stats \| t_env:\s*(\d+) \| Episode:\s*(\d+)")
#: one printed statistic: ``"{:<25}{:>8}".format(key + ":", "{:.4f}")`` - a key of 24
#: characters or more runs into its value ("test_dead_enemies_mean_x:12.5000")
_ITEM = re.compile(r"^\s*([^\s:]+):\s*(\S+)\s*$")
#: how many logged values each printed statistic averages (epsilon: 1)
PRINTED_WINDOW = 5


def is_console_head(head: str, base: str) -> bool:
    """Does the start of a file hold pymarl's printed statistics?"""
    # a one-character search before the phrase's (~0.1 against ~4 us on 14 KB of a table of numbers)
    return "|" in head and "Recent Stats | t_env:" in head and _HEADER.search(head) is not None


def _block_items(line: str) -> list | None:
    """The (key, printed value) pairs of one line of a block; None for a line that is not one
    (the end of the block: the next log line, a blank line)."""
    items = [item for item in line.split("\t") if item.strip()]
    if not items:
        return None
    pairs = [_ITEM.match(item) for item in items]
    if not all(pairs):
        return None
    return [(match.group(1), match.group(2)) for match in pairs]


class BlockReader:
    """The Recent Stats blocks of printed text, fed a line at a time (a whole file, or a file
    being written: ``swarmstats watch``): :meth:`feed` returns each block as a record (``step``,
    ``episode`` and the statistics) once the line after it shows it is complete."""

    def __init__(self):
        self._block: dict | None = None
        self.unreadable = 0  # printed values that are not numbers

    def feed(self, line: str) -> dict | None:
        """The block ``line`` completes, if any."""
        line = visible(line)
        header = _HEADER.search(line) if "Recent Stats" in line else None
        if header is not None:
            done, self._block = self._block, {"step": float(header.group(1)),
                                              "episode": float(header.group(2))}
            return done
        if self._block is None:
            return None
        items = _block_items(line)
        if items is None:
            return self.finish()
        for key, printed in items:
            number = printed_number(printed)
            if number is None:
                self.unreadable += 1
            else:
                self._block[key] = number
        return None

    def finish(self) -> dict | None:
        """The block in progress (at the end of a whole text, complete), if any."""
        done, self._block = self._block, None
        return done


def read_console(name: str, text: str) -> LogTable:
    """The Recent Stats blocks of ``text`` as a table, one row per block (module docstring); a
    t_env back at or below the first block's is a new run."""
    lines = text.splitlines()
    if name.lower().endswith(".ipynb"):
        lines = printed_text(name, text).splitlines()
    elif lines and not text.endswith(("\n", "\r")):
        lines.pop()  # a line still being written: "0.49" of what will read "0.4973"
    reader = BlockReader()
    blocks = [block for block in map(reader.feed, lines) if block is not None]
    blocks += [block for block in [reader.finish()] if block is not None]
    rows, steps, runs = [], [], []
    run, first = 1, None
    for block in blocks:
        step = block.pop("step")
        if first is not None and step <= first:
            run += 1  # a new run printed after the last (pymarl counts t_env from 0)
        if first is None or step <= first:
            first = step
        rows.append(block)
        steps.append(step)
        runs.append(run)
    unreadable = reader.unreadable
    if not rows:
        raise InputError(f"{name}: no pymarl statistics found (pymarl prints a 'Recent Stats | "
                         "t_env: N | Episode: M' line, then the statistics)")
    keys = list(dict.fromkeys(key for row in rows for key in row))
    columns = {key: np.array([row.get(key, math.nan) for row in rows]) for key in keys}
    arrays = {"step": np.array(steps), **columns}
    notes = [f"{len(rows)} block(s) of statistics printed by pymarl: each value is the mean of the "
             f"last {PRINTED_WINDOW} logged (epsilon: the last), to 4 decimals - a moving average, "
             "smoother than the statistic; the run's sacred info.json holds the values themselves"]
    if unreadable:
        notes.append(f"{unreadable} printed value(s) that are not numbers left out")
    if run > 1:
        arrays = {"run": np.array([f"#{label}" for label in runs], dtype=object), **arrays}
        notes.append(f"{run} runs printed one after another (t_env back to the start ends one)")
    return LogTable(None, "pymarl-console", name, notes, arrays=arrays, step_unit="timesteps")
