"""One run of a sweep: read it, check each metric, classify its regime.  Runs in a worker
process; returns plain JSON-safe data; a failure becomes that run's error, never an exception."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import jsonable
from ..convergence.endings import with_divergence
from ..convergence.verdict import ConvergenceTest
from ..description import describe
from ..errors import DivergedAtStart, SwarmstatsError
from ..io import classify_columns, read_log, select_metric
from ..io.formats._sweep import require_series
from ..io.metric import series_endings
from ..regimes import RegimeDetector


@dataclass(frozen=True)
class RegimeRules:
    """SWARM's regime classification over the final third of a run (swarm-metrics.md section 10):
    collapse if acceptance <= ``collapse_acceptance`` or toxicity >= ``collapse_toxicity``;
    cooperative if acceptance >= ``cooperative_acceptance``; otherwise contested."""

    cooperative_acceptance: float = 0.85
    collapse_acceptance: float = 0.30
    collapse_toxicity: float = 0.50
    tail: float = 1 / 3


@dataclass(frozen=True)
class SweepOptions:
    metrics: tuple | None = None
    checks: tuple = ("convergence", "regimes", "describe")
    regime_rules: RegimeRules = field(default_factory=RegimeRules)


def analyse_run(spec, options: SweepOptions) -> dict:
    """Everything the sweep reports about one run (``status`` "ok" or "error")."""
    out = {"name": spec.name, "params": jsonable(spec.params)}
    try:
        frame = spec.frame if spec.frame is not None else require_series(
            read_log(spec.path, format=spec.format, wide=True))
        columns = classify_columns(frame)
        metrics = list(options.metrics) if options.metrics else columns.metrics
        missing = [m for m in metrics if m not in frame.columns]
        if missing:
            raise SwarmstatsError(f"no metric {missing[0]!r} in this run")
        results = {}
        for metric in metrics:
            # a run whose metric ends in infinities or written NaN diverged: not converged, not a
            # failed read, even when it diverged before logging a finite value
            try:
                series = select_metric(frame, metric, step=columns.step, diverged=True)
            except DivergedAtStart as exc:
                results[metric] = _diverged_at_start(exc.divergence, options.checks)
                continue
            results[metric] = _metric(series, options.checks)
        out.update(status="ok", error=None, n_rows=int(len(frame)), metrics=results,
                   regime=classify_regime(frame, options.regime_rules))
    except (SwarmstatsError, ValueError, OSError) as exc:
        out.update(status="error", error=f"{type(exc).__name__}: {exc}", metrics={}, regime=None)
    return jsonable(out)


def _diverged_at_start(divergence: dict, checks) -> dict:
    """The entry of a metric with no finite value: it diverged at once."""
    entry = {"n": 0, "diverged_at": divergence["step"]}
    if "convergence" in checks:
        entry.update(verdict="not_converged", converged=False, mean=None)
    return entry


def _metric(series: pd.Series, checks) -> dict:
    entry = {"n": int(len(series))}
    diverged = series.attrs.get("diverged")
    if diverged is not None:
        entry["diverged_at"] = diverged["step"]
    if "skipped" in series.attrs:  # inf or NaN between finite values: left out, counted
        entry["skipped"] = series.attrs["skipped"]["values"]
    if "convergence" in checks:
        result = with_divergence(ConvergenceTest().fit(series), series_endings([series]))
        entry.update(verdict=result.verdict, converged=result.converged, mean=result.mean,
                     ci=list(result.ci), warmup=result.warmup, ess=result.ess)
    if "regimes" in checks and len(series) >= 10:
        regimes = RegimeDetector().fit(series)
        entry.update(changes=len(regimes.changepoints),
                     last_segment_mean=float(regimes.segments["mean"].iloc[-1]))
    if "describe" in checks:
        summary = describe(series, n_boot=0)
        entry.update(median=summary.median, iqm=summary.iqm, final=float(series.iloc[-1]))
    return entry


def classify_regime(frame: pd.DataFrame, rules: RegimeRules) -> dict | None:
    """SWARM's cooperative / contested / collapse call from the run's final third, when the run
    logs acceptance and toxicity (epoch exports); None otherwise."""
    names = set(frame.columns)
    if "toxicity_rate" not in names:
        return None
    order = frame.sort_values("step") if "step" in names else frame
    tail = order.iloc[-max(int(len(order) * rules.tail), 1):]
    toxicity = float(pd.to_numeric(tail["toxicity_rate"], errors="coerce").mean())
    if {"accepted_interactions", "total_interactions"} <= names:
        total = float(pd.to_numeric(tail["total_interactions"], errors="coerce").sum())
        acceptance = (float(pd.to_numeric(tail["accepted_interactions"], errors="coerce").sum()) / total
                      if total > 0 else 0.0)  # no interactions at all: collapse (SWARM)
    elif "acceptance_rate" in names:
        acceptance = float(pd.to_numeric(tail["acceptance_rate"], errors="coerce").mean())
    else:
        return None
    if acceptance <= rules.collapse_acceptance or (np.isfinite(toxicity) and toxicity >= rules.collapse_toxicity):
        label = "collapse"
    elif acceptance >= rules.cooperative_acceptance:
        label = "cooperative"
    else:
        label = "contested"
    return {"regime": label, "acceptance": acceptance, "toxicity": toxicity}
