"""The regimes a slow-swinging kept part holds: the noise time the tests that show movement
use around them, and whether long memory read in the kept part is still there around them."""

from __future__ import annotations

import math

import numpy as np

from .._kernels.autocorr import integrated_time
from .._kernels.verdict_tests import cut_sets_apart, settle_cut
from ..errors import InputError

#: Below this many effective samples in the kept part, its noise is looked at around the
#: regimes it holds (see :func:`tests_tau`).
REGIME_CHECK_ESS = 50
#: ... on runs up to this length (the regime search is near-linear, but not free).
REGIME_CHECK_POINTS = 100_000


def tests_tau(kept: np.ndarray, tau: float):
    """(integrated time for the tests that show movement, the regimes that set it or None,
    the regime search's result whether used or not - None where no search was run).

    On a run that rises in a late step (a learning curve that took off at 70% of the run)
    or holds bursts, the autocorrelation time of the kept part is mostly the step itself:
    g ~ 1,500 on 5,500 real episodes whose noise around their levels has g ~ 1.  Batches
    of 5 g then leave the trend and late-change tests no power, and a 0 -> 5,000 climb reads
    as "insufficient data".  When the kept part holds fewer than ``REGIME_CHECK_ESS``
    effective samples and :func:`~swarmstats.detect_regimes` (calibrated to find no change
    in stationary persistent noise: AR(0.9) at n = 200-1,000, 0-0.03 spurious changes per
    series) finds level or slope changes in it, the tests use the noise's own time around
    those regimes.  With no change found nothing moves: a stationary run keeps its size
    (AR(0.9) and AR(0.97) at n = 300 and 1,000: not_converged 1.0-3.8% of 400 each).
    The flatness bound and the interval always keep the conservative time.

    That time is the larger of the regime search's AR(1) reading and Geyer's time of the
    residuals about the regimes' levels and lines: a slow wander under fast noise (ARMA(1,1)
    with phi 0.95, theta -0.7) is cut into "regimes" whose whitened noise reads as nearly
    independent (g ~ 1.7) while what they leave still wanders (see
    :func:`~swarmstats.regimes.residuals.around_regimes`).

    Regimes whose every change is within the wander of long-memory noise
    (:attr:`RegimeResult.wander_changes`) are not used: stationary long-memory noise wanders
    in stretches the search cuts into regimes.
    """
    m = len(kept)
    if m / tau >= REGIME_CHECK_ESS or m > REGIME_CHECK_POINTS or m < 30:
        return tau, None, None
    from ..regimes.residuals import around_regimes

    regimes = search_regimes(kept)
    if regimes is None:  # nothing it can segment: the series' own time stands
        return tau, None, None
    wander = len(regimes.wander_changes) == len(regimes.changepoints)
    if not len(regimes.changepoints) or not math.isfinite(regimes.autocorr_time) or wander:
        return tau, None, regimes
    around = float(integrated_time(around_regimes(kept, regimes.segments)))
    return min(tau, max(float(regimes.autocorr_time), around, 1.0)), regimes, regimes


def kept_part(z: np.ndarray, cut: int, cap: int):
    """Where the kept part starts, given the warm-up rule's ``cut``: (the cut kept - ``cut``
    or 0 -, the rank test's p, the start once settled, its integrated time, and
    :func:`tests_tau` of the kept part when it was run here, else None).

    The cut stands only when its points sit apart from the rest
    (:func:`~swarmstats._kernels.verdict_tests.cut_sets_apart`), and the kept part then moves
    on while it has not settled (:func:`~swarmstats._kernels.verdict_tests.settle_cut`).  The
    rank test sizes its error by the rest's persistence, and a plateau that swings between
    levels after a climb makes that time long: a real Safety Gym run climbing 1.3 -> 12.5 over
    its first 163 of 1,000 epochs, then swinging between 11.4 and 14.8 (g ~ 126), kept its climb
    (p = 0.08) and read "still improving" while its last 300 epochs fell.  Where the test fails
    and the kept part holds regimes, it is judged again with the noise's time around them, as
    the tests that show movement are (:func:`tests_tau`) - that search is the one the verdict
    needs when the cut still fails, so a stationary persistent run pays for no second one.
    """
    apart, p = cut_sets_apart(z, cut, cap)
    if apart:  # (a cut of a few points always is)
        return (cut, p, *settle_cut(z, cut, cap), None)
    start, tau = settle_cut(z, 0, cap)
    found = tests_tau(z[start:], tau)
    if found[0] < tau:
        apart, p = cut_sets_apart(z, cut, cap, tau=found[0])
        if apart:
            return (cut, p, *settle_cut(z, cut, cap), None)
    return 0, p, start, tau, found


def search_regimes(kept: np.ndarray):
    """:func:`~swarmstats.detect_regimes` of the kept part, or None where it cannot segment it."""
    from ..regimes.offline import detect_regimes  # only here: it loads scipy.stats

    try:
        return detect_regimes(kept)
    except InputError:
        return None


def memory_unexplained(kept: np.ndarray, searched) -> bool:
    """Whether the long memory read in the kept part is still there around its regimes
    (``searched``: :func:`tests_tau`'s search, else one run here): the noise's own, not a
    change or a climb seen as one.  A late drop or a steady drift raises the low end of the
    spectrum as long memory does; around the regimes that hold them the noise is short-memory."""
    if len(kept) > REGIME_CHECK_POINTS:
        return False
    from ..regimes.residuals import memory_around

    regimes = searched if searched is not None else search_regimes(kept)
    return regimes is not None and memory_around(kept, regimes.segments) is not None
