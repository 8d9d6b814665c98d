"""What Ray Tune 1.x printed for each result of a trial (RLlib's ``tune.run``, saved with ``tee``
or in a SLURM job's output), between its status tables::

    Result for PPO_CartPole-v0_0339b_00000:
      agent_timesteps_total: 42800
      custom_metrics: {}
      date: 2021-05-12_10-00-28
      done: false
      episode_reward_mean: 47.06188118811881
      info:
        learner:
          default_policy:
            learner_stats:
              entropy: 0.5984720587730408
      ...
      timestamp: 1620835228
      training_iteration: 2
      trial_id: 0339b_00000

(the result as YAML, as Tune's ``pretty_print`` dumps it without its ``config`` and
``hist_stats``).  Often that output is all a run left behind on a cluster; read as a table it
was one column of text ("no numeric metric column (columns: == Status ==)"), and users write
their own scripts to pull ``episode_reward_mean`` out of the blocks.

Ray 2 (Ray Train, and Tune's trials) prints each result as a box after the line saying its
iteration finished::

    Training finished iteration 3 at 2024-11-21 19:15:46. Total running time: 4min 22s
    ╭───────────────────────────────╮
    │ Training result               │
    ├───────────────────────────────┤
    │ time_this_iter_s        144.9 │
    │ training_iteration          3 │
    │ accuracy                0.805 │
    │ loss                  0.52336 │
    ╰───────────────────────────────╯

(``Trial TorchTrainer_95d16_00000 finished iteration 3 at ...`` for a Tune trial), read the same
way, each row's key as printed.

Each block is a row of its trial's results, the nested keys joined with ``/`` as in the trial's
``result.json`` (``info/learner/default_policy/learner_stats/entropy``), read as that file is
(:func:`.trainers.read_ray`): the step is ``training_iteration``, the wall time ``timestamp``,
Ray's bookkeeping left out by the table's rules; text (dates, hosts, ids), ``true``/``false``
and lists are no values.  Each trial is a run named by its name, so a Tune sweep's trials,
printed in turn, are told apart.  The status tables and every other line are skipped.

>>> blocks = result_blocks("Result for PPO_0:\\n  info:\\n    kl: 0.02\\n  training_iteration: 1\\n  trial_id: '0'\\n")
>>> blocks
[('PPO_0', {'info/kl': 0.02, 'training_iteration': 1.0})]
"""

from __future__ import annotations

import math
import re

import pandas as pd

from ..._result import plain_number
from ...errors import InputError
from ..written_nan import scalar
from ._table import LogTable, printed_number, runs_frame
from .trainers import read_ray

#: the line that opens a result: ``Result for <trial name>:``
_RESULT = re.compile(r"^Result for (\S+):\s*$")
#: a line of the result's YAML: its indent, its key (quoted when YAML had to: ``'1':``) and its
#: value (none for a mapping whose keys follow, indented more)
_ENTRY = re.compile(r"^( +)('[^']*'|\"[^\"]*\"|[^:\s][^:]*?):(?: +(.*?))?\s*$")
#: Ray 2's line before a result's box: ``Training finished iteration 3 at 2024-11-21 19:15:46.
#: Total running time: 4min 22s`` (Ray Train), ``Trial PPO_CartPole-v1_5bc2e_00000 finished
#: iteration 3 at ...`` (Tune)
_FINISHED = re.compile(r"^\s*(?:Training|Trial (\S+)) finished iteration (\d+) at ")
#: a row of the box: ``│ sampler_results/episode_reward_mean   22.1 │`` (the value may be empty)
_BOX_ROW = re.compile(r"^\s*│\s*(\S+)(?:\s+(\S+))?\s*│\s*$")


#: YAML's names for the floats that are not numbers
_YAML_FLOATS = {".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan, ".inf": math.inf, ".Inf": math.inf,
                "+.inf": math.inf, "-.inf": -math.inf, "-.Inf": -math.inf}


def is_printed_head(head: str, base: str) -> bool:
    """Does the start of a file hold a Tune result: ``Result for <trial>:`` and its
    ``training_iteration``, or Ray 2's ``... finished iteration N at`` and its box?"""
    # every text log pays this sniff: one-character searches first (~0.1 against ~30 us for a
    # phrase on a 64 KiB head; a table of numbers has no capital R, nor a box's edge)
    if "R" in head and "Result for " in head and "training_iteration: " in head:
        return any(opens_result(line) for line in head.splitlines() if line.startswith("Result for "))
    return "\u2570" in head and " finished iteration " in head and any(
        _FINISHED.match(line) for line in head.splitlines() if " finished iteration " in line)


def opens_result(line: str) -> bool:
    """Does ``line`` open a result (``Result for <trial>:``, or Ray 2's ``... finished iteration N at``)?"""
    return _RESULT.match(line) is not None or _FINISHED.match(line) is not None


class _Results:
    """A reader of printed results, a line at a time: ``feed`` gives ``(trial, values)`` when a
    line ends a result, :meth:`close` the one the text ended in."""

    def __init__(self):
        self._trial: str | None = None
        self._values: dict | None = None  # the open result's numbers (None: no result open)

    def close(self) -> tuple[str, dict] | None:
        """The open result, ended; None when none is open."""
        done = (self._trial, self._values) if self._values is not None else None
        self._values = None
        return done


