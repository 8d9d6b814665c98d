"""Has it converged?  Shown flat, shown moving, or not enough data to tell.

The verdict, for one run:

1. Too few points (< ``min_points``) -> ``insufficient_data``.  A constant
   series has converged (nothing moves) and says so, with defined numbers.
2. The values are standardised (so 1e-300-sized data behave like 1-sized data),
   the warm-up is found (:func:`~swarmstats.detect_warmup`) and set aside if the points
   it sets aside sit apart from the rest (a transient, not a few rare values).
3. Four batch-means tests (see :mod:`swarmstats._kernels.verdict_tests`), each at
   alpha / 4 (Bonferroni), so a stationary series is called ``not_converged``
   at most alpha of the time: a trend after the warm-up, a drift across the
   whole run that the kept part continues, a change at the end of the run
   (the last 5, 10 or 20%), and a change of the trailing variance.
4. ``converged`` needs more than "no test rejected": the equivalence bound of
   :mod:`swarmstats._kernels.flatness` must show the projected change over the
   next ``horizon`` steps (default: as many as were kept, or up to the ``budget``
   step when that is further) within +-``tolerance`` (default: 0.75 noise SD).  A significant trend or late
   change fails the check, unless ``tolerance`` was given and the bound shows
   the change inside it.  Not shown flat, and nothing shown moving -> ``insufficient_data``,
   with ``steps_needed`` and the smallest drift the data could detect.
5. Too few effective samples (ESS < ``min_ess``) or a confidence interval
   wider than ``precision`` -> ``insufficient_data``, with ``steps_needed``.
"""

from __future__ import annotations

import math

import numpy as np

from .._base import Estimator
from .._input.series import MAX_MAGNITUDE, Series, as_runs, as_series, is_multi_run
from .._kernels import chains as _chains
from .._kernels.bounded_mean import bounded_score_interval
from .._kernels.distributions import t_ppf
from .._kernels.flatness import MAX_GROWTH
from .._kernels.long_memory import POSSIBLE_EVIDENCE, STRONG_EVIDENCE
from .._kernels.precision import (
    MeanPrecision,
    departure_share,
    held_range,
    mean_precision,
    streak_interval,
    streak_length_needed,
    transient_allowance,
    within_range,
)
from .._kernels.robust import standard_scale
from .._kernels.stationary_tests import geweke_z
from .._kernels.verdict_tests import (
    ROUNDING,
)
from .._result import fmt
from ..direction import DIRECTIONS, is_held_out_score, sense
from ..errors import InputError, check_choice, check_level, is_real
from ..proportions import proportion_bounds, within_bounds
from .endings import with_divergence
from .improvement import (
    NO_IMPROVEMENT,
    compare_best,
    compare_start,
    no_improvement_note,
)
from .movement import movement_tests
from .pace import moving_now, recent_pace
from .reasons import (
    VARIANCE_UNJUDGED,
    ahead_text,
    below_best_note,
    count_text,
    few_effective_reason,
    flat_reason,
    held_from_start_note,
    late_reason,
    level_wait,
    long_memory_reason,
    memory_notes,
    moving_now_reason,
    not_flat_reason,
    pace_clause,
    possible_memory_reason,
    short_reading,
    slow_shrink,
    swings_note,
    trend_reason,
    unconfirmed_note,
    variance_reason,
    wander_note,
    warmup_reason,
)
from .regime_check import kept_part
from .result import (
    VERDICTS,
    ConvergenceResult,
    MultiRunConvergenceResult,
    overall_verdict,
)
from .step_axis import (
    check_budget,
    spread_ties,
    step_axis,
    step_axis_note,
    step_spacing,
)
from .warmup import WARMUP_METHODS, warmup_of_values

__all__ = [
    "ConvergenceTest", "ConvergenceResult", "MultiRunConvergenceResult",
    "check_convergence", "with_divergence", "VERDICTS",
]


