"""The printed training output a followed log can hold, read as its lines arrive: pymarl's and
rsl_rl's blocks, verl's step lines, ML-Agents' summaries, Keras' epochs, Tianshou's test
summaries, Acme's terminal loggers, a torchvision-style ``MetricLogger``'s lines, MAPPO's and
HARL's progress, a Dreamer agent's logger lines, fairseq's stats lines, Sample Factory's reports,
OpenMMLab's runner logs, Lightning's progress bar and a script's ``key=value`` records (each read whole by its reader in
:mod:`swarmstats.io.formats`).

The first line that shows one of them opens it (:func:`open_printed`); from then on every line
of the file is fed to it, and what came before was the job's other output (a banner, its
configuration, a model summary), and no other printed format opens.  The lines between its
records - progress bars, warnings, Unity's messages - give no record; a record that spans
lines (a pymarl or rsl_rl block, a Keras epoch) is given when the line after it arrives.  A
printed format that ``watch`` should follow is one more opener in :data:`_OPENERS`.

>>> printed = open_printed("Epoch #1: test_reward: 12.500000 ± 1.2, best_reward: 12.5 in #1")
>>> printed.feed("Epoch #1: test_reward: 12.500000 ± 1.2, best_reward: 12.5 in #1"), printed.unit
({'test_reward': 12.5, 'test_reward_std': 1.2, 'step': 1}, 'epochs')
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable

from ..._result import plain_number
from ..formats import (
    acme,
    dreamer,
    fairseq,
    keras,
    lightning_bar,
    mappo,
    metric_logger,
    mlagents,
    mmengine,
    printed_pairs,
    printed_template,
    pymarl,
    ray_console,
    rsl_rl,
    sample_factory,
    tianshou,
)
from ..formats.console import visible
from ..formats.verl import is_late, parse_step_line, printed_value, printing_process

#: the key a verl record printed late carries from the follower to the monitors (never a metric)
LATE = "\x00late"


class PrintedLines(ABC):
    """A printed format being followed: :meth:`feed` each line, get the record it completes."""

    #: what one step is, as ``read_log``'s reader of the format calls it; None: the step key's name
    unit: str | None = None

    def records(self, written: str, shown: str) -> list[dict]:
        """The records a line of the file completes: ``written`` as it is in the file, ``shown``
        what a terminal shows of it (after its last carriage return, without colour codes).  Most
        formats read what is shown; a progress bar's redraws are all in what is written."""
        record = self.feed(shown)
        return [] if record is None else [record]

    @abstractmethod
    def feed(self, line: str) -> dict | None:
        """The record ``line`` completes (its ``step`` among its values), else None."""


class _Blocks(PrintedLines):
    """A format whose records span lines, read by its own block reader (pymarl, rsl_rl, Keras)."""

    def __init__(self, reader, unit: str):
        self._reader, self.unit = reader, unit

    def feed(self, line: str) -> dict | None:
        return self._reader.feed(line)


class _Lines(PrintedLines):
    """A format printing a record a line (ML-Agents, Tianshou): ``record`` reads one, or None."""

    def __init__(self, record: Callable[[str], dict | None], unit: str | None):
        self._record, self.unit = record, unit

    def feed(self, line: str) -> dict | None:
        return self._record(line)


def _mlagents_record(line: str) -> dict | None:
    """An ML-Agents summary line's statistics at its step, each behaviour a run."""
    summary = mlagents.parse_line(line)
    if summary is None:
        return None
    behavior, step, statistics = summary
    return {**statistics, "step": plain_number(step), "run": behavior}


def _as_record(parse: Callable[[str], tuple | None]) -> Callable[[str], dict | None]:
    """A reader's ``(step, values)`` of a line (a Tianshou test summary, a Dreamer logger's line,
    a fairseq stats line) as the record the monitors take: the values and their ``step``."""
    def record(line: str) -> dict | None:
        parsed = parse(line)
        return None if parsed is None else {**parsed[1], "step": plain_number(parsed[0])}
    return record


