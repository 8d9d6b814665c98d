"""What the on-policy runners of MAPPO (marlbenchmark/on-policy, and the many multi-agent
repositories built on them) and HARL's loggers print, saved from a terminal (``tee``, ``nohup``)::

     Scenario simple_spread Algo rmappo Exp check updates 5/15625 episodes, total num timesteps 19200/50000000, FPS 2134.

    average episode rewards is -148.3712
    eval average episode rewards of agent: -139.05

HARL prints ``Env smac Task 3m Algo happo Exp test updates 5/... episodes, total num timesteps
...`` and sentences such as ``Increase games 32.0000, win rate on these games is 0.5000, average
step reward is 0.1021, ...`` or ``Evaluation win rate is 0.5, evaluation average episode reward
is 12.1.``; MAPPO's StarCraft runner ``incre win rate is 0.25.`` and ``eval win rate is 0.03125.``
Read as a log, such a file stopped at "no numeric metric column".

A progress line's ``total num timesteps`` is the step of the values printed after it, up to the
next: each runner prints its statistics, then runs its evaluation, at the step it just logged
(the evaluation runs when the episode is a multiple of ``eval_interval``, by default a multiple
of ``log_interval`` too).  A value is a clause ``<words> is <number>`` or ``<words>: <number>``
(clauses parted by ``, ``), named by its words in lower case joined by ``_`` -
``average_episode_rewards``, ``eval_win_rate``, ``incre_win_rate`` as the runners name them in
TensorBoard (``eval average episode rewards of agent0`` as ``agent0/eval_average_episode_rewards``).  The progress line's FPS is a throughput and its update count a counter: neither
is read.  A value printed before the first progress line has no step and is skipped (counted).

>>> parse_progress(" Map 3m Algo rmappo Exp check updates 5/3125 episodes, total num timesteps 19200/10000000, FPS 1100.")
19200.0
>>> parse_values("Evaluation win rate is 0.5, evaluation average episode reward is 12.1.")
{'evaluation_win_rate': 0.5, 'evaluation_average_episode_reward': 12.1}
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns

#: the phrase of every progress line, searched before its expression
PHRASE = " episodes, total num timesteps "
_PROGRESS = re.compile(r"\bupdates \d+/\d+ episodes, total num timesteps (\d+)/\d+")
#: one clause holding a value: ``average episode rewards is -148.37``, ``... of agent0: -139.05``
_CLAUSE = re.compile(rf"^\s*([A-Za-z][A-Za-z0-9 ]*?)(?: is:?|:)\s+({PRINTED_NUMBER})\s*\.?\s*$", re.IGNORECASE)


def parse_progress(line: str) -> float | None:
    """The total timesteps of a progress line, else None."""
    if PHRASE not in line:  # (one substring search for every other line of the job)
        return None
    found = _PROGRESS.search(line)
    return float(found.group(1)) if found is not None else None


def parse_values(line: str) -> dict | None:
    """The values of a line of ``<words> is <number>`` clauses, else None (a line any of whose
    clauses holds a value is read; the others - ``Increase games 32.0000`` - are not)."""
    if " is " not in line and ": " not in line:
        return None
    values = {}
    for clause in line.strip().rstrip(".").split(", "):
        found = _CLAUSE.match(clause)
        if found is not None:
            values[_name(found.group(1))] = scalar(float(found.group(2)))  # (a NaN printed: logged)
    return values or None


def _name(words: str) -> str:
    """A value's name from its words, as the runners name it in TensorBoard: ``eval average episode
    rewards of agent`` (all agents) -> ``eval_average_episode_rewards``, ``... of agent0`` (the
    separated runner's each agent) -> ``agent0/eval_average_episode_rewards``."""
    name = "_".join(words.lower().split())
    base, _, agent = name.rpartition("_of_agent")
    if base and (agent == "" or agent.isdigit()):
        return f"agent{agent}/{base}" if agent else base
    return name


class LineReader:
    """A log's lines read in order: :meth:`feed` each, get ``(step, values)`` for a line of values
    printed after a progress line (None for every other line)."""

    def __init__(self):
        self.step: float | None = None
        self.before = 0  # lines of values printed before any progress line

    def feed(self, line: str) -> tuple[float, dict] | None:
        step = parse_progress(line)
        if step is not None:
            self.step = step
            return None
        values = parse_values(line)
        if values is None:
            return None
        if self.step is None:
            self.before += 1
            return None
        return self.step, values


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a MAPPO or HARL progress line?"""
    return "P" in head and PHRASE in head and any(  # (FPS's P first: a single character ~0.1 us)
        parse_progress(line) is not None for line in head.splitlines()[:400] if PHRASE in line)


def read_printed(name: str, text: str) -> LogTable:
    """The values of ``text`` as rows at the total timesteps of the progress line before each."""
    reader = LineReader()
    records, _ = fed_lines(reader.feed, text)
    if not records:
        raise InputError(f"{name}: no value ('average episode rewards is -148.37') printed after a progress line "
                         "('... updates 5/15625 episodes, total num timesteps 19200/50000000, FPS 2134.')")
    columns = stepped_columns(records)
    notes = [f"{len(columns['step'])} step(s) of MAPPO's or HARL's printed progress, step = total num timesteps "
             "of the progress line before each value; each value named by its words (average_episode_rewards)"]
    if reader.before:
        notes.append(f"{reader.before} line(s) of values before the first progress line left out (no step)")
    return LogTable(None, "mappo-console", name, notes, arrays=columns, step_unit="timesteps")
