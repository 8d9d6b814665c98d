"""The convergence verdict's sentences: what it says about a run, in words and units.

Kept apart from the tests that decide the verdict (:mod:`.verdict`): each helper turns one
finding - a trend, a late change, a flatness bound, a warm-up cut, a level regime - into the
sentence a reader of the result sees.
"""

from __future__ import annotations

import math

import numpy as np

from .._input.series import Series
from .._kernels.flatness import MAX_GROWTH, POWER
from .._kernels.precision import SLOW_COMPONENT
from .._result import fmt, fmt_interval, fmt_step, interval_digits
from ..direction import movement
from .improvement import BELOW_BEST, NO_IMPROVEMENT

#: past tense of :func:`swarmstats.direction.movement`'s words, for a movement that stopped
PAST = {"improving": "improved", "worsening": "worsened", "rising": "rose", "falling": "fell"}


def pace_clause(pace, series: Series, units, centre: float, unit: str, better: str | None,
                wait: int | None = None, max_warmup: float = 0.5) -> str:
    """What the curve does since its last regime began (``pace``: a
    :class:`~swarmstats.convergence.pace.RecentPace`), told after the kept part's slope:
    "now slower: Sen's slope +0.632 per 100 episodes [0.364, 0.911] since episode 5384 (the
    last regime detect_regimes finds, 1,836 points)".  ``wait``: the more steps at a level
    reached too late for the warm-up (at most ``max_warmup`` of the run) to set the climb
    aside before it could be judged alone (:func:`level_wait`)."""
    text = _pace_text(pace, series, units, centre, unit, better)
    if wait is not None:
        share = "half" if max_warmup == 0.5 else f"{max_warmup:.0%}"
        text += (f"; what came before that level is more than the warm-up may set aside ({share} "
                 f"of the run): at least about {count_text(wait, unit, 'more ')} at it would let "
                 "it be judged alone")
    return text


def moving_now_reason(pace, series: Series, units, unit: str, better: str | None,
                      kept_pvalue: float) -> str:
    """The first reason of a run whose last regime moves while the part kept after the warm-up
    shows no slope as a whole (``pace``: :func:`~swarmstats.convergence.pace.moving_now`'s):
    "worsening now: since step 230 (the last regime detect_regimes finds, 70 points) Sen's slope
    -2.01 per 100 steps [-2.54, -1.51] (p = 1.4e-06), where the part kept after the warm-up shows
    no slope as a whole (p = 0.15)"."""
    return (f"{movement(pace.slope, better)} now: {_since(pace, series, unit)} "
            f"{_sen_slope(pace, units, unit)} (p = {fmt(pace.pvalue, 2)}), where the part kept after "
            f"the warm-up shows no slope as a whole (p = {fmt(kept_pvalue, 2)})")


def wander_note(pace, series: Series, units, unit: str, better: str | None, min_effective: float) -> str:
    """The last regime's slope that :func:`~swarmstats.convergence.pace.moving_now` found but
    does not claim (``pace.kind`` "wander"): the part kept after the warm-up is too persistent
    by its ranks for the end of a wander to be told from a move."""
    return (f"{_since(pace, series, unit)} the run is {movement(pace.slope, better)}: "
            f"{_sen_slope(pace, units, unit)} (p = {fmt(pace.pvalue, 2)}), but the part kept after the "
            f"warm-up holds {fmt(pace.kept_effective, 2)} effective samples by its ranks (Mann-Kendall's "
            f"reading of its persistence; {fmt(min_effective, 3)} are needed): with so few, the end of a "
            "slow wander and a move look alike, so no move is claimed")


def _since(pace, series: Series, unit: str) -> str:
    return (f"since {singular(unit)} {fmt_step(series.step_of(pace.first))} (the last regime "
            f"detect_regimes finds, {count_text(pace.count, 'points')})")


