"""The words of the window's "uncertain" and constant-stretch reasons: what was seen short of
a call, and why the call was not made."""

from __future__ import annotations

import math

import numpy as np

from .._kernels.precision import departure_share
from .._result import fmt


def trend_evidence(slope_t, by_steps, i) -> str:
    """"t = ..." for grid span ``i``, saying when the t is against a random walk that steps
    as the span does (:meth:`~swarmstats._kernels.window_tests.RecentPlan.step_t`) rather than
    against the window's noise scale.

    >>> trend_evidence(np.array([-3.0, -41.5]), np.array([False, True]), 1)
    't = -41.5 against a random walk stepping as these points do'
    """
    text = f"t = {fmt(slope_t[i], 3)}"
    return text + " against a random walk stepping as these points do" if by_steps[i] else text


def unconfirmed_reason(plan, slopes, slope_t, span_index, critical, target, half_width, z, *,
                       by_steps) -> str:
    """A trend beyond the alarm limit over grid span ``span_index`` whose recent half did not
    confirm it at the nominal quantile ``z``, and the mean that is read instead (``by_steps``:
    which spans' t is :func:`trend_evidence`'s random-walk one)."""
    return (unconfirmed_clause(plan, slopes, slope_t, span_index, critical, z, by_steps=by_steps)
            + f" - it may be levelling off; the mean of the last {target} points is known to "
            f"+-{fmt(half_width, 3)}")


def unconfirmed_clause(plan, slopes, slope_t, span_index, critical, z, *, by_steps) -> str:
    """"rising by ... over the last m points (t = ..., limit ...), but not shown to go on: ..."
    (or "but slowing: ..."): :func:`unconfirmed_reason`'s account of the trend itself."""
    span = int(plan.lengths[span_index])
    half = plan.position[span // 2]
    t_span, t_half = float(slope_t[span_index]), float(slope_t[half])
    moving = "rising" if t_span > 0 else "falling"
    if np.sign(t_half) != np.sign(t_span):
        recent = f"not shown to go on: the last {span // 2} slope the other way"
    elif abs(t_half) > z:
        recent = (f"slowing: the last {span // 2} are {moving} by "
                  f"{fmt(abs(slopes[half]), 3)} per point ({trend_evidence(slope_t, by_steps, half)})")
    else:
        recent = f"not shown to go on: the last {span // 2} give {trend_evidence(slope_t, by_steps, half)}"
    return (f"{moving} by {fmt(abs(slopes[span_index]), 3)} per point over the last {span} "
            f"points ({trend_evidence(slope_t, by_steps, span_index)}, limit {fmt(critical, 3)}), but {recent}")


def also_seen_clause(plan, slopes, slope_t, seen, critical, length, g) -> str:
    """"; " and :func:`below_limit_clause`'s clause for span ``seen`` ("" if it is None)."""
    return "" if seen is None else "; " + below_limit_clause(plan, slopes, slope_t, seen, critical, length, g)


def below_limit_clause(plan, slopes, slope_t, seen, critical, length, g) -> str:
    """"the last m points rose by ... (t = ...), short of the alarm limit ..." for the
    grid span ``seen``, whose slope passes the nominal level but not the alarm limit.

    On a short, persistent series the alarm limit is far out - Student's t on ~length/(2g)
    degrees of freedom, at a tail spent over the horizon - and a clear climb can stay below
    it: SB3's ``rollout/ep_rew_mean`` (a running mean of 100 episodes, g ~ 10) rising from
    21 to 187 over 100 logs read only "the level wanders slowly".  The climb is named
    with its limit and why the limit is where it is, so the reader knows what was seen
    and that more points would settle it."""
    span, t_value = int(plan.lengths[seen]), float(slope_t[seen])
    clause = (f"the last {span} points {'rose' if t_value > 0 else 'fell'} by "
              f"{fmt(abs(slopes[seen]), 3)} per point (t = {fmt(t_value, 3)}), short of the "
              f"alarm limit {fmt(critical, 3)}")
    if g >= 2:
        clause += (f" that {length} points with autocorrelation time {fmt(g, 3)} (~"
                   f"{max(int(length / g), 1)} independent values) set")
    return clause


def tiny_reason(highest: float, lowest: float) -> str:
    """Why values this small are not judged (``AdaptiveWindow``'s ``TINY_MAGNITUDE``).

    >>> tiny_reason(3.1e-200, -2e-200)
    'values as small as these (the largest 3.1e-200 in size) cannot be judged in float64: their squares underflow; rescale the series (multiply it by 1e200, say)'
    """
    largest = max(abs(highest), abs(lowest))
    return (f"values as small as these (the largest {largest:.2g} in size) cannot be judged in float64: "
            f"their squares underflow; rescale the series (multiply it by 1e{-math.floor(math.log10(largest))}, say)")


def constant_reason(window: np.ndarray, low: float, high: float, ci: float, bounds=None) -> str:
    """The reason for a window of one repeated value, given the range ``low``..``high`` the
    stream took lately: a streak, whose departures are ruled out only up to a share (for a rate,
    ``bounds`` (0, 1), as far as its other bound even where the stream never went)."""
    if low == high and bounds is not None:
        value = window[-1]
        reach = (fmt(bounds[1]) if value == bounds[0] else fmt(bounds[0]) if value == bounds[1]
                 else f"{fmt(bounds[0])} or {fmt(bounds[1])}")
        return (f"held at {fmt(value)} for the last {len(window)} points: a rate, so departures "
                f"in up to {departure_share(len(window), ci):.1%} of points (as far as {reach}) "
                "are not ruled out")
    if low == high:
        return "every value is the same"
    return (f"held at {fmt(window[-1])} for the last {len(window)} points: departures in up to "
            f"{departure_share(len(window), ci):.1%} of points are not ruled out (the values "
            f"lately ran from {fmt(low)} to {fmt(high)})")
