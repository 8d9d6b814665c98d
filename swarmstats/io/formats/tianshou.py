"""What Tianshou's trainers print after each epoch's test, saved from a terminal (``tee``)::

    Epoch #1: test_reward: 9.400000 ± 0.489898, best_reward: 9.400000 ± 0.489898 in #1
    Epoch #2: test_reward: 21.000000, best_reward: 21.000000 in #2

(releases before 0.4.2 print no ``±`` spread), among tqdm's progress bars (``Epoch #1:
10001it [00:05, ..., rew=150.00]``), the configuration and anything else the script prints; a
``logging`` prefix before ``Epoch #`` is allowed.  Read as a log it stopped at "no numeric metric
column".

The step is the epoch.  ``test_reward`` is the mean return of the epoch's test episodes and
``test_reward_std`` their spread (no better side).  ``best_reward`` is not read: it is the best
test reward so far, a running maximum that rises in steps and never falls, which says nothing
the test rewards do not (noted).

>>> parse_line("Epoch #3: test_reward: 12.500000 ± 1.200000, best_reward: 15.000000 ± 0.500000 in #2")
(3.0, {'test_reward': 12.5, 'test_reward_std': 1.2})
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable

#: the summary of an epoch's test: its epoch, the mean test return and (from 0.4.2) their spread
_SUMMARY = re.compile(rf"(?:^|[\s:\]|-])Epoch #(?P<epoch>\d+): test_reward: (?P<reward>{PRINTED_NUMBER})"
                      rf"(?: ± (?P<spread>{PRINTED_NUMBER}))?, best_reward: ", re.IGNORECASE)
#: the phrase every summary holds, searched before the expression
PHRASE = ": test_reward: "


def parse_line(line: str) -> tuple[float, dict] | None:
    """(epoch, values) of a test summary line, else None."""
    if PHRASE not in line:  # (one substring search for every other line of the job)
        return None
    found = _SUMMARY.search(line)
    if found is None:
        return None
    values = {"test_reward": scalar(float(found["reward"]))}
    if found["spread"] is not None:
        values["test_reward_std"] = scalar(float(found["spread"]))
    return float(found["epoch"]), values


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a Tianshou test summary?"""
    if "#" not in head or PHRASE not in head:  # (a rare character first)
        return False
    return any(parse_line(line) is not None for line in head.splitlines() if PHRASE in line)


def read_printed(name: str, text: str) -> LogTable:
    """The test summaries of ``text`` as rows, one per epoch (module docstring)."""
    rows = [parsed for parsed in map(parse_line, text.splitlines()) if parsed is not None]
    if not rows:
        raise InputError(f"{name}: no Tianshou test summary ('Epoch #N: test_reward: ..., best_reward: ...')")
    columns = {"step": np.array([epoch for epoch, _ in rows], dtype=float),
               "test_reward": np.array([values["test_reward"] for _, values in rows], dtype=float)}
    if any("test_reward_std" in values for _, values in rows):
        columns["test_reward_std"] = np.array([values.get("test_reward_std", math.nan) for _, values in rows],
                                               dtype=float)
    notes = [f"{len(rows)} Tianshou test summary line(s), step = the epoch; best_reward not read "
             "(the best test reward so far: a running maximum)"]
    return LogTable(None, "tianshou-console", name, notes, arrays=columns, step_unit="epochs")
