"""What the convergence verdict returns: one run's result, several runs' result, and how
several runs' verdicts make one (:func:`overall_verdict`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt, fmt_interval

__all__ = ["ConvergenceResult", "MultiRunConvergenceResult", "VERDICTS", "overall_verdict"]

VERDICTS = ("converged", "not_converged", "insufficient_data")


@dataclass(frozen=True, repr=False)
class ConvergenceResult(Result):
    """The verdict on one run, with the numbers behind it."""

    verdict: str
    converged: bool
    reasons: list
    name: str | None
    n: int
    warmup: int
    warmup_step: float | int | None
    n_kept: int
    ess: float
    autocorr_time: float
    mean: float
    sd: float
    ci: tuple
    ci_level: float
    mcse: float
    trend_slope: float
    trend_pvalue: float
    drift_slope: float
    drift_pvalue: float
    late_change: float
    late_pvalue: float
    late_length: int
    variance_ratio: float
    variance_pvalue: float
    variance_length: int
    geweke_z: float
    tolerance: float
    horizon: float
    projected_change: float
    change_bound: float
    detectable_change: float
    long_memory: bool
    alpha: float
    precision: float | None
    steps_needed: int | None
    step_unit: str = "steps"  # what trend_slope is per (one step of the step axis)
    #: the tests that showed a change, in the order of the reasons they gave: "trend" (after
    #: the warm-up), "drift" (over the whole run), "recent_trend" (the last regime's, where
    #: the kept part shows no slope), "late_change", "variance"; empty unless
    #: the verdict is not_converged
    failed_tests: tuple = ()
    _values: np.ndarray = field(default=None, repr=False)
    _steps: np.ndarray = field(default=None, repr=False)
    #: for a "recent_trend" failure, (where the last regime begins, its Sen slope per step in
    #: the values' units): what the plot draws
    _recent: tuple | None = field(default=None, repr=False)

    @property
    def main_reason(self) -> str:
        return self.reasons[0] if self.reasons else ""

    def summary(self) -> str:
        label = f"{self.name}: " if self.name else ""
        head = {
            "converged": "converged: yes",
            "not_converged": "converged: no",
            "insufficient_data": "converged: can't tell yet (insufficient data)",
        }[self.verdict]
        lines = [f"{label}{head} - {self.main_reason}"]
        lines += [f"  - {reason}" for reason in self.reasons[1:]]
        if math.isfinite(self.mean):
            lines.append(
                f"  mean {fmt_interval(self.mean, *self.ci)} "
                f"({self.ci_level:.0%} CI, ESS {fmt(self.ess, 3)} of {self.n_kept} kept points, "
                f"warm-up {self.warmup})"
            )
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        """The one-row table the CLI prints (:meth:`to_row`)."""
        return pd.DataFrame([self.to_row()])

    def to_row(self) -> dict:
        """The one-line table row the CLI prints."""
        return {
            "metric": self.name, "verdict": self.verdict, "n": self.n, "warmup": self.warmup,
            "mean": self.mean, "ci_low": self.ci[0], "ci_high": self.ci[1],
            "slope": self.trend_slope, "p_trend": self.trend_pvalue, "step_unit": self.step_unit,
            "ess": self.ess,
            "change_bound": self.change_bound, "tolerance": self.tolerance,
            "horizon": self.horizon, "steps_needed": self.steps_needed,
            "reason": self.main_reason,
        }


@dataclass(frozen=True, repr=False)
class MultiRunConvergenceResult(Result):
    """Per-run verdicts, agreement across runs (R-hat, bulk/tail ESS) and one overall verdict."""

    verdict: str
    converged: bool
    reasons: list
    runs: list
    rhat: float
    ess_bulk: float
    ess_tail: float
    rhat_threshold: float | None
    name: str | None = None
    #: the runs that diverged before logging a finite value (not in ``runs``: nothing to fit)
    diverged_at_start: list = field(default_factory=list)
    #: R-hat of the runs against one another, unsplit: tells runs that disagree from runs that
    #: each still move (``rhat`` is split, so a trend in every run raises it too)
    rhat_across: float = float("nan")

    @property
    def main_reason(self) -> str:
        return self.reasons[0] if self.reasons else ""

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([run.to_row() for run in self.runs])

    def summary(self) -> str:
        label = f"{self.name}: " if self.name else ""
        lines = [f"{label}{self.verdict.replace('_', ' ')} over {len(self.runs)} runs - "
                 f"{self.main_reason}"]
        lines += [f"  - {reason}" for reason in self.reasons[1:]]
        lines += ["  " + run.summary().replace("\n", "\n  ") for run in self.runs]
        return "\n".join(lines)


def overall_verdict(results: list, alpha: float, rhat: float, ess_bulk: float, ess_tail: float,
             rhat_threshold: float | None, rhat_across: float = float("nan")) -> tuple[str, list]:
    """The verdict over several runs, from each run's verdict and R-hat, and its reasons
    (``rhat_across``: the unsplit R-hat, which says whether a high ``rhat`` is runs that
    disagree or runs that each still move)."""
    k = len(results)
    verdicts = [r.verdict for r in results]
    labels = [r.name or f"run {i}" for i, r in enumerate(results)]
    reasons = []
    if "not_converged" in verdicts:
        verdict = "not_converged"
        bad = [lab for lab, v in zip(labels, verdicts) if v == "not_converged"]
        reasons.append(f"{len(bad)} of {k} runs have not converged ({', '.join(bad[:5])})"
                       + (f"; each run tested at alpha / {k} = {fmt(alpha / k, 3)}, "
                          f"so that all {k} together keep alpha = {fmt(alpha, 3)}" if k > 1 else ""))
    elif "insufficient_data" in verdicts:
        verdict = "insufficient_data"
        bad = [lab for lab, v in zip(labels, verdicts) if v == "insufficient_data"]
        reasons.append(f"{len(bad)} of {k} runs have too little data ({', '.join(bad[:5])})")
    else:
        verdict = "converged"
        reasons.append(f"all {k} runs converged")
    if rhat_threshold is not None and math.isfinite(rhat) and rhat >= rhat_threshold:
        if verdict == "converged":
            # each run is flat: more steps will not bring them together (seeds at different
            # equilibria - Mava's IPPO on the Climbing game, two at 150 and two at 175)
            levels = ", ".join(fmt(r.mean, 4) for r in results[:8]) + (", ..." if k > 8 else "")
            reasons = [f"each of the {k} runs converged, but not to one level ({levels}): the runs "
                       f"disagree (R-hat = {fmt(rhat, 4)} >= {rhat_threshold}), and more steps will not "
                       "bring them together - where a run ends depends on its seed "
                       "(swarmstats.equilibria groups runs by where they settled; rhat_threshold=None "
                       "judges each run alone)"]
            verdict = "not_converged"
        elif math.isfinite(rhat_across) and rhat_across < rhat_threshold:
            # the split R-hat compares each run's halves too: runs that move alike raise it
            # (four seeds of one falling curve read "the runs disagree: R-hat = 1.568")
            reasons.append(f"the runs agree with one another (R-hat across runs {fmt(rhat_across, 4)}), but "
                           f"each still moves: the halves of each run differ (split R-hat {fmt(rhat, 4)} "
                           f">= {rhat_threshold})")
        else:
            # (not "settled": some of these runs are still moving or too short to judge)
            reasons.append(f"the runs disagree: R-hat = {fmt(rhat, 4)} >= {rhat_threshold} "
                           "(their values after the warm-up differ in level or spread)")
    elif math.isfinite(rhat):
        reasons.append(f"R-hat = {fmt(rhat, 4)}, bulk ESS {fmt(ess_bulk, 4)}, "
                       f"tail ESS {fmt(ess_tail, 4)}")
    return verdict, reasons