class ConvergenceTest(Estimator):
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
        "Flat" means the mean moves by less than this (in the metric's units)
        over the next ``horizon`` steps.  Default: ``tolerance_sd`` times the
        noise SD after the warm-up.
    tolerance_sd : float, default 0.75
        The default tolerance in noise SDs (chosen by Monte Carlo: see
        docs/convergence.md).
    equivalence_alpha : float, optional
        Level of the flatness bound (default ``alpha``); live monitors pass a
        level spent over their looks so that repeated checks keep the chance
        of a wrong "converged" below ``alpha``.
    best_alpha : float, optional
        Level of the "worse than its best" note (default ``alpha``): a held-out
        score (or a metric whose ``better`` was given) whose kept level is worse
        than a stretch before its warm-up cut.  Live monitors spend it over their
        looks as ``equivalence_alpha``, so the note is as rare on a stream as on
        one log.
    horizon : float, optional
        How far ahead (in steps) flatness is claimed.  Default: the span of the
        part kept after the warm-up.
    budget : float, optional
        The step the run is planned to end at (a trainer's ``max_steps``), on the
        series' step axis.  Flatness is then claimed up to it: the horizon is the rest
        of the budget when that is longer than the kept span, so "converged" means
        that training on to the end would change the mean by less than the tolerance.
        Give ``horizon`` or ``budget``, not both.
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
    better : {"auto", "higher", "lower"}, default "auto"
        Which direction is an improvement, for the reasons' words ("still improving"
        / "still worsening"); "auto" guesses from the metric's name (a loss, an error,
        a toxicity is lower-is-better; a gradient norm, an entropy, a KL, an episode length
        has no better side and is "still rising" / "still falling":
        :func:`swarmstats.direction.guessed_direction`).

    >>> rng = np.random.default_rng(0)
    >>> ConvergenceTest().fit(rng.normal(size=1000)).verdict
    'converged'
    >>> ConvergenceTest().fit(np.linspace(0, 1, 500) + rng.normal(0, 0.1, 500)).verdict
    'not_converged'
    """

    def __init__(self, *, alpha: float = 0.05, warmup: str = "variance", max_warmup: float = 0.5,
                 tolerance: float | None = None, tolerance_sd: float = 0.75,
                 horizon: float | None = None, budget: float | None = None,
                 equivalence_alpha: float | None = None, best_alpha: float | None = None,
                 precision: float | None = None, ci: float = 0.95,
                 min_points: int = 20, min_ess: float = 10, rhat_threshold: float | None = 1.01,
                 nan_policy: str = "raise", better: str = "auto"):
        self.alpha = alpha
        self.warmup = warmup
        self.max_warmup = max_warmup
        self.tolerance = tolerance
        self.tolerance_sd = tolerance_sd
        self.horizon = horizon
        self.budget = budget
        self.equivalence_alpha = equivalence_alpha
        self.best_alpha = best_alpha
        self.precision = precision
        self.ci = ci
        self.min_points = min_points
        self.min_ess = min_ess
        self.rhat_threshold = rhat_threshold
        self.nan_policy = nan_policy
        self.better = better
        self._validate()

    def _validate(self):
        check_level(self.alpha, "alpha")
        if self.equivalence_alpha is not None:
            check_level(self.equivalence_alpha, "equivalence_alpha")
        if self.best_alpha is not None:
            check_level(self.best_alpha, "best_alpha")
        check_level(self.ci, "ci")
        check_choice("warmup", self.warmup, WARMUP_METHODS)
        check_choice("better", self.better, ("auto",) + DIRECTIONS)
        if not 0 < self.max_warmup < 1:
            raise InputError(f"max_warmup must be in (0, 1), got {self.max_warmup!r}")
        for name in ("tolerance", "tolerance_sd", "horizon", "precision"):
            value = getattr(self, name)
            if value is not None and not (is_real(value) and math.isfinite(value) and value > 0):
                raise InputError(f"{name} must be a positive number, got {value!r}")
            # a tolerance of 1e308 overflowed once scaled to the series ("flat within +-n/a");
            # the same room as the values themselves get
            if name != "horizon" and value is not None and value > MAX_MAGNITUDE:
                raise InputError(f"{name} must be at most {MAX_MAGNITUDE:g}, got {value:g}")
        check_budget(self.budget, self.horizon)
        if int(self.min_points) < 5:
            raise InputError(f"min_points must be at least 5, got {self.min_points!r}")

    def fit(self, y, *, name: str | None = None, group=None, value=None, step=None, steps=None):
        """Check one run (1-D input) or several (2-D, list of arrays, or a frame with ``group=``).

        ``steps`` (or a pandas Series' index) is the step axis of one run: slopes are then
        quoted per 100 of its units, and named after it when it has a name.
        """
        self._validate()
        if group is not None or is_multi_run(y):
            runs = as_runs(y, nan_policy=self.nan_policy, group=group, value=value, step=step)
            return self._fit_runs(runs, name)
        series = as_series(y, nan_policy=self.nan_policy, name=name, steps=steps)
        return self.fit_series(series)

    # -- one run --------------------------------------------------------------
    def fit_series(self, series: Series) -> ConvergenceResult:
        better = sense(self.better, series.name)
        result = self._judge(series, better)
        if result.converged and better is not None:
            # a level is not an approach to one: a win rate at 0 for two million timesteps
            # passes as "converged", and a CI gate lets it through; the reasons say whether
            # the log showed the run getting there
            start = compare_start(series.values, result.autocorr_time, better, self.alpha)
            if start is not None and not start.improved:
                result.reasons.insert(1, held_from_start_note(start, result.n))
        if (better is not None and result.warmup > 0 and result.sd > 0
                and (self.better not in (None, "auto") or is_held_out_score(series.name))):
            # flat now is not at its best: an evaluation loss that rose after its first epochs
            # and settled reads "converged" on the plateau the warm-up cut leaves.  Only for a
            # held-out score or a metric whose better side was given: a training loss or a
            # diagnostic whose side is guessed from its name (a GAN's generator loss, a PPO
            # surrogate, a critic's gradient norm) is not worse for having risen
            best = compare_best(series.values, result.warmup, result.autocorr_time, result.sd, better,
                                self.alpha if self.best_alpha is None else self.best_alpha, result.tolerance)
            if best is not None:
                result.reasons.insert(1, below_best_note(best, series, result.warmup, better))
        return result

    def _judge(self, series: Series, better: str | None) -> ConvergenceResult:
        """The verdict on one run; ``better``: the metric's better side, None for none."""
        values = series.values
        n = len(values)
        steps = step_axis(series)
        base = dict(name=series.name, n=n, alpha=self.alpha, precision=self.precision,
                    ci_level=self.ci, step_unit=series.step_unit, _values=values, _steps=steps)
        if n < self.min_points:
            return ConvergenceResult(
                verdict="insufficient_data", converged=False, steps_needed=self.min_points - n,
                reasons=[f"only {n} point(s); at least {self.min_points} are needed to judge"
                         + ("" if n < 2 else f"; {short_reading(values, series, series.step_unit)}")],
                **_undefined(values, series), **base)
        centre, scale = standard_scale(values)
        unit = series.step_unit  # what a step is, in sentences ("per 100 epoch")
        if scale == 0:
            return _constant_result(values, series, base, self.tolerance)
        # Every test runs on standardised values, so 1e-300-sized data behave like 1-sized data.
        z = (values - centre) / scale
        cut = warmup_of_values(z, method=self.warmup, max_fraction=self.max_warmup, steps=series.steps)
        # a cut must set apart a transient, not the rare values of skewed noise
        cap = int(self.max_warmup * n)
        first, apart_p, start, tau, checked = kept_part(z, cut.index, cap)
        kept, kept_steps = z[start:], steps[start:]
        m = len(kept)
        if not np.std(kept) > ROUNDING:  # nothing moves after the warm-up (but rounding)
            return self._streak_result(values, series, base, start, steps)
        ess = m / tau
        mean, sd = float(kept.mean()), float(kept.std(ddof=1))
        precision = mean_precision(kept, tau)
        half_width = float(t_ppf(0.5 + self.ci / 2, precision.dof)) * precision.mcse
        # the interval reaches further on the side the run is heading, by what the tail of
        # the transient may still hold down (or up); the precision judged is the wider side
        below, above = transient_allowance(z[:start], kept)
        reach = half_width + max(below, above)
        tolerance = (self.tolerance / scale if self.tolerance is not None
                     else self.tolerance_sd * sd)
        span = float(kept_steps[-1] - kept_steps[0]) if m > 1 else 1.0
        # on row order (a step axis that goes down) a budget's step has no row; values logged
        # at one step, spread over it, keep the axis
        budget = self.budget if series.steps is None or spread_ties(series.steps) is not None else None
        horizon, to_budget = self._horizon(span, float(steps[-1]), budget)
        ahead = ahead_text(horizon, to_budget, unit)

        level = self.alpha / 4.0
        equivalence = self.equivalence_alpha if self.equivalence_alpha is not None else self.alpha
        moves = movement_tests(z, steps, start, tau, checked, precision, horizon=horizon,
                               horizon_grows=to_budget is None, tolerance=tolerance, level=level,
                               equivalence=equivalence, min_effective=self.min_ess)
        trend, drift, late, variance, flat, whole = (moves.trend, moves.drift, moves.late, moves.variance,
                                                     moves.flat, moves.whole)
        order = precision.memory_order
        moved = min(trend.pvalue, drift.pvalue) < level  # the pace is told only beside a slope
        pace = recent_pace(kept, kept_steps, start, moves.regimes, trend, self.ci) if moved else None
        # no slope over the kept part as a whole, but its last regime moves (a rise, then a fall)
        last_moves = (None if moved else
                      moving_now(kept, kept_steps, start, moves.regimes, moves.test_tau, level, self.ci,
                                 self.min_ess))
        # a last move in a kept part too persistent to tell it from a wander is noted, not claimed
        now_moving = last_moves if last_moves is not None and last_moves.kind == "now" else None
        spacing = step_spacing(kept_steps)
        wait = level_wait(pace, n, self.max_warmup, spacing)

        def units(x):
            return x * scale

        numbers = dict(
            warmup=start, warmup_step=series.step_of(start), n_kept=m, ess=ess, autocorr_time=tau,
            mean=centre + units(mean), sd=units(sd),
            # a mean cannot lie beyond every value the run produced (a capped score's end
            # stays at its cap), nor beyond a cap the run held, nor a success rate's beyond 1
            # (:mod:`swarmstats.proportions`); the precision judged is the interval before the cut
            ci=within_bounds(within_range(within_range((centre + units(mean - half_width - below),
                                                        centre + units(mean + half_width + above)),
                                                       float(values.min()), float(values.max()), ess),
                                          *held_range(values)),
                             proportion_bounds(series.name, values)),
            mcse=units(precision.mcse), trend_slope=units(trend.estimate),
            trend_pvalue=trend.pvalue, drift_slope=units(drift.estimate), drift_pvalue=drift.pvalue,
            late_change=units(late.change), late_pvalue=late.pvalue, late_length=late.length,
            variance_ratio=variance.estimate, variance_pvalue=variance.pvalue,
            variance_length=variance.length,
            geweke_z=_safe_geweke(kept), tolerance=units(tolerance), horizon=horizon,
            projected_change=units(flat.change),
            change_bound=units(max(flat.bound, whole.bound if whole else 0.0)),
            detectable_change=units(flat.detectable), long_memory=precision.long_memory)

        now = (pace_clause(pace, series, units, centre, unit, better, wait, self.max_warmup)
               if pace is not None else "")
        failed, failures, notes = self._shown_changes(
            trend, drift, late, variance, flat, whole, moves.late_bound, tolerance, level, units, steps,
            unit, better, pace=(pace, now),
            moving=(moving_now_reason(now_moving, series, units, unit, better, trend.pvalue)
                    if now_moving is not None else ""))
        if moves.test_tau < tau:
            notes.append(swings_note(tau, ess, moves.regimes_found, moves.test_tau))
        notes += memory_notes(precision, moves.widened, sloped=moved)
        notes += [unconfirmed_note(*entry) for entry in moves.unconfirmed]
        if last_moves is not None and last_moves.kind == "wander":
            notes.append(wander_note(last_moves, series, units, unit, better, self.min_ess))

        steps_needed = self._steps_needed(units(reach), m, spacing, precision)
        imprecise = self.precision is not None and units(reach) > self.precision
        axis_note = step_axis_note(series, steps, self.budget)
        warmup_note = [warmup_reason(cut, start, first, apart_p)]
        if failures:
            reasons = failures + notes + warmup_note + axis_note
            if imprecise:
                reasons.append(self._precision_reason(units(reach), steps_needed, unit, order))
            if wait is not None and any(test in failed for test in ("trend", "drift")):
                steps_needed = max(steps_needed or 0, wait)
            recent = ((now_moving.first, units(now_moving.slope)) if "recent_trend" in failed else None)
            return ConvergenceResult(verdict="not_converged", converged=False, failed_tests=failed,
                                     reasons=reasons, steps_needed=steps_needed, _recent=recent,
                                     **numbers, **base)
        def insufficient(more, *leading, notes=notes):
            return ConvergenceResult(verdict="insufficient_data", converged=False, steps_needed=more,
                                     reasons=[*leading, *notes, *warmup_note, *axis_note],
                                     **numbers, **base)

        unsettled, worst = moves.unsettled, moves.worst
        if ess < self.min_ess:
            to_judge = max(int(math.ceil((self.min_ess - ess) * tau * spacing)), 1)
            # reaching the count to judge by settles nothing when flatness needs far more
            needed = worst.points_needed if unsettled else 0
            to_show = None if needed is None else int(math.ceil(needed * spacing))
            # what the curve shows, as read: "too few effective samples" alone left a curve
            # that climbed 100-fold over 101 iterations (a real rsl_rl run) with nothing said
            return insufficient(None if to_show is None else max(to_judge, to_show),
                                few_effective_reason(ess, tau, self.min_ess, to_judge, to_show, order, unit),
                                short_reading(values, series, unit))
        if precision.long_memory:
            return insufficient(None, long_memory_reason(precision),
                                notes=[note for note in notes if not note.startswith("long memory")])
        if unsettled:
            more = (None if worst.points_needed is None or worst.held_by_slope
                    else max(int(math.ceil(worst.points_needed * spacing)), 1))
            aside = self._small_against_level(units(worst.bound), centre + units(mean))
            return insufficient(more, not_flat_reason(ahead, units(worst.bound), units(tolerance), aside,
                                                      more, order, units(flat.detectable), horizon, unit,
                                                      held=units(worst.change) if worst.held_by_slope else None))
        if imprecise:
            return insufficient(steps_needed, self._precision_reason(units(reach), steps_needed, unit, order),
                                flat_reason(flat, units, ahead, tolerance, variance))
        if not variance.applies:
            notes.append(VARIANCE_UNJUDGED)
        if precision.spectral_evidence > POSSIBLE_EVIDENCE:
            # flat and precise by every test, but a long-memory model already fits better than
            # any short-memory one: the interval those tests rest on is in doubt.  Among ARFIMA
            # d = 0.3 runs of 1,000 points called converged, the intervals of these covered
            # 40-60%; ARMA(1,1) runs so caught: 3%.  The evidence grows about linearly with
            # the length, so the length that would make it strong (or show it was noise) is
            # what would settle it.
            more = max(int(math.ceil(m * (STRONG_EVIDENCE / precision.spectral_evidence - 1.0)
                                     * spacing)), 1)
            return insufficient(more, possible_memory_reason(precision, more, unit),
                                flat_reason(flat, units, ahead, tolerance, variance))
        reasons = [flat_reason(flat, units, ahead, tolerance, variance)] + notes + warmup_note
        return ConvergenceResult(verdict="converged", converged=True, reasons=reasons + axis_note,
                                 steps_needed=0 if self.precision is not None else None,
                                 **numbers, **base)

    def _small_against_level(self, bound: float, level: float) -> str:
        """Said when the default tolerance (a share of the noise SD) asks for more than the
        level's own size would: a plateau nearly without noise is judged against that noise.
        Mava's IPPO seeds flat at 150.0 +- 0.1 (marl-eval's public runs) read "could still
        move by up to 0.504 (tolerance +-0.113)", 0.3% of their level, with no word of it."""
        if self.tolerance is not None or not level or abs(bound) >= SMALL_AGAINST_LEVEL * abs(level):
            return ""
        return (f"; {fmt(abs(bound), 3)} is {abs(bound) / abs(level):.2%} of the mean, {fmt(level, 4)}: "
                "the default tolerance is a share of the noise, which is small here - if a move that "
                "small does not matter, pass the one that does with tolerance= (--tolerance)")

    def _horizon(self, span: float, last_step: float, budget) -> tuple[float, float | None]:
        """How far ahead flatness is claimed, and the budget's end when the claim runs to it:
        ``horizon`` as given; else the kept span, or the rest of the budget when longer."""
        if self.horizon is not None:
            return float(self.horizon), None
        own = max(span, 1.0)
        if budget is not None and float(budget) - last_step > own:
            return float(budget) - last_step, float(budget)
        return own, None

    def _shown_changes(self, trend, drift, late, variance, flat, whole, late_bound: float,
                       tolerance: float, level: float, units, steps: np.ndarray, unit: str,
                       better: str | None, pace=(None, ""), moving: str = ""):
        """(failed, failures, notes): the names of the tests that found a change at ``level``
        and fail the check, their reasons, and the reasons of those excused (a trend in a
        diagnostic with no better side, ``better`` None, is "rising" or "falling").

        A change shown to exist fails the check, unless the user's own tolerance says it is
        too small to matter and the bound shows it inside that tolerance.  The default
        tolerance only decides what counts as shown flat; it never excuses a detected trend.
        ``pace``: (:class:`~swarmstats.convergence.pace.RecentPace` or None, its clause), told in the first trend or drift
        sentence that fails the check.  ``moving``: the reason of a last regime that moves
        where the kept part shows no slope (:func:`~swarmstats.convergence.pace.moving_now`),
        or "" - the test "recent_trend", excused by a tolerance as the trend is.
        """
        recent, now = pace
        excusable = self.tolerance is not None
        failed, failures, notes = [], [], []

        def shown(test, within, reason):
            if within:
                notes.append(reason)
            else:
                failed.append(test)
                failures.append(reason)

        told = False

        def sloped(outcome, within):
            nonlocal told
            if within:
                return trend_reason(outcome, units, within, units(tolerance), unit, better)
            first, told = not told, True
            return trend_reason(outcome, units, False, units(tolerance), unit, better, pace=recent,
                                now=now if first else "")

        if trend.pvalue < level:
            within = excusable and flat.shown
            shown("trend", within, sloped(trend, within))
        if drift.pvalue < level:
            within = excusable and whole is not None and whole.shown
            shown("drift", within, sloped(drift, within))
        if moving:
            shown("recent_trend", excusable and flat.shown, moving)
        if late.pvalue < level:
            within = excusable and late_bound < tolerance
            shown("late_change", within, late_reason(late, units, steps, within, units(tolerance), unit))
        if variance.pvalue < level:
            shown("variance", False, variance_reason(variance, steps, unit))
        return tuple(failed), failures, notes

    def _streak_result(self, values: np.ndarray, series: Series, base: dict, start: int,
                       steps: np.ndarray) -> ConvergenceResult:
        """Nothing moves after the warm-up, but the run produced other values before: flat,
        with the interval a streak of that length allows (a success rate at 1 for 34 points
        after a failure is not known to be exactly 1), judged against ``precision``."""
        kept = values[start:]
        level, m = float(kept[0]), len(kept)
        low, high = float(values.min()), float(values.max())
        ci, share = streak_interval(level, m, low, high, self.ci)
        unit = series.step_unit
        reasons = [f"after the warm-up ({start} points) the series stays at {fmt(level)} for "
                   f"{count_text(m, 'points')}: nothing is changing, but the run produced values from "
                   f"{fmt(low)} to {fmt(high)} before, so departures in up to {share:.1%} of points "
                   f"are not ruled out ({self.ci:.0%} upper bound for a streak of {m}; points "
                   "taken as independent), which puts the mean in "
                   f"[{fmt(ci[0])}, {fmt(ci[1])}]"]
        verdict, needed = "converged", (0 if self.precision is not None else None)
        if self.precision is not None:
            length = streak_length_needed(self.precision, low, high, level, self.ci)
            if length > m:
                verdict = "insufficient_data"
                needed = max(int(math.ceil((length - m) * step_spacing(steps[start:]))), 1)
                reasons.insert(0, f"a streak of {m} points leaves the mean within "
                                  f"+-{fmt(max(level - ci[0], ci[1] - level), 3)}; "
                                  f"+-{fmt(self.precision, 3)} needs a streak of {length}, "
                                  f"about {count_text(needed, unit, 'more ')}")
        return _constant_result(values, series, base, self.tolerance, start=start, ci=ci,
                                verdict=verdict, steps_needed=needed, reasons=reasons)

    def _steps_needed(self, half_width: float, kept: int, spacing: float,
                      precision: MeanPrecision) -> int | None:
        """Further steps for the CI half-width to reach ``precision``; the half-width
        shrinks as 1/sqrt(n): n' = n (half-width / precision)^2 - or, under long memory of
        order d, as n^(d - 1/2) (None when no practical length would reach it)."""
        if self.precision is None:
            return None
        if half_width <= self.precision:
            return 0
        factor = precision.length_factor(half_width / self.precision)
        if factor > MAX_GROWTH:
            return None
        return int(math.ceil(kept * (factor - 1.0) * spacing))

    def _precision_reason(self, half_width: float, steps_needed: int | None, unit: str = "steps",
                          order: float = 0.0) -> str:
        known = f"the mean is known to +-{fmt(half_width, 3)}; +-{fmt(self.precision, 3)} "
        if steps_needed is None:
            return known + f"is out of practical reach ({slow_shrink(order)})"
        slow = f" ({slow_shrink(order)})" if order > 0 else ""
        return known + f"needs about {steps_needed} more {unit}{slow}"

    # -- several runs ----------------------------------------------------------
    def _fit_runs(self, runs: list[Series], name: str | None) -> MultiRunConvergenceResult:
        # "not converged" is claimed if any run's tests reject: each run is tested at alpha / k
        # (Bonferroni), or k stationary runs would be called not converged 1 - (1 - alpha)^k of
        # the time (4 runs: 20%, 8 runs: 32%, measured).  "Converged" needs every run shown flat
        # - an intersection-union test, valid at the flatness level unadjusted - so that level
        # stays alpha.
        per_run = (self.clone(alpha=self.alpha / len(runs),
                              equivalence_alpha=self.equivalence_alpha or self.alpha)
                   if len(runs) > 1 else self)
        results = [per_run.fit_series(run) for run in runs]
        tails = [run.values[r.warmup:] for run, r in zip(runs, results)]
        length = min(len(t) for t in tails)
        rhat = ess_bulk = ess_tail = across = float("nan")
        if length >= 4 and len(runs) >= 1:
            chains = np.vstack([t[len(t) - length:] for t in tails])
            if not _chains.is_constant(chains):
                rhat, ess_bulk, ess_tail = (_chains.rhat_rank(chains), _chains.ess_bulk(chains),
                                            _chains.ess_tail(chains))
                across = _chains.rhat_across(chains) if len(runs) > 1 else float("nan")
        verdict, reasons = overall_verdict(results, self.alpha, rhat, ess_bulk, ess_tail, self.rhat_threshold,
                                           rhat_across=across)
        held = [r.name or f"run {i + 1}" for i, r in enumerate(results) if no_improvement_note(r.reasons)]
        if verdict == "converged" and held:  # said of the whole, where a CI annotation reads it
            reasons.insert(1, f"{NO_IMPROVEMENT} in {len(held)} of {len(results)} runs ({', '.join(held)}): "
                              "each held its level from its first points")
        return MultiRunConvergenceResult(
            verdict=verdict, converged=verdict == "converged", reasons=reasons, runs=results,
            rhat=rhat, ess_bulk=ess_bulk, ess_tail=ess_tail,
            rhat_threshold=self.rhat_threshold, name=name, rhat_across=across)


def check_convergence(y, **kwargs):
    """``ConvergenceTest(**kwargs).fit(y)``: has this series (or these runs) converged?

    Accepts ``name=``, ``group=``, ``value=`` and ``step=`` for :meth:`ConvergenceTest.fit`;
    every other keyword configures :class:`ConvergenceTest`.

    >>> rng = np.random.default_rng(1)
    >>> reward = 0.49 + np.linspace(0, 0.11, 100) + rng.normal(0, 0.08, 100)
    >>> check_convergence(reward).verdict
    'not_converged'
    """
    fit_keys = {key: kwargs.pop(key) for key in ("name", "group", "value", "step", "steps") if key in kwargs}
    return ConvergenceTest(**kwargs).fit(y, **fit_keys)


#: a flatness bound below this share of the mean's size is said to be small against it
SMALL_AGAINST_LEVEL = 0.01

def _safe_geweke(kept: np.ndarray) -> float:
    if len(kept) < 20:
        return float("nan")
    return geweke_z(kept)


def _undefined(values: np.ndarray, series: Series) -> dict:
    """The numbers of a result that judged nothing (too few points)."""
    n = len(values)
    nan = float("nan")
    return dict(warmup=0, warmup_step=series.step_of(0) if n else None, n_kept=n, ess=nan,
                autocorr_time=nan, mean=float(values.mean()) if n else nan,
                sd=float(values.std(ddof=1)) if n > 1 else nan, ci=(nan, nan), mcse=nan,
                trend_slope=nan, trend_pvalue=nan, drift_slope=nan, drift_pvalue=nan,
                late_change=nan, late_pvalue=nan, late_length=0, variance_ratio=nan,
                variance_pvalue=nan, variance_length=0, geweke_z=nan, tolerance=nan, horizon=nan,
                projected_change=nan, change_bound=nan, detectable_change=nan, long_memory=False)


def _constant_result(values: np.ndarray, series: Series, base: dict, tolerance, start=None,
                     ci=None, verdict="converged", steps_needed=0, reasons=None):
    """A series (or a kept part) that does not move: converged, with defined numbers; a kept
    part that is a streak passes its interval (``ci``), verdict and reasons."""
    index = 0 if start is None else start
    kept = values[index:]
    level = float(kept[0])
    m = len(kept)
    bounds = proportion_bounds(series.name, kept)
    at_bound = ci is None and bounds is not None and level in bounds
    if at_bound:  # a rate at 0 or 1 every time: n of n says "at least 0.84" (20), not "exactly 1"
        ci = bounded_score_interval(level, 0.0, m, base["ci_level"], bounds)
    ci = (level, level) if ci is None else ci
    numbers = dict(
        warmup=index, warmup_step=series.step_of(index), n_kept=m, ess=float(m),
        autocorr_time=1.0, mean=level, sd=0.0, ci=ci, mcse=0.0, trend_slope=0.0,
        trend_pvalue=1.0, drift_slope=0.0, drift_pvalue=1.0, late_change=0.0, late_pvalue=1.0,
        late_length=0, variance_ratio=1.0, variance_pvalue=1.0, variance_length=0, geweke_z=0.0,
        tolerance=float(tolerance) if tolerance is not None else 0.0, horizon=float(m),
        projected_change=0.0, change_bound=0.0, detectable_change=0.0, long_memory=False)
    if reasons is None:
        # no other value was seen, so nothing bounds how far a departure would go
        share = departure_share(m, base["ci_level"])
        reasons = [f"the series is constant at {fmt(level)}: nothing is changing (every point is "
                   "an effective sample; the autocorrelation time is taken as 1). "
                   f"{m} identical points rule out departures in more than {share:.1%} of "
                   f"points ({base['ci_level']:.0%} bound), not how large one would be: "
                   + (f"the rate's interval is Wilson's for {m} of {m} (taken as independent)" if at_bound
                      else "the interval is the point itself")]
    return ConvergenceResult(verdict=verdict, converged=verdict == "converged",
                             steps_needed=steps_needed, reasons=reasons, **numbers, **base)
