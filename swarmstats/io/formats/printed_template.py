"""Printed lines of one form in no format swarmstats knows: what a hand-written loop prints in
its own words, saved from a terminal, pasted into a Markdown page or left in a notebook::

    running reward: 8.82 at episode 10                    (Keras' actor-critic example)
    Episode * 12 * Avg Reward is ==> -1287.4884456842617  (Keras' DDPG example)
     Epoch: 3. Mean Return: 27.39. Mean Length: 27.39     (Keras' PPO example)

Tried last: ``read_log`` reads a file so only where it would otherwise refuse it (a Markdown
page or a notebook in which no format found a log, a text file read as a table that held no
numeric column), or when ``--input-format printed-template`` names it.  Each line's numbers
are replaced by a mark; lines that then read the same are of one *form*.  A form is a log
when at least :data:`MIN_RECORDS` lines share it, a step key (``episode``, ``epoch``,
``step`` …, as :mod:`.printed_pairs` knows them) names one of its numbers, and words name at
least one other: each number is named by the words before it, back to the last separator
(``,`` ``;`` ``|`` ``*`` brackets, ``. ``, `` - ``, a colon) and the connecting words (``at``,
``is``, a logger's ``INFO``) left out - ``running reward``, ``episode``; ``Avg Reward``.  A
number no words name (a time stamp's, the total of ``Epoch 3/10``) is left out, and said so
when it varies.  Forms with the same step key are read together, lines at one step in a row
sharing a row; a step that goes back is left to the loader's rules (a new run, a resume).

Read as a table, such a log stopped at "no numeric metric column (columns: running reward:
8.82 at episode 10)"; in a Markdown page, at "no training log found".

>>> table = read_template("run.txt", "\\n".join(f"running reward: {r} at episode {e}"
...                       for r, e in ((8.8, 10), (23.0, 20), (28.4, 30), (53.6, 40), (53.7, 50))))
>>> table.frame.columns.tolist(), table.frame["running reward"].tolist()
(['step', 'running reward'], [8.8, 23.0, 28.4, 53.6, 53.7])
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ...errors import InputError
from ._table import LogTable, stepped_columns
from .notebooks import printed_text
from .printed_pairs import STEP_KEYS, unit

#: the fewest lines of one form read as a log: fewer is no series to judge, and a page's
#: prose repeats a sentence with two numbers in it now and then
MIN_RECORDS = 5
#: a printed number (signed, decimal or exponent, Python's nan and inf), not one inside a word
#: (``v1``, ``gpt2``) or a version (``0.5.1`` reads as two), with a unit it may carry
_NUMBER = re.compile(r"(?<![\w.])([-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf)"
                     r"(?:ms|s|%)?(?![\w])")
_DIGIT = re.compile(r"\d")
#: a line with more numbers than this prints an array (an observation, a weight matrix), not a
#: record: read as a form, 10,000 such lines would hold millions of values
MAX_NUMBERS = 100
#: where the words naming a number begin: after the last of these in the text before it
_SEPARATOR = re.compile(r"[,;|\t()\[\]{}*#<>]|\.\s|\s-\s|:|\s->\s|\s=>\s")
#: the connector between a name and its number, at the end of the text before it
_CONNECTOR = re.compile(r"[\s:=>*~-]+$")
#: words that join a name to its number or another name, never part of one
_JOINING = frozenset({"at", "is", "was", "are", "were", "in", "of", "on", "for", "after", "over", "the",
                      "with", "to", "by", "from", "and", "info", "debug", "warning", "error", "critical"})
#: a name has a letter in it
_LETTER = re.compile(r"[^\W\d_]")
#: the most words a name keeps (the last ones): more is a sentence
_NAME_WORDS = 4


def slot_name(before: str) -> str | None:
    """The name of a number from the text printed before it (module docstring), None when no
    words name it.

    >>> slot_name(" * Avg Reward is ==> "), slot_name(" at episode "), slot_name(". Mean Return: ")
    ('Avg Reward', 'episode', 'Mean Return')
    >>> slot_name("2024-05-01 10:01:00,123 INFO running reward: "), slot_name("/")
    ('running reward', None)
    """
    text = _CONNECTOR.sub("", before.strip())
    text = _SEPARATOR.split(text)[-1]
    words = text.split()
    while words and words[-1].lower() in _JOINING:
        words.pop()
    for at in range(len(words) - 1, -1, -1):  # (the words after the last joining word)
        if words[at].lower() in _JOINING:
            words = words[at + 1:]
            break
    name = " ".join(words[-_NAME_WORDS:]).strip(".:=-_ ")
    return name if _LETTER.search(name) else None


def _step_rank(name: str | None) -> int | None:
    """Where a name stands among the step keys (the most precise first), None if it is none."""
    if name is None:
        return None
    key = "_".join(name.lower().split())
    return STEP_KEYS.index(key) if key in STEP_KEYS else None


@dataclass
class _Form:
    """The lines of one form: their indices and numbers, the numbers' names."""

    first: str
    names: list
    lines: list
    values: list

    @property
    def step(self) -> int | None:
        """The index of the number its most precise step key names."""
        ranked = [(rank, at) for at, name in enumerate(self.names) if (rank := _step_rank(name)) is not None]
        return min(ranked)[1] if ranked else None

    def metrics(self) -> list:
        """The indices of the named numbers other than the step, a name once."""
        step, seen, kept = self.step, set(), []
        for at, name in enumerate(self.names):
            if at != step and name is not None and name not in seen:
                seen.add(name)
                kept.append(at)
        return kept


