"""The distribution functions the convergence verdict needs, without importing scipy.

Importing scipy.stats costs ~0.6 s (its whole catalogue of distributions and tests) and even
scipy.special ~0.14 s, while a ``swarmstats check-convergence`` on a few hundred rows is
mostly start-up.  The verdict needs only a few scalar values - normal and Student t tails
and quantiles, an F and a Beta quantile - so they are computed here: the normal from the
standard library (``math.erfc``, ``statistics.NormalDist``), the others from the regularized
incomplete beta function by its continued fraction, inverted by safeguarded Newton steps or
bisection.  They agree with scipy.stats to ~1e-12 relative over the ranges the package
uses (tests/test_distributions.py checks them against it).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np

_STANDARD_NORMAL = NormalDist()
_TINY = 1e-300
_EPSILON = 1e-15
#: beyond this many degrees of freedom Student's t is the normal to ~1e-9
_NORMAL_DOF = 1e9


def norm_sf(x: float) -> float:
    """P(Z > x) for a standard normal Z (``scipy.stats.norm.sf``)."""
    return 0.5 * math.erfc(float(x) / math.sqrt(2.0))


def norm_ppf(q: float) -> float:
    """The standard normal quantile (``scipy.stats.norm.ppf``).

    >>> round(norm_ppf(0.975), 6)
    1.959964
    """
    q = float(q)
    if q <= 0.0 or q >= 1.0:
        return -math.inf if q == 0.0 else math.inf if q == 1.0 else math.nan
    return _STANDARD_NORMAL.inv_cdf(q)


def incomplete_beta(x: float, a: float, b: float, complement: float | None = None) -> float:
    """The regularized incomplete beta function I_x(a, b); ``complement`` is 1 - x when
    the caller knows it more precisely than 1 - x rounds to.

    The continued fraction of I_x(a, b) converges fast for x < (a + 1) / (a + b + 2);
    beyond, I_x(a, b) = 1 - I_{1-x}(b, a) is used.  Evaluated by the modified Lentz method.

    >>> round(incomplete_beta(0.5, 2.0, 3.0), 12)       # 1 - (1/2)^4 - 4 (1/2)^4 ... = 11/16
    0.6875
    """
    if not (a > 0 and b > 0) or math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    y = 1.0 - x if complement is None else complement
    log_front = a * math.log(x) + b * math.log(y) - log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(x, y, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(y, x, b, a) / b


def log_beta(a: float, b: float) -> float:
    """log B(a, b).  With one argument large, lgamma(a + b) - lgamma(a) is taken from
    Stirling's series as a difference, not as two numbers of size a log a that cancel
    (which lost 1e-8 of a t tail at 10^4 degrees of freedom).

    >>> round(log_beta(2.0, 3.0), 12) == round(math.log(1 / 12), 12)
    True
    """
    small, big = min(a, b), max(a, b)
    if big < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    total = big + small
    # lgamma(total) - lgamma(big) = (total - 1/2) log(total) - (big - 1/2) log(big) - small + tails
    ratio = (small * math.log(big) + (total - 0.5) * math.log1p(small / big) - small
             + _stirling_tail(total) - _stirling_tail(big))
    return math.lgamma(small) - ratio


def _stirling_tail(x: float) -> float:
    """lgamma(x) - [(x - 1/2) log x - x + log(2 pi) / 2], for x >= 10 (to ~1e-16)."""
    inverse = 1.0 / x
    square = inverse * inverse
    return inverse * (1 / 12 - square * (1 / 360 - square * (1 / 1260 - square / 1680)))


def _beta_fraction(x: float, y: float, a: float, b: float) -> float:
    """The continued fraction 1 / (1 + d1 / (1 + d2 / (1 + ...))) of I_x(a, b) (y = 1 - x)."""
    del y  # the terms need x only; kept in the signature so both tails read alike
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    value = d
    for m in range(1, 100_000):
        # the even term m (b - m) x / ((a + 2m - 1)(a + 2m)), then the odd term
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            value *= c * d
        if abs(c * d - 1.0) < _EPSILON:
            break
    return value


def t_sf(x: float, dof: float) -> float:
    """P(T > x) for Student's t on ``dof`` degrees of freedom (``scipy.stats.t.sf``).

    >>> round(t_sf(2.0, 5.0), 10)
    0.0509697394
    """
    x, dof = float(x), float(dof)
    if math.isnan(x) or not dof > 0:
        return math.nan
    if dof > _NORMAL_DOF:
        return norm_sf(x)
    if math.isinf(x):
        return 0.0 if x > 0 else 1.0
    # P(|T| > |x|) = I_w(dof / 2, 1 / 2) with w = dof / (dof + x^2); near x = 0 (where it
    # is close to 1) it is 1 - I_{1-w}(1 / 2, dof / 2), which keeps the small I exact
    inside = x * x / (dof + x * x)  # 1 - w, exactly as far as it goes
    outside = dof / (dof + x * x)
    if x * x < 0.45:  # |x| below ~ the median of |T|: P(|T| < |x|) < 1/2
        two_sided = 1.0 - incomplete_beta(inside, 0.5, dof / 2.0, complement=outside)
    else:
        two_sided = incomplete_beta(outside, dof / 2.0, 0.5, complement=inside)
    return 0.5 * two_sided if x >= 0 else 1.0 - 0.5 * two_sided


def _t_density(x: float, dof: float) -> float:
    log_norm = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)
    return math.exp(log_norm - (dof + 1) / 2 * math.log1p(x * x / dof))


#: the quantiles are pure and a verdict asks for the same few again and again (the same level and
#: degrees of freedom for every metric of one log): a Beta quantile is ~50 continued fractions
_QUANTILE_CACHE = 4096


@lru_cache(maxsize=_QUANTILE_CACHE)
def t_ppf(q: float, dof: float) -> float:
    """Student's t quantile (``scipy.stats.t.ppf``).

    >>> round(t_ppf(0.975, 10.0), 6)
    2.228139
    """
    q, dof = float(q), float(dof)
    if math.isnan(q) or not dof > 0 or not 0.0 <= q <= 1.0:
        return math.nan
    if q in (0.0, 1.0):
        return -math.inf if q == 0.0 else math.inf
    if dof > _NORMAL_DOF:
        return norm_ppf(q)
    if q == 0.5:
        return 0.0
    # by symmetry, the quantile of the smaller tail probability, taken as given (1 - q of a
    # q near 0 would keep only a few digits of it)
    sign, tail = (-1.0, q) if q < 0.5 else (1.0, 1.0 - q)
    return sign * _t_upper_quantile(tail, dof)


def _t_upper_quantile(tail: float, dof: float) -> float:
    """The x > 0 with P(T > x) = ``tail`` (< 1/2)."""
    if dof == 1.0:  # Cauchy: tan(pi (1/2 - tail)) = 1 / tan(pi tail), exact for a tiny tail
        return 1.0 / math.tan(math.pi * tail)
    # start from the Cornish-Fisher expansion around the normal quantile, then Newton steps,
    # kept inside a bracket that bisection narrows whenever Newton overshoots
    z = -norm_ppf(tail)
    x = max(z + (z**3 + z) / (4 * dof) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * dof * dof), 1e-12)
    low, high = 0.0, math.inf
    for _ in range(400):
        excess = t_sf(x, dof) - tail  # decreasing in x
        if excess > 0:
            low = x
        else:
            high = x
        candidate = x + excess / _t_density(x, dof)
        if not (low < candidate < high):
            candidate = 0.5 * (low + high) if math.isfinite(high) else 2.0 * x + 1.0
        if abs(candidate - x) <= 1e-14 * max(1.0, abs(x)):
            return candidate
        x = candidate
    return x


@lru_cache(maxsize=_QUANTILE_CACHE)
def beta_ppf(q: float, a: float, b: float) -> float:
    """The Beta(a, b) quantile (``scipy.stats.beta.ppf``): the x with I_x(a, b) = q, by
    bisection (I is increasing in x).

    >>> round(beta_ppf(0.5, 2.0, 2.0), 12)
    0.5
    """
    q, a, b = float(q), float(a), float(b)
    if math.isnan(q) or not (a > 0 and b > 0) or not 0.0 <= q <= 1.0:
        return math.nan
    if q in (0.0, 1.0):
        return q
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if incomplete_beta(middle, a, b) < q:
            low = middle
        else:
            high = middle
        if high - low <= 1e-15 * max(middle, 1e-300):
            break
    return 0.5 * (low + high)


def f_ppf(q: float, dfn: float, dfd: float) -> float:
    """The F distribution's quantile (``scipy.stats.f.ppf``): P(F <= f) = I_w(dfn/2, dfd/2)
    with w = dfn f / (dfn f + dfd).

    >>> round(f_ppf(0.99, 5.0, 10.0), 6)
    5.636326
    """
    w = beta_ppf(q, dfn / 2.0, dfd / 2.0)
    if not 0.0 <= w < 1.0:
        return math.inf if w == 1.0 else math.nan
    return dfd * w / (dfn * (1.0 - w))


def average_ranks(x) -> np.ndarray:
    """Ranks 1..n of the flattened ``x``, ties sharing their average rank
    (``scipy.stats.rankdata(x, axis=None)``).

    >>> average_ranks([3.0, 1.0, 3.0, 2.0]).tolist()
    [3.5, 1.0, 3.5, 2.0]
    """
    values = np.ravel(np.asarray(x))
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    bounds = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1], [True]]))
    # a tie group at sorted positions start..end-1 holds ranks start+1..end: their mean
    shared = (bounds[:-1] + 1 + bounds[1:]) / 2.0
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(shared, np.diff(bounds))
    return ranks


def increasing_root(function, low: float, high: float, *, tolerance: float = 1e-12) -> float:
    """The x in [low, high] where an increasing ``function`` crosses 0, by bisection
    (``function(low) < 0 < function(high)``); used where scipy.optimize would cost its import.

    >>> round(increasing_root(lambda x: x * x - 2.0, 0.0, 2.0), 9)
    1.414213562
    """
    if not function(low) < 0 < function(high):
        raise ValueError("increasing_root: the function must change sign from - to + on [low, high]")
    while high - low > tolerance * max(1.0, abs(low)):
        middle = 0.5 * (low + high)
        if function(middle) < 0:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)
