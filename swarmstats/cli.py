"""The ``swarmstats`` command: parse, load, call the API, render.  Nothing else.

Exit codes: 0 the check passed (for ``regimes``: the analysis ran), 1 it
failed (e.g. not converged, or too little data to tell), 2 a usage or input
error (one line on stderr; --debug shows the traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

import numpy as np
import pandas as pd

from . import __version__
from ._result import fmt, jsonable, plain_number
from .convergence import ConvergenceTest
from .errors import InputError
from .describe import describe
from .io import FORMATS, classify_columns, read_interactions, read_table, select_metric
from .quality import adverse_selection_test, quality_by, quality_metrics
from .regimes import MODELS, PENALTIES, OnlineRegimeDetector, RegimeDetector
from .regimes.offline import METHODS
from .warmup import WARMUP_METHODS

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2

_EPILOG = """exit codes:
  0  every metric converged
  1  at least one metric did not converge, or had too little data to tell
  2  usage or input error (one line on stderr; --debug shows the traceback)"""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message} (see --help)")


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="swarmstats", description="Honest statistics for noisy reward and score series.")
    parser.add_argument("--version", action="version", version=f"swarmstats {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    check = commands.add_parser(
        "check-convergence", help="has each metric converged? (a CI gate: exit 1 if not)",
        description="Has each metric converged, or is it still changing? One row per metric "
                    "(per run with --group).", epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("file", metavar="FILE", help="log file (CSV, TSV, JSON Lines, JSON list) or - for stdin")
    check.add_argument("-m", "--metric", action="append", default=None,
                       help="metric column to check (repeatable; default: every metric column)")
    check.add_argument("--step", help="column to use as the step axis (default: a column named like a step)")
    check.add_argument("--group", help="column naming the run/seed: per-run verdicts plus R-hat")
    check.add_argument("--alpha", type=float, default=0.05, help="false-alarm rate of each verdict (default 0.05)")
    check.add_argument("--tolerance", type=float, help="smallest change over the span tested that matters")
    check.add_argument("--precision", type=float, help="target half-width of the CI of the mean")
    check.add_argument("--warmup", choices=WARMUP_METHODS, default="variance", help="warm-up rule")
    check.add_argument("--input-format", choices=FORMATS, help="format of FILE (needed for odd names and stdin)")
    check.add_argument("--format", choices=("text", "json", "csv"), default="text", help="output format")
    check.add_argument("--plot", metavar="PNG", help="also draw the evidence into this PNG file")
    check.add_argument("--exit-zero", action="store_true",
                       help="report only: exit 0 even if a metric has not converged (2 on errors)")
    check.add_argument("--no-color", action="store_true", help="no colour (NO_COLOR is honoured too)")
    check.add_argument("--debug", action="store_true", help="show tracebacks on errors")

    regimes = commands.add_parser(
        "regimes", help="where do regimes change, and how much? (offline changepoints)",
        description="Regime changes in each metric: segments with their means and the changes "
                    "with their strength in noise SDs.",
        epilog="exit codes:\n  0  success\n  2  usage or input error (one line on stderr)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    regimes.add_argument("file", metavar="FILE", help="log file (CSV, TSV, JSON Lines, JSON list) or - for stdin")
    regimes.add_argument("-m", "--metric", action="append", default=None,
                         help="metric column (repeatable; default: every metric column)")
    regimes.add_argument("--step", help="column to use as the step axis")
    regimes.add_argument("--model", choices=MODELS, default="mean", help="segment model (default mean)")
    regimes.add_argument("--method", choices=METHODS, default="pelt",
                         help="search: pelt (exact, default) or one of ruptures' approximate searches")
    regimes.add_argument("--penalty", default="bic",
                         help="bic (default), mbic, or a number in the units of the cost")
    regimes.add_argument("--min-size", type=int, default=5, help="shortest segment (default 5)")
    regimes.add_argument("--min-effect", type=float, default=1.0,
                         help="merge changes smaller than this many noise SDs (0: never; default 1)")
    regimes.add_argument("--online", action="store_true",
                         help="replay each metric through the online detector (BOCPD) and list its alarms")
    regimes.add_argument("--input-format", choices=FORMATS, help="format of FILE (needed for stdin)")
    regimes.add_argument("--format", choices=("text", "json", "csv"), default="text", help="output format")
    regimes.add_argument("--plot", metavar="PNG", help="also draw the series, segments and changes")
    regimes.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    _add_quality_gap_parser(commands)
    _add_describe_parser(commands)
    return parser


def _add_quality_gap_parser(commands) -> None:
    quality = commands.add_parser(
        "quality-gap", help="is selection working? soft and hard quality-gap metrics (exit 1 if adverse)",
        description="Soft and hard selection metrics of interactions scored by p = P(beneficial) and "
                    "accepted or rejected: quality gap E[p|accepted] - E[p|rejected], toxicity, "
                    "spread, saturation, welfare, each with an interval; a permutation test of "
                    "adverse selection (gap < 0).",
        epilog="exit codes:\n  0  no significant adverse selection\n"
               "  1  the gap is significantly below zero (adverse selection)\n"
               "  2  usage or input error (one line on stderr)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    quality.add_argument("file", metavar="FILE",
                         help="interaction table (CSV/TSV/JSONL), SWARM history JSON or event JSONL, or -")
    quality.add_argument("--p", default="p", help="column of p (default p)")
    quality.add_argument("--accepted", default="accepted", help="column of the accept flag (default accepted)")
    quality.add_argument("--by", help="also one row per value of this column (e.g. epoch); the "
                                      "adverse-selection test then shuffles within groups")
    quality.add_argument("--threshold", type=float, default=0.5, help="hard-label threshold (default 0.5)")
    quality.add_argument("--band", type=float, default=0.2, help="uncertain band half-width (default 0.2)")
    quality.add_argument("--alpha", type=float, default=0.05, help="level of the adverse-selection test")
    quality.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples and shuffles")
    quality.add_argument("--seed", type=int, default=0, help="random seed (default 0: reproducible output)")
    quality.add_argument("--swarm-compatible", action="store_true",
                         help="report SWARM's 0.0 for figures undefined on an empty side")
    quality.add_argument("--input-format", choices=FORMATS, help="format of FILE (needed for stdin)")
    quality.add_argument("--format", choices=("text", "json", "csv"), default="text", help="output format")
    quality.add_argument("--plot", metavar="PNG", help="also draw the distributions of p into this PNG")
    quality.add_argument("--exit-zero", action="store_true", help="report only: exit 0 even if adverse")
    quality.add_argument("--debug", action="store_true", help="show tracebacks on errors")


def _add_describe_parser(commands) -> None:
    describe = commands.add_parser(
        "describe", help="the distribution of each metric, with autocorrelation-aware intervals",
        description="n, mean with an autocorrelation-aware CI (and the i.i.d. one beside it), median "
                    "with a block-bootstrap CI, IQM, quantiles, extremes and their steps, the peak's "
                    "distance from the mean, lower-tail CVaR and a bimodality indicator.",
        epilog="exit codes:\n  0  success\n  2  usage or input error (one line on stderr)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    describe.add_argument("file", metavar="FILE", help="log file (CSV, TSV, JSON Lines, JSON list) or -")
    describe.add_argument("-m", "--metric", action="append", default=None,
                          help="metric column (repeatable; default: every metric column)")
    describe.add_argument("--step", help="column to use as the step axis")
    describe.add_argument("--group", help="column naming the run/seed: one description per run")
    describe.add_argument("--seed", type=int, default=0, help="random seed of the median's bootstrap")
    describe.add_argument("--input-format", choices=FORMATS, help="format of FILE (needed for stdin)")
    describe.add_argument("--format", choices=("text", "json", "csv"), default="text", help="output format")
    describe.add_argument("--plot", metavar="PNG", help="also draw each distribution into this PNG")
    describe.add_argument("--debug", action="store_true", help="show tracebacks on errors")


def main(argv=None) -> int:
    parser = build_parser()
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        if args.command == "regimes":
            return _regimes(args)
        if args.command == "quality-gap":
            return _quality_gap(args)
        if args.command == "describe":
            return _describe(args)
        return _check_convergence(args)
    except (_UsageError, InputError) as exc:
        if debug:
            traceback.print_exc()
        print(f"swarmstats: error: {exc}" if isinstance(exc, InputError) else str(exc), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_PASS


def _load(args):
    """The frame, its column roles and the metrics to analyse (validated)."""
    frame = read_table(args.file, format=args.input_format)
    columns = classify_columns(frame, step=args.step, group=getattr(args, "group", None))
    metrics = args.metric or columns.metrics
    if not metrics:
        raise InputError(f"{frame.attrs['source']} has no numeric metric column "
                         f"(columns: {', '.join(map(str, frame.columns))})")
    for metric in metrics:
        if metric not in frame.columns:
            raise InputError(f"no metric {metric!r}; available: {', '.join(columns.metrics) or '(none)'}")
    return frame, columns, metrics


def _check_convergence(args) -> int:
    test = ConvergenceTest(alpha=args.alpha, tolerance=args.tolerance, precision=args.precision,
                           warmup=args.warmup)
    test._validate()
    frame, columns, metrics = _load(args)
    results = []
    for metric in metrics:
        if args.group:
            runs = []
            for key, part in frame.groupby(args.group, sort=True):
                try:
                    series = select_metric(part, metric, step=columns.step)
                except InputError as exc:
                    if "has no values" not in str(exc):
                        raise
                    continue  # a run that never logged this metric
                runs.append(series.rename(f"{metric} [{args.group}={key}]"))
            if not runs:
                raise InputError(f"metric {metric!r} has no values in any run")
            result = test.fit(runs if len(runs) > 1 else runs[0], name=metric)
        else:
            result = test.fit(select_metric(frame, metric, step=columns.step), name=metric)
        results.append(result)
    passed = all(r.converged for r in results)
    _render(args, frame, results, passed)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        _github(args, frame, results)
    if args.plot:
        _plot(results, args.plot)
    return EXIT_PASS if passed or args.exit_zero else EXIT_FAIL


def _regimes(args) -> int:
    penalty = args.penalty
    if penalty not in PENALTIES:
        try:
            penalty = float(penalty)
        except ValueError:
            raise InputError(f"--penalty must be bic, mbic or a number, got {args.penalty!r}") from None
    detector = RegimeDetector(model=args.model, penalty=penalty, min_size=args.min_size,
                              min_effect=args.min_effect, method=args.method)
    detector._validate()
    frame, columns, metrics = _load(args)
    if args.online:
        return _online(args, frame, columns, metrics)
    results = [detector.fit(select_metric(frame, metric, step=columns.step), name=metric)
               for metric in metrics]
    out = sys.stdout
    if args.format == "json":
        payload = {"schema_version": 1, "command": "regimes",
                   "input": {"source": frame.attrs.get("source"), "format": frame.attrs.get("format"),
                             "rows": int(len(frame))},
                   "results": [r.to_dict() for r in results]}
        json.dump(jsonable(payload), out, indent=2, allow_nan=False)
        out.write("\n")
    elif args.format == "csv":
        tables = [r.segments.assign(metric=r.name) for r in results]
        table = pd.concat(tables, ignore_index=True)
        table[["metric", *[c for c in table.columns if c != "metric"]]].to_csv(out, index=False)
    else:
        for result in results:
            print(result.summary(), file=out)
            print(_segments_text(result), file=out)
            print(file=out)
    if args.plot:
        _plot(results, args.plot)
    return EXIT_PASS


def _dump_json(payload) -> None:
    json.dump(jsonable({"schema_version": 1, **payload}), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def _quality_gap(args) -> int:
    frame = read_interactions(args.file, format=args.input_format, p=args.p, accepted=args.accepted)
    if args.by and args.by not in frame.columns:
        raise InputError(f"no column {args.by!r} for --by; columns are {', '.join(map(str, frame.columns))}")
    options = dict(threshold=args.threshold, band=args.band, alpha=args.alpha, n_boot=args.n_boot,
                   swarm_compatible=args.swarm_compatible)
    overall = quality_metrics(frame[args.p], frame[args.accepted], random_state=args.seed, **options)
    table = test = None
    if args.by:
        table = quality_by(frame, args.by, p=args.p, accepted=args.accepted, random_state=args.seed + 1,
                           **options)
        test = adverse_selection_test(frame[args.p], frame[args.accepted], groups=frame[args.by],
                                      n_perm=max(args.n_boot, 1), random_state=args.seed + 2)
        pvalue = test.pvalue
    else:
        pvalue = overall.comparison["adverse_selection_pvalue"]
    adverse = bool(np.isfinite(pvalue) and pvalue < args.alpha)
    if args.format == "json":
        _dump_json({"command": "quality-gap",
                    "input": {"source": frame.attrs.get("source"), "format": frame.attrs.get("format"),
                              "rows": int(len(frame))},
                    "adverse_selection": adverse, "passed": not adverse, "overall": overall.to_dict(),
                    "by": None if table is None else {"column": args.by, "rows": table,
                                                      "test": test.to_dict()}})
    elif args.format == "csv":
        (overall.to_frame() if table is None else table).to_csv(sys.stdout, index=False)
    else:
        print(overall.summary())
        if table is not None:
            print()
            print(_quality_table_text(table, args.by))
            print(f"\nacross {args.by}s: {test.summary()}")
            print(_per_group_significance(table, args.by, args.alpha))
        verdict = ("ADVERSE SELECTION: the gap is significantly below zero" if adverse
                   else "no significant adverse selection")
        print(f"\n{verdict} (alpha = {args.alpha})")
    if args.plot:
        _plot([overall], args.plot)
    return EXIT_FAIL if adverse and not args.exit_zero else EXIT_PASS


def _quality_table_text(table: pd.DataFrame, by: str) -> str:
    lines = [f"  {by:<8}  n      gap [CI]                     toxicity [CI]                hard tox  p(adverse)"]
    for row in table.to_dict("records"):
        gap = f"{fmt(row['quality_gap'], 3)} [{fmt(row['quality_gap_low'], 3)}, {fmt(row['quality_gap_high'], 3)}]"
        tox = f"{fmt(row['toxicity'], 3)} [{fmt(row['toxicity_low'], 3)}, {fmt(row['toxicity_high'], 3)}]"
        lines.append(f"  {str(row[by]):<8}  {row['n']:<5}  {gap:<27}  {tox:<27}  "
                     f"{fmt(row['hard_toxicity'], 3):<8}  {fmt(row['adverse_selection_pvalue'], 3)}")
    return "\n".join(lines)


def _per_group_significance(table: pd.DataFrame, by: str, alpha: float) -> str:
    """How many groups are individually adverse, before and after Holm's correction."""
    pvalues = table["adverse_selection_pvalue"].to_numpy(dtype=float)
    defined = np.isfinite(pvalues)
    raw = table.loc[defined & (pvalues < alpha), by].tolist()
    order = np.argsort(np.where(defined, pvalues, np.inf))
    m, holm = int(defined.sum()), []
    for rank, i in enumerate(order[:m]):
        if pvalues[i] >= alpha / (m - rank):
            break  # Holm's step-down stops at the first non-rejection
        holm.append(table[by].iloc[i])
    listing = ", ".join(map(str, raw[:12])) + (" ..." if len(raw) > 12 else "")
    return (f"{len(raw)} of {m} {by}s individually adverse at alpha = {alpha}"
            + (f" ({listing})" if raw else "") + f"; {len(holm)} after Holm's correction")