class _Pairs(PrintedLines):
    """A script's printed ``key=value`` records, read as ``read_log``'s printed-pairs reads them
    (:class:`~swarmstats.io.formats.printed_pairs.LineReader`): a record without the first
    record's step key is left out."""

    def __init__(self, axis: str):
        self._reader, self.unit = printed_pairs.LineReader(), printed_pairs.unit(axis)

    def records(self, written: str, shown: str) -> list[dict]:
        """The records of every redraw in ``written``: a loop that prints each episode over the
        last with ``\\r`` (Udacity's course: ``\\rEpisode 7\\tAverage Score: 0.52``, every 100th
        kept with a newline) wrote a record each time, as ``read_log`` reads them; a step redrawn
        twice in a row is one record."""
        if "\r" not in written:
            return super().records(written, shown)
        out: list = []
        for redraw in written.split("\r"):
            record = self.feed(visible(redraw))
            if record is None:
                continue
            if out and out[-1]["step"] == record["step"]:
                out[-1].update(record)
            else:
                out.append(record)
        return out

    def feed(self, line: str) -> dict | None:
        record = self._reader.feed(line)
        if record is None or math.isnan(record[0]):
            return None
        return {**record[1], "step": plain_number(record[0])}


class VerlLines(PrintedLines):
    """verl's printed step lines (``step:N - key:value - ...``).  A step a process prints after
    it passed it (not back to its first) is marked :data:`LATE`: verl's fully asynchronous
    trainer logs a validation at the version it checked, which is no resume (as ``read_log``'s
    verl-console reads it)."""

    def __init__(self):
        self._steps: tuple | None = None  # (process, first step, last step) of the lines so far

    def feed(self, line: str) -> dict | None:
        printed = _verl_step(line)
        if printed is None:
            return None
        step, values = printed
        numbers = {key: number for key, value in values.items() if (number := printed_value(value)) is not None}
        if not numbers:
            return None
        process = printing_process(line)
        known = self._steps
        if known is not None and is_late(step, known[1], known[2], process, known[0]):
            return {**numbers, "step": step, LATE: True}
        first = known[1] if known is not None and process == known[0] and step > known[1] else step
        self._steps = (process, first, step)
        return {**numbers, "step": step}


def _verl_step(line: str) -> tuple | None:
    """(step, printed values) of a verl step line, else None (a printed dict is no step line)."""
    if "step:" not in line or line.lstrip().startswith("{"):
        return None
    return parse_step_line(line)


class _AcmeLines(PrintedLines):
    """Acme's terminal loggers' lines on the step of the first (``actor_steps``), each value named
    as ``read_log``'s acme-console names it; a line without that step is left out, as there."""

    def __init__(self, axis: str):
        self._axis, self.unit = axis, axis.replace("_", " ")

    def feed(self, line: str) -> dict | None:
        parsed = acme.parse_line(line)
        if parsed is None or self._axis not in parsed[1]:
            return None
        label, values = parsed
        return {**{f"{label}/{key}": value for key, value in values.items() if key != self._axis},
                "step": plain_number(values[self._axis])}


class _SteppedLines(PrintedLines):
    """A format whose records take their step from a line before them (a MetricLogger's
    evaluation summary, MAPPO's values after its progress line), read by its own line reader."""

    def __init__(self, reader, unit: str):
        self._record, self.unit = _as_record(reader.feed), unit

    def feed(self, line: str) -> dict | None:
        return self._record(line)


class _RedrawnLines(PrintedLines):
    """Lightning's progress bar: each line of the file holds many redraws (an epoch's, until a
    validation's bar starts a line; one a line where a copy turned the carriage returns into line
    ends), each a record of a batch.  Lightning draws a batch twice, the count with the last
    batch's metrics, then the new ones: a redraw at a new batch showing the last record's values
    again is held until the next says whether that batch had values of its own (the monitors
    would count the last batch's twice, once at the wrong step)."""

    def __init__(self):
        self._reader, self.unit = lightning_bar.LineReader(), "batches"
        self._held: tuple | None = None
        self._last: tuple | None = None  # (step, values) of the last step given, its records merged

    def records(self, written: str, shown: str) -> list[dict]:
        """The records of every redraw in the line ``written``, one per batch."""
        out: list = []
        for redraw in written.split("\r"):
            parsed = self._reader.feed(redraw)
            if parsed is None:
                continue
            step, values = parsed
            if self._held is not None:
                if self._held[0] == step:
                    values = {**self._held[1], **values}
                else:
                    self._give(out, *self._held)  # the batch's values were the same after all
                self._held = None
            if self._last is not None and step != self._last[0] and all(
                    self._last[1].get(name) == value for name, value in values.items()):
                self._held = (step, values)
                continue
            self._give(out, step, values)
        return [{**values, "step": plain_number(step)} for step, values in out]

    def _give(self, out: list, step: float, values: dict) -> None:
        if out and out[-1][0] == step:
            out[-1][1].update(values)
        else:
            out.append((step, dict(values)))
        if self._last is not None and self._last[0] == step:  # (a validation's record after the batch's)
            self._last[1].update(values)
        else:
            self._last = (step, dict(values))

    def feed(self, line: str) -> dict | None:
        raise TypeError("Lightning's bar is read a line of the file at a time, its redraws and all: records()")