def _sen_slope(pace, units, unit: str) -> str:
    slope = f"Sen's slope {pace_interval(pace, units, unit)}"
    if pace.resolution:  # an interval of one point: the rounding, not certainty
        slope += (f" (its values move in steps of {fmt(units(pace.resolution), 3)}: no finer slope "
                  "can be seen)")
    return slope


def _pace_text(pace, series: Series, units, centre: float, unit: str, better: str | None) -> str:
    since = _since(pace, series, unit)
    slope = _sen_slope(pace, units, unit)
    if pace.kind == "none" and pace.held is not None:
        return f"{since} every value is {fmt(centre + units(pace.held), 4)}"
    if pace.kind == "none":
        mean = fmt_interval(*(centre + units(x) for x in pace.mean))
        return f"{since} no trend is shown: {slope}, the mean {mean}"
    if pace.kind == "reversed":
        return f"{since} it is {movement(pace.slope, better)}: {slope}"
    return f"now {pace.kind}: {slope} {since}"


def pace_interval(pace, units, unit: str) -> str:
    """A recent slope and its interval per 100 steps: "+10.6 per 100 episodes [-6.8, +28]"."""
    low, high = (units(x) * 100 for x in pace.interval)
    digits = interval_digits(low, high, 3)
    return (f"{per_hundred(units(pace.slope), unit)} "
            f"[{fmt(low, digits)}, {fmt(high, digits)}]")


def level_wait(pace, n: int, max_warmup: float, spacing: float) -> int | None:
    """More steps at the last regime's level before it alone could be judged, when it began
    later than the warm-up may cut (``max_warmup`` of the run); None when it could be now."""
    if pace is None or pace.kind != "none" or pace.first <= int(max_warmup * n):
        return None
    needed = int(math.ceil(pace.first / max_warmup)) - n
    return max(int(math.ceil(needed * spacing)), 1)


#: a short curve's reading says how far its last few changes moved it (it tells a curve still
#: falling from one levelling off) once the curve has this many points: fewer, and those
#: points are most of it
RECENT_POINTS = 3


def short_reading(values: np.ndarray, series: Series, unit: str) -> str | None:
    """What a curve too short to judge shows, as read and not tested (None for one point).

    A Trainer's eval metric has one point per evaluation, often 5-15 in a run; "too few to
    judge" alone left a practitioner with nothing where the curve itself says "still falling"
    or "levelled off".  Each figure is a count or a difference of the values, no inference:

    >>> from swarmstats._input.series import as_series
    >>> wer = as_series([14.3, 12.5, 12.4, 11.5, 11.2, 10.6, 10.7, 10.4, 10.2, 9.97, 9.92])
    >>> short_reading(wer.values, wer, "steps")
    'as read, not tested: down from 14.3 to 9.92, lower than the point before 9 of 10 times, the last 4 in a row; the last is the lowest; the last 3 changes add up to -0.48 (11% of its range)'
    >>> loss = as_series([0.66, 0.555, 0.519, 0.494, 0.489, 0.485, 0.487, 0.491, 0.491, 0.492])
    >>> short_reading(loss.values, loss, "steps")
    'as read, not tested: down from 0.66 to 0.492, lower than the point before 5 of 9 times; the lowest, 0.485, was at step 5, the last is 0.007 above it; the last 3 changes add up to +0.005 (2.9% of its range)'
    """
    n = len(values)
    if n < 2:
        return None
    first, last = float(values[0]), float(values[-1])
    low, high = float(values.min()), float(values.max())
    said = "as read, not tested: "
    if low == high:
        return f"{said}every value is {fmt(last, 4)}"
    if last == first:
        return f"{said}back at {fmt(last, 4)}, where it started; between {fmt(low, 4)} and {fmt(high, 4)} on the way"
    down = last < first
    word, than, most = ("down", "lower", "lowest") if down else ("up", "higher", "highest")
    along = np.diff(values) < 0 if down else np.diff(values) > 0
    parts = [f"{word} from {fmt(first, 4)} to {fmt(last, 4)}"]
    if n >= 3:
        times = int(along.sum())
        row = n - 1 - int(np.flatnonzero(~along)[-1]) - 1 if not along.all() else n - 1
        parts[0] += f", {than} than the point before " + (
            "every time" if times == n - 1 else f"{times} of {n - 1} times")
        if 2 <= row < times:
            parts[0] += f", the last {row} in a row"
        best = low if down else high
        if last == best:
            parts.append(f"the last is the {most}")
        else:
            at = int(np.flatnonzero(values == best)[-1])
            parts.append(f"the {most}, {fmt(best, 4)}, was at {singular(unit)} "
                         f"{fmt_step(series.step_of(at))}, the last is {fmt(abs(last - best), 3)} "
                         f"{'above' if down else 'below'} it")
    if n >= 2 * RECENT_POINTS:
        moved = last - float(values[-1 - RECENT_POINTS])
        parts.append(f"the last {RECENT_POINTS} changes add up to {moved:+.3g} "
                     f"({fmt(100 * abs(moved) / (high - low), 2)}% of its range)")
    return said + "; ".join(parts)


