"""A log being appended to, read as a careful ``tail -F`` reads it: its new complete lines,
and the records they hold (CSV rows, JSON objects, a Trainer's printed dicts, SB3's printed
tables, and the printed output of :mod:`.printed`)."""

from __future__ import annotations

import csv
import os
import re
import stat

from ..._input.series import unit_of
from ..._result import plain_number
from ..decoding import BadJSON, check_readable, loads
from ..formats import llamafactory, registry, spinup
from ..formats._table import headless
from ..formats.console import (
    TIMESTEP_COLUMNS,
    BoxReader,
    is_box_row,
    is_rule,
    visible,
)
from ..formats.d3rlpy import is_metric_line
from ..formats.printed_dicts import StepCounter, parse_line
from ..formats.printed_template import FormFollower
from ..formats.torchrl import is_scalar_line, metric_name
from .printed import (
    PrintedLines,
    TemplateLines,
    VerlLines,
    open_printed,
    template_records,
)

#: a line longer than this is not a log record (a 50 MB cell); it is skipped
MAX_LINE = 1 << 20
#: bad lines reported one by one; after that they are only counted
SHOWN_SKIPS = 10


def _could_be_header(line: str, delimiter: str) -> bool:
    """Could the first line of a file, holding a delimiter, be a CSV header: no field with an
    unclosed bracket or saying ``what: value``, and no time of day leading it?  What a job prints
    first is often a sentence or a repr with a comma in it (Tianshou's examples print
    ``Observations shape: (4,)``, then ``Namespace(task=..., ...)``; Lightning's Trainer ``GPU
    available: False, used: False``), or a message behind ``logging``'s time, whose milliseconds
    follow a comma (Sample Factory's ``[2023-02-20 10:00:00,000][01210] Saving configuration``):
    taken for a header, every later line was "N fields where the header has 2".

    >>> _could_be_header("step,reward,loss (val)", ","), _could_be_header("Observations shape: (4,)", ",")
    (True, False)
    >>> _could_be_header("2024-05-01 10:00:00,123 INFO train.py:88 - starting", ",")
    False
    >>> _could_be_header("GPU available: False, used: False", ",")
    False
    """
    try:
        cells = next(csv.reader([line], delimiter=delimiter, strict=True))
    except csv.Error:
        return False
    if cells and _LOGGED_TIME.match(cells[0]):
        return False
    if any(_SAYS_A_VALUE.match(cell) for cell in cells):
        return False
    return all(cell.count(opening) == cell.count(closing) for cell in cells
               for opening, closing in ("()", "[]", "{}"))


#: a cell saying what something is (``GPU available: False``): a message, never a column name
_SAYS_A_VALUE = re.compile(r"^\s*[A-Za-z][\w ()/.-]*:\s+\S")
#: a logged line's time at its start (``logging``'s ``asctime``, in brackets or not): a column
#: name is never one
_LOGGED_TIME = re.compile(r"^\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}")


def _header_then_row(previous: str | None, line: str) -> bool:
    """Are a held line and the line after it a CSV's header and first row: the header one that
    could be (:func:`_could_be_header`), the row as wide and all numbers?  Found so where the
    text before them (a message behind a logged time) could be no header itself.

    >>> _header_then_row("step,reward", "1,0.5"), _header_then_row("Loading data, please wait", "Done, 3 files")
    (True, False)
    """
    delimiter = next((d for d in (",", "\t", ";") if d in line), None)
    if previous is None or delimiter is None or not _could_be_header(previous, delimiter):
        return False
    if _width(previous, delimiter) != _width(line, delimiter):
        return False
    try:
        cells = next(csv.reader([line], delimiter=delimiter, strict=True))
        [float(cell) for cell in cells if cell.strip()]
    except (csv.Error, ValueError):
        return False
    return True


def _width(line: str, delimiter: str | None) -> int:
    """How many fields a CSV line holds (1 without a delimiter; -1 when it is not a CSV row)."""
    if delimiter is None:
        return 1
    try:
        return len(next(csv.reader([line], delimiter=delimiter, strict=True)))
    except csv.Error:
        return -1


