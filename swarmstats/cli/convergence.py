"""`swarmstats check-convergence`: has each metric converged?  A CI gate."""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

from .._result import fmt, fmt_interval, plain_number
from ..convergence.endings import with_divergence
from ..convergence.improvement import (
    BELOW_BEST,
    NO_IMPROVEMENT,
    no_improvement_note,
    worse_than_best_note,
)
from ..convergence.step_axis import planned_budget
from ..convergence.verdict import ConvergenceTest
from ..convergence.warmup import WARMUP_METHODS
from ..errors import InputError
from ..io import LOG_FORMATS, select_metric
from ..io.metric import series_endings
from ._loading import (
    RUN,
    announce_direction,
    finite_runs,
    load,
    metric_runs,
    parts,
    say_left_out,
)
from ._options import (
    EXIT_FAIL,
    EXIT_PASS,
    add_better_option,
    add_command,
    add_exit_zero_option,
    add_input_format_option,
    add_log_options,
    add_output_options,
    finite,
)
from ._output import (
    aligned_lines,
    paint,
    plot_results,
    render,
    say,
    stacked_frames,
    use_color,
)

_NOTE = """"converged" means shown flat: the mean moves by less than the tolerance over the horizon,
at the 95% level - not merely "no test rejected".  Too little data to show either is
insufficient_data, with how many more steps would settle it."""


def add_parser(commands) -> None:
    check = add_command(
        commands, "check-convergence",
        description="Has each metric converged, or is it still changing? One row per metric "
                    "(per run with --group).",
        exits={0: "every metric converged (shown flat)",
               1: "at least one metric did not converge, or had too little data to tell"},
        note=_NOTE)
    add_log_options(check, metric="metric column to check (repeatable; default: every metric column)",
                    group="per-run verdicts plus R-hat")
    check.add_argument("--alpha", type=finite, default=0.05, help="false-alarm rate of each verdict (default 0.05)")
    check.add_argument("--tolerance", type=finite,
                       help="'converged' means the mean moves by less than this over the horizon "
                            "(metric units; default 0.75 noise SD, see --tolerance-sd)")
    check.add_argument("--tolerance-sd", type=finite, default=0.75,
                       help="the default tolerance in noise SDs (default 0.75)")
    check.add_argument("--horizon", type=finite,
                       help="steps ahead over which flatness is claimed (default: the span kept after the warm-up)")
    check.add_argument("--budget", type=finite,
                       help="the step the run is planned to end at (on the step axis): flatness is then "
                            "claimed up to it, so 'converged' means training on would not move the mean "
                            "by more than the tolerance")
    check.add_argument("--precision", type=finite, help="target half-width of the CI of the mean")
    add_better_option(check)
    check.add_argument("--warmup", choices=WARMUP_METHODS, default="variance", help="warm-up rule")
    add_input_format_option(check, LOG_FORMATS)
    add_output_options(check, plot="the evidence")
    add_exit_zero_option(check, "if a metric has not converged")



def run(args) -> int:
    test = _test(args, args.budget)  # the options checked before the file is read
    frame, columns, metrics = load(args)
    budget = _budget(args, frame, columns.step)
    if budget != args.budget:
        test = _test(args, budget)
    if args.format == "text":  # machine formats keep stderr for errors
        announce_direction(args, metrics)
    results, unlogged = [], {}
    for metric in metrics:
        if not args.group:
            series = select_metric(frame, metric, step=columns.step, diverged=True)
            if args.format == "text":  # (the verdict's reasons say it too, for machine formats)
                say_left_out(metric, series, divergence=False)
            results.append(with_divergence(test.fit(series, name=metric), series_endings([series])))
            continue
        # runs of one configuration are replicates: their verdicts are summarised together
        configs = parts(frame, argparse.Namespace(group=getattr(args, "config", None)))
        judged = 0
        for config, rows in configs:
            runs = metric_runs(rows, metric, columns.step, args, diverged=True)
            if args.format == "text":
                for series in runs:
                    say_left_out(series.name, series, divergence=False)
            name = metric if config is None else f"{metric} [{config}]"
            if not runs:  # (an evaluation only some configurations ran: theirs to judge)
                unlogged.setdefault(config, []).append(metric)
                continue
            judged += 1
            kept = finite_runs(runs, metric)  # (a run that diverged at once is counted, not fitted)
            if len(runs) == 1 and config is not None and str(rows[RUN].iloc[0]).startswith(str(config)):
                name = runs[0].name  # a configuration's only seed keeps its own name (sac_seed1)
            results.append(with_divergence(test.fit(kept if len(kept) > 1 else kept[0],
                                                    # one run left of several: named as itself
                                                    name=kept[0].name if len(kept) == 1 < len(runs) else name),
                                           series_endings(runs)))
        if not judged:
            raise InputError(f"metric {metric!r} has no values in any run")
    lacking = {}  # one line per set of metrics, however many configurations lack it
    for config, names in unlogged.items():
        lacking.setdefault(tuple(names), []).append(str(config))
    for names, configs in lacking.items():
        if len(configs) == 1:
            say(f"{', '.join(names)} [{configs[0]}]: not logged in this configuration's runs")
        else:  # (a Mesa batch run's model reporters in none of its agents' runs)
            shown = "; ".join(configs[:4]) + (f" ... ({len(configs)} in all)" if len(configs) > 4 else "")
            say(f"{', '.join(names)}: not logged in the runs of {len(configs)} configurations ({shown})")
    passed = all(r.converged for r in results)
    _render(args, frame, results, passed, len(metrics))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        _github(args, frame, results)
    if args.plot:
        plot_results(results, args.plot)
    return EXIT_PASS if passed or args.exit_zero else EXIT_FAIL


