"""What DeepMind Acme's ``TerminalLogger`` prints, saved from a terminal (``tee``, a job's
output file)::

    I1201 10:00:00.123456 140234 terminal.py:91] [Actor] Actor Episodes = 12 | Actor Steps = 2400 | Episode Length = 200 | Episode Return = 31.000 | Steps Per Second = 1234.567
    [Evaluator] Actor Steps = 2400 | Episode Length = 200 | Episode Return = 45.000 | Evaluator Episodes = 3 | ...
    [Learner] Learner Steps = 500 | Learner Walltime = 12.345 | Loss = 0.123

Each line is one ``write`` of a labelled logger: ``[Label]``, then its values sorted by key, each
key's ``_`` printed as a space and title-cased, ``|`` between them (by ``logging.info``, behind
absl's or logging's prefix, or by ``print``).  Read as a log it stopped at "not valid JSON"
(its first character is a ``[``).

Each value is read under the key Acme's CSV logger would write for it in that label's file:
``actor/episode_return``, ``evaluator/episode_return``, ``learner/loss``.  The step is
``actor_steps``, the environment steps the x-axis of Acme's own plots counts (the counts of a
label's own episodes and steps beside it are counters); a line that does not carry it - a
learner counting only its own steps - is left out, and the note says whose.  A log with no
``Actor Steps`` at all is stepped by the first line's own ``... Steps`` count.

>>> parse_line("[Evaluator] Actor Steps = 2400 | Episode Return = 45.000 | Policy = greedy")
('evaluator', {'actor_steps': 2400.0, 'episode_return': 45.0})
"""

from __future__ import annotations

import re

import pandas as pd

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, sparse_to_wide

#: a logger's line: ``[Label] Key = value | Key = value ...`` (after any prefix), its keys in
#: words, each beginning with a capital as ``str.title`` prints them
_LINE = re.compile(r"(?:^|\s|\])\[(?P<label>[A-Z][\w ]*)\] (?P<body>[A-Z0-9][\w /.-]* = [^|]*(?: \| [A-Z0-9][\w /.-]* = [^|]*)+)$")
#: one value: a number as Acme prints it (a float to three places, an integer as it is)
_NUMBER = re.compile(rf"\s*({PRINTED_NUMBER})\s*$", re.IGNORECASE)
#: the environment steps every label's line carries when the loggers share a counter
AXIS = "actor_steps"


def key_of(printed: str) -> str:
    """The key Acme logged, from the words it printed (``Episode Return`` -> ``episode_return``)."""
    return printed.strip().lower().replace(" ", "_")


def parse_line(line: str) -> tuple[str, dict] | None:
    """(the label, the numbers under their keys) of a terminal logger's line with at least two
    numbers, else None.  A value that is not one number (a string, an array) is left out."""
    if " = " not in line or "] " not in line:  # (two substring searches for every other line)
        return None
    found = _LINE.search(line.rstrip())
    if found is None:
        return None
    values = {}
    for field in found["body"].split(" | "):
        key, _, value = field.partition(" = ")
        number = _NUMBER.match(value)
        if number is not None:
            values[key_of(key)] = scalar(float(number.group(1)))
    return (key_of(found["label"]), values) if len(values) >= 2 else None


def step_key(values: dict) -> str | None:
    """The step of a log whose first line holds ``values`` and none ``actor_steps``: its first
    ``..._steps`` count (``actor_steps`` when it holds it)."""
    if AXIS in values:
        return AXIS
    return next((key for key in values if key.endswith("_steps")), None)


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold an Acme terminal logger's line?"""
    if "|" not in head or "=" not in head or "[" not in head or " = " not in head:  # (rare characters first)
        return False
    return any(parse_line(line) is not None for line in head.splitlines()[:400] if " = " in line)


def read_printed(name: str, text: str) -> LogTable:
    """The logged lines of ``text`` as rows on ``actor_steps`` (module docstring)."""
    lines = [parsed for parsed in map(parse_line, text.splitlines()) if parsed is not None]
    if not lines:
        raise InputError(f"{name}: no Acme terminal logger line ('[Actor] Actor Steps = 200 | Episode Return = 12.000')")
    axis = AXIS if any(AXIS in logged for _, logged in lines) else step_key(lines[0][1])
    if axis is None:
        raise InputError(f"{name}: Acme's lines carry no step count ('Actor Steps = ...'): nothing to put them in order by")
    steps, metrics, values, left_out = [], [], [], {}
    for label, logged in lines:
        if axis not in logged:
            left_out[label] = left_out.get(label, 0) + 1
            continue
        for key, value in logged.items():
            if key != axis:
                steps.append(logged[axis])
                metrics.append(f"{label}/{key}")
                values.append(value)
    if not steps:
        raise InputError(f"{name}: no Acme line carries {axis!r}, the step")
    notes = [f"{len(lines) - sum(left_out.values())} Acme terminal logger line(s), step = {axis}; each value "
             "named as Acme's CSV logger names it in its label's file (actor/episode_return)"]
    if left_out:
        notes.append("left out, without " + repr(axis) + ": " + ", ".join(
            f"{count} {label} line(s)" for label, count in left_out.items())
                     + " (a learner counting only its own steps: its CSV file, logs/learner/logs.csv, is read on them)")
    frame = sparse_to_wide(pd.DataFrame({"step": steps, "metric": metrics, "value": values}))
    return LogTable(frame, "acme-console", name, notes, step_unit=axis.replace("_", " "))
