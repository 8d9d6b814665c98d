"""Warm-up (burn-in, equilibration) detection: where does the transient end?"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._input.series import as_series
from .._kernels.autocorr import block_means
from .._kernels.robust import square_safe
from .._kernels.truncation import (
    SuffixBartlett,
    leading_outliers,
    mser_curve,
    search_origin,
    suffix_stats,
    zero_crossing_ess_all_origins,
)
from .._result import Result, plain_number
from ..errors import InputError, check_choice

__all__ = ["detect_warmup", "WarmupResult", "WARMUP_METHODS"]

WARMUP_METHODS = ("ess", "mser", "variance")
# Above _EXACT_POINTS points the suffix search runs on about _SEARCH_POINTS
# block means (the cut is then resolved to one block): a million-point series
# costs a few milliseconds, and series up to 20,000 points are searched exactly.
_EXACT_POINTS = 20_000
_SEARCH_POINTS = 5_000


@dataclass(frozen=True, repr=False)
class WarmupResult(Result):
    """Where the warm-up ends.  ``index`` is the first point kept."""

    index: int
    step: float | int | None
    n: int
    method: str
    fraction: float
    at_cap: bool
    skipped_leading_outliers: int
    resolution: int
    _origins: np.ndarray = field(default=None, repr=False)
    _objective: np.ndarray = field(default=None, repr=False)
    _values: np.ndarray = field(default=None, repr=False)

    def summary(self) -> str:
        text = (f"warm-up ({self.method}): discard the first {self.index} of {self.n} points "
                f"({self.fraction:.1%})")
        if self.at_cap:
            text += "; the criterion kept improving up to the cap - no clear end of the transient"
        if self.skipped_leading_outliers:
            text += f"; {self.skipped_leading_outliers} wild leading point(s) were never kept"
        return text


def detect_warmup(
    y,
    *,
    method: str = "variance",
    max_fraction: float = 0.5,
    batch_size: int = 5,
    tau_method: str = "geyer",
    nan_policy: str = "raise",
) -> WarmupResult:
    """Find the end of the initial transient.

    Methods
    -------
    ``"variance"`` (default)
        Autocorrelation-aware MSER (Clark, Cole & Michel 2024): the origin
        that minimises the estimated variance of the mean of what is kept,
        with a Bartlett window of width sqrt(n - t0).  The variance term
        penalises a wild first sample, and the window's long lags penalise a
        slow drift hidden in noise.
    ``"ess"``
        The maximum-ESS rule (Chodera 2016; pymbar ``detect_equilibration``):
        the origin that maximises (n - t0) / g, with g from Geyer's sequence.
        Leading points more than 8 robust SDs from the bulk are never kept
        (left alone, one wild first sample makes this rule keep everything).
    ``"mser"``
        MSER-m (White 1997) on batch means of ``batch_size`` points (MSER-5
        by default), O(n).  Ignores autocorrelation, so it under-cuts slow
        drifts; it does discard an early outlier.

    The cut never exceeds ``max_fraction`` of the series; ``at_cap`` says the
    criterion was still improving there, i.e. no end of the transient was found.

    ``tau_method`` sets how ``"ess"`` estimates g on each suffix: ``"geyer"``
    (default; Geyer's initial monotone sequence, as everywhere in swarmstats,
    searched on a grid with refinement) or ``"zero-crossing"``: pymbar's own
    estimator (sum to the first non-positive autocorrelation after lag 3,
    growing lag strides, g >= 1) and its ESS numerator n - t0 + 1, evaluated
    exactly at every origin up to the cap in O(n sqrt(L)) - the same t0 as
    ``pymbar.timeseries.detect_equilibration`` (up to 20,000 points; beyond,
    on block means), except that wild leading points are still never kept.

    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.linspace(5, 0, 200), np.zeros(1800)] + rng.normal(size=2000)
    >>> 120 <= detect_warmup(y).index <= 260
    True
    """
    check_choice("method", method, WARMUP_METHODS)
    if not 0 < max_fraction < 1:
        raise InputError(f"max_fraction must be in (0, 1), got {max_fraction!r}")
    if int(batch_size) < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    check_choice("tau_method", tau_method, ("geyer", "zero-crossing"))
    series = as_series(y, nan_policy=nan_policy, min_length=1)
    return warmup_of_values(series.values, method=method, max_fraction=max_fraction,
                            batch_size=int(batch_size), steps=series.steps, tau_method=tau_method)


def warmup_of_values(values, *, method="variance", max_fraction=0.5, batch_size=5, steps=None,
                     tau_method="geyer"):
    """:func:`detect_warmup` on a clean float array (no validation)."""
    n = len(values)
    original = values

    def result(index, at_cap=False, skipped=0, resolution=1, origins=None, objective=None):
        step = None
        if index < n:
            step = int(index) if steps is None else plain_number(steps[index])
        return WarmupResult(
            index=int(index), step=step, n=n, method=method,
            fraction=float(index / n) if n else 0.0, at_cap=bool(at_cap),
            skipped_leading_outliers=int(skipped), resolution=int(resolution),
            _origins=origins, _objective=objective, _values=original,
        )

    if n < 10 or np.ptp(values) == 0:
        return result(0)
    values = square_safe(values)  # the cut depends on the shape, not the scale
    if method == "mser":
        means = block_means(values, batch_size, align="start")
        cap = int(np.floor(max_fraction * len(means)))
        if cap < 1:
            return result(0, resolution=batch_size)
        curve = mser_curve(means)[: cap + 1]
        best = int(np.argmin(curve))
        return result(best * batch_size, at_cap=best == cap, resolution=batch_size,
                      origins=np.arange(cap + 1) * batch_size, objective=curve)

    block = 1 if n <= _EXACT_POINTS else int(np.ceil(n / _SEARCH_POINTS))
    search = block_means(values, block, align="start") if block > 1 else values
    skipped = leading_outliers(search)
    cap = int(np.floor(max_fraction * len(search)))
    minimum = min(skipped, cap) if method == "ess" else 0

    if method == "ess" and tau_method == "zero-crossing":
        # pymbar's rule and estimator, evaluated exactly at every origin.
        curve = zero_crossing_ess_all_origins(search, cap)
        best = minimum + int(np.argmax(curve[minimum:]))
        return result(best * block, at_cap=best >= cap - max(1, cap // 50),
                      skipped=skipped * block, resolution=block,
                      origins=np.arange(cap + 1) * block, objective=curve)

    suffixes = SuffixBartlett(search) if method == "variance" else None

    def objective(origin: int) -> float:
        kept = len(search) - origin
        if kept < 4:
            return float("inf")
        if suffixes is not None:
            return suffixes(origin)
        tau, variance = suffix_stats(search, origin, tau_method)
        if not np.isfinite(tau):
            return 0.0  # a constant tail: nothing left to average out
        return -kept / tau  # maximise ESS

    best, evaluated = search_origin(objective, cap, minimum=minimum)
    origins = np.array(sorted(evaluated))
    values_at = np.array([evaluated[o] for o in origins])
    if method == "ess":
        values_at = -values_at
    at_cap = best >= cap - max(1, cap // 50)
    return result(best * block, at_cap=at_cap, skipped=skipped * block if method == "ess" else 0,
                  resolution=block, origins=origins * block, objective=values_at)