def _describe(args) -> int:
    frame, columns, metrics = _load(args)
    results = []
    rng = np.random.default_rng(args.seed)
    for metric in metrics:
        parts = frame.groupby(args.group, sort=True) if args.group else [(None, frame)]
        for key, part in parts:
            try:
                series = select_metric(part, metric, step=columns.step)
            except InputError as exc:
                if args.group and "has no values" in str(exc):
                    continue  # a run that never logged this metric
                raise
            name = metric if key is None else f"{metric} [{args.group}={key}]"
            results.append(describe(series, random_state=rng, name=name))
    if not results:
        raise InputError("no values to describe")
    if args.format == "json":
        _dump_json({"command": "describe",
                    "input": {"source": frame.attrs.get("source"), "format": frame.attrs.get("format"),
                              "rows": int(len(frame))},
                    "results": [r.to_dict() for r in results]})
    elif args.format == "csv":
        pd.DataFrame([r.to_row() for r in results]).to_csv(sys.stdout, index=False)
    else:
        print("\n\n".join(r.summary() for r in results))
    if args.plot:
        _plot(results, args.plot)
    return EXIT_PASS


def _online(args, frame, columns, metrics) -> int:
    """Alarms of the BOCPD detector replayed over each metric, in step units."""
    rows = []
    for metric in metrics:
        series = select_metric(frame, metric, step=columns.step)
        steps = series.index.to_numpy() if columns.step else np.arange(len(series))
        detector = OnlineRegimeDetector()
        detector.update_many(series.to_numpy())
        rows += [{"metric": metric, "alarm_step": plain_number(steps[alarm]),
                  "change_step": plain_number(steps[max(change, 0)]), "delay": int(alarm - change)}
                 for alarm, change in detector.alarms]
        if not detector.alarms:
            rows.append({"metric": metric, "alarm_step": None, "change_step": None, "delay": None})
    table = pd.DataFrame(rows, columns=["metric", "alarm_step", "change_step", "delay"])
    table["delay"] = table["delay"].astype("Int64")
    if args.format == "json":
        payload = {"schema_version": 1, "command": "regimes", "mode": "online",
                   "input": {"source": frame.attrs.get("source"), "rows": int(len(frame))},
                   "alarms": table.dropna(subset=["alarm_step"]).to_dict("records")}
        json.dump(jsonable(payload), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    elif args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    else:
        for metric in metrics:
            part = table[(table["metric"] == metric) & table["alarm_step"].notna()]
            if part.empty:
                print(f"{metric}: no alarm (online, BOCPD)")
                continue
            print(f"{metric}: {len(part)} alarm(s) (online, BOCPD)")
            for row in part.to_dict("records"):
                print(f"  alarm at step {plain_number(row['alarm_step'])}: change from step "
                      f"{plain_number(row['change_step'])} ({int(row['delay'])} points later)")
    return EXIT_PASS


def _segments_text(result) -> str:
    lines = ["  segment  steps              n     mean [95% CI]                sd"]
    for i, row in enumerate(result.segments.to_dict("records")):
        steps = f"{row['start_step']}-{row['end_step']}"
        ci = f"{fmt(row['mean'])} [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"
        lines.append(f"  {i:<7}  {steps:<17}  {row['n']:<4}  {ci:<27}  {fmt(row['sd'])}")
    return "\n".join(lines)


def _rows(results):
    rows = []
    for result in results:
        if hasattr(result, "runs"):
            rows.extend(run.to_row() for run in result.runs)
        else:
            rows.append(result.to_row())
    return rows


def _render(args, frame, results, passed):
    out = sys.stdout
    if args.format == "json":
        payload = {
            "schema_version": 1, "command": "check-convergence",
            "input": {"source": frame.attrs.get("source"), "format": frame.attrs.get("format"),
                      "rows": int(len(frame))},
            "verdict": "converged" if passed else _worst(results), "passed": passed,
            "results": [r.to_dict() for r in results],
        }
        json.dump(jsonable(payload), out, indent=2, allow_nan=False)
        out.write("\n")
        return
    table = pd.DataFrame(_rows(results))
    if args.format == "csv":
        table.to_csv(out, index=False)
        return
    color = _use_color(args)
    for result in results:
        if hasattr(result, "runs"):
            print(_paint(f"{result.name}: {result.verdict} over {len(result.runs)} runs - "
                         f"{result.main_reason}", result.verdict, color), file=out)
            for reason in result.reasons[1:]:
                print(f"  - {reason}", file=out)
    print(_text_table(table, color), file=out)
    overall = "all metrics converged" if passed else "not every metric converged"
    print(f"\n{overall} ({len(results)} checked, alpha = {args.alpha})", file=out)


def _github(args, frame, results) -> None:
    """On GitHub Actions: an annotation per failing metric, and a Markdown table in the
    job summary (the file named by GITHUB_STEP_SUMMARY, appended to)."""
    source = frame.attrs.get("source")
    if args.format == "text":
        for result in results:
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
    for row in _rows(results):
        lines.append(f"| {row['metric']} | {row['verdict']} | {row['warmup']} | "
                     f"{fmt(row['mean'])} [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}] | "
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
    headers = ["metric", "verdict", "n", "warm-up", "mean [95% CI]", "slope/100", "ESS", "reason"]
    lines = []
    for row in table.to_dict("records"):
        ci = f"{fmt(row['mean'])} [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"
        slope = fmt(None if row["slope"] is None else row["slope"] * 100, 3)
        lines.append([str(row["metric"]), row["verdict"], str(row["n"]), str(row["warmup"]), ci,
                      slope, fmt(row["ess"], 4), row["reason"]])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headers[:-1])]
    def join(cells, verdict=None):
        text = "  ".join(c.ljust(w) for c, w in zip(cells[:-1], widths)) + "  " + cells[-1]
        return _paint(text, verdict, color) if verdict else text
    return "\n".join([join(headers)] + [join(line, line[1]) for line in lines])


def _use_color(args) -> bool:
    return (not args.no_color and not os.environ.get("NO_COLOR") and args.format == "text"
            and sys.stdout.isatty())


def _paint(text: str, verdict: str | None, color: bool) -> str:
    if not color or verdict is None:
        return text
    code = {"converged": "32", "not_converged": "31", "insufficient_data": "33"}.get(verdict)
    return f"\033[{code}m{text}\033[0m" if code else text


def _plot(results, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(results), 1, figsize=(9, 3.2 * len(results)), squeeze=False)
    for result, ax in zip(results, axes[:, 0]):
        result.plot(ax=ax)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise InputError(f"cannot write the plot to {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
