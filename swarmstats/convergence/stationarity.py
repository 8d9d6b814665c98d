"""Stationarity diagnostics: Geweke, Heidelberger-Welch, trailing-variance stability.

These are reported beside the convergence verdict.  Geweke's z and the
Heidelberger-Welch test estimate spectral densities from short windows with
AR fits, which understates them for persistent series (phi ~ 0.9), so both
reject too often there; the verdict itself uses batch-means tests instead
(see :mod:`swarmstats.convergence`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._input.series import as_series
from .._kernels.autocorr import ar_spectrum0
from .._kernels.distributions import increasing_root, norm_sf
from .._kernels.robust import standard_scale
from .._kernels.stationary_tests import bridge_statistic, cramer_von_mises_cdf, geweke_z
from .._kernels.verdict_tests import variance_shift
from .._result import Result, fmt
from ..errors import InputError, check_level

__all__ = ["geweke", "heidelberger_welch", "variance_stability",
           "GewekeResult", "HeidelbergerWelchResult", "VarianceStabilityResult"]


@dataclass(frozen=True, repr=False)
class GewekeResult(Result):
    z: float
    pvalue: float
    first_mean: float
    last_mean: float
    first: float
    last: float
    #: coda's geweke.plot: z again with the first 0, 1/2K, 2/2K ... of the first half dropped
    starts: tuple = ()
    segment_z: tuple = ()
    _private_fields = ("starts", "segment_z")

    def summary(self) -> str:
        return (f"Geweke: first {self.first:.0%} mean {fmt(self.first_mean)} vs last "
                f"{self.last:.0%} mean {fmt(self.last_mean)}: z = {fmt(self.z, 3)}, "
                f"p = {fmt(self.pvalue, 3)}")


def geweke(y, *, first: float = 0.1, last: float = 0.5, nan_policy: str = "raise") -> GewekeResult:
    """Geweke's (1992) z, as in R coda: means of the first and last windows,
    each with its own AR spectral density at zero.  z ~ N(0, 1) under
    stationarity; the two-sided p-value is added (coda gives z only).

    >>> rng = np.random.default_rng(0)
    >>> abs(geweke(rng.normal(size=5000)).z) < 3
    True
    """
    if not (0 < first < 1 and 0 < last < 1 and first + last <= 1):
        raise InputError(f"first and last must be fractions with first + last <= 1, "
                         f"got first={first!r}, last={last!r}")
    values = as_series(y, nan_policy=nan_policy, min_length=20).values
    n = len(values)
    head = values[: max(2, int(np.floor(first * n)))]
    tail = values[n - max(2, int(np.floor(last * n))):]
    z = geweke_z(values, first, last) if np.ptp(values) > 0 else 0.0
    starts = [k * (n // 2) // GEWEKE_SEGMENTS for k in range(GEWEKE_SEGMENTS)]
    segment_z = [geweke_z(values[s:], first, last) if np.ptp(values[s:]) > 0 else 0.0 for s in starts]
    return GewekeResult(z=z, pvalue=float(2 * norm_sf(abs(z))), first_mean=float(head.mean()),
                        last_mean=float(tail.mean()), first=first, last=last, starts=tuple(starts),
                        segment_z=tuple(float(v) for v in segment_z))


#: segments of coda's Geweke plot (its default, nbins = 20)
GEWEKE_SEGMENTS = 20


@dataclass(frozen=True, repr=False)
class HeidelbergerWelchResult(Result):
    stationary: bool
    start: int
    statistic: float
    pvalue: float
    mean: float
    halfwidth: float
    halfwidth_passed: bool
    eps: float
    absolute: bool
    #: every start tried (0%, 10%, ... 50% discarded), its bridge statistic, and the critical value
    starts: tuple = ()
    statistics: tuple = ()
    critical: float = float("nan")
    _private_fields = ("starts", "statistics", "critical")

    def summary(self) -> str:
        if not self.stationary:
            return (f"Heidelberger-Welch: not stationary even after discarding half "
                    f"(p = {fmt(self.pvalue, 3)})")
        kind = "absolute" if self.absolute else "relative"
        return (f"Heidelberger-Welch: stationary from point {self.start} (p = {fmt(self.pvalue, 3)}); "
                f"half-width {fmt(self.halfwidth, 3)} ({kind} target {fmt(self.eps, 3)}): "
                f"{'passed' if self.halfwidth_passed else 'failed'}")


def heidelberger_welch(y, *, alpha: float = 0.05, eps: float = 0.1, absolute: bool = False,
                       nan_policy: str = "raise") -> HeidelbergerWelchResult:
    """Heidelberger & Welch (1983) with Schruben's bridge, as in R coda.

    S(0) is estimated (AR fit) on the second half of the series.  The
    Cramer-von Mises functional of the partial-sum bridge is tested on the
    whole series, then after discarding 10%, 20%, ... 50%; the first pass
    fixes the start.  The half-width test then asks whether
    1.96 sqrt(S0 / n_kept) <= eps * |mean| (relative, coda's rule) or
    <= eps (``absolute=True``, for means near zero).

    >>> rng = np.random.default_rng(1)
    >>> heidelberger_welch(rng.normal(size=2000)).stationary
    True
    """
    check_level(alpha, "alpha")
    values = as_series(y, nan_policy=nan_policy, min_length=20).values
    n = len(values)
    spectrum, _ = ar_spectrum0(values[n // 2:])
    statistic, pvalue, start = float("nan"), 0.0, 0
    stationary = False
    tried, statistics = [], []
    for fraction in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5):
        start = int(np.floor(fraction * n))
        statistic = bridge_statistic(values[start:], spectrum) if spectrum > 0 else 0.0
        pvalue = 1.0 - cramer_von_mises_cdf(statistic)
        tried.append(start)
        statistics.append(float(statistic))
        if pvalue > alpha:
            stationary = True
            break
    kept = values[start:]
    mean = float(kept.mean())
    kept_spectrum, _ = ar_spectrum0(kept)
    halfwidth = float(1.96 * np.sqrt(max(kept_spectrum, 0.0) / len(kept)))
    target = eps if absolute else eps * abs(mean)
    return HeidelbergerWelchResult(
        stationary=stationary, start=start if stationary else n, statistic=float(statistic),
        pvalue=float(pvalue), mean=mean, halfwidth=halfwidth,
        halfwidth_passed=bool(stationary and halfwidth <= target), eps=eps, absolute=absolute,
        starts=tuple(tried), statistics=tuple(statistics),
        critical=float(increasing_root(lambda q: cramer_von_mises_cdf(q) - (1 - alpha), 1e-6, 50)))


@dataclass(frozen=True, repr=False)
class VarianceStabilityResult(Result):
    ratio: float
    statistic: float
    pvalue: float
    stable: bool
    alpha: float
    #: points in the stretch at the end whose spread was compared (0 when not judged)
    length: int = 0
    #: False when no stretch holds two batches spanning the squares' persistence
    judged: bool = True
    #: the variance within each of (up to) 20 blocks of the second half, and how many of the
    #: last blocks lie in the stretch compared (what the plot shows)
    squares: tuple = ()
    late_blocks: int = 0
    _private_fields = ("squares", "late_blocks")

    def summary(self) -> str:
        if not self.judged:
            return ("trailing variance not judged: the second half is too short for four batches "
                    "spanning the persistence of its squared deviations")
        if not self.length:
            return "trailing variance stable: the series does not vary"
        state = "stable" if self.stable else "not stable"
        found = (f"the last {self.length} points' variance is {fmt(self.ratio, 3)}x the second "
                 "half's before them" if np.isfinite(self.ratio) else
                 f"the last {self.length} points vary, the second half before them held still")
        return f"trailing variance {state}: {found} (p = {fmt(self.pvalue, 3)})"


def variance_stability(y, *, alpha: float = 0.05, nan_policy: str = "raise") -> VarianceStabilityResult:
    """Has the trailing variance stabilised?  (The seeds' convergence heuristic.)

    Compares the variance of the last 5%, 10% and 25% of the series with that of
    the second half before them, by a t test on the spread within batches -
    batches 15 times the integrated time of the squared deviations, so the
    comparison holds for autocorrelated series and volatility clusters (the
    verdict's trailing-variance test, :func:`swarmstats.ConvergenceTest`).

    >>> rng = np.random.default_rng(2)
    >>> variance_stability(rng.normal(size=4000)).stable
    True
    >>> y = rng.normal(size=1000)
    >>> y[-100:] *= 4                     # the last tenth four times as noisy
    >>> result = variance_stability(y)
    >>> result.stable, result.length <= 100 < 2 * result.length
    (False, True)
    """
    values = as_series(y, nan_policy=nan_policy, min_length=16).values
    # the test's rounding floor is in units of SD 1 (it read 1e-20-sized values as constant)
    centre, unit = standard_scale(values)
    outcome = variance_shift((values - centre) / unit if unit > 0 else values - centre)
    half = values[len(values) // 2:]
    blocks = np.array_split(half, min(20, len(half)))
    first_late = len(half) - outcome.length
    late_blocks = sum(start >= first_late for start in np.cumsum([0] + [len(b) for b in blocks[:-1]]))
    return VarianceStabilityResult(ratio=outcome.estimate, statistic=outcome.statistic,
                                   pvalue=outcome.pvalue, stable=bool(outcome.pvalue >= alpha),
                                   alpha=alpha, length=outcome.length, judged=outcome.applies,
                                   squares=tuple(float(b.var()) for b in blocks),
                                   late_blocks=int(late_blocks) if outcome.length else 0)
