"""What Unity ML-Agents' ``mlagents-learn`` prints, saved from a terminal (``tee``)::

    [INFO] 3DBall. Step: 12000. Time Elapsed: 15.893 s. Mean Reward: 1.137. Std of Reward: 0.725. Training.
    [INFO] SoccerTwos. Step: 20000. Time Elapsed: 60.1 s. Mean Reward: 0.000. Std of Reward: 0.000. Training. ELO: 1201.5.
    [INFO] Pyramids. Step: 30000. Time Elapsed: 75.4 s. No episode was completed since last summary. Training.

One summary line per behaviour every ``summary_freq`` steps, among the hyperparameters, the
Unity and ONNX messages; releases before 1.0 printed it after the logger's name
(``2021-01-19 13:18:53 INFO [stats.py:139] 3DBall. Step: ...``, and in 0.x
``INFO:mlagents.trainers: first-run-0: 3DBallLearning: Step: 1000. Mean Reward: ...``).
Read as a log it stopped at "not valid JSON".

Each behaviour is a run (as ML-Agents' TensorBoard writes a folder per behaviour): a behaviour
is an agent of its own - the striker and the goalie of a soccer game - with its own step count,
never pooled with another.  A terminal kept across several trainings holds several runs: each
is named by its ``--run-id`` where the command was captured (``mlagents-learn config.yaml
--run-id=ppo_v2``; 0.x printed it in every summary, ``first-run-0: 3DBallLearning: Step:``),
and a behaviour's step starting again begins a new run anyway (a real capture of four trainings
was one series of 71 summaries, its step "a counter").  The metrics are named as printed
(``Mean Reward``, ``Std of Reward``, ``Mean Group Reward``, ``ELO``; ``Time Elapsed`` is a
clock); a summary at which no episode had ended holds no reward (counted in a note).  A run
resumed (``--resume``) continues its steps; a step that goes back is left to the loader's
rules, as for any log.

>>> parse_line("[INFO] 3DBall. Step: 12000. Time Elapsed: 15.893 s. Mean Reward: 1.137. Std of Reward: 0.725. Training.")
('3DBall', 12000.0, {'Time Elapsed': 15.893, 'Mean Reward': 1.137, 'Std of Reward': 0.725})
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ...errors import InputError
from ..written_nan import PRINTED_NUMBER, scalar
from ._table import LogTable

#: the behaviour (the word before ". Step:", or ": Step:" before 1.0, after 0.x's run id) and the step
_SUMMARY = re.compile(r"(?:^|[\s\]:])(?:(?P<run>[^\s\]:]+): )?(?P<behavior>[^\s\]:]+)[.:] "
                      r"Step: (?P<step>\d+)\.(?P<rest>.*)$")
#: the command that starts a training, captured with its output: its ``--run-id`` names the run
_COMMAND = re.compile(r"mlagents-learn\b.*?--run-id(?:=|\s+)[\"']?(?P<run>[^\s\"']+)")
#: a printed statistic: ``Mean Reward: 1.137``, ``Time Elapsed: 15.893 s``, ``ELO: 1201.5``
_STATISTIC = re.compile(rf"(?:^|\.\s|\s)(?P<name>[A-Z][A-Za-z ]*?): (?P<value>{PRINTED_NUMBER})"
                        r"(?= s\.|\.(?:\s|$)|\s|$)")
#: what a summary says when no episode ended since the last one: no reward to report
_NO_EPISODE = "No episode was completed since last summary"


def parse_line(line: str) -> tuple[str, float, dict] | None:
    """(behaviour, step, the statistics printed) of a summary line, else None."""
    found = _summary(line)
    if found is None:
        return None
    statistics = {m["name"]: scalar(float(m["value"])) for m in _STATISTIC.finditer(found["rest"])}
    return found["behavior"], float(found["step"]), statistics


def _summary(line: str) -> re.Match | None:
    if " Step: " not in line:  # (one substring search for every other line of the job)
        return None
    found = _SUMMARY.search(line)
    # (ML-Agents' own words: a script's "Episode: 3. Step: 100. Reward: 5." is no summary)
    if found is None or ("Mean Reward: " not in found["rest"] and _NO_EPISODE not in found["rest"]):
        return None
    return found


def run_id(line: str) -> str | None:
    """The run a line names: a captured ``mlagents-learn ... --run-id=NAME`` command, or a 0.x
    summary's run id before its behaviour.

    >>> run_id("(mlagents) $ mlagents-learn config/ppo.yaml --run-id=ppo_v2 --force")
    'ppo_v2'
    >>> run_id("INFO:mlagents.trainers: first-run-0: 3DBallLearning: Step: 1000. Mean Reward: 1.242. Training.")
    'first-run-0'
    """
    if "--run-id" in line:
        command = _COMMAND.search(line)
        if command is not None:
            return command["run"]
    found = _summary(line)
    return None if found is None else found["run"]


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold an ML-Agents summary line?"""
    # (rare characters first, ~0.2 us each; the phrase costs ~7 us on 14 KB)
    if ":" not in head or "S" not in head or " Step: " not in head:
        return False
    return any(parse_line(line) is not None for line in head.splitlines() if " Step: " in line)


def read_printed(name: str, text: str) -> LogTable:
    """The summary lines of ``text`` as rows, a run per behaviour (module docstring)."""
    rows, empty, runs, current = [], 0, [], None
    for line in text.splitlines():
        named = run_id(line) if "--run-id" in line or "Step: " in line else None
        current = named if named is not None else current
        parsed = parse_line(line)
        if parsed is None:
            continue
        behavior, step, statistics = parsed
        if "Mean Reward" not in statistics:
            empty += 1  # (no episode ended: its step holds no reward)
        rows.append((behavior, step, statistics))
        runs.append(current)
    if not rows:
        raise InputError(f"{name}: no ML-Agents summary line ('<behaviour>. Step: N. ... Mean Reward: ...')")
    behaviors = list(dict.fromkeys(behavior for behavior, _, _ in rows))
    run_ids = list(dict.fromkeys(runs))
    keys = list(dict.fromkeys(key for _, _, statistics in rows for key in statistics))
    columns = {"step": np.array([step for _, step, _ in rows], dtype=float)}
    columns.update({key: np.array([statistics.get(key, math.nan) for _, _, statistics in rows], dtype=float)
                    for key in keys})
    frame = pd.DataFrame(columns)
    notes = [f"{len(rows)} ML-Agents summary line(s)"
             + (f" of {len(behaviors)} behaviours, one run each: {', '.join(behaviors)}" if len(behaviors) > 1
                else f" of the behaviour {behaviors[0]}")]
    if len(run_ids) > 1:  # (a summary before any captured command: its run has no name)
        named = ["(no --run-id)" if run is None else run for run in runs]
        notes.append(f"{len(run_ids)} trainings, each named by its --run-id: {', '.join(dict.fromkeys(named))}")
        frame.insert(0, "run", named if len(behaviors) == 1 else
                     [f"{run}/{behavior}" for run, (behavior, _, _) in zip(named, rows)])
    elif len(behaviors) > 1:
        frame.insert(0, "run", [behavior for behavior, _, _ in rows])
    if empty:
        notes.append(f"{empty} summary line(s) where no episode had ended since the one before: no reward there")
    return LogTable(frame, "mlagents-console", name, notes)
