"""How every command answers: one line on stderr, JSON with a schema version, tables, colour,
and figures written atomically."""

from __future__ import annotations

import json
import os
import re
import sys

#: what the command found or chose on its own; printed to stderr once it succeeded (an
#: input error stays one line)
NOTES: list = []


def capped_list(items: list, limit: int = 10) -> str:
    """``items`` joined by commas, the first ``limit`` of them and a count of the rest (a log
    line of 200,000 keys, one value each, made a message of 2 MB).

    >>> capped_list(["a (1)", "b (1)", "c (2)"], limit=2)
    'a (1), b (1) and 1 more'
    """
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit:,} more" if len(items) > limit else "")


def aligned_lines(headers: list, rows: list, indent: str = "") -> list:
    """A text table: the header line, then one line per row, every column but the last padded
    to its widest cell (a fixed width let an agent named "opportunistic_2" push its row over)."""
    widths = [max([len(str(header))] + [len(str(row[i])) for row in rows]) for i, header in enumerate(headers[:-1])]

    def join(cells):
        return indent + "  ".join(str(c).ljust(w) for c, w in zip(cells[:-1], widths)) + "  " + str(cells[-1])

    return [join(headers)] + [join(row) for row in rows]


def say(message: str) -> None:
    """Note one line for stderr: what a command found or chose on its own."""
    NOTES.append(f"swarmstats: {message}")


def one_line(message: str) -> str:
    """``message`` on one line with control characters shown as escapes: a column named with a
    newline or a terminal escape code cannot split the error or repaint the terminal.

    >>> one_line("no column 'rew\\nard'\\x1b[2J")
    "no column 'rew\\\\nard'\\\\x1b[2J"
    """
    return re.sub(r"[\x00-\x08\x0a-\x1f\x7f]", lambda m: repr(m.group())[1:-1], message)


def flush_notes(keep: bool = True) -> None:
    if keep:
        for note in NOTES:
            print(one_line(note), file=sys.stderr)
    NOTES.clear()


#: the version of the JSON every command prints (bump it when a key changes meaning)
SCHEMA_VERSION = 1


def dump_json(command: str, payload: dict, frame=None) -> None:
    """The one JSON envelope: ``schema_version``, ``command``, ``input`` (the log read, when
    there is one), then the command's own keys.  Strict JSON: no NaN (null instead)."""
    from .._result import jsonable

    envelope = {"schema_version": SCHEMA_VERSION, "command": command}
    if frame is not None:
        envelope["input"] = {"source": frame.attrs.get("source"), "format": frame.attrs.get("format"),
                             "rows": int(len(frame))}
    json.dump(jsonable({**envelope, **payload}), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def render(args, command: str, results, *, frame=None, payload=None, table=None, text=None) -> None:
    """Print ``results`` in the format asked for: the one place output formats are decided.

    json - the envelope around ``payload()`` (default ``{"results": [each to_dict()]}``);
    csv - ``table()`` (default: every result's ``to_frame()``, stacked, ``metric`` first);
    text - ``text()`` (default: every summary, a blank line between)."""
    if args.format == "json":
        dump_json(command, payload() if payload else {"results": [r.to_dict() for r in results]}, frame)
    elif args.format == "csv":
        (table() if table else stacked_frames(results)).to_csv(sys.stdout, index=False)
    elif text is not None:
        text()
    else:
        print("\n\n".join(r.summary() for r in results))


def stacked_frames(results):
    """Every result's ``to_frame()`` in one frame, tagged by the result's name in a first
    ``metric`` column when the table lacks one."""
    import pandas as pd

    frames = []
    for result in results:
        part = result.to_frame()
        if "metric" not in part.columns:
            part = part.assign(metric=getattr(result, "name", None))
        frames.append(part)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return table[["metric", *[c for c in table.columns if c != "metric"]]] if len(table.columns) else table


def use_color(args) -> bool:
    return (not args.no_color and not os.environ.get("NO_COLOR") and args.format == "text"
            and sys.stdout.isatty())


def paint(text: str, verdict: str | None, color: bool) -> str:
    if not color or verdict is None:
        return text
    code = {"converged": "32", "not_converged": "31", "insufficient_data": "33"}.get(verdict)
    return f"\033[{code}m{text}\033[0m" if code else text


def new_figure(rows: int, columns: int, size: tuple):
    """A figure and its grid of Axes on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(rows, columns, figsize=size, squeeze=False)


def save_figure(fig, path: str) -> None:
    """Write ``fig`` to ``path`` (an InputError if it cannot be written) and close it."""
    import matplotlib.pyplot as plt

    from ..io.outputs import PLOT_SUFFIXES, check_output, write_atomically
    from ..plots import literal_text

    literal_text(fig)  # before the layout, which renders every text
    fig.tight_layout()
    try:
        check_output(path, suffixes=PLOT_SUFFIXES, what="plot")
        write_atomically(path, lambda temporary: fig.savefig(temporary, dpi=110))
    finally:
        plt.close(fig)


def plot_results(results, path: str, panel: tuple = (9, 3.2)) -> None:
    """Each result's own plot, one row of size ``panel`` each, into one image."""
    fig, axes = new_figure(len(results), 1, (panel[0], panel[1] * len(results)))
    for result, ax in zip(results, axes[:, 0]):
        result.plot(ax=ax)
    save_figure(fig, path)
