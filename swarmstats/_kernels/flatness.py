"""Shown to be flat: an equivalence bound on the change still to come.

Two one-sided tests (Schuirmann 1987): the projected change over a horizon H,
theta = slope * H, is shown within (-delta, delta) at level alpha when the
(1 - 2 alpha) confidence interval of theta lies inside it, i.e. when

    |theta_hat| + t_{1 - alpha, dof} * se(theta_hat) < delta.

Failing to reject a trend is not this: with few points the interval is wide
and the bound exceeds delta however flat the curve looks.  numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .distributions import norm_ppf, t_ppf
from .precision import growth_factor

#: The power at which ``detectable`` and ``points_needed`` are quoted.
POWER = 0.8
#: A length more than this many times the current one is not quoted as "about N more".
MAX_GROWTH = 1e6


@dataclass(frozen=True)
class Flatness:
    change: float  # projected change over the horizon
    bound: float  # upper (1 - alpha) confidence bound of |change|
    se: float
    dof: int
    horizon: float  # in steps
    tolerance: float
    shown: bool
    detectable: float  # smallest change over the horizon the trend test finds with 80% power
    #: more points for the bound to drop below the tolerance if the curve is flat (None: under
    #: long memory of order 1/2 or more no length would, or more than MAX_GROWTH times this one;
    #: 0 when ``held_by_slope``)
    points_needed: int | None
    #: not shown, although at this precision a flat curve would be shown flat (with the power
    #: quoted): the change the fitted slope projects is what holds the bound up, and how many
    #: more points settle it depends on whether that slope fades - not on the noise
    held_by_slope: bool = False


def flatness_bound(slope: float, slope_se: float, dof: int, horizon: float, tolerance: float,
                   alpha: float, trend_level: float, n_points: int, *,
                   horizon_grows: bool = True, memory: float = 0.0) -> Flatness:
    """The equivalence bound of ``slope * horizon`` against ``+-tolerance``.

    ``points_needed`` assumes a flat curve and a standard error shrinking as
    1/sqrt(n) (the horizon grows with the kept part, so se(slope * H) does):
    n' = n ((t + z) se / tolerance)^2, z the 80% point of |N(0, 1)| (1.28): the
    estimate itself must also land within the margin.  With ``horizon_grows=False``
    (a horizon fixed by a budget) se(slope * H) shrinks as n^-1.5 instead:
    n' = n ((t + z) se / tolerance)^(2/3).  Under long memory of order ``memory`` = d the
    errors shrink as n^(d - 1/2) and n^(d - 3/2), and the exponents are 1 / (1/2 - d) and
    1 / (3/2 - d).

    >>> f = flatness_bound(0.0, 0.001, 18, 100, 0.5, 0.05, 0.0125, 100)
    >>> f.shown, round(f.bound, 3)
    (True, 0.173)
    >>> flatness_bound(0.0, 0.01, 18, 100, 0.5, 0.05, 0.0125, 100).shown
    False
    >>> held = flatness_bound(0.004, 0.001, 18, 100, 0.5, 0.05, 0.0125, 100)
    >>> held.shown, held.held_by_slope, held.points_needed
    (False, True, 0)
    """
    dof = max(int(dof), 1)
    change = slope * horizon
    se = slope_se * horizon
    t_equiv = float(t_ppf(1 - alpha, dof))
    bound = abs(change) + t_equiv * se
    shown = bool(bound < tolerance)
    t_trend = float(t_ppf(1 - trend_level / 2, dof))
    detectable = (t_trend + float(t_ppf(POWER, dof))) * se
    needed, held = 0, False
    if not shown and tolerance > 0 and se > 0:
        folded = float(norm_ppf(0.5 + POWER / 2))  # P(|Z| < folded) = POWER
        ratio = (t_equiv + folded) * se / tolerance
        # ratio <= 1: the margin for noise already fits; the "about 1 more step" this once
        # quoted (a Spinning Up run's MaxEpRet, bound 2.73 against 2.71) settles nothing
        held = ratio <= 1.0
        factor = growth_factor(ratio, memory, 0.5 if horizon_grows else 1.5)
        needed = (0 if held else int(math.ceil(n_points * (factor - 1.0))) if factor <= MAX_GROWTH
                  else None)
    return Flatness(change=change, bound=bound, se=se, dof=dof, horizon=float(horizon),
                    tolerance=float(tolerance), shown=shown, detectable=detectable,
                    points_needed=needed, held_by_slope=held)
