"""What Sample Factory's runner reports, every few seconds, to its console and to the
``sf_log.txt`` it keeps in the experiment's folder::

    [2022-11-30 19:48:21,166][07494] Fps is (10 sec: 22528.2, 60 sec: 20377.6, 300 sec: 20377.6). Total num frames: 3829760. Throughput: 0: 5085.4. Samples: 203415. Policy #0 lag: (min: 0.0, avg: 1.9, max: 5.0)
    [2022-11-30 19:48:21,166][07494] Avg episode reward: [(0, '0.824')]

Read as a log it stopped at "not valid JSON" (a line begins with ``[``).  The reward line gives
each policy's average return over its recent episodes (a list of ``(policy, 'mean')``; empty
before any episode ended), at the ``Total num frames`` of the report line before it: the step,
in environment frames (Sample Factory counts frames, frameskip included).  The report's rates
(FPS, throughput), its sample count and the policy lag are not read.  One policy's return is
``avg_episode_reward``; a population's (``--num_policies``, population-based training) is one
column per policy, ``policy_1/avg_episode_reward``.  Every other line (workers' messages, weight
updates, heartbeats) is skipped and counted.

>>> parse_rewards("[2022-11-30 19:48:21,166][07494] Avg episode reward: [(0, '0.824'), (1, '-1.5')]")
{0: 0.824, 1: -1.5}
"""

from __future__ import annotations

import re

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable, fed_lines, stepped_columns

_REPORT = re.compile(r"\bFps is \(.*\)\. Total num frames: (\d+)\.")
_REWARDS = re.compile(r"\bAvg episode reward: \[(.*)\]\s*$")
_POLICY = re.compile(rf"\(\s*(\d+)\s*,\s*'({PRINTED_NUMBER})'\s*\)", re.IGNORECASE)
#: the one metric of the report, as its policy 0's column is named
METRIC = "avg_episode_reward"


def parse_frames(line: str) -> float | None:
    """The total frames of a report line, else None."""
    if "Total num frames: " not in line:  # (one substring search for every other line)
        return None
    found = _REPORT.search(line)
    return float(found.group(1)) if found is not None else None


def parse_rewards(line: str) -> dict | None:
    """Each policy's average return of a reward line, else None (an empty list is no values)."""
    if "Avg episode reward: " not in line:
        return None
    found = _REWARDS.search(line)
    if found is None:
        return None
    rewards = {int(policy): scalar(float(value)) for policy, value in _POLICY.findall(found.group(1))}
    return rewards or None


class LineReader:
    """A log's lines read in order: :meth:`feed` each, get ``(frames, {column: return})`` for a
    reward line after a report line; :attr:`policies` are the policies seen."""

    def __init__(self):
        self.frames: float | None = None
        self.policies: set = set()
        self.reports = 0  # the report lines read

    def feed(self, line: str) -> tuple[float, dict] | None:
        frames = parse_frames(line)
        if frames is not None:
            self.frames, self.reports = frames, self.reports + 1
            return None
        rewards = parse_rewards(line) if self.frames is not None else None
        if rewards is None:
            return None
        self.policies.update(rewards)
        return self.frames, {column(policy): value for policy, value in rewards.items()}


def column(policy: int) -> str:
    """The column of a policy's return: policy 0's is the report's one metric, the others' named
    by their policy (``policy_1/avg_episode_reward``)."""
    return METRIC if policy == 0 else f"policy_{policy}/{METRIC}"


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a Sample Factory report line?"""
    return "T" in head and "Total num frames: " in head and any(  # (a single character first: ~0.1 us)
        parse_frames(line) is not None for line in head.splitlines()[:400] if "Total num frames: " in line)


def read_printed(name: str, text: str) -> LogTable:
    """The reward lines of ``text`` as rows at the frames of the report before each."""
    reader = LineReader()
    records, skipped = fed_lines(reader.feed, text)
    skipped -= reader.reports  # (a report line gives its frames to the reward line after it)
    if not records:
        raise InputError(f"{name}: no 'Avg episode reward: [(0, '0.824')]' line after a report line ('Fps is (...). "
                         "Total num frames: 3829760. ...'): no episode has ended yet, or this is not Sample Factory's log")
    columns = stepped_columns(records)
    population = (f"; {len(reader.policies)} policies, a column each (policy_1/{METRIC} ...)"
                  if len(reader.policies) > 1 else "")
    notes = [f"{len(columns['step'])} Sample Factory report(s), step = total num frames; {METRIC}: each policy's "
             f"average return over its recent episodes{population}; {skipped} other line(s) skipped"]
    return LogTable(None, "sample-factory-console", name, notes, arrays=columns, step_unit="frames")
