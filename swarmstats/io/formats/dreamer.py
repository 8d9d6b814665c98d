"""What the Dreamer agents print - Danijar Hafner's DreamerV1 and DreamerV2 and the PyTorch ports
built on them (dreamer-torch, dreamerv3-torch) - saved from a terminal (``tee``, a job's output)::

    [10000] train_return 312.5 / train_length 1000 / train_episodes 10
    [10000] model_loss 4.21 / reward_loss 0.35 / kl 1.2e-3 / actor_ent 1.05 / fps 23.4

A line is one write of the agent's logger: the environment step in brackets, then each scalar
as ``name value``, ``/`` between them.  Values are printed short: ``0``, two decimals at most
between 0.01 and 10,000, else a mantissa and exponent (``1.2e-3``, ``2.5e4``).  Read as a log
it stopped at "no numeric metric column" (its first lines are the job's own messages).

Each name is a column; writes at one step in a row (the episodes' statistics, then the model's
losses) share a row.  The step is the environment step the agent counts (with its action
repeat: DreamerV2's ``Logger`` multiplies by it), so slopes are per 100 steps.  The counts the
agent logs beside (``train_total_steps``, ``train_episodes``) are counters and ``fps`` a
throughput, left out as the table's other bookkeeping.

>>> parse_line("[10000] model_loss 4.21 / kl 1.2e-3 / fps 23.4")
(10000.0, {'model_loss': 4.21, 'kl': 0.0012, 'fps': 23.4})
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns

_LINE = re.compile(r"^\[(\d+)\] (\S.*)$")
#: one scalar: its name (``train_return``; DreamerV3's ``episode/score``), a space, its value
_SCALAR = re.compile(rf"^([A-Za-z_][\w./-]*) ({PRINTED_NUMBER})$", re.IGNORECASE)


def parse_line(line: str) -> tuple[float, dict] | None:
    """(step, scalars) of a logger's line, every part of which is ``name value``, else None."""
    if not line.startswith("[") or (" / " not in line and line.count(" ") != 2):
        return None  # (two byte tests for every other line of the job: "[12] loss 0.5" has one part)
    found = _LINE.match(line.rstrip())
    if found is None:
        return None
    scalars = {}
    for part in found.group(2).split(" / "):
        value = _SCALAR.match(part.strip())
        if value is None:
            return None  # a line of text in brackets ("[1] Create envs.") is no record
        scalars[value.group(1)] = scalar(float(value.group(2)))  # (a NaN printed: logged)
    return float(found.group(1)), scalars


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold two of a Dreamer logger's lines (one in a head of two lines)?"""
    if not _a_line_opens_a_bracket(head):
        return False
    lines = [line for line in head.splitlines() if line.strip()]
    found = 0
    for line in lines[:400]:
        if parse_line(line) is not None:
            found += 1
            if found == 2:
                return True
    return found == 1 and len(lines) <= 2


def _a_line_opens_a_bracket(head: str) -> bool:
    """Does a line of ``head`` begin with ``[``?  Found from the brackets (a table's printed lists
    hold a few dozen, ~0.1 us each), where searching for ``\n[`` took ~0.1 ms on a 64 KiB head."""
    at = head.find("[")
    for _ in range(256):
        if at <= 0:
            return at == 0
        if head[at - 1] == "\n":
            return True
        at = head.find("[", at + 1)
    return "\n[" in head  # (a head full of brackets)


def read_printed(name: str, text: str) -> LogTable:
    """The logger's lines of ``text`` as rows (module docstring)."""
    records, skipped = fed_lines(parse_line, text)
    if not records:
        raise InputError(f"{name}: no Dreamer logger line ('[10000] train_return 312.5 / train_length 1000')")
    columns = stepped_columns(records)
    notes = [f"{len(columns['step'])} step(s) of a Dreamer logger's lines ('[step] name value / ...'), step = the "
             "environment step" + (f"; {skipped} other line(s) skipped" if skipped else "")]
    return LogTable(None, "dreamer-console", name, notes, arrays=columns, step_unit="steps")
