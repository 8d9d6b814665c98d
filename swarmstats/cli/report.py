"""`swarmstats report`: one self-contained HTML page (or PNG) with every metric's evidence."""

from __future__ import annotations

import sys

from ..convergence.endings import with_divergence
from ..convergence.verdict import ConvergenceTest
from ..direction import guessed_direction
from ..errors import DivergedAtStart
from ..html_report import Report, build_report
from ..io import LOG_FORMATS
from ..io.metric import series_endings
from ._loading import (
    announce_direction,
    finite_runs,
    load,
    logged_in,
    metric_runs,
    parts,
    run_label,
)
from ._options import (
    EXIT_PASS,
    add_better_option,
    add_command,
    add_input_format_option,
    add_run_option,
)
from ._output import say


def add_parser(commands) -> None:
    report = add_command(
        commands, "report",
        description="For each metric: the series with warm-up, regimes and adaptive-window status, "
                    "the convergence verdict with its reasons, the distribution; the soft-versus-"
                    "hard quality panel where p and accepted columns exist.  Images are embedded: "
                    "the page needs no network.",
        exits={0: "the report was written"})
    report.add_argument("file", metavar="FILE", help="log file or run folder (any format read_log reads)")
    report.add_argument("-o", "--output", required=True, help="report.html, or report.png for one image")
    report.add_argument("-m", "--metric", action="append", default=None, help="metric (repeatable)")
    report.add_argument("--step", help="column to use as the step axis")
    add_run_option(report)
    report.add_argument("--group", help="column naming the run/seed: one set of panels per run")
    add_better_option(report)
    report.add_argument("--p", default="p", help="column of p for the quality panel (default p)")
    report.add_argument("--accepted", default="accepted", help="column of the accept flag (default accepted)")
    add_input_format_option(report, LOG_FORMATS)


#: metric sections drawn by default: a page of 300 panels is read by no one and takes minutes
MAX_SECTIONS = 20


def _first_sections(metrics: list, better: str | None) -> list:
    """The :data:`MAX_SECTIONS` metrics a capped report draws: those better when higher (scores,
    rewards, accuracies), then when lower (losses), then diagnostics with no better side, each
    group in the log's order.  In log order a verl log's first 20 were mostly batch sizes and
    sequence lengths, its score 15th and its validation first."""
    if better not in (None, "auto"):
        return metrics[:MAX_SECTIONS]  # one side given for all: the log's order
    rank = {"higher": 0, "lower": 1, None: 2}
    return sorted(metrics, key=lambda name: rank[guessed_direction(name)])[:MAX_SECTIONS]


def run(args) -> int:
    frame, columns, metrics = load(args)
    metrics = args.metric or [m for m in metrics if m not in (args.p, args.accepted)]
    if not args.metric and len(metrics) > MAX_SECTIONS:
        shown = _first_sections(metrics, args.better)
        ordered = "" if shown == metrics[:MAX_SECTIONS] else (
            ", those with a better side first (scores and rewards, then losses), then diagnostics")
        say(f"{len(metrics)} metrics: the report shows {MAX_SECTIONS}{ordered} (name others with -m)")
        metrics = shown
    announce_direction(args, metrics)
    if args.group:
        sections, quality, notes = [], None, []
        for key, part in parts(frame, args):
            present = logged_in(part, metrics)
            label = run_label("", key, args).strip()
            if len(present) < len(metrics):
                missing = [m for m in metrics if m not in present]
                notes.append(f"{label}: {', '.join(map(str, missing))} not logged in this run")
            if not present:
                continue
            try:
                built = build_report(part, metrics=present, step=columns.step, p=args.p,
                                     accepted=args.accepted, better=args.better)
            except DivergedAtStart as exc:  # a run with nothing to draw: said, the others drawn
                notes.append(f"{label}: {exc}")
                continue
            for section in built.sections:
                section.name = run_label(section.name, key, args)
            sections += built.sections
            quality = quality or built.quality
            notes += built.notes
        result = Report(source=frame.attrs.get("source"), sections=sections, quality=quality,
                        notes=sorted(set(notes)), across_runs=_across_runs(frame, columns, metrics, args))
    else:
        result = build_report(frame, metrics=metrics, step=columns.step, p=args.p, accepted=args.accepted,
                              better=args.better)
    result.write(args.output)
    print(f"wrote {args.output} ({len(result.sections)} metric section(s)"
          f"{', quality panel' if result.quality is not None else ''})", file=sys.stderr)
    return EXIT_PASS


def _across_runs(frame, columns, metrics, args) -> list:
    """Each metric's verdict over all runs together (R-hat and the per-run verdicts), as
    check-convergence gives it: one line per metric."""
    lines = []
    test = ConvergenceTest(better=args.better)
    for metric in metrics:
        runs = metric_runs(frame, metric, columns.step, args, diverged=True)
        kept = finite_runs(runs, metric)  # (a run that diverged at once is counted, not fitted)
        if len(runs) > 1:
            across = with_divergence(test.fit(kept if len(kept) > 1 else kept[0], name=metric),
                                     series_endings(runs))
            # (as check-convergence: the runs judged, and the reason names any that diverged at once)
            lines.append(f"{metric}: {across.verdict} over {len(kept)} runs - {across.main_reason}")
    return lines