class TemplateLines(PrintedLines):
    """Lines of one form in no format (:mod:`~swarmstats.io.formats.printed_template`), opened
    by the :class:`~swarmstats.io.formats.printed_template.FormFollower` that found the form
    among the lines held before the file showed what it is; it reads the lines after them."""

    def __init__(self, forms: printed_template.FormFollower):
        self._forms = forms
        self.unit = printed_pairs.unit("step" if forms.counted else "_".join(forms.axis.lower().split()))

    def records(self, written: str, shown: str) -> list[dict]:
        return template_records(self._forms.feed(shown))

    def feed(self, line: str) -> dict | None:
        found = self.records(line, line)
        return found[-1] if found else None


def template_records(found: list) -> list[dict]:
    """A form follower's ``(step, values)`` as the records the monitors take."""
    return [{**values, "step": plain_number(step)} for step, values in found]


def _opens_acme(line: str) -> PrintedLines | None:
    parsed = acme.parse_line(line)
    axis = acme.step_key(parsed[1]) if parsed is not None else None
    return _AcmeLines(axis) if axis is not None else None


def _opens_pairs(line: str) -> PrintedLines | None:
    if ("=" not in line and "|" not in line and ": " not in line) or line.lstrip().startswith("{"):
        return None
    pairs = printed_pairs.parse_line(line)
    return _Pairs(printed_pairs.step_key(pairs)) if pairs is not None else None


#: the printed formats, each as (the cheap test a line must pass, what opens on it or None), in
#: the order they are tried: Keras and Tianshou before the ``key=value`` records (Tianshou's
#: progress bars hold ``env_step=...`` pairs)
_OPENERS = (
    (lambda line: "Recent Stats | t_env:" in line, lambda line: _Blocks(pymarl.BlockReader(), "timesteps")),
    (lambda line: "Learning iteration " in line, lambda line: _Blocks(rsl_rl.BlockReader(), "iterations")),
    (lambda line: "step:" in line, lambda line: VerlLines() if _verl_step(line) is not None else None),
    (lambda line: " Step: " in line,
     lambda line: _Lines(_mlagents_record, None) if mlagents.parse_line(line) is not None else None),
    (lambda line: "Epoch: [" in line,
     lambda line: _SteppedLines(metric_logger.LineReader(), "iterations")
     if metric_logger.parse_line(line) is not None else None),
    (lambda line: line.startswith("Result for ") or " finished iteration " in line,
     lambda line: _Blocks(ray_console.RecordReader(), "iterations") if ray_console.opens_result(line) else None),
    (lambda line: "num_updates" in line,
     lambda line: _Lines(_as_record(fairseq.parse_line), "updates") if fairseq.parse_line(line) is not None else None),
    (lambda line: line.startswith("["),
     lambda line: _Lines(_as_record(dreamer.parse_line), "steps") if dreamer.parse_line(line) is not None else None),
    (lambda line: "Epoch" in line or "Iter" in line,
     lambda line: _SteppedLines(mmengine.LineReader(), "iterations")
     if (parsed := mmengine.parse_line(line)) is not None and parsed[0] == "train" else None),
    (lambda line: "Total num frames: " in line,
     lambda line: _SteppedLines(sample_factory.LineReader(), "frames")
     if sample_factory.parse_frames(line) is not None else None),
    (lambda line: mappo.PHRASE in line,
     lambda line: _SteppedLines(mappo.LineReader(), "timesteps") if mappo.parse_progress(line) is not None else None),
    (keras.opens_epoch, lambda line: _Blocks(keras.EpochReader(), "epochs")),
    (lambda line: "Epoch " in line and "|" in line,
     lambda line: _RedrawnLines() if lightning_bar.parse_update(line) is not None else None),
    (lambda line: tianshou.PHRASE in line,
     lambda line: _Lines(_as_record(tianshou.parse_line), "epochs") if tianshou.parse_line(line) is not None else None),
    (lambda line: " = " in line and "] " in line, _opens_acme),
    (lambda line: "=" in line or "|" in line or ": " in line, _opens_pairs),
)


def open_printed(line: str) -> PrintedLines | None:
    """The printed format ``line`` shows (the line is then to be fed to it), else None."""
    for shows, opened in _OPENERS:
        if shows(line):
            printed = opened(line)
            if printed is not None:
                return printed
    return None
