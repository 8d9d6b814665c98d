"""Is the proxy still telling the truth?  A Goodhart check between a dense proxy and a sparse outcome.

A training reward, a judge's score or SWARM's p is logged every step; the outcome it stands for
(a held-out evaluation, an audit, realised outcomes) only now and then.  While the proxy is
good, the outcome moves with it.  When the policy starts to exploit the proxy - the boat that
circles for points, the answer written for the keyword heuristic - the proxy keeps rising and
the outcome stays flat or falls.

:func:`divergence` puts the proxy on the outcome's step axis (its mean since the previous
evaluation), regresses the outcome on it, and predicts each evaluation from the ones before
(recursive residuals: independent noise for as long as the relation holds, whatever the
proxy does).  A scan over every onset and every evaluation after it looks for the outcome
falling further and further behind its prediction - a drift, the shape a divergence has - and
alarms when the drift statistic crosses a critical value simulated so that the chance of *any*
alarm over all the evaluations of a run whose relation holds is ``alpha``.  The first
evaluation at which it crosses is where a check after every evaluation would have alarmed.

A pair that never agreed - the proxy improving while the outcome gets worse from the start,
as a training loss falls while the held-out loss rises - has no agreement to fall from; it is
flagged when one-sided Mann-Kendall tests show both opposite trends over the whole run.  That
route spends a fifth of ``alpha``, the scan the rest.  Which way is better for each series is
guessed from its name (losses are lower-is-better) or given; inside, both improve upwards.

It reports the onset (the last evaluation that kept up), the proxy's and the outcome's change
since, and the trend of the gap - outcome minus what the proxy predicts from the evaluations
before the onset - with intervals.  Without an alarm it says how large a gap it would have
seen, and it does not call a pair "tracking" unless the outcome was shown to follow the proxy.

Assumed: the outcome's noise is independent from evaluation to evaluation, and the outcome
moves linearly with the proxy while they agree (a curved relation is itself a divergence).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._result import Result, fmt
from .errors import InputError, check_level

__all__ = ["DivergenceResult", "divergence"]

#: evaluations needed: the first prediction, then the residuals before any onset, then one after
MIN_EVALUATIONS = 14

#: the critical values are simulated for at most this many evaluations; more are averaged in
#: consecutive blocks (which keeps the relation linear and the noise independent)
MAX_EVALUATIONS = 400

#: the share of alpha spent on the proxy and the outcome moving apart from the start (opposite
#: trends over the whole run); the rest goes to the scan for a divergence after an agreement
OPPOSED_SHARE = 0.2

#: one-sided normal quantile for "flagged nine times in ten" in the detectable gap
_POWER_QUANTILE = 1.2815515655446004


@dataclass(frozen=True, repr=False)
class DivergenceResult(Result):
    """The proxy-outcome divergence check: the verdict, where it began, and the gap's trend."""

    verdict: str                # "diverging", "tracking" or "insufficient_data"
    reason: str
    diverged: bool
    n_outcomes: int             # evaluations used (after block averaging, if any)
    alpha: float
    statistic: float            # the largest drift statistic over the run
    critical: float             # its critical value at alpha for this many evaluations
    alarm_step: float | None    # the first evaluation at which the scan crossed
    onset_step: float | None    # the last evaluation that kept up with the proxy
    slope: float                # outcome per unit of proxy (measured over relation_span)
    slope_ci: tuple
    relation_span: str          # "before the onset" or "over the run"
    proxy_change: float         # since the onset (or over the second half)
    proxy_change_ci: tuple
    outcome_change: float
    outcome_change_ci: tuple
    gap_trend: float            # per step: outcome minus its prediction from the proxy
    gap_trend_ci: tuple
    trend_from_step: float      # where the changes and the gap trend are measured from
    detectable_gap: float       # a gap growing to this over the second half is flagged ~90%
    ci_level: float
    notes: list = field(default_factory=list)
    _private_fields = ("_steps", "_outcome", "_proxy", "_predicted")
    _steps: np.ndarray = field(default=None, repr=False)
    _outcome: np.ndarray = field(default=None, repr=False)
    _proxy: np.ndarray = field(default=None, repr=False)
    _predicted: np.ndarray = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per evaluation: the outcome, the aligned proxy, and the outcome they predict."""
        return pd.DataFrame({"step": self._steps, "outcome": self._outcome, "proxy": self._proxy,
                             "predicted_outcome": self._predicted, "gap": self._outcome - self._predicted})

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        span = f"since step {self.trend_from_step:g}"

        def interval(value, bounds, digits=3):
            return f"{fmt(value, digits)} [{fmt(bounds[0], digits)}, {fmt(bounds[1], digits)}]"

        changes = (f"proxy {interval(self.proxy_change, self.proxy_change_ci)}, outcome "
                   f"{interval(self.outcome_change, self.outcome_change_ci)}")
        if math.isfinite(self.gap_trend):
            per_100 = interval(100 * self.gap_trend, tuple(100 * b for b in self.gap_trend_ci))
            changes = f"  {span}: {changes}; gap trend {per_100} per 100 steps ({level})"
        else:
            changes = f"  over the run from step {self.trend_from_step:g}: {changes} ({level})"
        relation = (f"  outcome per unit of proxy {self.relation_span} {interval(self.slope, self.slope_ci)}; "
                    f"drift statistic {fmt(self.statistic, 3)} against {fmt(self.critical, 3)} (false alarms at "
                    f"most {self.alpha:g} over all {self.n_outcomes} evaluations)")
        lines = [f"proxy-outcome divergence: {self.verdict} - {self.reason}", changes, relation]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def divergence(proxy, outcome, *, proxy_steps=None, outcome_steps=None, better: str | None = None,
               proxy_better: str | None = None, alpha: float = 0.05, ci: float = 0.95) -> DivergenceResult:
    """Has the outcome stopped following the proxy?  (See the module docstring.)

    ``proxy`` and ``outcome``: pandas Series indexed by step, or arrays with ``proxy_steps`` and
    ``outcome_steps`` (two arrays of one length without steps are taken as pairs).  Missing
    values are skipped: sparse columns of one log are the usual input.  ``better`` and
    ``proxy_better`` ("higher" or "lower"; guessed from the Series' names by default, so a
    ``loss`` is lower-is-better) say which way each improves: a divergence is the outcome
    doing *worse* than the proxy predicts.  ``alpha``: the chance of a false alarm over the
    whole run, for a pair whose relation holds.

    >>> rng = np.random.default_rng(3)
    >>> steps = np.arange(1, 1001)
    >>> proxy = pd.Series(steps / 1000 + 0.05 * rng.normal(size=1000), index=steps)
    >>> at = steps[9::10]                                   # evaluated every 10 steps
    >>> truth = np.where(at <= 500, at / 1000, 0.5)         # flat from step 500
    >>> result = divergence(proxy, pd.Series(truth + 0.01 * rng.normal(size=100), index=at))
    >>> result.verdict, 480 <= result.onset_step <= 520, result.alarm_step < 600
    ('diverging', True, True)
    """
    from .direction import resolve

    level = check_level(ci)
    _check_alpha(alpha)
    proxy_at, proxy_values = _steps_and_values(proxy, proxy_steps, "proxy")
    outcome_at, outcome_values = _steps_and_values(outcome, outcome_steps, "outcome")
    paired = (proxy_steps is None and outcome_steps is None and not isinstance(proxy, pd.Series)
              and not isinstance(outcome, pd.Series))
    if paired and np.size(proxy) != np.size(outcome):
        raise InputError(f"proxy has {np.size(proxy)} values and outcome {np.size(outcome)}: give "
                         "outcome_steps (the step of each evaluation) and proxy_steps, or Series indexed by step")
    notes = []
    x, keep, aligned_notes = _align(proxy_at, proxy_values, outcome_at)
    notes += aligned_notes
    steps, y = outcome_at[keep], outcome_values[keep]
    if len(y) < MIN_EVALUATIONS:
        raise InputError(f"{len(y)} outcome evaluation(s) with proxy values before them; at least "
                         f"{MIN_EVALUATIONS} are needed (10 to learn the noise before a divergence can start)")
    if len(y) > MAX_EVALUATIONS:
        block = math.ceil(len(y) / MAX_EVALUATIONS)
        steps, x, y = _block_means(steps, x, y, block)
        notes.append(f"{int(keep.sum())} evaluations averaged in consecutive blocks of {block} "
                     f"(the critical values are simulated for at most {MAX_EVALUATIONS})")
    if np.ptp(y) == 0:
        raise InputError(f"outcome is constant ({y[0]:g}) at every evaluation: there is no noise to measure a gap against")
    if np.ptp(x) == 0:
        raise InputError(f"proxy is constant ({x[0]:g}) over the evaluations: there is nothing for the outcome to follow")
    # inside, both improve upwards: a divergence is then always the outcome falling below its prediction
    directions = {}
    for role, given, series in (("proxy", proxy_better, proxy), ("outcome", better, outcome)):
        name = getattr(series, "name", None)
        directions[role] = resolve(given, name)
        if given in (None, "auto") and directions[role] == "lower":
            notes.append(f"{role} {name!r} is taken as lower-is-better from its name "
                         f"({'proxy_better= or --proxy-better' if role == 'proxy' else 'better= or --better'} overrides)")
    signs = Orientation(1.0 if directions["proxy"] == "higher" else -1.0,
                        1.0 if directions["outcome"] == "higher" else -1.0)
    return _check(steps, signs.proxy * x, signs.outcome * y, alpha, level, notes, signs)


@dataclass(frozen=True)
class Orientation:
    """+1 where higher is better, -1 where lower is: the factor that turns each series' values
    into "up is better", and back (it is its own inverse)."""

    proxy: float
    outcome: float


def _check(steps, x, y, alpha, level, notes, signs) -> DivergenceResult:
    from ._kernels.drift_critical import critical_value
    from ._kernels.drift_scan import MIN_BEFORE_ONSET, drift_scan, recursive_residuals

    scan_alpha, opposed_alpha = alpha * (1.0 - OPPOSED_SHARE), alpha * OPPOSED_SHARE
    opposed = _opposed_trends(x, y, opposed_alpha)
    residuals = recursive_residuals(x, y)
    finite = np.flatnonzero(np.isfinite(residuals))
    context = {"steps": steps, "x": x, "y": y, "alpha": alpha, "level": level, "notes": notes, "signs": signs}
    if len(finite) <= MIN_BEFORE_ONSET:
        constant = len(y) - len(finite)
        context["notes"] = notes + [f"the proxy took one value at the first {constant} evaluations: too few remain to scan"]
        if opposed is not None:
            return _opposed_result(context, opposed, math.nan, math.nan)
        return _without_scan(context)
    stat, _ = drift_scan(residuals[finite])
    critical = critical_value(len(finite), scan_alpha)
    crossed = np.flatnonzero(stat > critical)
    if len(crossed) == 0:
        if opposed is not None:
            return _opposed_result(context, opposed, float(stat.max()), critical)
        return _no_alarm(context, residuals[finite], float(stat.max()), critical)
    alarm_at = int(finite[crossed[0]])
    alarm_step = float(steps[alarm_at])
    start, plausible = _onset(steps, x, y, alarm_at, level)     # the last evaluation that kept up
    trends = _trends(steps, x, y, start, level)
    agreed = trends["slope"][1][0] > 0
    if opposed is not None and not agreed:
        # no agreement before the alarm, and opposite trends over the run: they never agreed
        return _opposed_result(context, opposed, float(stat.max()), critical)
    # the gap's trend is uncertain in its onset too: its interval spans every plausible onset's
    for other in plausible:
        low, high = _trends(steps, x, y, other, level)["gap"][1]
        if math.isfinite(low) and math.isfinite(high):
            trends["gap"] = (trends["gap"][0], (min(trends["gap"][1][0], low), max(trends["gap"][1][1], high)))
    since = (f"since then the proxy changed {_signed(signs.proxy * trends['proxy'][0])} and the outcome "
             f"{_signed(signs.outcome * trends['outcome'][0])}")
    if agreed:
        reason = (f"the outcome fell behind the proxy after step {steps[start]:g} (flagged at step {alarm_step:g}): "
                  f"{since}")
    else:
        both = signs.proxy * signs.outcome
        low, high = sorted((both * trends["slope"][1][0], both * trends["slope"][1][1]))
        reason = (f"the outcome fell behind what the proxy predicted after step {steps[start]:g} (flagged at step "
                  f"{alarm_step:g}), though the two were not shown to move together before (outcome per unit of "
                  f"proxy {fmt(both * trends['slope'][0], 3)} [{fmt(low, 3)}, {fmt(high, 3)}]): {since}")
    return _result(context, "diverging", reason, True, float(stat.max()), critical, alarm_step,
                   float(steps[start]), trends, math.nan)


def _opposed_trends(x, y, alpha) -> dict | None:
    """The proxy improving and the outcome worsening over the whole run, each shown by a
    one-sided Mann-Kendall test (autocorrelation-corrected) at ``alpha``: both must hold, so
    a pair that moves together is flagged this way at most ``alpha`` of the time.  None if not."""
    from ._kernels.distributions import t_sf
    from .convergence.trend import trend_test

    proxy_trend = trend_test(x, sen_interval=False)
    outcome_trend = trend_test(y, sen_interval=False)
    # read on the law trend_test reads its own p-value on (a t law on the effective samples)
    p_proxy_up = t_sf(proxy_trend.z, proxy_trend.dof)
    p_outcome_down = t_sf(-outcome_trend.z, outcome_trend.dof)
    if p_proxy_up < alpha and p_outcome_down < alpha:
        return {"p_proxy": p_proxy_up, "p_outcome": p_outcome_down}
    return None


def _opposed_result(context, opposed, statistic, critical) -> DivergenceResult:
    steps, x, y, level, signs = (context[k] for k in ("steps", "x", "y", "level", "signs"))
    trends = _trends(steps, x, y, 0, level, calibrate_on_all=True)
    trends["gap"] = (math.nan, (math.nan, math.nan))       # no agreement to measure a gap from
    reason = (f"the proxy and the outcome moved apart from the start: over the run the proxy improved "
              f"({_signed(signs.proxy * trends['proxy'][0])}, one-sided p = {opposed['p_proxy']:.2g}) while the "
              f"outcome got worse ({_signed(signs.outcome * trends['outcome'][0])}, p = {opposed['p_outcome']:.2g})")
    return _result(context, "diverging", reason, True, statistic, critical, float(steps[-1]), float(steps[0]),
                   trends, math.nan)


def _onset(steps, x, y, alarm_at, level) -> tuple[int, list]:
    """The last evaluation on the line, and every onset the data do not reject, by broken
    lines: the outcome is a + b x up to the onset and falls behind by c per step after it.

    Fitted with time as the instrument for the proxy (see :func:`_instrumented`), and profiled
    over the onset: an onset is plausible when its fit is within the F quantile at ``level`` of
    the best one.  (The scan's own best onset runs early: its recursive predictions learn from
    the evaluations after the onset, so the drift they see flattens, and an earlier, gentler
    drift fits it better.)"""
    from ._kernels.distributions import f_ppf

    instruments = np.column_stack([np.ones(len(y)), steps, np.zeros(len(y))])
    regressors = np.column_stack([np.ones(len(y)), x, np.zeros(len(y))])
    fits = {}
    for start in range(4, alarm_at):               # a line through at least five evaluations first
        hinge = np.maximum(steps - steps[start], 0.0)
        instruments[:, 2] = regressors[:, 2] = hinge
        try:
            coef = np.linalg.solve(instruments.T @ regressors, instruments.T @ y)
        except np.linalg.LinAlgError:
            continue
        if coef[2] < 0:
            fits[start] = float(np.sum((y - regressors @ coef) ** 2))
    if not fits:
        return alarm_at - 1, [alarm_at - 1]
    best = min(fits, key=fits.get)
    dof = len(y) - 4
    limit = fits[best] * (1.0 + f_ppf(level, 1, dof) / dof)
    return best, sorted(start for start, rss in fits.items() if rss <= limit)


def _no_alarm(context, residuals, statistic, critical) -> DivergenceResult:
    steps, x, y, level, signs = (context[k] for k in ("steps", "x", "y", "level", "signs"))
    trends = _second_half(steps, x, y, level)
    half = len(residuals) // 2
    # a gap growing linearly over the last half of m residuals is flagged about nine times in
    # ten when its drift statistic's mean, g sqrt(sum i^2) / (m sigma), reaches critical + z_0.9
    sigma = float(np.sqrt(np.mean(residuals ** 2)))
    detectable = (critical + _POWER_QUANTILE) * sigma * half / math.sqrt(half * (half + 1) * (2 * half + 1) / 6)
    low, high = trends["slope"][1]
    if low > 0:
        verdict = "tracking"
        reason = (f"no divergence: the outcome kept up with the proxy over all {len(y)} evaluations; a gap growing "
                  f"to about {fmt(detectable, 3)} over the second half would have been flagged nine times in ten")
    else:
        verdict = "insufficient_data"
        slope = signs.proxy * signs.outcome
        reason = (f"the outcome was not shown to follow the proxy at all (outcome per unit of proxy "
                  f"{fmt(slope * trends['slope'][0], 3)} [{fmt(slope * (low if slope > 0 else high), 3)}, "
                  f"{fmt(slope * (high if slope > 0 else low), 3)}]), so there is no agreement to diverge from; over "
                  f"the run the proxy changed {_signed(signs.proxy * trends['run_proxy'])} and the outcome "
                  f"{_signed(signs.outcome * trends['run_outcome'])}. A run over which the proxy moves, or more "
                  "evaluations, would settle it")
    return _result(context, verdict, reason, False, statistic, critical, None, None, trends, detectable)


def _without_scan(context) -> DivergenceResult:
    steps, x, y, level = (context[k] for k in ("steps", "x", "y", "level"))
    trends = _second_half(steps, x, y, level)
    reason = "too few evaluations after the proxy first moved to scan for a divergence; more evaluations would settle it"
    return _result(context, "insufficient_data", reason, False, math.nan, math.nan, None, None, trends, math.nan)


def _result(context, verdict, reason, diverged, statistic, critical, alarm_step, onset_step, trends,
            detectable) -> DivergenceResult:
    """The result in the series' own units (the check works with both improving upwards)."""
    steps, x, y, signs = (context[k] for k in ("steps", "x", "y", "signs"))

    def back(pair, sign):
        estimate, (low, high) = pair
        bounds = (sign * low, sign * high)
        return sign * estimate, (min(bounds), max(bounds))

    both = signs.proxy * signs.outcome
    slope, slope_ci = back(trends["slope"], both)
    proxy_change, proxy_ci = back(trends["proxy"], signs.proxy)
    outcome_change, outcome_ci = back(trends["outcome"], signs.outcome)
    gap_trend, gap_ci = back(trends["gap"], signs.outcome)
    return DivergenceResult(
        verdict=verdict, reason=reason, diverged=diverged, n_outcomes=len(y), alpha=context["alpha"],
        statistic=statistic, critical=critical, alarm_step=alarm_step, onset_step=onset_step, slope=slope,
        slope_ci=slope_ci, relation_span=trends["relation_span"], proxy_change=proxy_change, proxy_change_ci=proxy_ci, outcome_change=outcome_change,
        outcome_change_ci=outcome_ci, gap_trend=gap_trend, gap_trend_ci=gap_ci,
        trend_from_step=float(steps[trends["start"]]), detectable_gap=detectable, ci_level=context["level"],
        notes=context["notes"], _steps=steps, _outcome=signs.outcome * y, _proxy=signs.proxy * x,
        _predicted=signs.outcome * trends["predicted"])