def _flatten(record: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


_PRINTED_DICT_START = re.compile(r"^\{\s*'[^']*':")


class Follower:
    """The new complete lines of a log being appended to, as a careful ``tail -F`` reads them.

    * **Rotation** (the file renamed away and a new one created, as logrotate and some
      trainers do) is seen by the file's identity (device, inode), not its size: what the old
      file still held is read to its end, then the new file from its first line.
    * **Deletion**: the open file is read to its end, then the path is polled until a file
      appears there again.
    * **Rewrite in place** (the same file, now shorter: SB3 rewrites progress.csv when a key
      appears) starts over from the top, and the caller starts its analysis over.
    * **Bad lines** (not UTF-8, not JSON, a CSV row of the wrong width, the header again,
      longer than :data:`MAX_LINE`) are skipped, counted, and reported with their line number;
      one writer's garbage does not stop the watch.
    * **Printed dicts** (what a Hugging Face Trainer prints at each log call) are read as
      Python literals; once one is seen, the lines between them (tqdm's bar) are terminal text.
    * **Printed training output** (pymarl's and rsl_rl's blocks, verl's step lines, ML-Agents'
      summaries, Keras' epochs, Tianshou's test summaries, ``key=value`` records: :mod:`.printed`):
      the first line that shows one opens it, and from then on every line goes to it; the
      job's other output is terminal text.  A verl resume keeps the values of the
      checkpoint's own step (``swarmstats watch`` keeps it: ``RunMonitors.checkpoint_keeps_its_step``).
    * **Printed tables** (what SB3 prints, saved by ``python train.py > train.log``): the text
      such a log starts with (``Using cuda device``) is held until the file shows what it is,
      since taken as a CSV header it made every table row "2 fields where the header has 1";
      a line of dashes makes it a printed log, read box by box
      (:class:`swarmstats.io.formats.console.BoxReader`), and a line that is a CSV row (a
      delimiter) or a number as wide as the first line held makes it a CSV with that line as
      its header.
    """

    def __init__(self, path: str):
        check_readable(path, directory_ok=False)  # missing, a FIFO, a loop, a directory: exit 2
        self.path = path
        self.skipped = 0
        self.first_skip: str | None = None
        self.events: list[tuple[str, str]] = []  # (kind, message) since the last call
        self.restarted = False
        self._handle = None
        self._identity = None
        self._gone = False
        self._open()

    # -- the file ----------------------------------------------------------------------
    def _open(self) -> None:
        try:
            handle = open(self.path, "rb")
        except OSError as exc:
            self._event("unreadable", f"cannot read {self.path}: {exc.strerror}; waiting")
            return
        info = os.fstat(handle.fileno())
        self._close()
        self._handle, self._identity = handle, (info.st_dev, info.st_ino)
        self._start_over()

    def _close(self) -> None:
        if self._handle is not None:
            self._handle.close()
        self._handle = None

    def _start_over(self) -> None:
        self.offset, self.partial, self.header, self.line_number = 0, b"", None, 0
        self.delimiter, self._header_lost, self._discarding = ",", None, False
        self._boxes: BoxReader | None = None  # a log of printed tables, once a rule line is seen
        self._rule: str | None = None  # a rule line before any table: its top if a row follows
        self._held: list = []  # (number, line) before the file showed what it is
        self._printed = False  # a Trainer's printed dicts seen: the other lines are its terminal text
        self._printed_steps = StepCounter()  # ... and their steps
        self._output: PrintedLines | None = None  # printed training output (.printed), once seen
        self._forms = FormFollower()  # the held lines' forms: one may make a log in no format
        self._json_seen = False  # a JSON record read: a line that is not one is then a bad line

    @property
    def verl(self) -> bool:
        """Is the log verl's printed step lines?"""
        return isinstance(self._output, VerlLines)

    def close(self) -> None:
        self._close()

    def _read_rest(self) -> bytes:
        if self._handle is None:
            return b""
        self._handle.seek(self.offset)
        data = self._handle.read()
        self.offset += len(data)
        return data

    def lines(self) -> list[tuple]:
        """(line number, text, why) of each complete line added since the last call (see _split)."""
        self.restarted = False
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            if not self._gone:
                self._gone = True
                # what the old file still held, its last line too (no newline will come)
                out = self._split(self._read_rest(), final=True)
                self._event("removed", f"{self.path} was removed; waiting for it to appear again")
                return out
            return []
        except OSError as exc:
            self._event("unreadable", f"cannot read {self.path}: {exc.strerror}; waiting")
            return []
        if not stat.S_ISREG(info.st_mode):
            self._event("unreadable", f"{self.path} is no longer a regular file; waiting")
            return []
        out: list = []
        if (info.st_dev, info.st_ino) != self._identity:
            out = self._split(self._read_rest(), final=True)  # what the old file still got
            self._gone = False
            self._open()
            if self._handle is None:
                return out
            self._event("rotated", f"{self.path} is a new file (rotated or recreated); reading it "
                                   "from its first line")
        elif info.st_size < self.offset:
            self._start_over()
            self.restarted = True
        return out + self._split(self._read_rest())

    def _split(self, data: bytes, final: bool = False) -> list:
        """(line number, text, None) for each complete line, or (line number, None, why) for a
        line that cannot be read: bad lines are reported in line order with the rest."""
        data = self.partial + data
        if self._discarding:  # the rest of an over-long line
            newline = data.find(b"\n")
            if newline < 0:
                self.partial = b""
                return []
            data, self._discarding = data[newline + 1:], False
        complete, newline, self.partial = data.rpartition(b"\n")
        raw_lines = complete.split(b"\n") if newline else []
        if not newline:
            self.partial = data
        if final and self.partial:  # the last line of a file that will get no more
            raw_lines.append(self.partial)
            self.partial = b""
        out = []
        for raw in raw_lines:
            self.line_number += 1
            if len(raw) > MAX_LINE:
                out.append((self.line_number, None, f"longer than {MAX_LINE:,} bytes"))
                continue
            try:
                text = raw.decode("utf-8-sig" if self.line_number == 1 else "utf-8")
            except UnicodeDecodeError:
                out.append((self.line_number, None, "not UTF-8 text"))
                continue
            if text.strip():
                out.append((self.line_number, text.rstrip("\r"), None))
        if len(self.partial) > MAX_LINE:  # a line still being written and already too long
            self.line_number += 1
            out.append((self.line_number, None, f"longer than {MAX_LINE:,} bytes"))
            self.partial, self._discarding = b"", True
        return out

    # -- lines to records --------------------------------------------------------------
    @staticmethod
    def planned_steps(record: dict) -> float | None:
        """The step the run is planned to end at, when a line states it (LLaMA-Factory's
        ``total_steps``)."""
        return llamafactory.planned_in_record(record)

    def step_unit(self, step_key: str | None) -> str | None:
        """What a step of this log is called, as ``check-convergence`` calls it: an SB3 printed
        table's ``time/total_timesteps`` "timesteps", a Trainer's printed dicts "logs" (the
        step is the training log's number), a monitor.csv's rows "episodes", else the step
        column's own name (None: none)."""
        if self._boxes is not None and step_key is not None and step_key != "nupdates":
            # (baselines' HER prints its epoch: "epochs", as read_log says)
            return "timesteps" if step_key in TIMESTEP_COLUMNS else unit_of(step_key)
        if self._printed:
            return "logs"
        if self._output is not None and self._output.unit is not None:
            return self._output.unit  # as read_log's reader of that printed format
        if step_key is not None and step_key.rsplit("/", 1)[-1].endswith("timesteps"):
            return "timesteps"  # SB3's progress.csv, read_log's sb3-progress
        if step_key is None and self.header is not None and {"r", "l", "t"} <= set(self.header):
            return "episodes"  # an SB3 monitor.csv: a row per episode, read_log's "monitor"
        if step_key == "Epoch" and self.header is not None and spinup.is_progress(self.header, ""):
            return "epochs"  # Spinning Up's progress.txt, read_log's spinup-progress
        if step_key == "current_steps":
            return "steps"  # LLaMA-Factory's trainer_log.jsonl: optimizer steps, as read_log says
        return step_key

    def records(self) -> list[dict]:
        out = []
        for number, line, why in self.lines():
            if line is None:
                self._skip(number, why)
                if self.header is None and self._header_lost is None:
                    self._header_lost = number  # in a CSV this was the header: columns unknown
                continue
            written = line  # (a progress bar's redraws, for the printed format that reads them all)
            if "\r" in line or "\x1b" in line:  # a terminal's output: what it shows of the line
                line = visible(line)
            if self._boxes is not None:
                box = self._boxes.feed(line)
                if box is not None:
                    out.append(box)
                continue
            if self._output is None and self.header is None and not self._forms.heads_block(line):
                self._output = open_printed(line)
                if self._output is not None:
                    self._held = []  # what came before was the job's other output
            if self._output is not None:
                out.extend(self._output.records(written, line))
                continue
            stripped = line.strip()
            if stripped.startswith("#") or (self._printed and not stripped.startswith("{")):
                continue  # (between a Trainer's printed dicts: its progress bar, warnings)
            if self.header is None and self._header_lost is None and not stripped.startswith("{"):
                rule, self._rule = self._rule, None
                if rule is not None and is_box_row(stripped):  # the top of the first printed table:
                    self._boxes, self._held = BoxReader(), []  # what was held was text
                    self._boxes.feed(rule)
                    self._boxes.feed(line)
                    continue
                if is_rule(line):  # a table's top if a row follows (OpenMMLab's banner is dashes too)
                    self._rule = line
                    continue
                if not self._shows_csv(stripped, self._held[0][1] if self._held else None):
                    if not _header_then_row(self._held[-1][1].strip() if self._held else None, stripped):
                        self._held.append((number, line))
                        found = self._forms.feed(line)
                        if found:  # lines of one form made a log: the file is a loop's own printing
                            self._output, self._held = TemplateLines(self._forms), []
                            out.extend(template_records(found))
                        continue
                    self._held = self._held[-1:]  # the lines before the header were the job's text
                for held_number, held in self._held:  # the first line held was the header
                    self._csv_row(held_number, held)
                self._held = []
            if stripped.startswith("{"):
                try:
                    record = loads(self.path, stripped, line=number)
                except BadJSON as exc:
                    printed = parse_line(stripped)  # a Trainer's printed dict: Python, not JSON
                    if printed is None:
                        if not self._json_seen and _PRINTED_DICT_START.match(stripped):
                            continue  # a job printing its configuration (pymarl's pprint) before its log
                        self._skip(number, exc.reason)
                        continue
                    self._printed = True
                    # the step read_log gives it: the training log's number (an epoch printed to
                    # 4 digits repeats once the logs advance in smaller steps), from 1 in a new run
                    step = self._printed_steps.step(printed)
                    if step is not None:  # (None: a training summary, not a data point)
                        printed.pop("epoch", None)
                        out.append({**_flatten(printed), "step": plain_number(step)})
                    continue
                self._json_seen = True
                if isinstance(record, dict) and set(record) == {"step", "data"} and isinstance(record["data"], dict):
                    out.append({**_flatten(record["data"]), "step": record["step"]})  # verl's file logger
                elif isinstance(record, dict):
                    out.append(_flatten(record))
                else:
                    self._skip(number, "not a JSON object")
                continue
            record = self._csv_row(number, line)
            if record is not None:
                out.append(record)
        return out

    @staticmethod
    def _shows_csv(line: str, first_held: str | None = None) -> bool:
        """Does a line before any header say the file is a CSV: a delimiter, or a lone number
        (a row of a one-column file)?  After lines held, only a row as wide as the first of them,
        which would be its header if it could be one (a training job's preamble - a shell trace, a
        configuration, lines behind a logged time - holds commas too: taken for a CSV, every later
        line was "N fields where the header has 1").
        A first line is a header only if it could be one (:func:`_could_be_header`)."""
        delimiter = next((d for d in (",", "\t", ";") if d in line), None)
        if delimiter is None:
            try:
                float(line)
            except ValueError:
                return False
        if first_held is None:
            return delimiter is None or _could_be_header(line, delimiter)
        held = first_held.strip()
        return _width(line, delimiter) == _width(held, delimiter) and (delimiter is None or _could_be_header(held, delimiter))

    def _csv_row(self, number: int, line: str) -> dict | None:
        if self.header is None and self._header_lost is not None:
            self._skip(number, f"the header (line {self._header_lost}) could not be read")
            return None
        if self.header is None:  # the header says the separator: ',' or a locale's ';' or a tab
            self.delimiter = next((d for d in ("\t", ";") if d in line and "," not in line), ",")
        try:
            row = next(csv.reader([line], delimiter=self.delimiter, strict=True))
        except csv.Error as exc:
            self._skip(number, f"not a CSV row ({exc})")
            return None
        cells = [cell.strip() for cell in row]
        if self.header is None:
            if headless(cells):
                if len(cells) == 2 and is_scalar_line(line):  # TorchRL's step,value file: no header
                    self.header = ["step", metric_name(self.path)]
                    return dict(zip(self.header, row))
                if len(cells) == 3 and is_metric_line(line):  # d3rlpy's epoch,step,value file
                    self.header = ["epoch", "step", metric_name(self.path)]
                    return dict(zip(self.header, row))
                self._header_lost = number
                self._skip(number, "numbers, not column names: a CSV without a header")
                return None
            registry.refuse_one_row_per_run(cells, self.path)
            self.header = cells
            return None
        if cells == self.header:
            self._skip(number, "the header again (two logs appended?)")
            return None
        if len(cells) != len(self.header):
            self._skip(number, f"{len(cells)} fields where the header has {len(self.header)}")
            return None
        return dict(zip(self.header, row))

    def _skip(self, number: int, why: str) -> None:
        self.skipped += 1
        message = f"{self.path} line {number}: {why}; skipped"
        if self.first_skip is None:
            self.first_skip = message
        if self.skipped <= SHOWN_SKIPS:
            more = " (further bad lines are counted, not shown)" if self.skipped == SHOWN_SKIPS else ""
            self._event("skipped", message + more)

    def _event(self, kind: str, message: str) -> None:
        if kind != "unreadable" or not self.events or self.events[-1][1] != message:
            self.events.append((kind, message))

    def take_events(self) -> list:
        events, self.events = self.events, []
        return events
