"""Jupyter notebooks: what their cells showed, and the table a Hugging Face Trainer draws there.

A notebook (``.ipynb``) is JSON; what a training cell printed or displayed is in its cells'
``outputs``: printed text (``stream``, a result's ``text/plain``) and rich displays
(``text/html``).  :func:`outputs` gives both, cell by cell, for the readers of printed logs.

In a notebook (Jupyter, Colab, Kaggle) a Hugging Face ``Trainer`` - and TRL's trainers built on
it, as the fine-tuning notebooks people share run them - prints no dicts: its
``NotebookProgressCallback`` draws a progress bar over an HTML table, redrawn in place at each
log, which the saved notebook keeps in its last state::

    <table border="1" class="dataframe">
      <thead>
     <tr style="text-align: left;">
          <th>Step</th>
          <th>Training Loss</th>
          <th>Validation Loss</th>
          <th>Accuracy</th>
     ...
        <tr>
          <td>500</td>
          <td>0.693100</td>
          <td>No log</td>
     ...

The first column is ``Step``, or ``Epoch`` when the run evaluates once per epoch (the step
axis is then epochs); a float is printed ``%.6f``; ``No log`` is a value not logged yet.  An
evaluation's metrics are named as displayed (``eval_matthews_correlation`` shows as
``Matthews Correlation``) and are read under those names.  Each training cell's table is one
run; a notebook that trained twice holds two, named by the Markdown cells above their training
cells when those differ ("## lr 1e-4", "## lr 5e-5": two settings, never pooled as seeds of
one), else by their cells (``cell 7``).  The same HTML in a notebook exported to
Markdown or HTML (``jupyter nbconvert``) is read too.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from ...errors import InputError
from ._table import LogTable, printed_number

#: the Trainer's table: its first two headers (the escaped JSON of a notebook puts quotes,
#: commas and newlines between them)
_TRAINER_HEAD = re.compile(r"<th>\s*(Step|Epoch)\s*</th>.{0,200}?<th>\s*Training Loss\s*</th>", re.DOTALL)
_TABLE = re.compile(r"<table\b[^>]*>(.*?)</table>", re.DOTALL | re.IGNORECASE)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.DOTALL | re.IGNORECASE)
_CELL = re.compile(r"<t([hd])\b[^>]*>(.*?)</t[hd]>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
#: what the Trainer shows for a value not logged yet
NOT_LOGGED = "No log"
#: it prints a float as "%.6f"
PRINTED_DECIMALS = 6


def outputs(name: str, text: str) -> list[tuple[int, str, str]]:
    """(cell number from 1, ``"text"`` or ``"html"``, content) of every output of a notebook's
    cells, in order: printed streams and plain-text results, and HTML displays."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not a readable notebook (invalid JSON at line {exc.lineno}: {exc.msg})") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise InputError(f"{name}: not a Jupyter notebook (no list of cells)")
    found = []
    for number, cell in enumerate(cells, start=1):
        for output in (cell.get("outputs") or []) if isinstance(cell, dict) else []:
            if not isinstance(output, dict):
                continue
            data = output.get("data") or {}
            html = data.get("text/html") if isinstance(data, dict) else None
            if html:
                found.append((number, "html", _joined(html)))
                continue
            printed = output.get("text", data.get("text/plain", "") if isinstance(data, dict) else "")
            if printed:
                found.append((number, "text", _joined(printed)))
    return found


def printed_text(name: str, text: str) -> str:
    """The text a notebook's cells printed (stream output and plain-text results), in order."""
    return "\n".join(content for _, kind, content in outputs(name, text) if kind == "text")


def is_trainer_table_head(head: str, base: str) -> bool:
    """Does the start of a file hold a Trainer's notebook table (in a notebook's JSON, or in an
    HTML or Markdown export of one)?"""
    # a one-character search before the phrase's (~0.1 against ~4 us on 14 KB of a table of numbers)
    return " " in head and "Training Loss" in head and _TRAINER_HEAD.search(head) is not None


