"""`swarmstats regimes`: where do regimes change, and by how much?"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._result import fmt, fmt_interval, plain_number
from ..errors import InputError, is_real
from ..io import LOG_FORMATS
from ..regimes import (
    MODELS,
    PENALTIES,
    CusumDetector,
    OnlineRegimeDetector,
    RegimeDetector,
)
from ..regimes.alarms import outcome_text
from ..regimes.offline import METHODS
from ._loading import every_metric_run, load
from ._options import (
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_log_options,
    add_output_options,
    at_least,
    finite,
)
from ._output import aligned_lines, plot_results, render, say

#: --online-method: "auto" is BOCPD unless its check names a regime of the stream it cannot judge.
ONLINE_METHODS = ("auto", "bocpd", "bocpd-trend", "cusum", "cusum-trend")


def add_parser(commands) -> None:
    regimes = add_command(
        commands, "regimes",
        description="Regime changes in each metric: segments with their means and the changes "
                    "with their strength in noise SDs.")
    add_log_options(regimes)
    regimes.add_argument("--model", choices=MODELS, default=None,
                         help="segment model (default trend: levels or lines in AR(1) noise; "
                              "mean when --penalty is mbic or a number)")
    regimes.add_argument("--method", choices=METHODS, default="auto",
                         help="search: auto (default: exact PELT up to 100 points, the O(n log n) seeded "
                              "search above), pelt, seeded, or one of ruptures' approximate searches")
    regimes.add_argument("--penalty", default="bic",
                         help="bic (default), mbic, or a number in the units of the cost")
    regimes.add_argument("--min-size", type=at_least(1), default=5, help="shortest segment (default 5)")
    regimes.add_argument("--min-effect", type=finite, default=None,
                         help="merge changes smaller than this many noise SDs (0: never; default 0.5 for the trend model, 1 otherwise)")
    regimes.add_argument("--online", action="store_true",
                         help="replay each metric through an online detector and list its alarms")
    regimes.add_argument("--online-method", choices=ONLINE_METHODS, default=None,
                         help="implies --online: bocpd, cusum, bocpd-trend or cusum-trend (in control along a "
                              "line: a steady climb is one regime, an alarm a change of level or slope), or auto "
                              "(the default: "
                              "BOCPD, but CUSUM for a metric whose first 100 values, or a regime after an alarm, "
                              "have two modes or mostly one value, where BOCPD false-alarms many times its "
                              "stated rate; said on stderr)")
    add_input_format_option(regimes, LOG_FORMATS)
    add_output_options(regimes, plot="the series, segments and changes")


def run(args) -> int:
    penalty = args.penalty
    if penalty not in PENALTIES:
        try:
            penalty = float(penalty)
        except ValueError:
            raise InputError(f"--penalty must be bic, mbic or a number, got {args.penalty!r}") from None
    model = args.model
    if model is None:
        # the trend model chooses its own penalty; one given in a cost's units means a fixed-scale model
        model = "trend" if penalty == "bic" else "mean"
        if model == "mean":
            say(f"--penalty {args.penalty} is for a fixed-scale cost: using --model mean")
    detector = RegimeDetector(model=model, penalty=penalty, min_size=args.min_size,
                              min_effect=args.min_effect, method=args.method)
    frame, columns, metrics = load(args)
    if args.online or args.online_method:
        return _online(args, frame, columns, metrics, args.online_method or "auto")
    # (a run that never logged a metric, or only NaN, is skipped - the latter said - not fatal)
    results = [detector.fit(series, name=series.name) for series in every_metric_run(frame, metrics, columns.step, args)]
    render(args, "regimes", results, frame=frame,
           text=lambda: print("\n\n".join(f"{r.summary()}\n{_segments_text(r)}" for r in results)))
    if args.plot:
        plot_results(results, args.plot)
    return EXIT_PASS


def _online(args, frame, columns, metrics, method: str) -> int:
    """Alarms of an online detector replayed over each metric, in step units."""
    rows, quiet, drawn = [], {}, []
    for series in every_metric_run(frame, metrics, columns.step, args):
        metric = series.name
        steps = series.index.to_numpy() if columns.step else np.arange(len(series))
        values = series.to_numpy()

        def at_step(index: int, steps=steps) -> str:  # where a regime starts, in the log's steps
            return f"step {plain_number(steps[index])}"

        detector, name, why = _online_detector(method, values, at_step)
        if why:
            say(f"{metric}: CUSUM rather than BOCPD (--online-method auto), whose false-alarm rate "
                f"is not controlled here - {why}")
        for note in (detector.notes_at(at_step) if name.startswith("BOCPD") else ()):
            say(f"{metric}: {note}")
        rows += [{"metric": metric, "detector": name, "alarm_step": plain_number(steps[alarm]),
                  "change_step": plain_number(steps[max(change, 0)]), "delay": int(alarm - change)}
                 for alarm, change in detector.alarms]
        if not detector.alarms:
            rows.append({"metric": metric, "detector": name, "alarm_step": None, "change_step": None,
                         "delay": None})
        # what no alarm means here: a quiet stream, or one shorter than the warm-up, never judged
        quiet[metric] = outcome_text([], len(values), detector.warmup)
        drawn.append(detector.result())
    table = pd.DataFrame(rows, columns=["metric", "detector", "alarm_step", "change_step", "delay"])
    table["delay"] = table["delay"].astype("Int64")
    for column in ("alarm_step", "change_step"):  # whole steps print as whole numbers
        steps_of = table[column].dropna()
        if steps_of.map(lambda v: is_real(v) and float(v).is_integer()).all():
            table[column] = table[column].astype("Int64")
    render(args, "regimes", [], frame=frame, table=lambda: table, text=lambda: _alarms_text(table, quiet),
           payload=lambda: {"mode": "online",
                            "detectors": dict(zip(table["metric"], table["detector"])),
                            "alarms": table.dropna(subset=["alarm_step"]).to_dict("records")})
    if args.plot:  # each detector's evidence: the values with its alarms, and its statistic
        plot_results(drawn, args.plot)
    return EXIT_PASS


def _online_detector(method: str, values: np.ndarray, at_step):
    """The detector for one metric, having read it; its name; why CUSUM replaced BOCPD (or None).

    "auto" replays the metric through BOCPD: when BOCPD's own check says that a reference it
    learnt - from the first values, or again after an alarm - has a second mode or is mostly
    one value (a 0/1 success, a score at its cap), where it raises many times its stated
    false-alarm rate, the metric gets CUSUM instead, whose reference clips at most 10% of the
    values and keeps its promise there.  A learning curve often reaches such a regime only
    later (a reward at its cap once learnt, falls in a tenth of the late episodes)."""
    if method in ("cusum", "cusum-trend"):
        detector = CusumDetector(model="trend" if method == "cusum-trend" else "level")
        detector.update_many(values)
        return detector, "CUSUM-trend" if method == "cusum-trend" else "CUSUM", None
    detector = OnlineRegimeDetector(model="trend" if method == "bocpd-trend" else "level")
    detector.update_many(values[:detector.warmup])  # the first warm-up alone often settles it
    if not (method == "auto" and detector.unsuited):
        detector.update_many(values[detector.warmup:])
    if method == "auto" and detector.unsuited:
        why = detector.unsuited_reason(at_step)
        cusum = CusumDetector()
        cusum.update_many(values)
        return cusum, "CUSUM", why
    return detector, "BOCPD-trend" if method == "bocpd-trend" else "BOCPD", None


def _alarms_text(table, quiet: dict) -> None:
    for metric, detector in dict(zip(table["metric"], table["detector"])).items():
        part = table[(table["metric"] == metric) & table["alarm_step"].notna()]
        if part.empty:
            print(f"{metric}: {quiet[metric]} (online, {detector})")
            continue
        print(f"{metric}: {len(part)} alarm(s) (online, {detector})")
        for row in part.to_dict("records"):
            print(f"  alarm at step {plain_number(row['alarm_step'])}: change from step "
                  f"{plain_number(row['change_step'])} ({int(row['delay'])} points later)")


def _segments_text(result) -> str:
    rows = [[i, f"{row['start_step']}-{row['end_step']}", row["n"],
             fmt_interval(row["mean"], row["ci_low"], row["ci_high"]), fmt(row["sd"])]
            for i, row in enumerate(result.segments.to_dict("records"))]
    return "\n".join(aligned_lines(["segment", "steps", "n", "mean [95% CI]", "sd"], rows, indent="  "))
