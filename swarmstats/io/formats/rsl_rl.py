"""What rsl_rl's on-policy runner prints (legged_gym, Isaac Lab, and the robot-learning code
built on them), saved from a terminal with ``tee``: a block per learning iteration::

    ################################################################################
                           Learning iteration 12/1500

                           Computation: 52305 steps/s (collection: 1.624s, learning 0.256s)
                 Mean action noise std: 0.97
              Mean value_function loss: 0.0134
                           Mean reward: 1.23
                   Mean episode length: 48.26
     Episode_Reward/track_lin_vel_xy_exp: 0.2145
    --------------------------------------------------------------------------------
                       Total timesteps: 983040
                        Iteration time: 1.88s
                          Time elapsed: 00:00:20
                                   ETA: 00:46:40

Each ``name: value`` line of a block is a column named as printed (releases before 2.0 print
``Value function loss``, ``Mean episode rew_<term>`` and ``Total time: 20.6s``; 3.x
``Steps per second``), a time printed as ``H:MM:SS`` read in seconds; the ``Computation`` line,
a rate with its parts in words, is not a number and is left out.  The step is the iteration,
as in the TensorBoard log the same runner writes.  Before the first episode ends a block holds
no reward (its losses are printed without ``Mean``).  Read as a log it stopped at "not valid
JSON".

>>> reader = BlockReader()
>>> [reader.feed(line) for line in [" Learning iteration 3/10 ", "  Mean reward: 1.50", "   ETA: 00:01:05"]]
[None, None, {'step': 3.0, 'Mean reward': 1.5, 'ETA': 65.0}]
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable
from .console import visible

#: the line that opens a block: the iteration and the iterations asked for
_BANNER = re.compile(r"^\s*Learning iteration (\d+)/(\d+)\s*$")
#: ``name: number`` (a duration with its ``s``), the name as printed
_ITEM = re.compile(rf"^\s*(?P<name>[A-Za-z][^:]*?):\s+(?P<value>{PRINTED_NUMBER})s?\s*$")
#: ``name: H:MM:SS`` (``time.strftime``'s, or ``timedelta``'s ``1 day, 2:03:04``): in seconds
_CLOCK = re.compile(r"^\s*(?P<name>[A-Za-z][^:]*?):\s+(?:(?P<days>\d+) days?, )?(?P<hours>\d+):(?P<minutes>\d\d):"
                    r"(?P<seconds>\d\d(?:\.\d*)?)\s*$")
#: lines inside a block that hold no value: a blank line, the rules of '#' and '-' ...
#: ... and a number with words after it (``Computation: 52305 steps/s (collection: ...)``)
_RATE = re.compile(r"^\s*[A-Za-z][^:]*:\s+[-+]?\d")
_RULE = re.compile(r"^\s*(#{10,}|-{10,})?\s*$")


def _item(line: str) -> tuple[str, float] | None | bool:
    """(name, value) of a block's line; True for a line of the block without a value (a rule, a
    blank, the Computation line's words); None for a line that is not the block's."""
    found = _ITEM.match(line)
    if found is not None:
        return found["name"].strip(), scalar(float(found["value"]))
    found = _CLOCK.match(line)
    if found is not None:
        seconds = (int(found["days"] or 0) * 86400 + int(found["hours"]) * 3600 + int(found["minutes"]) * 60
                   + float(found["seconds"]))
        return found["name"].strip(), seconds
    return True if _RULE.match(line) or _RATE.match(line) else None


class BlockReader:
    """The iteration blocks of printed text, fed a line at a time (a whole file, or a file being
    written: ``swarmstats watch``): :meth:`feed` returns each block as a record (``step`` and the
    values) once a line after it shows it is complete."""

    def __init__(self):
        self._block: dict | None = None

    def feed(self, line: str) -> dict | None:
        """The block ``line`` completes, if any."""
        if "\x1b" in line:
            line = visible(line)  # (the banner is printed in bold)
        banner = _BANNER.search(line) if "Learning iteration" in line else None
        if banner is not None:
            done, self._block = self._block, {"step": float(banner.group(1))}
            return _named_as_read(done)
        if self._block is None:
            return None
        item = _item(line)
        if item is None:  # the script's own output after the block: the block is whole
            return self.finish()
        if item is not True:
            self._block[item[0]] = item[1]
            if item[0] == "ETA":  # every release prints it last: the block is whole (a
                return self.finish()  # followed log that ends with its last block gives it)
        return None

    def finish(self) -> dict | None:
        """The block in progress (at the end of a whole text, complete), if any."""
        done, self._block = self._block, None
        return _named_as_read(done)


#: what rsl_rl prints as ``Mean entropy loss`` is the policy's mean entropy (its PPO returns
#: the entropy under the loss dictionary's ``entropy`` key), not a loss to minimise: read under
#: the name of what it is, a diagnostic with no better side
ENTROPY_PRINTED, ENTROPY = "Mean entropy loss", "Mean entropy"


def _named_as_read(block: dict | None) -> dict | None:
    """A block printed before the first episode ended names its losses by their keys alone
    (``value_function: 0.0850``, where the blocks after print ``Mean value_function loss``):
    named as later, one column, not two.  (rsl_rl's episode terms hold a ``/`` or a capital,
    releases before 2.0 print ``Value function loss`` in every block.)  The entropy printed as
    a loss is named :data:`ENTROPY`."""
    if block is None:
        return block
    if "Mean reward" not in block:
        block = {(f"Mean {key} loss" if re.fullmatch(r"[a-z][a-z0-9_]*", key) else key): value
                 for key, value in block.items() if key != "step"} | {"step": block["step"]}
    if ENTROPY_PRINTED in block:
        block = {(ENTROPY if key == ENTROPY_PRINTED else key): value for key, value in block.items()}
    return block


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold an rsl_rl iteration block?"""
    if "/" not in head or "L" not in head or "Learning iteration " not in head:  # (rare characters first)
        return False
    return any(_BANNER.match(visible(line) if "\x1b" in line else line)
               for line in head.splitlines() if "Learning iteration " in line)


def read_printed(name: str, text: str) -> LogTable:
    """The iteration blocks of ``text`` as rows (module docstring); an iteration back to where a
    run began, or to a later one, is left to the loader's rules (a new run, a resume)."""
    lines = text.splitlines()
    if lines and not text.endswith(("\n", "\r")):
        lines.pop()  # a line still being written: "0.49" of what will read "0.4973"
    reader = BlockReader()
    blocks = [block for block in map(reader.feed, lines) if block is not None]
    blocks += [block for block in [reader.finish()] if block is not None]
    if not blocks:
        raise InputError(f"{name}: no rsl_rl iteration block ('Learning iteration N/M', then 'name: value' lines)")
    keys = list(dict.fromkeys(key for block in blocks for key in block if key != "step"))
    arrays = {"step": np.array([block["step"] for block in blocks], dtype=float)}
    arrays.update({key: np.array([block.get(key, math.nan) for block in blocks], dtype=float) for key in keys})
    without = sum("Mean reward" not in block for block in blocks)
    notes = [f"{len(blocks)} iteration block(s) printed by rsl_rl's runner, step = the learning iteration"]
    if without and without < len(blocks):
        notes.append(f"{without} block(s) before the first episode ended: no reward there")
    if ENTROPY in arrays:
        notes.append(f"{ENTROPY_PRINTED!r} read as {ENTROPY!r}: rsl_rl prints the policy's entropy "
                     "under that name, not a loss (no better side)")
    return LogTable(None, "rsl-rl-console", name, notes, arrays=arrays, step_unit="iterations")
