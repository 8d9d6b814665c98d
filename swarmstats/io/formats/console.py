"""The table SB3's logger prints to the terminal, as saved from a terminal, a ``tee`` or a notebook.

Stable-Baselines3 (and Stable Baselines and OpenAI baselines before it) print each dump of
their logger as a box of ``| key | value |`` rows between two lines of dashes; SB3 groups the
keys by namespace, a ``| rollout/ |  |`` row followed by the group's keys, indented::

    ------------------------------------
    | rollout/            |            |
    |    ep_len_mean      | 22.5       |
    |    ep_rew_mean      | 22.5       |
    | time/               |            |
    |    fps              | 1480       |
    |    total_timesteps  | 2048       |
    ------------------------------------

Often that output is all a run left behind (no ``progress.csv`` was configured), so it is read
as the progress table it prints: each box one row, each key ``group/key`` as in
``progress.csv`` (the step ``time/total_timesteps``), baselines' bare keys as baselines'
``progress.csv`` names them.  The reading is lenient, since such text is rarely only the table:
lines that are not part of a box (``Using cuda device``, ``Eval num_timesteps=...``, progress
bars, warnings) are skipped, a prefix before the box (a notebook's indent, a logging prefix) is
allowed, and where the dashes were lost in a copy a box ends where its keys stop being in
sorted order (both loggers print them sorted).  A Jupyter
notebook (``.ipynb``) is read from its cells' printed output.

What the text cannot give back: the loggers print floats to 3 significant digits (``%-8.3g``),
so a value 0.001234 reads as 0.00123 (noted), and they cut a key longer than 36 characters to
33 and ``...`` (noted, the key kept as printed).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..._input.series import unit_of
from ...errors import InputError
from ._table import LogTable, printed_number
from .notebooks import printed_text
from .sb3 import (
    BASELINES_STEPS,
    SB3_STEP,
    is_sb3_progress,
    progress_step,
    progress_table,
)

#: the step columns counted in environment timesteps
TIMESTEP_COLUMNS = frozenset({SB3_STEP, *BASELINES_STEPS} - {"nupdates"})

#: SB3 prints a float with "%-8.3g": three significant digits
PRINTED_DIGITS = 3

#: ``| key | value |`` at the end of a line (anything may come before the box)
_ROW = re.compile(r"\|([^|]*)\|([^|]*)\|\s*$")
#: an ANSI escape sequence (colour, cursor movement, line erase)
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: the line break HTML puts at the end of each line of printed output pasted into Markdown or a
#: web page (a GitHub comment, an exported notebook): ``|    ep_rew_mean | 22.5 |<br>``
_HTML_BREAK = re.compile(r"(?:<br\s*/?>\s*)+$", re.IGNORECASE)
#: a box's top or bottom: dashes alone (after any prefix)
_RULE = re.compile(r"-{8,}\s*$")
#: a notebook's JSON holds the printed text as a list of line strings or as one string: a
#: rule line's end, then (after the list's '", "' if any) a row line
_NOTEBOOK_BOX = re.compile(r'-{8,}\\n(?:",\s*")?[^"\n]*\|')


def is_console_head(head: str, base: str) -> bool:
    """Does the start of a file look like the logger's printed boxes: a rule line directly
    followed by a ``| key | value |`` row (in a notebook, as JSON strings)?"""
    # every table, csv and log pays this sniff: the one-character search first (~0.1 us on 14 KB, a
    # rule's ~4; a table of numbers has no '|')
    if "|" not in head or "--------" not in head:
        return False
    if base.lower().endswith(".ipynb"):
        return _NOTEBOOK_BOX.search(head) is not None
    previous_rule = False
    for line in map(visible, head.splitlines()):
        if previous_rule and _ROW.search(line):
            return True
        previous_rule = _RULE.search(line) is not None
    return False


def visible(line: str) -> str:
    """What a terminal shows of a line: after its last carriage return (a progress bar redrawn
    in place), without colour codes and cursor moves (rich's progress bar draws them), and
    without the ``<br>`` a paste into HTML or Markdown ends it with."""
    line = line.rpartition("\r")[2]
    if "<" in line:
        line = _HTML_BREAK.sub("", line)
    return _ESCAPE.sub("", line) if "\x1b" in line else line


def read_console(name: str, text: str) -> LogTable:
    """The boxes printed in ``text`` (the decoded file) as a progress table (module docstring)."""
    if name.lower().endswith(".ipynb"):
        text = printed_text(name, text)
    records, unfinished, cut_keys, outside = _boxes(text)
    if not records and unfinished:
        raise InputError(f"{name}: the only logger table is not closed by its line of dashes yet "
                         "(is the run still printing it?)")
    if not records:
        raise InputError(f"{name}: no logger table found (SB3 prints each dump as '| key | value |' "
                         "rows between lines of dashes)")
    columns = _columns(records)
    if not columns:
        raise InputError(f"{name}: the logger's tables hold no number")
    # SB3's namespaced keys, or the bare keys of baselines and Stable Baselines
    layout = "sb3-progress" if is_sb3_progress(columns) else "baselines-progress"
    step = progress_step(columns, layout)
    table = progress_table(columns, len(records), name, layout)
    table.format = "sb3-console"
    table.step_unit = (None if step is None or step == "nupdates" else "timesteps" if step in TIMESTEP_COLUMNS
                       else unit_of(step))
    # (baselines' note on forks writing 0 as an empty cell is about its CSV writer, not this)
    table.notes = [note for note in table.notes if note.startswith(("step = ", "no step column"))]
    notes = [f"{len(records)} logger table(s) read from printed output" + _precision_note(records)]
    if unfinished:
        notes.append(f"the last table is not closed by a line of dashes (a log still being written): "
                     f"its {unfinished} row(s) left out")
    if cut_keys:
        notes.append(f"{len(cut_keys)} key(s) cut short by the logger, kept as printed: "
                     f"{', '.join(cut_keys[:3])}{' ...' if len(cut_keys) > 3 else ''}")
    notes += _unread_prints(outside)
    table.notes = notes + table.notes
    return table


#: a printed float with a fraction: the digits before the point, after it, the exponent apart
_FLOAT = re.compile(r"^[-+]?(\d*)\.(\d*[1-9]\d*)(?:[eE][-+]?\d+)?$")


def _precision_note(records: list) -> str:
    """How precisely the boxes' floats were printed, for the reading's note.  SB3 prints a
    Python float with "%-8.3g" (three significant digits) but a NumPy float whole (PPO's
    ``train/approx_kl``: 0.00014112983); baselines' logger of 2018 printed every float whole
    (0.051250000000000004).  When most printed fractions hold more than three digits the
    logger rounded nothing and no precision is claimed.

    >>> _precision_note([{"ep_rew_mean": "22.5", "loss": "-0.00948", "approx_kl": "0.00014112983"}])
    '; floats are printed to 3 significant digits, so each is known only to within 0.5% (but approx_kl, printed whole)'
    >>> _precision_note([{"test/mean_Q": "-2.7906647", "train/success_rate": "0.051250000000000004"}])
    ''
    """
    digits: dict = {}
    for record in records:
        for key, value in record.items():
            found = _FLOAT.match(value)
            if found is not None:  # ("0.00123" and "22.5" hold 3, "0.051250000000000004" 17)
                digits.setdefault(key, []).append(len((found[1] + found[2]).strip("0")))
    counts = [n for values in digits.values() for n in values]
    if not counts or sum(n > PRINTED_DIGITS for n in counts) > len(counts) / 2:
        return ""
    whole = [key for key, values in digits.items() if max(values) > PRINTED_DIGITS]
    return (f"; floats are printed to {PRINTED_DIGITS} significant digits, so each is known only to within 0.5%"
            + (f" (but {', '.join(whole[:3])}{' ...' if len(whole) > 3 else ''}, printed whole)" if whole else ""))


def is_box_row(line: str) -> bool:
    """Is ``line`` a row of a box (``|    ep_rew_mean | 22.5 |``), not any text with bars in it
    (the model summary Lightning prints: ``0 | model | Sequential | 101 K  | train``)?

    >>> is_box_row("|    ep_rew_mean     | 22.5     |"), is_box_row("0 | model | Sequential | 101 K  | train")
    (True, False)
    """
    return _ROW.search(visible(line)) is not None


def is_rule(line: str) -> bool:
    """Is ``line`` a box's top or bottom (dashes alone, after any prefix)?"""
    return _RULE.search(visible(line)) is not None


class BoxReader:
    """The boxes of printed text, fed a line at a time (a whole file, or a file being written):
    :meth:`feed` returns each box as a dict of key -> printed value once it is complete."""

    def __init__(self):
        self._current: dict = {}
        self._group = ""
        self._last = ""
        self.seen_rule = False
        self.cut: dict = {}  # the keys the logger cut short, in order

    def feed(self, line: str) -> dict | None:
        line = visible(line)
        row = _ROW.search(line)
        if row is None:
            if is_rule(line):
                self.seen_rule = True
                self._group = ""
                return self._close()
            return None
        raw_key, value = row.group(1), row.group(2).strip()
        key = raw_key.strip()
        if not key:
            return None
        if not value and key.endswith("/"):  # SB3's group row: the keys below it are indented
            self._group = key
            return None
        if raw_key.startswith("   "):  # " " + "   " + key: a key of the current group
            key = self._group + key
        else:
            self._group = ""
        if key.endswith("..."):
            self.cut[key] = None
        # where the dashes between two boxes were lost, a box ends where the keys stop being in
        # order (both loggers print a box's keys sorted); a repeated key ends one in any case
        done = None
        if key in self._current or (not self.seen_rule and self._current and key <= self._last):
            done = self._close()
        self._current[key] = value
        self._last = key
        return done

    def finish(self) -> tuple[dict | None, int]:
        """At the end of the text: the last box when it counts as complete (the text has no
        lines of dashes at all), and how many rows a last box left open by its dashes held."""
        if not self._current:
            return None, 0
        if self.seen_rule:
            return None, len(self._current)  # rows after the last box's bottom line: still being printed
        return self._close(), 0

    def _close(self) -> dict | None:
        done, self._current = (self._current or None), {}
        return done


def _boxes(text: str) -> tuple[list, int, list, list]:
    """The boxes as dicts of key -> printed value, in order; how many rows an unclosed last box
    held (0: none); the keys the logger cut short; the lines outside the boxes that hold a digit."""
    reader = BoxReader()
    records, outside = [], []
    for line in text.splitlines():
        box = reader.feed(line)
        if box is not None:
            records.append(box)
        elif _NUMBER.search(line) and _ROW.search(visible(line)) is None and not is_rule(line):
            outside.append(visible(line).strip())
    last, unfinished = reader.finish()
    if last is not None:
        records.append(last)
    return records, unfinished, list(reader.cut), outside


#: a printed number, for a line's template
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
#: what SB3 itself prints between the tables, whose numbers the tables hold (EvalCallback's
#: results, as eval/mean_reward and eval/mean_ep_length), and progress bars
_SB3_OWN_PRINTS = ("Eval num_timesteps=", "Episode length:", "New best mean reward", "Logging to ")
#: a logging prefix's date and time (``2026-11-29 10:00:00,123 INFO``, ``[10:00:00]``)
_TIME_PREFIX = re.compile(r"^\s*\[?(?:\d{4}-\d{2}-\d{2}[ T])?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s*")


def _unread_prints(lines: list) -> list:
    """A note on the numbers a script printed again and again between the tables (its own
    reward line: "Output 12: Average over 100 episodes - Reward: 0.31"), which only the tables
    are read from: [] when there are none.  A line counts when three or more lines share its
    wording with the numbers set aside.

    >>> print(_unread_prints([f"Output {i}: Average over 100 episodes - Reward: 0.{i}" for i in range(1, 5)]
    ...                      + ["Using cpu device", "Eval num_timesteps=2048, episode_reward=1.00 +/- 0.00"] * 3)[0])
    4 printed line(s) outside the logger's tables hold numbers that are not read, e.g. 'Output 1: Average over 100 episodes - Reward: 0.1' (the script's own prints; record them with the logger, logger.record(key, value), to have them read)
    """
    templates: dict = {}
    for line in lines:
        line = _TIME_PREFIX.sub("", line)  # (a logging prefix's time is not a printed value)
        if any(own in line for own in _SB3_OWN_PRINTS) or "it/s" in line or "%|" in line or not _NUMBER.search(line):
            continue
        templates.setdefault(_NUMBER.sub("#", line), []).append(line)
    recurring = [found for found in templates.values() if len(found) >= 3]
    if not recurring:
        return []
    count = sum(len(found) for found in recurring)
    return [f"{count} printed line(s) outside the logger's tables hold numbers that are not read, e.g. "
            f"{recurring[0][0]!r} (the script's own prints; record them with the logger, "
            "logger.record(key, value), to have them read)"]


def _columns(records: list) -> dict:
    """One float column per key holding a number somewhere (NaN where a box lacks it or
    printed something else); keys in order of first appearance.  A key that never holds a
    number (a printed string, a truncated path) is not a metric."""
    keys = list(dict.fromkeys(key for record in records for key in record))
    columns = {}
    for key in keys:
        numbers = [printed_number(record.get(key)) for record in records]
        if any(number is not None for number in numbers):  # (a printed "nan" is a number)
            columns[key] = np.array([math.nan if number is None else number for number in numbers])
    return columns
