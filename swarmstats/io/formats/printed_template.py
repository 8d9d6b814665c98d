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
when it varies.  Forms with the same step key are read together (another form from its
second line), lines at one step in a row sharing a row; a step that goes back is left to the
loader's rules (a new run, a resume).  A form whose lines repeat their step and print a count
within it, ``| epoch 3 |  200/ 2983 batches | ...`` (PyTorch's word-language-model example), is
read on ``(epoch - 1) x total + count`` and the other forms at their epoch's end
(:meth:`_Form.count`).

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
#: ... and the fewest of another form read with that log, by the same step key
MIN_COMPANION_RECORDS = 2
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
    >>> slot_name(" - epoch 0: {'accuracy': ")     # Accelerate's examples print a dict of metrics
    'accuracy'
    >>> slot_name("📊 Epoch ")
    'Epoch'
    """
    text = _CONNECTOR.sub("", before.strip())
    text = _SEPARATOR.split(text)[-1]
    words = [word for word in text.split() if _LETTER.search(word)]  # (not a mark: "📊 Epoch", "==> loss")
    while words and words[-1].lower() in _JOINING:
        words.pop()
    for at in range(len(words) - 1, -1, -1):  # (the words after the last joining word)
        if words[at].lower() in _JOINING:
            words = words[at + 1:]
            break
    name = " ".join(words[-_NAME_WORDS:]).strip(".:=-_ '\"")  # (a printed dict's keys are quoted)
    return name if _LETTER.search(name) else None


def _names(befores: list) -> list:
    """The name of each number of a line from the text before it (:func:`slot_name`); a line
    that begins with a number in brackets, XGBoost's and LightGBM's ``[10]\tvalid_0's l2:
    0.53``, counts its boosting rounds there: ``round``.

    >>> _names(["[", "]\tvalidation_0-logloss:"]), _names(["", " at episode "])
    (['round', 'validation_0-logloss'], [None, 'episode'])
    """
    names = [slot_name(before) for before in befores]
    if len(befores) > 1 and befores[0].strip() == "[" and befores[1].startswith("]") and names[0] is None:
        names[0] = "round"
    return names


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
    key: tuple = ()  # the text before each number (spaces made one), and after the last
    phase: str = ""  # in a header-led block, the phase its line begins with (train, val ...)
    echoes: frozenset = frozenset()  # numbers that print the line's step again (:meth:`echoing`)

    @property
    def step(self) -> int | None:
        """The index of the number its most precise step key names."""
        ranked = [(rank, at) for at, name in enumerate(self.names) if (rank := _step_rank(name)) is not None]
        return min(ranked)[1] if ranked else None

    def metrics(self) -> list:
        """The indices of the named numbers other than the step, a name once."""
        step, seen, kept = self.step, set(), []
        for at, name in enumerate(self.names):
            if at != step and name is not None and name not in seen and at not in self.echoes:
                seen.add(name)
                kept.append(at)
        return kept

    def label(self, at: int) -> str:
        """The column name of number ``at``: its name, after the phase a header-led block's line
        begins with (``val Loss: 0.21 Acc: 0.92``: ``val Loss``, ``val Acc``)."""
        name = self.names[at]
        phases = {other.split()[0].lower() for other in self.names if other} & _PHASES
        if not self.phase or len(phases) > 1 or name.lower().startswith(self.phase):
            return name  # (each named with its own phase: "Train Loss: 0.25 | Val Loss: 0.21 | MAPE: 3.2%")
        return f"{self.phase} {name}"

    def echoing(self, steps: list) -> frozenset:
        """The numbers equal to their line's step on every line (``steps``), when it holds two
        or more: the step printed again - ``==> best model saved - 5 / 95.8`` under ``Epoch 5/29``
        - not a metric."""
        if len(steps) < 2:
            return frozenset()
        return frozenset(at for at in range(len(self.names)) if at != self.step
                         and all(row[at] == step for row, step in zip(self.values, steps)))

    def count(self, steps: list | None = None) -> int | None:
        """The index of a count within the step - a number no words name, printed ``n/ total``
        after the step (``| epoch 3 |  200/ 2983 batches | ...``) - when the form's lines repeat
        their step and the total holds within each step, else None.  Read by the step alone,
        such a log kept one line an epoch of each (PyTorch's word-language-model example: 40
        lines read as 5 rows).  ``steps``: each line's step, when a header line before it
        printed it (:func:`_blocks`)."""
        step = self.step
        if steps is None:
            if step is None:
                return None
            steps = [row[step] for row in self.values]
        rows = self.values
        repeats = [i for i in range(1, len(rows)) if steps[i] == steps[i - 1]]
        if not repeats:
            return None
        for at in range(0 if step is None else step + 1, len(self.names) - 1):
            if (self.names[at] is None and self.key[at + 1] == "/"
                    and all(rows[i][at + 1] == rows[i - 1][at + 1] and rows[i][at] > rows[i - 1][at]
                            for i in repeats)):
                return at
        return None


class _Steps:
    """Each record's step, in the order printed.  With a count within the step (:meth:`_Form.count`)
    a line is at ``(epoch - base) x total + count`` (``base`` 0 when the first such line's epoch
    is 0: a loop counting its epochs from 0, else 1), and a line of another form at its epoch's
    end, ``(epoch - base + 1) x total`` (``| end of epoch 3 | ... | valid loss 5.85``), the total of
    the last counted line before it; without one, the step as printed."""

    def __init__(self, counts: dict):
        self.counts = counts  # id(form) -> the index of its count, for the forms that have one
        self.base: int | None = None
        self.total: float | None = None

    def __call__(self, form: _Form, row: list, step: float | None = None) -> float:
        step = row[form.step] if step is None else step
        at = self.counts.get(id(form))
        if at is not None:
            if self.base is None:
                self.base = 0 if step == 0 else 1
            self.total = row[at + 1]
            return (step - self.base) * self.total + row[at]
        if self.counts and self.total is not None:
            return (step - self.base + 1) * self.total
        return step


def line_form(line: str, fewest: int = 2) -> tuple[tuple, list, list] | None:
    """(its form's key, the text before each number, the numbers) of a line holding ``fewest``
    numbers or more, else None.  The key is the line's words with each number masked and each
    run of spaces made one (columns printed aligned are one form)."""
    if _DIGIT.search(line) is None:
        return None
    found = list(_NUMBER.finditer(line))
    if not fewest <= len(found) <= MAX_NUMBERS:
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
            form = forms[key] = _Form(line.strip(), _names(befores), [], [], key)
        form.lines.append(index)
        form.values.append(values)
    return list(forms.values())


#: a line that prints a step alone, heading the lines after it: the PyTorch tutorials'
#: ``Epoch 3/24``, then ``train Loss: 0.49 Acc: 0.75`` and ``val Loss: ...``; ``Epoch 3``, then
#: ``loss: 2.303  [   64/60000]`` and `` Accuracy: 41.1%, Avg loss: 2.150``; a word may come first,
#: NEAT-Python's `` ****** Running generation 5 ****** ``
_HEADER = re.compile(rf"^\W*(?:[A-Za-z]+\s+)?({'|'.join(sorted(STEP_KEYS, key=len, reverse=True))})\s*[:#=]?\s*(\d+)"
                     r"(?:\s*/\s*\d+)?\W*$", re.IGNORECASE)
#: a progress bar's count at the start of a line (Keras' ``100/100 [====] - loss: 0.5`` under its
#: ``Epoch 1/30``): not a block's line
_BAR_COUNT = re.compile(r"^\s*\d+/\d+\s")
#: the phase a header-led block's line may begin with, which names its numbers
_PHASES = frozenset({"train", "training", "val", "valid", "validation", "test", "eval", "evaluation"})


def _block_form(line: str, key: tuple, befores: list) -> _Form:
    """A new form of a line under a header, named after the phase the line begins with."""
    phase = line.split()[0].rstrip(":").lower()  # (a line holding a number has a word)
    return _Form(line.strip(), _names(befores), [], [], key, phase if phase in _PHASES else "")


def _blocks(text: str) -> tuple[list, dict, str, str] | None:
    """A log printed in blocks, each headed by a line that prints its step alone (:data:`_HEADER`),
    when no form holds its own step: (the forms of the lines after the headers, each such line's
    step by its index, the step key, the first header), else None.  It takes
    :data:`MIN_RECORDS` headers and a form of as many lines after them whose numbers words name;
    a line of one number is a form here (``Epoch 3`` heads it)."""
    lines = text.splitlines()
    headers = {index: match for index, line in enumerate(lines) if (match := _HEADER.match(line))}
    if len(headers) < MIN_RECORDS:
        return None
    ranks = [_step_rank(match.group(1)) for match in headers.values()]
    rank = max(set(ranks), key=ranks.count)  # the most common step key heads the blocks
    forms: dict = {}
    step_of: dict = {}
    step, first = None, ""
    for index, line in enumerate(lines):
        match = headers.get(index)
        if match is not None and _step_rank(match.group(1)) == rank:
            first = first or line.strip()  # (quoted in the note)
            step, axis = float(match.group(2)), match.group(1)
            continue
        parsed = line_form(line, fewest=1) if step is not None else None
        if parsed is None:
            continue
        key, befores, values = parsed
        form = forms.get(key)
        if form is None:
            form = forms[key] = _block_form(line, key, befores)
        form.lines.append(index)
        form.values.append(values)
        step_of[index] = step
    bodies = [form for form in forms.values() if form.metrics() and len(form.lines) >= MIN_COMPANION_RECORDS]
    if not any(len(form.lines) >= MIN_RECORDS for form in bodies):
        return None
    return bodies, step_of, axis, first


def _read_forms(text: str) -> tuple[list, str] | None:
    """The forms read as the log and their step key's name, else None: the most frequent form
    that is a log (module docstring), and every other with its step key."""
    forms = [form for form in _forms(text) if form.step is not None and form.metrics()]
    logs = [form for form in forms if len(form.lines) >= MIN_RECORDS]
    if not logs:
        return None
    chosen = max(logs, key=lambda form: len(form.lines))
    axis = chosen.names[chosen.step]
    key = _step_rank(axis)
    # a form printed with the log's step key is read with it from its second line on (an
    # evaluation at the end of each of 3 epochs: `| end of epoch 3 | ... | valid loss 5.85`)
    return [form for form in forms if _step_rank(form.names[form.step]) == key
            and (form is chosen or len(form.lines) >= MIN_COMPANION_RECORDS)], axis


class FormFollower:
    """The lines of a log being written, fed one at a time (``watch``): :meth:`feed` gives, once
    a form has made a log (:data:`MIN_RECORDS` lines of it, as ``read_log`` reads them), the
    records of every line held until then that it reads, and after that each line's record.
    Forms are told apart as ``read_log`` tells them; the step key is that of the first form to
    make a log, and another form with it is read from its :data:`MIN_COMPANION_RECORDS`-th line
    on (its earlier lines would come after later steps).  Blocks under headers that print the
    step alone (:func:`_blocks`) are followed too, by :class:`_BlockFollower`: whichever makes a
    log first is the one read."""

    def __init__(self):
        self.axis: str | None = None
        self._forms: dict = {}  # key -> _Form of the lines held (their values)
        self._open: set = set()  # the keys read
        self._steps = _Steps({})
        self._blocks: _BlockFollower | None = _BlockFollower()  # until a form makes a log

    def heads_block(self, line: str) -> bool:
        """Is ``line`` a header of blocks already seen (a header with a line of named numbers
        under it that is no progress bar)?  ``watch`` then opens no format on it: the PyTorch
        transfer-learning tutorial's ``Epoch 1/24`` is also how Keras opens an epoch."""
        return (self._blocks is not None and self._blocks.bodies > 0 and not self._blocks.opened
                and _HEADER.match(line) is not None)

    @property
    def counted(self) -> bool:
        """Is the step a count within the step key (:meth:`_Form.count`)?"""
        steps = self._steps if self._blocks is None or not self._blocks.opened else self._blocks.steps
        return bool(steps.counts)

    def feed(self, line: str) -> list:
        """The ``(step, values)`` records ``line`` gives (module docstring), in order."""
        if self._blocks is not None:
            found = self._blocks.feed(line)
            if self._blocks.opened:
                self.axis = self._blocks.axis
                return found
        if self._open:
            self._blocks = None  # a form with its own step made the log
        parsed = line_form(line)
        if parsed is None:
            return []
        key, befores, values = parsed
        form = self._forms.get(key)
        if form is None:
            form = self._forms[key] = _Form(line.strip(), _names(befores), [], [], key)
        if key in self._open:
            return [_record(form, values, self._steps)]
        form.lines.append(len(form.lines))
        form.values.append(values)
        needed = MIN_RECORDS if self.axis is None else MIN_COMPANION_RECORDS
        if len(form.lines) < needed or form.step is None or not form.metrics():
            return []
        axis = form.names[form.step]
        if self.axis is None:
            self.axis = axis
        elif _step_rank(axis) != _step_rank(self.axis):
            return []
        self._open.add(key)
        form.echoes = form.echoing([row[form.step] for row in form.values])
        if (count := form.count()) is not None:
            self._steps.counts[id(form)] = count
        held = form.values if len(self._open) == 1 else form.values[-1:]
        form.values = []
        return [_record(form, row, self._steps) for row in held]


class _BlockFollower:
    """Blocks under headers that print the step alone (:func:`_blocks`), fed a line at a time:
    once :data:`MIN_RECORDS` headers and as many lines of one form under them were seen, the
    records of the lines held of every form of :data:`MIN_COMPANION_RECORDS` lines or more, and
    after that each line's (another form's from its :data:`MIN_COMPANION_RECORDS`-th line)."""

    def __init__(self):
        self.axis: str | None = None
        self.opened = False
        self.steps = _Steps({})
        self._rank: int | None = None
        self._step: float | None = None
        self._headers = 0
        self._forms: dict = {}  # key -> _Form of the lines under headers
        self._held: list = []  # (key, values, the header's step) in order, until opened
        self._open: set = set()
        self.bodies = 0  # lines of named numbers under a header that are no progress bar

    def feed(self, line: str) -> list:
        match = _HEADER.match(line)
        if match is not None:
            rank = _step_rank(match.group(1))
            if self._rank is None:
                self._rank, self.axis = rank, match.group(1)
            if rank == self._rank:
                self._step, self._headers = float(match.group(2)), self._headers + 1
            return []
        parsed = line_form(line, fewest=1) if self._step is not None else None
        if parsed is None:
            return []
        key, befores, values = parsed
        form = self._forms.get(key)
        if form is None:
            form = self._forms[key] = _block_form(line, key, befores)
        if key in self._open:
            return [_record(form, values, self.steps, self._step)]
        form.lines.append(len(form.lines))
        form.values.append(values)
        self._held.append((key, values, self._step))
        if not form.metrics():
            return []
        self.bodies += _BAR_COUNT.match(line) is None
        if not self.opened:
            if self._headers < MIN_RECORDS or len(form.lines) < MIN_RECORDS:
                return []
            self.opened = True
            opening = {key for key, form in self._forms.items()
                       if len(form.lines) >= MIN_COMPANION_RECORDS and form.metrics()}
        elif len(form.lines) >= MIN_COMPANION_RECORDS:
            opening, self._held = {key}, self._held[-1:]
        else:
            return []
        for opened in opening:
            steps = [step for held_key, _, step in self._held if held_key == opened]
            form = self._forms[opened]
            if len(steps) == len(form.values):  # (all its lines held: the first opening)
                form.echoes = form.echoing(steps)
            if (at := form.count(steps if len(steps) > 1 else None)) is not None:
                self.steps.counts[id(form)] = at
        self._open |= opening
        held, self._held = [entry for entry in self._held if entry[0] in opening], []
        return [_record(self._forms[key], values, self.steps, step) for key, values, step in held]


def _record(form: _Form, row: list, steps: _Steps, step: float | None = None) -> tuple:
    return steps(form, row, step), {form.label(at): row[at] for at in form.metrics()}


def is_template_text(text: str, base: str = "") -> bool:
    """Do lines of one form in ``text`` make a log (module docstring)?"""
    return _read_forms(text) is not None or _blocks(text) is not None


def read_template(name: str, text: str) -> LogTable:
    """The log in ``text``'s lines of one form (module docstring); a notebook's from what its
    cells printed.  InputError when no form makes one."""
    if name.lower().endswith(".ipynb"):
        text = printed_text(name, text)
    found, blocks = _read_forms(text), None
    if found is None and (blocks := _blocks(text)) is None:
        raise InputError(f"{name}: no {MIN_RECORDS} printed lines of one form hold a step key "
                         f"({', '.join(STEP_KEYS[:6])} ...) and another number named by the words before it")
    forms, axis = found if blocks is None else (blocks[0], blocks[2])
    step_of = {} if blocks is None else blocks[1]
    counts = {}
    for form in forms:
        steps = [step_of[index] for index in form.lines] if step_of else [row[form.step] for row in form.values]
        form.echoes = form.echoing(steps)
        if (at := form.count(steps)) is not None:
            counts[id(form)] = at
    records, unnamed = [], 0
    for form in forms:
        counted = counts.get(id(form))  # (a count and its total, which a new run may change, are read)
        dropped = [at for at, name in enumerate(form.names)
                   if name is None and (counted is None or at not in (counted, counted + 1))]
        unnamed = max(unnamed, sum(len({row[at] for row in form.values}) > 1 for at in dropped))
        if form.metrics():  # (a form whose only named number prints the step again reads nothing)
            records += [(index, form, row) for index, row in zip(form.lines, form.values)]
    records.sort(key=lambda record: record[0])
    steps = _Steps(counts)
    records = [(index, *_record(form, row, steps, step_of.get(index))) for index, form, row in records]
    # a line printing again a record read earlier, its step and values alike, is a summary - LightGBM's
    # "Early stopping, best iteration is:" then "[45]\tvalid_0's l2: 0.21" after round 55 -, not a
    # new run starting at a step gone back
    seen, repeats, kept = set(), 0, []
    for record in records:
        key = (record[1], tuple(sorted(record[2].items())))
        if key in seen and record is not records[0] and record[1] < kept[-1][1]:
            repeats += 1
            continue
        seen.add(key)
        kept.append(record)
    records = kept
    # a line at the step of the line before, naming what it named, replaces it in the row they share
    replaced = sum(1 for (_, step, values), (_, before, earlier) in zip(records[1:], records)
                   if step == before and not values.keys().isdisjoint(earlier))
    columns = stepped_columns([(step, values) for _, step, values in records if not math.isnan(step)])
    read_lines = {index for form in forms for index in form.lines}
    if blocks is not None:  # (the headers are read too)
        read_lines |= {index for index, line in enumerate(text.splitlines()) if _HEADER.match(line)}
    skipped = sum(1 for index, line in enumerate(text.splitlines()) if line.strip() and index not in read_lines)
    shown = ", ".join(repr(form.first) for form in forms[:2]) + (" ..." if len(forms) > 2 else "")
    names = [key for key in columns if key != "step"]
    notes = [f"{len(records)} printed line(s) like {shown} read as {', '.join(map(repr, names))} by {axis!r} "
             "(in no format swarmstats knows: each number named by the words printed before it)"
             + (f"; {skipped} other line(s) skipped" if skipped else "")]
    if blocks is not None:
        notes.append(f"no line holds its own {axis!r}: each line read at the {axis} of the line before it that "
                     f"prints one alone ({blocks[3]!r} ...)")
    if counts:
        counted = next(form for form in forms if id(form) in counts)
        at, end = (f"({axis} - 1)", axis) if steps.base else (axis, f"({axis} + 1)")
        notes.append(f"{axis!r} repeats on lines of the form {counted.first!r}: read with the count before "
                     f"'/ total' as step {at} x total + count (the count starts again each {axis})"
                     + (f", and the other lines at the end of their {axis}, {end} x total" if len(forms) > 1 else ""))
    if repeats:
        notes.append(f"{repeats} line(s) printing again a record read before, at an earlier {axis} (a summary of the "
                     "best, as LightGBM's early stopping prints it), left out")
    if replaced:
        notes.append(f"{replaced} line(s) at the {axis} of the line before, naming the same, replaced it (the last "
                     f"printed is kept): no count within the {axis} was found on them")
    if unnamed:
        notes.append(f"left out: {unnamed} number(s) on each line with no words before them, which vary from "
                     "line to line")
    without = sum(1 for _, step, _ in records if math.isnan(step))
    if without:
        notes.append(f"{without} line(s) whose {axis!r} is not a number left out")
    if not len(columns["step"]):
        raise InputError(f"{name}: no printed line of the form {forms[0].first!r} has a number for {axis!r}")
    return LogTable(None, "printed-template", name, notes, arrays=columns,
                    step_unit=unit("step" if counts else _axis_key(axis)))


def _axis_key(axis: str) -> str:
    return "_".join(axis.lower().split())


__all__ = ["MIN_RECORDS", "is_template_text", "read_template", "slot_name"]
