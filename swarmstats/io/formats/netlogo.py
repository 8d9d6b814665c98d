"""NetLogo's BehaviorSpace experiments in its table format (``--table``, or "Table output" in
the experiment's dialog).

Six lines describe the experiment - ``"BehaviorSpace results (NetLogo 6.4.0)"`` (NetLogo 7 adds
``"Table version 2.0"``), the model's file, the experiment's name, the date, and the world's
dimensions as a header and a row - then the table: ``"[run number]"``, the experiment's
variables (the parameters each run was given), ``"[step]"`` (the tick of the measurement) and
the metrics, every cell quoted.  Runs on several threads write their rows as they go, so the
rows of different runs interleave; read as a plain CSV the file was refused at its third line.

Each run is a run (``run=3``), its rows in the order written; its parameters are its
configuration, so the repetitions of one setting are replicates, summarised together (a
variable named as a seed, ``random-seed``, sets no configuration).  A metric that reports a
list (``[2 0 1]``) or a word is not a number: left out, and said.  BehaviorSpace's other
outputs (spreadsheet, lists, stats) lay the runs out differently: refused, saying to export
the table.

>>> data = (b'"BehaviorSpace results (NetLogo 6.4.0)"\\n"wolf.nlogo"\\n"sweep"\\n"01/15/2024 10:23:45:123 +0100"\\n'
...         b'"min-pxcor","max-pxcor","min-pycor","max-pycor"\\n"-5","5","-5","5"\\n'
...         b'"[run number]","sheep","[step]","count sheep"\\n"1","100","0","100"\\n"2","200","0","200"\\n'
...         b'"1","100","1","104"\\n"2","200","1","190"\\n')
>>> table = read_table("table.csv", data)
>>> table.frame.to_dict("list"), table.run_configs
({'run': ['run=1', 'run=1', 'run=2', 'run=2'], 'step': [0.0, 1.0, 0.0, 1.0], 'count sheep': [100.0, 104.0, 200.0, 190.0]}, {'run=1': 'sheep=100', 'run=2': 'sheep=200'})
"""

from __future__ import annotations

import codecs
import io

import numpy as np
import pandas as pd

from ...errors import InputError
from ..tabular import parse_delimited
from ._sweep import (
    final_values,
    replicate_seeds,
    run_and_step_numbers,
    sweep_configurations,
)
from ._table import LogTable, numeric_columns

#: how BehaviorSpace's output files begin (the table, the spreadsheet, the lists and stats files),
#: the first cell quoted or not
MARK = "BehaviorSpace results ("
RUN, STEP = "[run number]", "[step]"
_HEADER = b'"[run number]",'


def is_table_head(head: str, base: str) -> bool:
    """Does the file begin as BehaviorSpace's output does?  (Its table is read, its other
    outputs refused: :func:`read_table`.)"""
    return head[:64].lstrip("\ufeff").lstrip('"').startswith(MARK)  # (the first cell alone: a head is 64 KiB)


def read_table(name: str, data: bytes) -> LogTable:
    """A BehaviorSpace table as runs (module docstring)."""
    data = data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data
    start = data.find(b"\n" + _HEADER)
    header_end = data.find(b"\n", start + 1) if start >= 0 else -1
    if start < 0 or b'"[step]"' not in data[start:header_end if header_end >= 0 else len(data)]:
        raise InputError(f"{name} is NetLogo BehaviorSpace output, but not its table (the spreadsheet, "
                         "lists or stats output, which lay the runs out otherwise): run the experiment with "
                         "table output (--table FILE headless, or 'Table output' in its dialog) and read that")
    try:
        frame = parse_delimited(name, io.BytesIO(data[start + 1:]))
    except pd.errors.ParserError as exc:
        raise InputError(f"{name}: malformed row in the BehaviorSpace table: "
                         f"{str(exc).strip().splitlines()[-1]}") from None
    columns = frame.columns.tolist()
    parameters = columns[1:columns.index(STEP)]
    if frame.empty:
        raise InputError(f"{name}: a BehaviorSpace table with no rows (did the experiment run?)")
    run_numbers, steps = run_and_step_numbers(frame, RUN, STEP, name, "the BehaviorSpace table")
    codes, runs = pd.factorize(run_numbers, sort=True)
    order = np.argsort(codes, kind="stable")  # each run's rows together, as its thread wrote them
    labels = np.array([f"run={int(run)}" for run in runs], dtype=object)
    configs = sweep_configurations(frame, parameters, codes, labels.tolist())
    numbers = numeric_columns(frame, name, skip=[RUN, STEP, *parameters])
    metrics = [c for c in columns[columns.index(STEP) + 1:] if c in numbers]
    if not metrics:
        raise InputError(f"{name}: the BehaviorSpace table's metrics hold no numbers "
                         f"({', '.join(map(str, columns[columns.index(STEP) + 1:])) or 'none measured'})")
    lines = data[:start].decode("utf-8", errors="replace").splitlines()
    described = [_unquoted(line) for line in lines[1:3]] + ["an unnamed model", "unnamed"][len(lines[1:3]):]
    version = _unquoted(lines[0]).replace("BehaviorSpace results", "").strip().strip("()")
    notes = [f"a NetLogo BehaviorSpace table ({version}): "
             f"experiment {described[1]!r} of {described[0]}, {len(runs)} run(s)"
             + (f", each run's variables {', '.join(map(str, parameters))} its configuration" if parameters else "")]
    left = [c for c in columns[columns.index(STEP) + 1:] if c not in numbers]
    if left:
        notes.append(f"left out {', '.join(map(str, left))}: not numbers (a list, a word or true/false each step)")
    if len(runs) == len(frame):  # measured at each run's end only ("Measure runs at every step" off)
        return final_values("netlogo-table", name, run_numbers, [configs[code] for code in codes],
                            {metric: numbers[metric] for metric in metrics}, notes,
                            seeds=replicate_seeds(frame, parameters))
    arrays = {"run": labels[codes[order]], "step": steps[order]}
    arrays.update({metric: np.asarray(numbers[metric], dtype=float)[order] for metric in metrics})
    return LogTable(None, "netlogo-table", name, notes, run_configs=dict(zip(labels.tolist(), configs)),
                    configs_complete=True, arrays=arrays)


def _unquoted(line: str) -> str:
    """A metadata line's first cell, without its quotes."""
    return line.split('","')[0].strip().strip('"')
