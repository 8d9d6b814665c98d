"""Autocorrelation, effective sample size, R-hat and Monte-Carlo standard errors.

One run or several: every function here takes a 1-D series, a 2-D array
(runs x steps), a list of 1-D arrays (unequal lengths are aligned on their
last common stretch, since convergence is about the end of a run) or a wide
DataFrame.  Definitions and conventions: ``docs/convergence.md``.

Defined answers instead of exceptions:

* a constant series has no autocorrelation: ``acf`` is all NaN and
  ``integrated_autocorr_time``, ``ess``, ``rhat`` and ``mcse`` return NaN
  (``check_convergence`` turns that into an explicit verdict);
* anti-correlated series have g < 1 and ESS > n, capped at n*log10(n);
* series shorter than 4 points give NaN.
"""

from __future__ import annotations

import math

import numpy as np

from ._input.series import as_runs, as_series
from ._kernels import chains as _chains
from ._kernels.autocorr import autocorrelation, floor_tau, integrated_time, sokal_tau
from .errors import InputError, check_choice

__all__ = ["acf", "integrated_autocorr_time", "ess", "rhat", "mcse"]

_ESS_METHODS = ("bulk", "tail", "mean", "sd", "quantile", "plain")
_MCSE_METHODS = ("mean", "sd", "quantile")
_RHAT_METHODS = ("rank", "split")


def acf(y, *, max_lag: int | None = None, nan_policy: str = "raise") -> np.ndarray:
    """Autocorrelation rho_0..rho_max_lag by FFT (biased 1/n autocovariances).

    >>> np.round(acf([1.0, 2.0, 3.0, 4.0]), 3)
    array([ 1.  ,  0.25, -0.3 , -0.45])
    """
    series = as_series(y, nan_policy=nan_policy, min_length=2)
    rho = autocorrelation(series.values)
    if max_lag is not None:
        if max_lag < 0:
            raise InputError(f"max_lag must be >= 0, got {max_lag}")
        rho = rho[: max_lag + 1]
    return rho


def integrated_autocorr_time(
    y, *, method: str = "geyer", c: float = 5.0, nan_policy: str = "raise"
) -> float:
    """g = 1 + 2 sum_k rho_k of one series, so that ESS = n / g.

    ``method="geyer"`` (default) truncates with Geyer's initial monotone
    sequence and handles negative autocorrelation; ``"sokal"`` uses Sokal's
    automatic window M >= c g (emcee's choice; reliable for n >= 50 g and
    positive autocorrelation only).  g is floored at 1/log10(n) and is NaN for
    a constant series or fewer than 4 points.

    >>> rng = np.random.default_rng(0)
    >>> round(integrated_autocorr_time(rng.normal(size=20_000)), 1)
    1.0
    """
    check_choice("method", method, ("geyer", "sokal"))
    series = as_series(y, nan_policy=nan_policy)
    values = series.values
    if len(values) < 4 or _chains.is_constant(values[None, :]):
        return float("nan")
    if method == "geyer":
        return integrated_time(values, exact=True)
    return floor_tau(sokal_tau(autocorrelation(values), c)[0], len(values))[0]


#: Draws outside this magnitude are brought to unit size first (by a power of two: exact),
#: since the SD's ESS and MCSE use fourth powers, which underflow from ~1e-77 on.
_UNIT_RANGE = (1e-30, 1e30)


def _as_chains(y, nan_policy: str) -> tuple[np.ndarray, float]:
    """(the runs as rows of equal length - each run's latest values -, the power of two they
    were divided by to bring them to unit size, 1 in the usual range)."""
    runs = as_runs(y, nan_policy=nan_policy, min_length=1)
    length = min(len(run) for run in runs)
    chains = np.vstack([run.values[len(run) - length :] for run in runs])
    top = float(np.max(np.abs(chains)))
    if top == 0 or _UNIT_RANGE[0] < top < _UNIT_RANGE[1]:
        return chains, 1.0
    unit = 2.0 ** math.floor(math.log2(top))
    return chains / unit, unit


def ess(y, *, method: str = "bulk", prob: float | None = None, nan_policy: str = "raise") -> float:
    """Effective sample size of one or several runs.

    Methods (Vehtari et al. 2021; the same numbers as ArviZ and R ``posterior``):
    ``"bulk"`` (rank-normalised split draws, the default), ``"tail"`` (min of
    the 5% and 95% quantile ESS), ``"mean"``, ``"sd"``, ``"quantile"`` (needs
    ``prob``), and ``"plain"``: n/g of the draws as given, without splitting
    or ranks, the textbook figure used for MCSE of one stationary run.

    >>> rng = np.random.default_rng(1)
    >>> 3500 < ess(rng.normal(size=(4, 1000))) < 4500
    True
    """
    check_choice("method", method, _ESS_METHODS)
    chains, _ = _as_chains(y, nan_policy)  # ESS does not depend on the unit
    if chains.shape[1] < 4:
        return float("nan")
    if method == "bulk":
        return _chains.ess_bulk(chains)
    if method == "tail":
        return _chains.ess_tail(chains)
    if method == "mean":
        return _chains.ess_mean(chains)
    if method == "sd":
        return _chains.ess_sd(chains)
    if method == "plain":
        return _chains.ess_raw(chains)
    return _chains.ess_quantile(chains, _check_prob(prob))


def rhat(runs, *, method: str = "rank", nan_policy: str = "raise") -> float:
    """Potential scale reduction factor R-hat.

    ``"rank"`` (default): the maximum of the rank-normalised split R-hat and
    its folded twin, which also catches runs that differ only in spread.
    ``"split"``: split R-hat of the raw values.  A single run is split in
    halves, so its R-hat is defined (a trend makes the halves disagree).
    Aim for R-hat < 1.01 with at least 4 runs.

    >>> rng = np.random.default_rng(2)
    >>> round(rhat(rng.normal(size=(4, 2000))), 2)
    1.0
    """
    check_choice("method", method, _RHAT_METHODS)
    chains, _ = _as_chains(runs, nan_policy)  # nor does R-hat
    if chains.shape[1] < 4:
        return float("nan")
    return _chains.rhat_rank(chains) if method == "rank" else _chains.rhat_split(chains)


def mcse(y, *, method: str = "mean", prob: float | None = None, nan_policy: str = "raise") -> float:
    """Monte-Carlo standard error of the mean, SD or a quantile.

    ``"mean"``: sd / sqrt(ESS_mean).  ``"sd"``: the delta method on the
    variance with the ESS of the squared deviations (no normality assumed).
    ``"quantile"``: from Beta-distributed order statistics (needs ``prob``).

    >>> rng = np.random.default_rng(3)
    >>> 0.009 < mcse(rng.normal(size=10_000)) < 0.011
    True
    """
    check_choice("method", method, _MCSE_METHODS)
    chains, unit = _as_chains(y, nan_policy)
    if chains.shape[1] < 4 or _chains.is_constant(chains):
        return float("nan")
    if method == "mean":
        return unit * _chains.mcse_mean(chains)
    if method == "sd":
        return unit * _chains.mcse_sd(chains)
    return unit * _chains.mcse_quantile(chains, _check_prob(prob))


def _check_prob(prob) -> float:
    if prob is None or not 0 < float(prob) < 1:
        raise InputError(f"prob must be a number strictly between 0 and 1, got {prob!r}")
    return float(prob)