def diverged_text(info: dict, finite: int) -> str:
    """The reason a run that diverged is not converged: ``info`` is its record (``step``,
    ``values``, ``kind``: :func:`swarmstats.io.select_metric`), ``finite`` the values before.

    >>> diverged_text({"step": 450, "values": 150, "kind": "NaN"}, 450)
    'diverged: from step 450 on every value is NaN (150 of them); the numbers describe the 450 finite values before'
    """
    before = (f"the numbers describe the {count_text(finite, 'finite values')} before" if finite
              else "no finite value was logged before")
    return f"diverged: {where_diverged(info)}; {before}"


def where_diverged(info: dict) -> str:
    """Where a run diverged, from its record: "from step 450 on every value is NaN (150 of them)"."""
    return f"from step {fmt_step(info['step'])} on every value is {info.get('kind', 'infinite')} ({info['values']} of them)"


def skipped_text(info: dict) -> str:
    """What was left out of a metric as skipped steps: ``info`` is its record (``values``,
    ``kind``, ``steps``, ``at_end``, ``at_start``: :func:`swarmstats.io.select_metric`).

    >>> skipped_text({"values": 3, "kind": "infinite", "steps": [40, 580, 1210], "at_end": False})
    '3 infinite values among finite ones left out (steps 40, 580, 1210): read as skipped steps (fp16/AMP training logs inf or NaN at a step whose gradients overflowed, and goes on)'
    >>> skipped_text({"values": 2, "kind": "NaN", "steps": [40, 2000], "at_end": True})[:60]
    '2 NaN values left out (steps 40, 2000, the last one logged):'
    >>> skipped_text({"values": 1, "kind": "infinite", "steps": [100], "at_end": False, "at_start": True})
    '1 infinite value left out (step 100), before the first finite one: a running best starts at -inf, or nothing was measured yet'
    """
    count = info["values"]
    steps = [fmt_step(step) for step in info["steps"]] + (["..."] if count > len(info["steps"]) else [])
    where = ", ".join(steps) + (", the last one logged" if info.get("at_end") else "")
    if info.get("at_start") and info["kind"] == "infinite":
        # a hand-written loop's best average starts at -inf (angela's "BestAvg: -inf" at its
        # first print): no overflowed step of fp16 training
        return (f"{count} infinite value{'s' if count > 1 else ''} left out (step{'s' if count > 1 else ''} {where}), "
                "before the first finite one: a running best starts at -inf, or nothing was measured yet")
    among = "" if info.get("at_end") else " among finite ones"  # (before the first, or between)
    return (f"{count} {info['kind']} value{'s' if count > 1 else ''}{among} left out "
            f"(step{'s' if count > 1 else ''} {where}): read as skipped steps (fp16/AMP training logs inf or "
            "NaN at a step whose gradients overflowed, and goes on)")