def _second_half(steps, x, y, level) -> dict:
    """Without an alarm: the gap over the second half against the first half's relation, and
    the relation itself over the whole run."""
    trends = _trends(steps, x, y, len(y) // 2 - 1, level)
    trends["slope"] = _trends(steps, x, y, 0, level, calibrate_on_all=True)["slope"]
    trends["relation_span"] = "over the run"
    return trends


def _trends(steps, x, y, start, level, calibrate_on_all=False) -> dict:
    """The relation before ``start`` (inclusive; or over every evaluation), and from ``start``
    on: the proxy's and the outcome's change, and the gap's trend, each with a t interval."""
    from ._kernels.distributions import t_ppf

    calibration = slice(0, len(y)) if calibrate_on_all else slice(0, start + 1)
    fit = _instrumented(steps[calibration], x[calibration], y[calibration])
    predicted = fit["intercept"] + fit["slope"] * x
    after = slice(start, len(y))
    span = float(steps[-1] - steps[start])
    proxy_line = _line(steps[after], x[after])
    outcome_line = _line(steps[after], y[after])
    gap_line = _line(steps[after], (y - predicted)[after])
    # the gap's slope is the outcome's minus b times the proxy's: b's own uncertainty (from the
    # evaluations before, independent of those after) adds (proxy slope)^2 var(b)
    gap_se = math.sqrt(gap_line["se"] ** 2 + (proxy_line["slope"] * fit["se"]) ** 2)

    def with_interval(estimate, se, dof, scale=1.0):
        if not (dof >= 1 and math.isfinite(se)):
            return estimate * scale, (math.nan, math.nan)
        half = t_ppf(0.5 + level / 2.0, dof) * se
        return estimate * scale, ((estimate - half) * scale, (estimate + half) * scale)

    dof_after = len(y) - start - 2
    return {"start": start, "predicted": predicted,
            "relation_span": "over the run" if calibrate_on_all else "before the onset",
            "slope": with_interval(fit["slope"], fit["se"], fit["dof"]),
            "proxy": with_interval(proxy_line["slope"], proxy_line["se"], dof_after, span),
            "outcome": with_interval(outcome_line["slope"], outcome_line["se"], dof_after, span),
            "gap": with_interval(gap_line["slope"], gap_se, dof_after),
            "run_proxy": float(x[-1] - x[0]) if len(x) < 3 else _line(steps, x)["slope"] * float(steps[-1] - steps[0]),
            "run_outcome": _line(steps, y)["slope"] * float(steps[-1] - steps[0])}


def _instrumented(t, x, y) -> dict:
    """The outcome per unit of proxy, y = a + b x, with time as the instrument: b is the ratio
    of their trends, Cov(t, y) / Cov(t, x).  Least squares of y on x would be biased toward zero
    by the proxy's own noise (its mean over a few steps is a noisy measure of its level, and a
    shrunken b makes a gap appear where there is none, or hides one); time is free of that noise.
    """
    t = np.asarray(t, dtype=float)
    centred = t - t.mean()
    dof = len(y) - 2
    stx, sty, stt = float(centred @ (x - x.mean())), float(centred @ (y - y.mean())), float(centred @ centred)
    if dof < 1 or stx == 0:
        return {"intercept": float(y.mean()), "slope": math.nan, "se": math.nan, "dof": dof}
    slope = sty / stx
    intercept = float(y.mean() - slope * x.mean())
    residual = y - intercept - slope * x
    se = math.sqrt(float(residual @ residual) / dof * stt) / abs(stx)
    return {"intercept": intercept, "slope": slope, "se": se, "dof": dof}


def _line(t, v) -> dict:
    """Least squares v = a + b t: the intercept, the slope, its standard error and dof."""
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    dof = len(v) - 2
    centred = t - t.mean()
    sxx = float(centred @ centred)
    if len(v) < 2 or sxx == 0:
        return {"intercept": float(v.mean()), "slope": math.nan, "se": math.nan, "dof": dof}
    slope = float(centred @ (v - v.mean())) / sxx
    intercept = float(v.mean() - slope * t.mean())
    residual = v - intercept - slope * t
    se = math.sqrt(float(residual @ residual) / dof / sxx) if dof >= 1 else math.nan
    return {"intercept": intercept, "slope": slope, "se": se, "dof": dof}


def _signed(value) -> str:
    return "n/a" if not math.isfinite(value) else f"{value:+.3g}"


def _check_alpha(alpha) -> None:
    # the scan's share of alpha must stay within its table of critical values (0.005 to 0.2)
    if not (isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and 0.01 <= alpha <= 0.2):
        raise InputError(f"alpha must be between 0.01 and 0.2 (the false-alarm rate over a whole run), got {alpha!r}")


def _steps_and_values(series, steps, argname) -> tuple[np.ndarray, np.ndarray]:
    """Finite values with their steps, in step order."""
    from ._input.series import as_series

    # missing values are the norm (two sparse columns of one log) and are skipped; an infinite
    # one is a broken value, not a missing one
    try:
        raw = np.asarray(series, dtype=float)
    except (TypeError, ValueError):
        raw = None                       # as_series says what is wrong with it
    if raw is not None and np.isinf(raw).any():
        raise InputError(f"{argname}: {int(np.isinf(raw).sum())} infinite value(s); remove or fix them")
    if steps is None and isinstance(series, pd.Series):
        index = pd.to_numeric(pd.Series(series.index), errors="coerce").to_numpy(dtype=float)
        steps = index if np.isfinite(index).all() else np.arange(len(series), dtype=float)
    elif steps is None and raw is not None and raw.ndim == 1:
        # positions are the steps: fixed before missing values are skipped, so pairs stay pairs
        steps = np.arange(len(raw), dtype=float)
    validated = as_series(series, argname=argname, nan_policy="omit", min_length=1, steps=steps)
    values = validated.values
    # a one-column frame with a plain index has no step axis: positions, as for an array
    at = validated.steps if validated.steps is not None else np.arange(len(values), dtype=float)
    if not np.isfinite(at).all():
        raise InputError(f"{argname}: a step is missing or not finite")
    order = np.argsort(at, kind="stable")
    at, values = at[order], values[order]
    if argname == "outcome" and np.any(np.diff(at) == 0):
        raise InputError(f"outcome: step {at[np.flatnonzero(np.diff(at) == 0)[0]]:g} is evaluated twice; "
                         "average repeated evaluations first")
    return at, values


def _align(proxy_at, proxy_values, outcome_at) -> tuple[np.ndarray, np.ndarray, list]:
    """The proxy's mean over the steps since the previous evaluation, at each evaluation (the
    first evaluation's window is as long as the second's).  An evaluation with no proxy value
    in its window takes the latest one before it; one with none at all is dropped."""
    cumulative = np.r_[0.0, np.cumsum(proxy_values)]
    previous = np.r_[outcome_at[0] - (outcome_at[1] - outcome_at[0]) if len(outcome_at) > 1 else -np.inf,
                     outcome_at[:-1]]
    high = np.searchsorted(proxy_at, outcome_at, side="right")
    low = np.searchsorted(proxy_at, previous, side="right")
    count = high - low
    with np.errstate(invalid="ignore", divide="ignore"):
        aligned = (cumulative[high] - cumulative[low]) / count
    carried = (count == 0) & (high > 0)
    aligned[carried] = proxy_values[high[carried] - 1]
    keep = high > 0
    notes = []
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} evaluation(s) before the first proxy value dropped")
    if carried.any():
        notes.append(f"{int(carried.sum())} evaluation(s) with no proxy value since the previous one take the "
                     "latest proxy value")
    return aligned[keep], keep, notes


def _block_means(steps, x, y, block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means of consecutive blocks of ``block`` evaluations (the last one's step for each)."""
    count = len(y) // block * block
    start = len(y) - count                 # drop the oldest remainder, keep the latest evaluations
    shape = (-1, block)
    return (steps[start:].reshape(shape)[:, -1], x[start:].reshape(shape).mean(axis=1),
            y[start:].reshape(shape).mean(axis=1))
