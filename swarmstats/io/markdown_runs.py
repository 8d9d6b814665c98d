"""Runs pasted into a Markdown file, each in its own code block under a line saying what it was.

A results file in a repository often holds several runs' printed output, each in a fenced code
block under a heading or a sentence (``# PPO agent`` / ``# DQN agent``; "Improving model with
weight sharing" / "Switched to cuda and trained with bf16").  Read as one text, the step
starting again told the runs apart but nothing named them, and they were pooled as seeds of one
setting ("the runs disagree: R-hat = 2.58" over 14 runs of 14 different settings).  Here each
run is named by the text above its first block, and runs under different texts are different
settings; a text used twice names two runs of one setting (``PPO agent (2)``).

A block whose step carries on from the block before continues that run (output pasted in
parts); a block the format cannot read (a code listing) is passed over.  When fewer than two
runs under different texts are found (one text above every run, a notebook's title, tells no
setting apart), a run holds fewer than ``MIN_ROWS`` rows (a listing the format read), a block
itself holds a step that goes back (two runs in one block, or a resumed one), or the text
outside the blocks holds rows too, the file is read as one text, as before: nothing is left
out.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ..errors import InputError
from .formats.notebooks import printed_markdown
from .tabular import decode_text

#: a code fence's opening or closing line
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)")
#: a heading (ATX: one to six '#', a space, the title, optional closing '#'s)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
#: the longest run name taken from a sentence (its first line, cut at a word)
LONGEST_NAME = 60
#: the fewest rows a run read from the blocks holds (fewer: the file is read as one text)
MIN_ROWS = 3


def is_markdown(name: str) -> bool:
    return str(name).lower().endswith((".md", ".markdown"))


def is_notebook(name: str) -> bool:
    return str(name).lower().endswith(".ipynb")


def has_titled_blocks(name: str) -> bool:
    """A Markdown file, or a notebook (its Markdown cells above its code cells' output)."""
    return is_markdown(name) or is_notebook(name)


def fenced_blocks(text: str) -> list:
    """(the text above it, its lines) of each fenced code block of ``text``: the nearest
    heading or paragraph before the fence (a paragraph by its first line), both when a
    paragraph opens the heading's section (``PPO - lr 3e-4``: two sections that each begin
    "Results below:" are still told apart), None when there is none.  A ``#`` line inside a
    block is code (a Python comment), not a heading.

    >>> fenced_blocks("# PPO\\n```\\nstep 1\\n```\\nWith weight sharing:\\n\\n```\\nstep 1\\n```\\n")
    [('PPO', ['step 1']), ('With weight sharing', ['step 1'])]
    >>> fenced_blocks("# DQN\\nResults below:\\n```\\nstep 1\\n```\\n")
    [('DQN - Results below', ['step 1'])]
    """
    blocks, inside = [], None
    heading = paragraph = title = None
    opens_section, previous_blank, new_text = False, True, False
    for line in text.splitlines():
        if _FENCE.match(line):
            if inside is None:
                if new_text:  # (a block right after a block stays under the same text)
                    title = (f"{heading} - {paragraph}" if opens_section and heading else paragraph
                             ) if paragraph is not None else heading
                inside = []
            else:
                blocks.append((title, inside))
                inside, paragraph, opens_section, new_text = None, None, False, False
            previous_blank = True  # (the line after a block begins a paragraph)
            continue
        if inside is not None:
            inside.append(line)
            continue
        found = _HEADING.match(line)
        if found is not None:
            heading, paragraph, opens_section, previous_blank = _name(found.group(1)), None, True, True
            new_text = True
            continue
        if line.strip() and previous_blank:
            paragraph, new_text = _name(line), True
        previous_blank = not line.strip()
    if inside:  # a block the file ends in, its closing fence not written (yet)
        blocks.append((title, inside))
    return blocks


def _name(text: str) -> str:
    """A run's setting from a heading or a sentence: without emphasis marks and a closing colon."""
    return text.strip().strip("*_`[]").strip().rstrip(":").strip()


def _short(title: str) -> str:
    """``title`` cut at a word past ``LONGEST_NAME`` characters, for a run's label."""
    if len(title) <= LONGEST_NAME:
        return title
    return title[:LONGEST_NAME].rsplit(" ", 1)[0] + " ..."


def read_runs(read, name: str, data: bytes, sniff=None):
    """The runs of the Markdown file ``data`` read by ``read(name, bytes)`` (a printed format's
    reader) block by block, as one LogTable with a ``run`` column named by the text above each
    run and each run's configuration that text; None when the file is better read whole (see
    the module docstring), or that whole read itself when it holds rows the blocks do not.
    ``read`` is also given the whole file, for the notes a reader makes of everything it read
    (a file of several runs is parsed twice).  ``sniff(text, base)``, the
    format's own test, passes over the blocks it does not recognise without parsing them (a
    Markdown page's code listings)."""
    parts = []
    if is_notebook(name):  # its Markdown cells, and each code cell's printed output as a block
        text, block_name = printed_markdown(name, decode_text(name, data)), f"{name}.txt"
    else:
        text, block_name = decode_text(name, data), name
    blocks = [(title, lines) for title, lines in fenced_blocks(text) if any(line.strip() for line in lines)]
    if len({title for title, _ in blocks}) < 2:
        return None  # (every block under one text, or none: nothing to name runs apart by)
    base = os.path.basename(block_name)
    for title, lines in blocks:
        block = "\n".join(lines)
        if sniff is not None and not sniff(block, base):
            continue
        try:
            table = read(block_name, block.encode())
        except InputError:
            continue  # (a code listing, a block of prose output)
        frame = table.frame
        if "run" in frame.columns or "step" not in frame.columns or frame.empty:
            return None
        steps = frame["step"].to_numpy(dtype=float)
        steps = steps[~np.isnan(steps)]
        if (np.diff(steps) < 0).any():
            return None  # two runs (or a resumed one) in one block: the step's restarts tell them apart
        parts.append((title, table, steps))
    runs = _runs_of(parts)
    if len({title for title, _ in runs}) < 2 or any(sum(len(table.frame) for table in tables) < MIN_ROWS for _, tables in runs):
        return None  # (a short block read from a listing, a config's name=value lines, is no run)
    configs = titled_labels([title or "(untitled)" for title, _ in runs])
    labels = list(configs)
    frame = pd.concat([pd.concat([table.frame for table in tables], ignore_index=True).assign(run=label)
                       for label, (_, tables) in zip(labels, runs)], ignore_index=True)
    whole = read(name, data)
    if len(whole.frame) != len(frame):
        return whole  # rows printed outside the blocks: read as one text, nothing left out
    whole._frame, whole.arrays = frame[["run", *[c for c in frame.columns if c != "run"]]], None
    whole.run_configs, whole.configs_complete = configs, True
    shown = list(dict.fromkeys(labels))
    whole.notes.append(f"{len(labels)} runs in the Markdown's code blocks, each named by the text above it "
                       f"({', '.join(shown[:4])}{' ...' if len(shown) > 4 else ''}): runs under different "
                       "texts are different settings")
    return whole


def titled_labels(titles: list) -> dict:
    """{run label: its setting} for runs under ``titles`` (in order): a title used again names
    a second run of its setting; a long title is cut (label and setting alike), unless two
    different titles would then read alike (sentences that differ only past their first 60
    characters) and are kept whole.

    >>> titled_labels(["PPO", "DQN", "PPO"])
    {'PPO': 'PPO', 'DQN': 'DQN', 'PPO (2)': 'PPO'}
    """
    cut: dict = {}
    for title in dict.fromkeys(titles):
        cut.setdefault(_short(title), []).append(title)
    short = {title: label if len(alike) == 1 else title for label, alike in cut.items() for title in alike}
    configs, uses = {}, {}
    for title in titles:
        uses[title] = uses.get(title, 0) + 1
        configs[short[title] if uses[title] == 1 else f"{short[title]} ({uses[title]})"] = short[title]
    return configs


def _runs_of(parts: list) -> list:
    """(title, [tables]) per run of ``parts`` (title, table, its logged steps): a block whose
    first step does not carry on from the block before (it starts again at or below that
    block's last step) begins a new run."""
    runs = []
    last_step = None
    for title, table, steps in parts:
        if runs and last_step is not None and len(steps) and steps[0] > last_step:
            runs[-1][1].append(table)
        else:
            runs.append((title, [table]))
        if len(steps):
            last_step = steps[-1]
    return runs