def count_text(count: int, unit: str, before: str = "") -> str:
    """``count`` ``unit`` in words, singular for one: "1 more step", "1,992 more steps" (grouped
    like the horizons beside them).

    >>> count_text(1, "steps", "more "), count_text(3, "episodes"), count_text(44435, "timesteps", "more ")
    ('1 more step', '3 episodes', '44,435 more timesteps')
    """
    word = singular(unit) if count == 1 else unit
    return f"{steps_text(count)} {before}{word}"


def singular(unit: str) -> str:
    """"episode" for "episodes": one step of the axis, for a sentence."""
    return unit[:-1] if unit.endswith("s") else unit


#: from here a step number reads in powers of ten: a log whose steps ran to 3e304 printed a
#: 305-digit "next 2,959,999,999,...,000 steps"
PLAIN_STEPS = 1e15


def steps_text(steps: float) -> str:
    """A number of steps for a sentence: 600, 12,500, or 2.5 on a fractional axis.

    >>> steps_text(12500.0), steps_text(2.5), steps_text(2.96e305)
    ('12,500', '2.5', '2.96e+305')
    """
    return f"{steps:,.0f}" if 10 <= steps < PLAIN_STEPS else fmt(steps, 3)


def ahead_text(horizon: float, to_budget: float | None, unit: str) -> str:
    """What the flatness claim covers, for a sentence: "the next 600 steps" (and where that
    ends when it runs to the budget)."""
    text = f"the next {steps_text(horizon)} {unit}"
    return text if to_budget is None else f"{text}, to the budget's end at {steps_text(to_budget)}"


def slow_shrink(order: float) -> str:
    """Why more data helps slowly under long memory of order ``order``, in words."""
    if order >= 0.5:
        return f"under long memory (d = {order:.2f}) the error of the mean does not shrink with more data"
    return (f"under long memory (d = {order:.2f}) the error of the mean shrinks as "
            f"n^-{0.5 - order:.2f}, not n^-0.5")


def out_of_reach(order: float) -> str:
    """Why no length of run would show the curve flat: long memory, or a tolerance so small
    against the noise over the horizon that the run would have to grow more than a million-fold."""
    if order > 0:
        return slow_shrink(order)
    return (f"a run more than {MAX_GROWTH:,.0f} times this one would be needed: the tolerance is "
            "small against what the noise allows over this horizon")


def per_hundred(slope: float, unit: str) -> str:
    return f"{slope * 100:+.3g} per 100 {unit}"


def trend_reason(outcome, units, within: bool, tolerance: float, unit: str, better: str | None,
                 pace=None, now: str = "") -> str:
    """The sentence for a trend (``outcome.name`` "trend": the kept part's) or a drift (the
    whole run's, which the kept part continues).  ``pace`` (a :class:`RecentPace`) and
    ``now`` (its :func:`pace_clause`) tell what the curve does since its last regime began
    when that differs from the slope found: a curve that climbed and has held level since
    (a public A2C Pong log, -20 for 240 episodes then ~17.8 for the last 104) read "still
    improving: +12.9 per 100 episodes" - a climb going on."""
    direction = movement(outcome.estimate, better)
    slope = per_hundred(units(outcome.estimate), unit)
    p = f"p = {fmt(outcome.pvalue, 2)}"
    if within:
        return (f"a statistically significant but small {outcome.name} ({slope}, "
                f"{p}), shown to stay within +-{fmt(tolerance, 3)}")
    going_on = pace is None or pace.kind in ("slower", "faster")
    if outcome.name == "trend":
        text = (f"still {direction} after the warm-up: {slope} ({p})" if going_on
                else f"{PAST[direction]} after the warm-up: {slope} ({p})")
    elif going_on:
        text = (f"drifting across the whole run and still {direction}: {slope} ({p}), and the "
                "part kept after the warm-up continues that slope")
    else:
        text = (f"{PAST[direction]} across the whole run: {slope} ({p}), and the part kept "
                "after the warm-up continues that slope")
    if not now:
        return text
    return f"{text}; {now}" if going_on else f"{text}, but {now}"