def trainer_tables(html: str) -> list[tuple[list, list]]:
    """(headers, rows of cell texts) of each Trainer table in ``html``; a row with more or fewer
    cells than the headers is kept as ``None`` (counted and noted by the reader, never guessed)."""
    tables = []
    for body in _TABLE.findall(html):
        rows = [[(kind.lower(), _TAG.sub("", cell).strip()) for kind, cell in _CELL.findall(row)]
                for row in _ROW.findall(body)]
        rows = [row for row in rows if row]
        if not rows or [text for _, text in rows[0][:2]] not in (["Step", "Training Loss"],
                                                                   ["Epoch", "Training Loss"]):
            continue
        headers = [text for _, text in rows[0]]
        tables.append((headers, [[text for _, text in row] if len(row) == len(headers) else None
                                 for row in rows[1:]]))
    return tables


def read_trainer_tables(name: str, text: str) -> LogTable:
    """The Trainer tables of a notebook (or of an export of one) as a log: one run per table."""
    if name.lower().endswith(".ipynb"):
        found = [(cell, table) for cell, kind, content in outputs(name, text) if kind == "html"
                 for table in trainer_tables(content)]
    else:
        found = [(None, table) for table in trainer_tables(text)]
    malformed = sum(row is None for _, (_, rows) in found for row in rows)
    found = [(cell, (headers, [row for row in rows if row is not None])) for cell, (headers, rows) in found]
    found = [(cell, (headers, rows)) for cell, (headers, rows) in found if rows]
    if not found:
        raise InputError(f"{name}: no Trainer table with a logged row found (in a notebook the "
                         "Trainer draws a table whose columns start 'Step' or 'Epoch', 'Training Loss')")
    axes = {headers[0] for _, (headers, _) in found}
    if len(axes) > 1:
        raise InputError(f"{name}: its Trainer tables count by different axes (Step and Epoch): "
                         "read one notebook per run")
    axis = axes.pop()
    labels = _run_labels([cell for cell, _ in found])
    configs = _titled_runs(name, text, [cell for cell, _ in found]) if len(found) > 1 else None
    if configs is not None:  # each run named by the Markdown cell above it (see cell_titles)
        labels = list(configs)
    keys, parts, unread = [], [], 0
    for label, (_, (headers, rows)) in zip(labels, found):
        keys += [key for key in headers[1:] if key not in keys]
        steps = np.array([_number_or_nan(printed_number(row[0])) for row in rows])
        columns = {}
        for j, key in enumerate(headers[1:], start=1):
            values = [_cell_value(row[j]) for row in rows]
            unread += sum(value is None for value in values)
            columns[key] = np.array([_number_or_nan(value) for value in values])
        parts.append((label, steps, columns))
    arrays = {}
    if len(parts) > 1:
        arrays["run"] = np.concatenate([np.full(len(steps), label, dtype=object) for label, steps, _ in parts])
    arrays["step"] = np.concatenate([steps for _, steps, _ in parts])
    for key in keys:
        arrays[key] = np.concatenate([columns.get(key, np.full(len(steps), math.nan))
                                      for _, steps, columns in parts])
    notes = [f"{len(parts)} Trainer table(s) as a notebook displayed them, {len(arrays['step'])} row(s); "
             f"floats shown to {PRINTED_DECIMALS} decimals; '{NOT_LOGGED}' is a value not logged yet"]
    if axis == "Epoch":
        notes.append("the table counts epochs (the run evaluated once per epoch): the step is the epoch")
    if len(parts) > 1:
        notes.append(f"{len(parts)} tables (a training cell each, or one cell that trained twice) are "
                     f"{len(parts)} runs: {', '.join(labels)}")
    if malformed:
        notes.append(f"{malformed} row(s) with more or fewer cells than the table's columns left out")
    if unread:
        notes.append(f"{unread} cell(s) holding neither a number nor '{NOT_LOGGED}' read as missing")
    table = LogTable(None, "hf-notebook", name, notes, arrays=arrays,
                     step_unit="epochs" if axis == "Epoch" else None)
    if configs is not None:
        table.run_configs, table.configs_complete = configs, True
        notes.append("each run is named by the Markdown cell above its training cell: runs under different "
                     "texts are different settings")
    return table


