"""Several-run diagnostics: rank-normalised split R-hat, bulk/tail ESS, MCSE.

Follows Vehtari, Gelman, Simpson, Carpenter & Buerkner (2021), "Rank-
normalization, folding, and localization: an improved R-hat", the same
definitions as R ``posterior`` and ArviZ.  ``chains`` is always a 2-D float
array (runs x draws) of equal-length runs.
"""

from __future__ import annotations

import numpy as np

from .autocorr import autocovariance, tau_of
from .distributions import average_ranks, beta_ppf

_ONE_SIGMA = (0.1586552539314571, 0.8413447460685429)  # Phi(-1), Phi(1)


def split_chains(chains: np.ndarray) -> np.ndarray:
    """Cut every run in half (dropping the middle draw of odd lengths)."""
    half = chains.shape[1] // 2
    return np.concatenate([chains[:, :half], chains[:, chains.shape[1] - half :]], axis=0)


def rank_normalize(chains: np.ndarray) -> np.ndarray:
    """Pooled average ranks mapped to normal scores, z = Phi^-1((r - 3/8)/(S + 1/4))."""
    ranks = average_ranks(chains).reshape(chains.shape)
    from scipy import (
        special,  # here, not at import: the single-run verdict never needs it
    )

    return special.ndtri((ranks - 0.375) / (chains.size + 0.25))


def is_constant(chains: np.ndarray) -> bool:
    """Equal up to rounding, relative to the values' size: an absolute floor made every run of
    1e-20-sized draws "constant" (ESS and R-hat NaN; ArviZ returns n for its mean and SD ESS)."""
    return bool(np.ptp(chains) <= np.finfo(float).resolution * np.max(np.abs(chains)))


def combined_autocorrelation(chains: np.ndarray, max_lag: int | None = None) -> np.ndarray:
    """rho_t = 1 - (W - mean_m(acov_m,t)) / var+, the multi-chain autocorrelation."""
    n_chains, n_draws = chains.shape
    acov = autocovariance(chains, axis=1, max_lag=max_lag)
    mean_within = acov[:, 0].mean() * n_draws / (n_draws - 1.0)
    var_plus = mean_within * (n_draws - 1.0) / n_draws
    if n_chains > 1:
        var_plus += np.var(chains.mean(axis=1), ddof=1)
    rho = 1.0 - (mean_within - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    return rho


def ess_raw(chains: np.ndarray) -> float:
    """ESS of the draws as given (no splitting, no ranks); NaN for constant input."""
    if chains.shape[1] < 4 or is_constant(chains):
        return float("nan")
    return chains.size / tau_of(chains, chains.size, combined_autocorrelation)


def ess_mean(chains: np.ndarray) -> float:
    return ess_raw(split_chains(chains))


def ess_bulk(chains: np.ndarray) -> float:
    if is_constant(chains):
        return float("nan")
    return ess_raw(rank_normalize(split_chains(chains)))


def ess_quantile(chains: np.ndarray, prob: float) -> float:
    if is_constant(chains):
        return float("nan")
    quantile = np.quantile(chains, prob)
    return ess_raw(split_chains((chains <= quantile).astype(float)))


def ess_tail(chains: np.ndarray) -> float:
    return min(ess_quantile(chains, 0.05), ess_quantile(chains, 0.95))


def ess_sd(chains: np.ndarray) -> float:
    """ESS for the standard deviation: min of the ESS of x and of (x - mean)^2."""
    squared = (chains - chains.mean()) ** 2
    return min(ess_mean(chains), ess_mean(squared))


def rhat_basic(chains: np.ndarray) -> float:
    """sqrt(var+ / W) for the given chains (no splitting)."""
    n_draws = chains.shape[1]
    within = np.mean(np.var(chains, axis=1, ddof=1))
    between = n_draws * np.var(chains.mean(axis=1), ddof=1)
    if within <= 0:
        return float("nan")
    return float(np.sqrt((between / within + n_draws - 1.0) / n_draws))


def rhat_rank(chains: np.ndarray) -> float:
    """max(R-hat of ranked split draws, R-hat of ranked folded split draws)."""
    return _ranked_rhat(split_chains(chains))


def rhat_across(chains: np.ndarray) -> float:
    """:func:`rhat_rank` without splitting: the runs against one another only.  A run still
    moving makes its two halves differ, which the split R-hat reads as disagreement; this one
    does not see it (four seeds of one falling curve: split 1.57, across 1.00)."""
    return _ranked_rhat(chains)


def _ranked_rhat(chains: np.ndarray) -> float:
    """max(R-hat of the ranked draws, R-hat of the ranked folded draws) of ``chains`` as given."""
    if is_constant(chains):
        return float("nan")
    bulk = rhat_basic(rank_normalize(chains))
    folded = rhat_basic(rank_normalize(np.abs(chains - np.median(chains))))
    return max(bulk, folded)


def rhat_split(chains: np.ndarray) -> float:
    if is_constant(chains):
        return float("nan")
    return rhat_basic(split_chains(chains))


def mcse_mean(chains: np.ndarray) -> float:
    return float(np.std(chains, ddof=1) / np.sqrt(ess_mean(chains)))


def mcse_sd(chains: np.ndarray) -> float:
    """MCSE of the SD without assuming normality; the ESS is that of (x - mean)^2."""
    centred = chains - chains.mean()
    squared = centred**2
    second, fourth = squared.mean(), (squared**2).mean()
    var_of_var = (fourth - second**2) / ess_mean(squared)
    return float(np.sqrt(var_of_var / (4.0 * second)))


def mcse_quantile(chains: np.ndarray, prob: float) -> float:
    """Half the distance between the order statistics at the Beta(ESS p+1, ESS(1-p)+1) +-1 sigma points."""
    ess = ess_quantile(chains, prob)
    lower, upper = (beta_ppf(q, ess * prob + 1, ess * (1 - prob) + 1) for q in _ONE_SIGMA)
    draws = np.sort(chains, axis=None)
    size = draws.size
    low = draws[int(np.floor(max(lower * size - 1, 0)))]
    high = draws[int(np.ceil(min(upper * size - 1, size - 1)))]
    return float((high - low) / 2.0)