def stretch_span(length: int, steps: np.ndarray) -> int:
    """The last ``length`` points' span on the step axis (their count without one before)."""
    if len(steps) > length:
        return int(round(float(steps[-1] - steps[-length - 1])))
    return length


def late_reason(outcome, units, steps: np.ndarray, within: bool, tolerance: float, unit: str) -> str:
    direction = "higher" if outcome.change > 0 else "lower"
    span = stretch_span(outcome.length, steps)
    text = (f"the last {span} {unit} are {fmt(abs(units(outcome.change)), 3)} {direction} than "
            f"the kept part before them (p = {fmt(outcome.pvalue, 2)})")
    if within:
        return f"a small late change, shown to stay within +-{fmt(tolerance, 3)}: {text}"
    return f"a late change: {text}"


def variance_reason(outcome, steps: np.ndarray, unit: str) -> str:
    """A stretch at the end whose spread differs from the second half's before it."""
    last = f"the last {stretch_span(outcome.length, steps)} {unit}"
    if np.isfinite(outcome.estimate):
        found = (f"the variance of {last} is {fmt(outcome.estimate, 3)}x that of the kept part's "
                 "second half before them")
    else:  # a 0/1 score that held one value, then began to flip
        found = f"{last} vary, where the kept part's second half before them held still"
    return f"the trailing variance has not stabilised: {found} (p = {fmt(outcome.pvalue, 2)})"


def flat_reason(flat, units, ahead: str, tolerance: float, variance) -> str:
    return (f"flat within +-{fmt(units(tolerance), 3)} over {ahead}: "
            f"the projected change is {fmt(units(flat.change), 3)} (at most "
            f"{fmt(units(flat.bound), 3)} either way); "
            f"no trend, late change or variance change "
            + (f"(variance p = {fmt(variance.pvalue, 2)})" if variance.applies
               else "(variance not judged)"))


#: said where the trailing-variance test could not be run
VARIANCE_UNJUDGED = ("the trailing variance was not judged: each quarter of the kept part is too "
                     "short for two batches spanning the persistence of its squared deviations "
                     "(volatility clusters)")


def few_effective_reason(ess: float, tau: float, min_ess: float, to_judge: int, to_show: int | None,
                         order: float, unit: str) -> str:
    """Too few effective samples to judge: the steps that would give ``min_ess`` of them
    (``to_judge``), or - when flatness needs more - the steps that would show it flat
    (``to_show``; None: out of practical reach under long memory of ``order``)."""
    if to_show is None:
        judged = (f"{fmt(min_ess, 3)} are needed to judge, but {out_of_reach(order)}: no practical "
                  "length would show it flat; compare independent runs (seeds) instead")
    elif to_show > to_judge:
        judged = (f"{fmt(min_ess, 3)} are needed to judge, and if it is flat, about "
                  f"{count_text(to_show, unit, 'more ')} would show it"
                  + (f" ({slow_shrink(order)})" if order > 0 else ""))
    else:
        judged = f"about {count_text(to_judge, unit, 'more ')} would give {fmt(min_ess, 3)}"
    return (f"only {fmt(ess, 3)} effective samples after the warm-up (autocorrelation time "
            f"{fmt(tau, 3)}); {judged}")


def long_memory_reason(precision) -> str:
    """Long memory named: neither flatness nor the mean's precision is claimed."""
    return ("long memory suspected, so neither flatness nor the precision of the mean can be "
            f"claimed from this run: {precision.memory_evidence()} - more data will not settle it "
            "as fast as usual; compare independent runs (seeds) instead")


def possible_memory_reason(precision, more: int, unit: str) -> str:
    """A long-memory model ahead by positive, not strong, evidence; ``more`` steps would tell."""
    return (f"long memory possible: a fractionally integrated model (d = {precision.spectral_d:.2f}) "
            f"fits the spectrum better than any short-memory one (BIC lower by "
            f"{precision.spectral_evidence:.1f}: positive, not yet strong evidence), so the precision "
            f"of the mean is not claimed; about {count_text(more, unit, 'more ')} would tell")


