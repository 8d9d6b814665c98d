"""Has it converged?  Warm-up, trend, drift, variance and precision in one verdict.

The verdict, for one run:

1. Too few points (< ``min_points``) -> ``insufficient_data``.  A constant
   series has converged (nothing moves) and says so.
2. The warm-up is found (:func:`~swarmstats.detect_warmup`) and set aside.
3. Three batch-means tests (see :mod:`swarmstats.stats.verdict`), each at
   alpha / 3 (Bonferroni), so the whole verdict's false-alarm rate stays at
   or below ``alpha``: a trend after the warm-up, a drift across the whole run
   that the kept part continues, and a change of the trailing variance.  A
   trend whose change over the span tested is below ``tolerance`` is
   practically flat and does not fail the check.
4. Too few effective samples after the warm-up (ESS < ``min_ess``) or a
   confidence interval wider than ``precision`` -> ``insufficient_data``, with
   ``steps_needed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ._result import Result, fmt
from ._series import Series, as_runs, as_series, is_multi_run
from .errors import InputError, check_choice
from .stats import chains as _chains
from .stats.stationarity import geweke_z
from .stats.verdict import continued_drift, kept_trend, series_tau, variance_shift
from .warmup import WARMUP_METHODS, warmup_of_values

__all__ = [
    "ConvergenceTest", "ConvergenceResult", "MultiRunConvergenceResult",
    "check_convergence", "VERDICTS",
]

VERDICTS = ("converged", "not_converged", "insufficient_data")


@dataclass(frozen=True)
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
    variance_ratio: float
    variance_pvalue: float
    geweke_z: float
    alpha: float
    tolerance: float | None
    precision: float | None
    steps_needed: int | None
    _values: np.ndarray = field(default=None, repr=False)
    _steps: np.ndarray = field(default=None, repr=False)

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
                f"  mean {fmt(self.mean)} [{fmt(self.ci[0])}, {fmt(self.ci[1])}] "
                f"({self.ci_level:.0%} CI, ESS {fmt(self.ess, 3)} of {self.n_kept} kept points, "
                f"warm-up {self.warmup})"
            )
        return "\n".join(lines)

    def to_row(self) -> dict:
        """The one-line table row the CLI prints."""
        return {
            "metric": self.name, "verdict": self.verdict, "n": self.n, "warmup": self.warmup,
            "mean": self.mean, "ci_low": self.ci[0], "ci_high": self.ci[1],
            "slope": self.trend_slope, "p_trend": self.trend_pvalue, "ess": self.ess,
            "steps_needed": self.steps_needed, "reason": self.main_reason,
        }


@dataclass(frozen=True)
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


class ConvergenceTest:
    """Configure once, then ``fit(y)`` any number of series.

    Parameters (keyword-only)
    -------------------------
    alpha : float, default 0.05
        False-alarm rate of the whole verdict for a stationary series.
    warmup : {"variance", "ess", "mser"}, default "variance"
        Warm-up rule (see :func:`~swarmstats.detect_warmup`).
    max_warmup : float, default 0.5
        Largest fraction of the series the warm-up may take.
    tolerance : float, optional
        Smallest change (in the metric's units, over the span tested) that
        matters; smaller significant trends count as flat.
    precision : float, optional
        Target half-width of the CI of the mean; wider -> insufficient_data
        with ``steps_needed``.
    ci : float, default 0.95
        Level of the interval of the mean.
    min_points, min_ess : int, default 20 and 10
        Below these the verdict is ``insufficient_data``.
    rhat_threshold : float or None, default 1.01
        Several runs: the overall verdict also requires R-hat below this
        (Vehtari et al. 2021).  None ignores R-hat, e.g. for seeds that are
        expected to settle at different levels.
    nan_policy : {"raise", "omit"}

    >>> rng = np.random.default_rng(0)
    >>> ConvergenceTest().fit(rng.normal(size=1000)).verdict
    'converged'
    >>> ConvergenceTest().fit(np.linspace(0, 1, 500) + rng.normal(0, 0.1, 500)).verdict
    'not_converged'
    """

    def __init__(self, *, alpha: float = 0.05, warmup: str = "variance", max_warmup: float = 0.5,
                 tolerance: float | None = None, precision: float | None = None, ci: float = 0.95,
                 min_points: int = 20, min_ess: float = 10, rhat_threshold: float | None = 1.01,
                 nan_policy: str = "raise"):
        self.alpha = alpha
        self.warmup = warmup
        self.max_warmup = max_warmup
        self.tolerance = tolerance
        self.precision = precision
        self.ci = ci
        self.min_points = min_points
        self.min_ess = min_ess
        self.rhat_threshold = rhat_threshold
        self.nan_policy = nan_policy

    def _validate(self):
        if not 0 < self.alpha < 1:
            raise InputError(f"alpha must be in (0, 1), got {self.alpha!r}")
        if not 0 < self.ci < 1:
            raise InputError(f"ci must be in (0, 1), got {self.ci!r}")
        check_choice("warmup", self.warmup, WARMUP_METHODS)
        if not 0 < self.max_warmup < 1:
            raise InputError(f"max_warmup must be in (0, 1), got {self.max_warmup!r}")
        for name in ("tolerance", "precision"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise InputError(f"{name} must be a positive number, got {value!r}")
        if int(self.min_points) < 5:
            raise InputError(f"min_points must be at least 5, got {self.min_points!r}")

    def fit(self, y, *, name: str | None = None, group=None, value=None, step=None):
        """Check one run (1-D input) or several (2-D, list of arrays, or a frame with ``group=``)."""
        self._validate()
        if group is not None or is_multi_run(y):
            runs = as_runs(y, nan_policy=self.nan_policy, group=group, value=value, step=step)
            return self._fit_runs(runs, name)
        series = as_series(y, nan_policy=self.nan_policy, name=name)
        return self.fit_series(series)

    # -- one run --------------------------------------------------------------
    def fit_series(self, series: Series) -> ConvergenceResult:
        values = series.values
        n = len(values)
        steps = _step_axis(series)
        base = dict(name=series.name, n=n, alpha=self.alpha, tolerance=self.tolerance,
                    precision=self.precision, ci_level=self.ci, _values=values, _steps=steps)
        nan = float("nan")
        empty = dict(warmup=0, warmup_step=series.step_of(0) if n else None, n_kept=n, ess=nan,
                     autocorr_time=nan, mean=float(values.mean()) if n else nan,
                     sd=float(values.std(ddof=1)) if n > 1 else nan, ci=(nan, nan), mcse=nan,
                     trend_slope=nan, trend_pvalue=nan, drift_slope=nan, drift_pvalue=nan,
                     variance_ratio=nan, variance_pvalue=nan, geweke_z=nan)
        if n < self.min_points:
            return ConvergenceResult(
                verdict="insufficient_data", converged=False, steps_needed=self.min_points - n,
                reasons=[f"only {n} point(s); at least {self.min_points} are needed to judge"],
                **empty, **base)
        if np.ptp(values) == 0:
            constant = {**empty, "sd": 0.0, "mcse": 0.0, "ci": (empty["mean"], empty["mean"]),
                        "trend_slope": 0.0, "drift_slope": 0.0}
            return ConvergenceResult(
                verdict="converged", converged=True, steps_needed=0,
                reasons=[f"the series is constant at {fmt(values[0])}: nothing is changing "
                         "(no autocorrelation or ESS is defined)"],
                **constant, **base)

        cut = warmup_of_values(values, method=self.warmup, max_fraction=self.max_warmup,
                               steps=series.steps)
        kept, kept_steps = values[cut.index:], steps[cut.index:]
        m = len(kept)
        tau = series_tau(kept)
        ess = m / tau
        mean, sd = float(kept.mean()), float(kept.std(ddof=1))
        mcse = sd / math.sqrt(ess)
        dof = max(ess - 1.0, 1.0)
        half_width = stats.t.ppf(0.5 + self.ci / 2, dof) * mcse
        numbers = dict(warmup=cut.index, warmup_step=cut.step, n_kept=m, ess=ess,
                       autocorr_time=tau, mean=mean, sd=sd, ci=(mean - half_width, mean + half_width),
                       mcse=mcse)

        trend = kept_trend(kept, kept_steps, tau)
        drift = continued_drift(values, steps, tau, trend, self.alpha)
        variance = variance_shift(kept)
        numbers.update(trend_slope=trend.estimate, trend_pvalue=trend.pvalue,
                       drift_slope=drift.estimate, drift_pvalue=drift.pvalue,
                       variance_ratio=variance.estimate, variance_pvalue=variance.pvalue,
                       geweke_z=_safe_geweke(kept))

        level = self.alpha / 3.0
        failures, notes = [], []
        for outcome in (trend, drift):
            if outcome.pvalue < level:
                if self.tolerance is not None and abs(outcome.change) < self.tolerance:
                    notes.append(_flat_within_tolerance(outcome, self.tolerance))
                else:
                    failures.append(_trend_reason(outcome))
        if variance.pvalue < level:
            failures.append(
                f"the trailing variance has not stabilised: the last quarter's variance is "
                f"{fmt(variance.estimate, 3)}x the quarter before (p = {fmt(variance.pvalue, 2)})")

        steps_needed = self._steps_needed(tau, sd, m)
        axis_note = _step_axis_note(series, steps)
        if failures:
            reasons = failures + notes + [_warmup_reason(cut)] + axis_note
            if steps_needed:
                reasons.append(self._precision_reason(half_width, steps_needed))
            return ConvergenceResult(verdict="not_converged", converged=False,
                                     reasons=reasons, steps_needed=steps_needed, **numbers, **base)
        if ess < self.min_ess:
            more = int(math.ceil((self.min_ess - ess) * tau))
            return ConvergenceResult(
                verdict="insufficient_data", converged=False, steps_needed=max(more, 1),
                reasons=[f"only {fmt(ess, 3)} effective samples after the warm-up (autocorrelation "
                         f"time {fmt(tau, 3)}); about {max(more, 1)} more steps would give "
                         f"{fmt(self.min_ess, 3)}"] + notes, **numbers, **base)
        if steps_needed:
            return ConvergenceResult(
                verdict="insufficient_data", converged=False, steps_needed=steps_needed,
                reasons=[self._precision_reason(half_width, steps_needed)] + notes
                + [_stable_reason(trend, variance, bool(notes))], **numbers, **base)
        reasons = [_stable_reason(trend, variance, bool(notes))] + notes + [_warmup_reason(cut)]
        return ConvergenceResult(verdict="converged", converged=True, reasons=reasons + axis_note,
                                 steps_needed=0 if self.precision is not None else None,
                                 **numbers, **base)

    def _steps_needed(self, tau: float, sd: float, kept: int) -> int | None:
        """Further steps for the CI half-width to reach ``precision``: n = g (z sd / eps)^2."""
        if self.precision is None:
            return None
        z = stats.norm.ppf(0.5 + self.ci / 2)
        needed = tau * (z * sd / self.precision) ** 2
        return max(0, int(math.ceil(needed - kept)))

    def _precision_reason(self, half_width: float, steps_needed: int) -> str:
        return (f"the mean is known to +-{fmt(half_width, 3)}; +-{fmt(self.precision, 3)} needs "
                f"about {steps_needed} more steps")

    # -- several runs ----------------------------------------------------------
    def _fit_runs(self, runs: list[Series], name: str | None) -> MultiRunConvergenceResult:
        results = [self.fit_series(run) for run in runs]
        tails = [run.values[r.warmup:] for run, r in zip(runs, results)]
        length = min(len(t) for t in tails)
        rhat = ess_bulk = ess_tail = float("nan")
        if length >= 4 and len(runs) >= 1:
            chains = np.vstack([t[len(t) - length:] for t in tails])
            if not _chains.is_constant(chains):
                rhat, ess_bulk, ess_tail = (_chains.rhat_rank(chains), _chains.ess_bulk(chains),
                                            _chains.ess_tail(chains))
        verdicts = [r.verdict for r in results]
        labels = [r.name or f"run {i}" for i, r in enumerate(results)]
        reasons = []
        if "not_converged" in verdicts:
            verdict = "not_converged"
            bad = [lab for lab, v in zip(labels, verdicts) if v == "not_converged"]
            reasons.append(f"{len(bad)} of {len(runs)} runs have not converged ({', '.join(bad[:5])})")
        elif "insufficient_data" in verdicts:
            verdict = "insufficient_data"
            bad = [lab for lab, v in zip(labels, verdicts) if v == "insufficient_data"]
            reasons.append(f"{len(bad)} of {len(runs)} runs have too little data ({', '.join(bad[:5])})")
        else:
            verdict = "converged"
            reasons.append(f"all {len(runs)} runs converged")
        if self.rhat_threshold is not None and math.isfinite(rhat) and rhat >= self.rhat_threshold:
            reasons.append(f"the runs disagree: R-hat = {fmt(rhat, 4)} >= {self.rhat_threshold} "
                           "(they settled at different levels or spreads)")
            if verdict == "converged":
                verdict = "not_converged"
                reasons.reverse()
        elif math.isfinite(rhat):
            reasons.append(f"R-hat = {fmt(rhat, 4)}, bulk ESS {fmt(ess_bulk, 4)}, "
                           f"tail ESS {fmt(ess_tail, 4)}")
        return MultiRunConvergenceResult(
            verdict=verdict, converged=verdict == "converged", reasons=reasons, runs=results,
            rhat=rhat, ess_bulk=ess_bulk, ess_tail=ess_tail,
            rhat_threshold=self.rhat_threshold, name=name)


def check_convergence(y, **kwargs):
    """``ConvergenceTest(**kwargs).fit(y)``: has this series (or these runs) converged?

    Accepts ``name=``, ``group=``, ``value=`` and ``step=`` for :meth:`ConvergenceTest.fit`;
    every other keyword configures :class:`ConvergenceTest`.

    >>> rng = np.random.default_rng(1)
    >>> reward = 0.49 + np.linspace(0, 0.11, 100) + rng.normal(0, 0.08, 100)
    >>> check_convergence(reward).verdict
    'not_converged'
    """
    fit_keys = {key: kwargs.pop(key) for key in ("name", "group", "value", "step") if key in kwargs}
    return ConvergenceTest(**kwargs).fit(y, **fit_keys)


def _step_axis(series: Series) -> np.ndarray:
    steps = series.steps
    if steps is None or len(steps) != len(series.values) or np.any(np.diff(steps) <= 0):
        return np.arange(len(series.values), dtype=np.float64)
    return steps


def _step_axis_note(series: Series, steps: np.ndarray) -> list:
    if series.steps is None or steps is series.steps:
        return []
    return ["the step axis is not increasing (a restart, or several runs in one file?); "
            "row order was used - split the runs with group= for a per-run check"]


def _safe_geweke(kept: np.ndarray) -> float:
    if len(kept) < 20:
        return float("nan")
    return geweke_z(kept)


def _per_hundred(slope: float) -> str:
    return f"{slope * 100:+.3g} per 100 steps"


def _trend_reason(outcome) -> str:
    direction = "improving" if outcome.estimate > 0 else "declining"
    if outcome.name == "trend":
        return (f"still {direction} after the warm-up: {_per_hundred(outcome.estimate)} "
                f"(p = {fmt(outcome.pvalue, 2)})")
    return (f"drifting across the whole run and still {direction}: "
            f"{_per_hundred(outcome.estimate)} (p = {fmt(outcome.pvalue, 2)}), and the part kept "
            f"after the warm-up continues that slope")


def _flat_within_tolerance(outcome, tolerance: float) -> str:
    return (f"a statistically significant but small {outcome.name}: a change of "
            f"{fmt(outcome.change, 3)} over the span tested, below the tolerance {fmt(tolerance, 3)}")


def _stable_reason(trend, variance, within_tolerance: bool = False) -> str:
    if within_tolerance:
        return (f"practically flat after the warm-up: any trend is smaller than the tolerance "
                f"({_per_hundred(trend.estimate)}, p = {fmt(trend.pvalue, 2)}), variance stable "
                f"(p = {fmt(variance.pvalue, 2)})")
    return (f"stationary after the warm-up: no trend ({_per_hundred(trend.estimate)}, "
            f"p = {fmt(trend.pvalue, 2)}), variance stable (p = {fmt(variance.pvalue, 2)})")


def _warmup_reason(cut) -> str:
    if cut.at_cap:
        return (f"the warm-up search found no end of the transient within the first "
                f"{cut.fraction:.0%} (cut at {cut.index})")
    return f"warm-up: the first {cut.index} of {cut.n} points set aside"