class ResultReader(_Results):
    """Tune 1's results: one ends at a blank line, the job's next output or the next ``Result for``."""

    def __init__(self):
        super().__init__()
        self._parents: list = []  # (indent, key) of the mappings the next line may belong to

    def feed(self, line: str) -> tuple[str, dict] | None:
        opened = _RESULT.match(line)
        if opened is not None:
            done = self.close()
            self._trial, self._values, self._parents = opened.group(1), {}, []
            return done
        if self._values is None:
            return None
        if not line.strip() or not line.startswith(" "):
            return self.close()
        entry = _ENTRY.match(line)
        if entry is None:
            return None  # a list's item ("  - 21.0"), a long value YAML wrapped onto the next line
        indent, key, value = len(entry.group(1)), entry.group(2).strip("'\""), entry.group(3)
        while self._parents and self._parents[-1][0] >= indent:
            self._parents.pop()
        if not value:
            self._parents.append((indent, key))
            return None
        number = _number(value)
        if number is not None:
            self._values["/".join([parent for _, parent in self._parents] + [key])] = number
        return None


class BoxReader(_Results):
    """Ray 2's results: the line saying an iteration finished, then its box of ``key value``
    rows, ended by the box's bottom edge (``╰``)."""

    def feed(self, line: str) -> tuple[str, dict] | None:
        finished = _FINISHED.match(line)
        if finished is not None:
            self._trial = finished.group(1) or "training"
            self._values = {"training_iteration": float(finished.group(2))}
            return None
        if self._values is None:
            return None
        if "╰" in line:
            return self.close()
        row = _BOX_ROW.match(line)
        if row is not None and row.group(2) is not None:
            number = _number(row.group(2))
            if number is not None:
                self._values[row.group(1)] = number
        return None


class AnyResults:
    """Tune 1's results and Ray 2's boxes alike (a file holds one or the other)."""

    def __init__(self):
        self._readers = (ResultReader(), BoxReader())

    def feed(self, line: str) -> tuple[str, dict] | None:
        done = [result for reader in self._readers if (result := reader.feed(line)) is not None]
        return done[0] if done else None

    def close(self) -> tuple[str, dict] | None:
        done = [result for reader in self._readers if (result := reader.close()) is not None]
        return done[0] if done else None


class RecordReader:
    """The results as the records ``watch`` takes: the numbers, the step (``training_iteration``)
    and the trial as the run; a result without the step is none."""

    def __init__(self):
        self._results = AnyResults()

    def feed(self, line: str) -> dict | None:
        done = self._results.feed(line)
        if done is None or "training_iteration" not in done[1]:
            return None
        trial, values = done
        return {**{k: v for k, v in values.items() if k != "training_iteration"},
                "step": plain_number(values["training_iteration"]), "run": trial}


def result_blocks(text: str) -> list[tuple[str, dict]]:
    """(the trial's name, the result's numbers by their ``/``-joined keys) of every result in
    ``text``, in order."""
    reader = AnyResults()
    blocks = [done for done in map(reader.feed, text.splitlines()) if done is not None]
    last = reader.close()
    return blocks + ([last] if last is not None else [])


def _number(value: str) -> float | None:
    """A printed value as a float: YAML's names for the floats that are not numbers (``.nan``,
    ``-.inf``), else :func:`printed_number`'s reading; None for text, a quoted string (an id:
    ``'00000'``), a boolean, a date, an empty mapping or list.

    >>> _number("4.999999873689376e-05"), _number(".nan"), _number("0."), _number("'00000'"), _number("false")
    (4.999999873689376e-05, nan, 0.0, None, None)
    """
    if value in _YAML_FLOATS:
        return scalar(_YAML_FLOATS[value])  # (a NaN printed is a NaN the run logged)
    return printed_number(value)


def read_printed(name: str, text: str) -> LogTable:
    """The results of ``text`` as runs, a trial each (module docstring)."""
    blocks = [(trial, values) for trial, values in result_blocks(text) if "training_iteration" in values]
    if not blocks:
        raise InputError(f"{name}: no Ray Tune result ('Result for <trial>:' followed by its indented "
                         "'training_iteration: N') was printed")
    trials = list(dict.fromkeys(trial for trial, _ in blocks))
    tables = {trial: read_ray(pd.DataFrame([values for t, values in blocks if t == trial]), name, "ray-console")
              for trial in trials}
    notes = [f"{len(blocks)} Ray Tune result(s) printed ('Result for <trial>:'), step = training_iteration"
             + (f"; {len(trials)} trials, a run each" if len(trials) > 1 else "")]
    notes += list(dict.fromkeys(note for table in tables.values() for note in table.notes))
    if len(trials) == 1:
        table = tables[trials[0]]
        return LogTable(None, "ray-console", name, notes, arrays=table.arrays)
    return LogTable(runs_frame([table.frame.assign(run=trial) for trial, table in tables.items()]),
                    "ray-console", name, notes)