def not_flat_reason(ahead: str, bound: float, tolerance: float, aside: str, more: int | None,
                    order: float, detectable: float, horizon: float, unit: str, *,
                    held: float | None = None) -> str:
    """Not shown flat: how far the mean could still move over the horizon against the
    tolerance (``aside``: said of them, e.g. that they are small against the level), what would
    show it flat (``more`` steps; None: out of reach) and the smallest drift detectable.
    ``held``: the change the fitted slope projects, when it alone holds the bound up (the data
    are precise enough to show a flat curve flat: no count of steps is honest then)."""
    if held is not None:
        settle = (f"these data are precise enough to show a flat curve flat ({POWER:.0%} of the time), "
                  f"but the fitted slope, too small to call a trend, projects a change of {fmt(held, 3)}: "
                  "more data will tell whether it fades")
    elif more is None:
        settle = f"no practical length would show it flat ({out_of_reach(order)})"
    else:
        settle = f"if it is flat, about {count_text(more, unit, 'more ')} would show it"
    return (f"not shown to be flat: over {ahead} the mean could still move by up to {fmt(bound, 3)} "
            f"(tolerance +-{fmt(tolerance, 3)}{aside}); {settle}. The smallest drift these data can "
            f"detect is +-{fmt(detectable, 3)} over {steps_text(horizon)} {unit}")


def swings_note(tau: float, ess: float, regimes_found: int, test_tau: float) -> str:
    """Why the trend and late-change tests were sized by the noise around the kept part's
    regimes (:func:`~swarmstats.convergence.regime_check.tests_tau`) and not its own time."""
    return (f"the kept part moves in slow swings (autocorrelation time {fmt(tau, 3)}, "
            f"{fmt(ess, 3)} effective samples) that are {regimes_found} level or slope "
            f"change(s) around noise with autocorrelation time {fmt(test_tau, 3)} "
            "(detect_regimes): the trend and late-change tests use the latter")


def unconfirmed_note(test: str, batch_p: float, rank_p: float, effective: float, level: float) -> str:
    """A slope the batch means show at the tests' ``level`` that the rank trend test, reading
    a short run's persistence from its first lags, does not
    (:func:`~swarmstats.convergence.movement.confirmed_slope`).

    >>> unconfirmed_note("drift", 0.0044, 0.026, 8.1, 0.0125)
    "the slope over the whole run shows in batch means (p = 0.0044) but not in Mann-Kendall's test at the tests' level 0.0125, which reads this run's persistence from its first lags (p = 0.026, 8.1 effective samples): with so few, a slow wander and a trend look alike, so no move is claimed"
    """
    where = "after the warm-up" if test == "trend" else "over the whole run"
    return (f"the slope {where} shows in batch means (p = {fmt(batch_p, 2)}) but not in Mann-Kendall's "
            f"test at the tests' level {fmt(level, 3)}, which reads this run's persistence from its first "
            f"lags (p = {fmt(rank_p, 2)}, {fmt(effective, 2)} effective samples): with so few, a slow "
            "wander and a trend look alike, so no move is claimed")


def memory_notes(precision, movement_widened: bool, sloped: bool) -> list:
    """The note on long memory or a slow component under the noise (``precision``: a
    :class:`~swarmstats._kernels.precision.MeanPrecision`), and what was widened for it - the
    tests that show movement too where the memory is still there around the regimes
    (``movement_widened``).  ``sloped``: a trend or drift was shown, which raises the low end
    of the spectrum the same way (a climbing MountainCar curve read "a slow component under
    the noise" beside "still improving")."""
    maybe_trend = ("; a trend raises the low end of the spectrum the same way, so this may be "
                   "the trend found above" if sloped else "")
    widened = f"widened {fmt(precision.inflation, 3)}x"
    if precision.long_memory:
        what = ("bound and the trend, drift and late-change tests (it is still there around the "
                "regimes) are " if movement_widened else "bound are ")
        return [f"long memory suspected: {precision.memory_evidence()}; the interval, the flatness "
                f"{what}{widened} and may still be optimistic{maybe_trend}"]
    if precision.slow_component:
        return [f"a slow component under the noise: {SLOW_COMPONENT}; the interval and the "
                f"flatness bound are {widened}{maybe_trend}"]
    return []