def line_form(line: str) -> tuple[tuple, list, list] | None:
    """(its form's key, the text before each number, the numbers) of a line holding two numbers
    or more, else None.  The key is the line's words with each number masked and each run of
    spaces made one (columns printed aligned are one form)."""
    if _DIGIT.search(line) is None:
        return None
    found = list(_NUMBER.finditer(line))
    if not 2 <= len(found) <= MAX_NUMBERS:
        return None
    befores, start = [], 0
    for match in found:
        befores.append(line[start:match.start()])
        start = match.end()
    key = (*(" ".join(before.split()) for before in befores), " ".join(line[start:].split()))
    return key, befores, [float(match.group(1)) for match in found]


def _forms(text: str) -> list:
    """The forms of ``text``'s lines that hold two numbers or more, in the order first seen."""
    forms: dict = {}
    for index, line in enumerate(text.splitlines()):
        parsed = line_form(line)
        if parsed is None:
            continue
        key, befores, values = parsed
        form = forms.get(key)
        if form is None:
            form = forms[key] = _Form(line.strip(), [slot_name(before) for before in befores], [], [])
        form.lines.append(index)
        form.values.append(values)
    return list(forms.values())


def _read_forms(text: str) -> tuple[list, str] | None:
    """The forms read as the log and their step key's name, else None: the most frequent form
    that is a log (module docstring), and every other with its step key."""
    logs = [form for form in _forms(text)
            if len(form.lines) >= MIN_RECORDS and form.step is not None and form.metrics()]
    if not logs:
        return None
    chosen = max(logs, key=lambda form: len(form.lines))
    axis = chosen.names[chosen.step]
    key = _step_rank(axis)
    return [form for form in logs if _step_rank(form.names[form.step]) == key], axis


class FormFollower:
    """The lines of a log being written, fed one at a time (``watch``): :meth:`feed` gives, once
    a form has made a log (:data:`MIN_RECORDS` lines of it, as ``read_log`` reads them), the
    records of every line held until then that it reads, and after that each line's record.
    Forms are told apart as ``read_log`` tells them; the step key is that of the first form to
    make a log, and another form with it is read from the line that makes it a log on (its
    earlier lines would come after later steps)."""

    def __init__(self):
        self.axis: str | None = None
        self._forms: dict = {}  # key -> _Form of the lines held (their values)
        self._open: set = set()  # the keys read

    def feed(self, line: str) -> list:
        """The ``(step, values)`` records ``line`` gives (module docstring), in order."""
        parsed = line_form(line)
        if parsed is None:
            return []
        key, befores, values = parsed
        form = self._forms.get(key)
        if form is None:
            form = self._forms[key] = _Form(line.strip(), [slot_name(before) for before in befores], [], [])
        if key in self._open:
            return [_record(form, values)]
        form.lines.append(len(form.lines))
        form.values.append(values)
        if len(form.lines) < MIN_RECORDS or form.step is None or not form.metrics():
            return []
        axis = form.names[form.step]
        if self.axis is None:
            self.axis = axis
        elif _step_rank(axis) != _step_rank(self.axis):
            return []
        self._open.add(key)
        held = form.values if len(self._open) == 1 else form.values[-1:]
        form.values = []
        return [_record(form, row) for row in held]


def _record(form: _Form, row: list) -> tuple:
    return row[form.step], {form.names[at]: row[at] for at in form.metrics()}


def is_template_text(text: str, base: str = "") -> bool:
    """Do lines of one form in ``text`` make a log (module docstring)?"""
    return _read_forms(text) is not None


def read_template(name: str, text: str) -> LogTable:
    """The log in ``text``'s lines of one form (module docstring); a notebook's from what its
    cells printed.  InputError when no form makes one."""
    if name.lower().endswith(".ipynb"):
        text = printed_text(name, text)
    found = _read_forms(text)
    if found is None:
        raise InputError(f"{name}: no {MIN_RECORDS} printed lines of one form hold a step key "
                         f"({', '.join(STEP_KEYS[:6])} ...) and another number named by the words before it")
    forms, axis = found
    records, unnamed = [], 0
    for form in forms:
        step, kept = form.step, form.metrics()
        dropped = [at for at, name in enumerate(form.names) if name is None]
        unnamed = max(unnamed, sum(len({row[at] for row in form.values}) > 1 for at in dropped))
        records += [(index, row[step], {form.names[at]: row[at] for at in kept})
                    for index, row in zip(form.lines, form.values)]
    records.sort(key=lambda record: record[0])
    columns = stepped_columns([(step, values) for _, step, values in records if not math.isnan(step)])
    read_lines = {index for form in forms for index in form.lines}
    skipped = sum(1 for index, line in enumerate(text.splitlines()) if line.strip() and index not in read_lines)
    shown = ", ".join(repr(form.first) for form in forms[:2]) + (" ..." if len(forms) > 2 else "")
    names = [key for key in columns if key != "step"]
    notes = [f"{len(records)} printed line(s) like {shown} read as {', '.join(map(repr, names))} by {axis!r} "
             "(in no format swarmstats knows: each number named by the words printed before it)"
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    if unnamed:
        notes.append(f"left out: {unnamed} number(s) on each line with no words before them, which vary from "
                     "line to line")
    without = sum(1 for _, step, _ in records if math.isnan(step))
    if without:
        notes.append(f"{without} line(s) whose {axis!r} is not a number left out")
    if not len(columns["step"]):
        raise InputError(f"{name}: no printed line of the form {forms[0].first!r} has a number for {axis!r}")
    return LogTable(None, "printed-template", name, notes, arrays=columns, step_unit=unit(_axis_key(axis)))


def _axis_key(axis: str) -> str:
    return "_".join(axis.lower().split())


__all__ = ["MIN_RECORDS", "is_template_text", "read_template", "slot_name"]
