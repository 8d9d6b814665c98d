"""The convergence verdict's sentences: what it says about a run, in words and units.

Kept apart from the tests that decide the verdict (:mod:`.verdict`): each helper turns one
finding - a trend, a late change, a flatness bound, a warm-up cut, a level regime - into the
sentence a reader of the result sees.
"""

from __future__ import annotations

import numpy as np

from .._input.series import Series
from .._kernels.flatness import MAX_GROWTH
from .._result import fmt, fmt_interval, fmt_step
from ..direction import movement


def settled_note(regimes, start: int, series: Series, units, centre: float, unit: str) -> str | None:
    """When the movement the tests found is a change into a last regime that is level (no
    slope), say so: "still improving" over a run that jumped and has held since reads as a
    climb that goes on.  A public DDPG Pendulum log, ~-1,300 for 60 episodes and ~-170 for
    the last 35, read "still improving: +1,650 per 100 episodes" and nothing more."""
    last = regimes.segments.iloc[-1]
    if bool(last["sloped"]) or int(last["n"]) < 10:
        return None
    first = series.step_of(start + int(last["start"]))
    return (f"the movement is a change into a level regime: since {singular(unit)} "
            f"{first} (the last {int(last['n'])} points) the mean is "
            f"{fmt_interval(*(centre + units(last[k]) for k in ('mean', 'ci_low', 'ci_high')))} "
            "with no slope (detect_regimes): the tests above see that change, not a climb still going on")


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
    ``kind``, ``steps``, ``at_end``: :func:`swarmstats.io.select_metric`).

    >>> skipped_text({"values": 3, "kind": "infinite", "steps": [40, 580, 1210], "at_end": False})
    '3 infinite values among finite ones left out (steps 40, 580, 1210): read as skipped steps (fp16/AMP training logs inf or NaN at a step whose gradients overflowed, and goes on)'
    >>> skipped_text({"values": 2, "kind": "NaN", "steps": [40, 2000], "at_end": True})[:60]
    '2 NaN values left out (steps 40, 2000, the last one logged):'
    """
    count = info["values"]
    steps = [fmt_step(step) for step in info["steps"]] + (["..."] if count > len(info["steps"]) else [])
    where = ", ".join(steps) + (", the last one logged" if info.get("at_end") else "")
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


def trend_reason(outcome, units, within: bool, tolerance: float, unit: str, better: str | None) -> str:
    direction = movement(outcome.estimate, better)
    slope = per_hundred(units(outcome.estimate), unit)
    if within:
        return (f"a statistically significant but small {outcome.name} ({slope}, "
                f"p = {fmt(outcome.pvalue, 2)}), shown to stay within +-{fmt(tolerance, 3)}")
    if outcome.name == "trend":
        return f"still {direction} after the warm-up: {slope} (p = {fmt(outcome.pvalue, 2)})"
    return (f"drifting across the whole run and still {direction}: {slope} "
            f"(p = {fmt(outcome.pvalue, 2)}), and the part kept after the warm-up continues "
            "that slope")


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