def held_from_start_note(start, n: int) -> str:
    """The note on a converged run whose start was no worse than the level it holds
    (``start``: a :class:`~swarmstats.convergence.improvement.Start`, of a run of ``n``
    points): a level, and no approach to it.

    >>> from swarmstats.convergence.improvement import Start
    >>> held_from_start_note(Start(21, 0.0, 0.0, 1.0, False), 204)[:71]
    'no improvement shown: the first 21 of 204 points (mean 0) are not worse'
    """
    return (f"{NO_IMPROVEMENT}: the first {start.length:,} of {n:,} points (mean "
            f"{fmt(start.mean)}) are not worse than the rest (mean {fmt(start.level)}) beyond "
            f"noise (one-sided p = {fmt(start.pvalue, 2)}): a run that never learned reads so, as "
            "does one logged only after it had learned")


def below_best_note(best, series: Series, start: int, better: str) -> str:
    """The note on a run whose kept part is worse than a stretch before it (``best``: a
    :class:`~swarmstats.convergence.improvement.Best`; ``start``: where the kept part begins).

    >>> from swarmstats.convergence.improvement import Best
    >>> from swarmstats._input.series import as_series
    >>> series = as_series(np.arange(30.0), name="eval_loss")
    >>> below_best_note(Best(1, 5, 1.32, 2.6, 1.28, 1e-9, 3), series, 15, "lower").split(" (")[0]
    'worse than its best: steps 1-5 averaged 1.32, and the level kept from step 15 is 2.6, 1.28 higher'
    """
    side = "higher" if better == "lower" else "lower"
    first, last = series.step_of(best.first), series.step_of(best.first + best.length - 1)
    return (f"{BELOW_BEST}: {series.step_unit} {fmt_step(first)}-{fmt_step(last)} averaged {fmt(best.mean)}, and the "
            f"level kept from {series.step_unit.rstrip('s')} {fmt_step(series.step_of(start))} is {fmt(best.level)}, "
            f"{fmt(best.loss)} {side} (one-sided p = {fmt(best.pvalue, 2)}, allowing for the best of "
            f"{best.stretches} stretch{'es' if best.stretches > 1 else ''} having been picked): the run settled "
            f"worse than it had been; a checkpoint from then would score better ({better} is better for this "
            "metric)")


def warmup_reason(cut, start: int, first: int, apart_p: float) -> str:
    """What was set aside and why; ``first`` is the rule's cut once checked for a transient."""
    if first != cut.index:
        undone = (f"the {cut.method} rule would cut at {cut.index}, but those points do not sit "
                  f"apart from the rest (rank test p = {fmt(apart_p, 2)}, over every cut the rule "
                  "could choose): a few rare values are not a warm-up")
        if start == 0:
            return f"warm-up: none set aside ({undone})"
        return (f"warm-up: the first {start} of {cut.n} points set aside ({undone}; the start of "
                "the run still differed from its end, so a cut was made there)")
    if start != cut.index:
        return (f"warm-up: the first {start} of {cut.n} points set aside (the {cut.method} "
                f"rule cut at {cut.index}; the start of what it kept still differed from "
                "its end, so the cut moved on)")
    if cut.at_cap:
        return (f"the warm-up search found no end of the transient within the first "
                f"{cut.fraction:.0%} (cut at {cut.index})")
    return f"warm-up: the first {cut.index} of {cut.n} points set aside"