def refuse(name: str) -> LogTable:
    """A notebook in which no printed log was found: one clear error (read as JSON, its
    ``nbformat`` numbers were "too few values to analyse")."""
    raise InputError(f"{name}: a Jupyter notebook with no training log in its cells' output (read "
                     "from a notebook: a Trainer's table or dicts, what SB3's logger or verl printed); "
                     "was it saved with its outputs cleared?")


def _cell_value(text: str) -> float | None:
    """A table cell as a number; NaN for "No log"; None for anything else."""
    if text == NOT_LOGGED:
        return math.nan
    return printed_number(text)


def _number_or_nan(value: float | None) -> float:
    return math.nan if value is None else value


def cell_titles(name: str, text: str) -> dict:
    """{code cell number: the text above it} of a notebook: the nearest heading or paragraph of
    the Markdown cells before it, named as a Markdown file's code blocks are
    (:func:`~swarmstats.io.markdown_runs.fenced_blocks`); None where no Markdown comes first."""
    from ..markdown_runs import fenced_blocks

    # each code cell's block holds its number
    return {int(lines[0]): title for title, lines in fenced_blocks(_as_markdown(text, str))}


def printed_markdown(name: str, text: str) -> str:
    """A notebook as the Markdown it would export to, for reading run by run
    (:mod:`..markdown_runs`): its Markdown cells' text, and each code cell's printed output (the
    text :func:`printed_text` reads) in a code block of its own."""
    printed: dict = {}
    for number, kind, content in outputs(name, text):
        if kind == "text":
            printed.setdefault(number, []).append(content)
    return _as_markdown(text, lambda number: "\n".join(printed.get(number, [])))


def _as_markdown(text: str, code) -> str:
    """The notebook's cells in order as Markdown: a Markdown cell's source as written, a code
    cell as a code block holding ``code(its number)``; "" for a notebook that cannot be read."""
    try:
        cells = json.loads(text).get("cells") or []
    except (json.JSONDecodeError, AttributeError):
        return ""
    pieces = []
    for number, cell in enumerate(cells, start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "markdown":
            pieces.append(_joined(cell.get("source", "")))
        elif isinstance(cell, dict) and cell.get("cell_type") == "code":
            pieces.append(f"```\n{code(number)}\n```")
    return "\n\n".join(pieces)


def _titled_runs(name: str, text: str, cells: list) -> dict | None:
    """{run label: its setting} when the runs' training ``cells`` lie under two or more
    different texts (:func:`cell_titles`), a text used twice naming a second run of its setting
    (``lr 1e-4 (2)``); None otherwise (the runs keep their cells' labels).  A cell that drew
    two tables (it trained twice) keeps its cells' labels too: one text cannot name two runs."""
    if None in cells or len(set(cells)) != len(cells):  # (no cells: an export of a notebook)
        return None
    titles = cell_titles(name, text)
    found = [titles.get(cell) for cell in cells]
    if None in found or len(set(found)) < 2:
        return None
    from ..markdown_runs import titled_labels

    return titled_labels(found)


def _run_labels(cells: list) -> list:
    """A run's label: its cell (``cell 7``; ``cell 7 #2`` for a second table of one cell), or
    ``#k`` where the text has no cells."""
    if any(cell is None for cell in cells):
        return [f"#{k}" for k in range(1, len(cells) + 1)]
    labels, seen = [], {}
    for cell in cells:
        seen[cell] = seen.get(cell, 0) + 1
        labels.append(f"cell {cell}" + (f" #{seen[cell]}" if seen[cell] > 1 else ""))
    return labels


def _joined(content) -> str:
    return "".join(content) if isinstance(content, list) else str(content)