def _test(args, budget) -> ConvergenceTest:
    return ConvergenceTest(alpha=args.alpha, tolerance=args.tolerance, tolerance_sd=args.tolerance_sd,
                           horizon=args.horizon, budget=budget, precision=args.precision, warmup=args.warmup,
                           better=args.better)


def _budget(args, frame, step: str | None) -> float | None:
    """``--budget``, or the step the log says the run was planned to end at when it ends
    before it (:func:`planned_budget`), said on stderr."""
    planned = planned_budget(frame, step) if args.budget is None and args.horizon is None else None
    if planned is None:
        return args.budget
    say(f"{frame.attrs.get('source')}: {planned[1]} (as --budget {plain_number(planned[0])}; --horizon H judges "
        "the next H steps instead)")
    return planned[0]


def _render(args, frame, results, passed, metric_count: int):
    render(args, "check-convergence", results, frame=frame,
           text=lambda: _text(args, frame, results, passed, metric_count),
           payload=lambda: {"verdict": "converged" if passed else _worst(results), "passed": passed,
                            "results": [r.to_dict() for r in results]})


def _text(args, frame, results, passed, metric_count: int) -> None:
    out = sys.stdout
    table = stacked_frames(results)
    color = use_color(args)
    for result in results:
        if hasattr(result, "runs"):
            print(paint(f"{result.name}: {result.verdict} over {len(result.runs)} runs - "
                         f"{result.main_reason}", result.verdict, color), file=out)
            for reason in result.reasons[1:]:
                print(f"  - {reason}", file=out)
    print(_text_table(table, color), file=out)
    notes = _notes(results)
    if notes:  # what the verdict says beside its reason (the JSON's reasons[1:]), or it went unread
        print("\nnotes:\n" + "\n".join(notes), file=out)
    overall = "all metrics converged" if passed else "not every metric converged"
    checked = f"{len(results)} checked"
    config = getattr(args, "config", None)
    if len(results) > metric_count and config in frame.columns:  # one verdict per configuration
        # (counted in the log: a metric that only some configurations logged has fewer verdicts)
        configurations = int(frame[config].nunique())
        checked = (f"{metric_count} metric{'s' if metric_count > 1 else ''} in "
                   f"{configurations} configuration{'s' if configurations > 1 else ''}: {checked}")
    print(f"\n{overall} ({checked}, alpha = {args.alpha})", file=out)


def _notes(results) -> list:
    """Each verdict's reasons after its first - the notes beside it (long memory suspected, a
    slope claimed on few effective samples, values logged at one step...) - one line each, under
    the metric's name; the warm-up, which the table shows, is not repeated."""
    lines = []
    for result in results:
        for run in getattr(result, "runs", None) or [result]:
            for reason in run.reasons[1:]:
                if not reason.startswith("warm-up: "):
                    lines.append(f"  {run.name}: {reason}")
    return lines


def _github(args, frame, results) -> None:
    """On GitHub Actions: an annotation per failing metric, and a Markdown table in the
    job summary (the file named by GITHUB_STEP_SUMMARY, appended to)."""
    # (imported here, on GitHub Actions only: it loads subprocess)
    from .github_action import annotation

    source = frame.attrs.get("source")
    if args.format == "text":
        for result in results:
            held = no_improvement_note(result.reasons) if result.converged else None
            if held is not None:  # flat, but nothing learned in this log: worth a look, not a failure
                print(annotation("warning", source, f"{result.name}: converged, {NO_IMPROVEMENT}", held))
            worse = worse_than_best_note(result.reasons) if result.converged else None
            if worse is not None:  # flat, but below where it had been: a checkpoint question
                print(annotation("warning", source, f"{result.name}: converged, {BELOW_BEST}", worse))
            if not result.converged:
                level = "warning" if args.exit_zero else "error"
                message = result.main_reason.replace("\n", " ")
                print(f"::{level} file={source},title={result.name}: {result.verdict}::{message}")
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not summary_path:
        return
    lines = [f"### swarmstats check-convergence: `{source}`", "",
             "| metric | verdict | warm-up | mean [95% CI] | ESS | reason |",
             "|---|---|---|---|---|---|"]
    for row in stacked_frames(results).to_dict("records"):
        lines.append(f"| {row['metric']} | {row['verdict']} | {row['warmup']} | "
                     f"{fmt_interval(row['mean'], row['ci_low'], row['ci_high'])} | "
                     f"{fmt(row['ess'], 4)} | {row['reason']} |")
    try:
        with open(summary_path, "a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n\n")
    except OSError as exc:
        raise InputError(f"cannot append to GITHUB_STEP_SUMMARY ({summary_path}): {exc.strerror}") from None


def _worst(results) -> str:
    verdicts = {r.verdict for r in results}
    return "not_converged" if "not_converged" in verdicts else "insufficient_data"


def _text_table(table: pd.DataFrame, color: bool) -> str:
    # the slope is the kept part's trend (the trend test's estimate), per 100 units of the step axis
    unit = next(iter(table["step_unit"]), "steps") if "step_unit" in table else "steps"
    headers = ["metric", "verdict", "n", "warm-up", "mean [95% CI]", f"kept slope/100 {unit}", "ESS", "reason"]
    lines = []
    for row in table.to_dict("records"):
        ci = fmt_interval(row['mean'], row['ci_low'], row['ci_high'])
        slope = fmt(None if row["slope"] is None else row["slope"] * 100, 3)
        lines.append([str(row["metric"]), row["verdict"], str(row["n"]), str(row["warmup"]), ci,
                      slope, fmt(row["ess"], 4), row["reason"]])
    header, *rows = aligned_lines(headers, lines)
    return "\n".join([header] + [paint(text, line[1], color) for text, line in zip(rows, lines)])
