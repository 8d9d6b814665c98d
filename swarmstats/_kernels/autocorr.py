"""Autocovariance by FFT and the integrated autocorrelation time.

Conventions (see ``shared/reference/convergence-methods.md`` §1-3):

* ``g = 1 + 2 * sum_{k>=1} rho_k`` is *the* integrated autocorrelation time;
  ESS = n / g and Var(mean) ~= gamma_0 * g / n.
* Autocovariances use the biased 1/n estimator (positive semi-definite, what
  Geyer's sequences assume), computed by a zero-padded FFT in O(n log n).
* g may be below 1 (antithetic series) but never negative: it is floored at
  1/log10(n), i.e. ESS is capped at n*log10(n), as Stan and ``posterior`` do.
"""

from __future__ import annotations

import numpy as np

#: below this many lags a 1-D autocovariance is summed directly rather than by FFT
DIRECT_LAGS = 64


def autocovariance(x: np.ndarray, axis: int = -1, max_lag: int | None = None) -> np.ndarray:
    """Biased autocovariance at lags 0..max_lag (default n-1) along ``axis`` (demeaned, 1/n).

    >>> autocovariance(np.array([1.0, -1.0, 1.0, -1.0]))
    array([ 1.  , -0.75,  0.5 , -0.25])
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[axis]
    lags = n - 1 if max_lag is None else int(min(max(max_lag, 0), n - 1))
    centred = x - x.mean(axis=axis, keepdims=True)
    if x.ndim == 1 and lags < DIRECT_LAGS:
        # a few lags: one dot product each beats a transform of the whole padded series
        # (an AR fit's 44 lags of 20,000 block means: 0.2 ms against 0.8 ms)
        return np.array([centred[:n - k] @ centred[k:] for k in range(lags + 1)]) / n
    # Zero-pad to >= n + lags so the FFT product is a linear, not circular,
    # correlation at every lag kept.
    size = fast_length(n + lags)
    # numpy's FFT: as fast as scipy's here, without scipy.fft's import (40 ms of a CLI call)
    spectrum = np.fft.rfft(centred, n=size, axis=axis)
    acov = np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=axis)
    acov = np.take(acov, np.arange(lags + 1), axis=axis)
    return acov / n


def fast_length(n: int) -> int:
    """The smallest 2^a 3^b 5^c >= n: a length the FFT handles fast.

    >>> fast_length(1000), fast_length(1001), fast_length(97)
    (1000, 1024, 100)
    """
    best = 1 << max(int(n) - 1, 0).bit_length()  # the next power of two
    fives = 1
    while fives < best:
        product = fives
        while product < best:
            # the smallest power-of-two multiple of product that reaches n
            candidate = product << max(0, (-(-int(n) // product) - 1).bit_length())
            best = min(best, candidate)
            product *= 3
        fives *= 5
    return best


def short_lag_budget(n: int) -> int:
    """Lags computed on a first pass; Geyer's sum stops far earlier for any
    series with n >> g, and a second full pass covers the rest."""
    return max(64, n // 8)


def autocorrelation(x: np.ndarray) -> np.ndarray:
    """rho_k = gamma_k / gamma_0 for a 1-D array; all-NaN for a constant array."""
    acov = autocovariance(x)
    if acov[0] <= 0:
        return np.full_like(acov, np.nan)
    return acov / acov[0]


def geyer_tau(rho: np.ndarray, *, complete: bool = True) -> float:
    """Unfloored g from an autocorrelation sequence, by Geyer's initial monotone sequence.

    Lags are paired, P_m = rho_2m + rho_2m+1; the sum stops before the first
    negative pair, the pairs are made non-increasing, and the even lag of the
    first negative pair is added when positive (Stan's variance-reducing term
    for antithetic chains).  ``rho`` may be a combined multi-chain sequence.

    With ``complete=False``, ``rho`` is a prefix of the sequence and NaN is
    returned when the sum has not stopped within it (the caller then needs
    more lags).

    >>> round(geyer_tau(0.5 ** np.arange(200)), 6)  # AR(1), phi = 0.5: g = 3
    3.0
    """
    rho = np.asarray(rho, dtype=np.float64)
    n = len(rho)
    if n < 2:
        return 1.0
    last_pair = max(0, (n - 3) // 2)
    pairs = rho[0 : 2 * last_pair + 1 : 2] + rho[1 : 2 * last_pair + 2 : 2]
    if pairs[0] <= 0:
        # The first pair is already non-positive: g is at its floor.
        return 0.0
    negative = np.flatnonzero(pairs[1:] < 0)
    if negative.size:
        stop = negative[0] + 1  # index of the first negative pair
        extra = max(rho[2 * stop], 0.0)
    else:
        if not complete:
            return float("nan")
        stop = len(pairs) - 1  # ran out of lags: keep the last pair's even lag
        extra = rho[2 * stop]
    monotone = np.minimum.accumulate(pairs[:stop])
    return float(-1.0 + 2.0 * monotone.sum() + extra)


def sokal_tau(rho: np.ndarray, c: float = 5.0) -> tuple[float, int]:
    """g from Sokal's automatic window: the smallest M with M >= c * g(M).

    Returns ``(g, M)``.  Reliable only when n >= ~50 g, and meaningless for
    anti-correlated series (g can come out negative; callers floor it).

    >>> g, window = sokal_tau(0.5 ** np.arange(200))  # exact AR(1) ACF, g = 3
    >>> round(g, 4), window
    (2.9999, 15)
    """
    rho = np.asarray(rho, dtype=np.float64)
    taus = 2.0 * np.cumsum(rho) - 1.0
    lags = np.arange(len(rho))
    inside = lags < c * taus
    window = int(np.argmin(inside)) if not inside.all() else len(rho) - 1
    return float(taus[window]), window


def zero_crossing_tau(x: np.ndarray, *, mintime: int = 3, growing_lags: bool = True) -> float:
    """g summed up to the first non-positive autocorrelation after lag ``mintime``.

    pymbar's ``statistical_inefficiency`` (Chodera 2016) as its ``detect_equilibration``
    calls it: lags 1, 2, 4, 7, 11, ... (each weighted by its stride) when
    ``growing_lags``, autocovariances averaged over n - t terms against the
    1/n variance, weighted by (1 - t/n), and g clamped at 1 (so ESS <= n: wrong
    for anti-correlated series, but it reproduces the anchor).

    >>> zero_crossing_tau(np.array([1.0, 2.0, 1.0, 2.0, 1.0, 2.0]))  # pymbar gives 4.0 too
    4.0
    """
    n = len(x)
    centred = x - x.mean()
    variance = float(centred @ centred) / n
    if variance <= 0:
        return float("nan")
    g, lag, stride = 1.0, 1, 1
    while lag < n - 1:
        corr = float(centred[: n - lag] @ centred[lag:]) / ((n - lag) * variance)
        if corr <= 0 and lag > mintime:
            break
        g += 2.0 * corr * (1.0 - lag / n) * stride
        lag += stride
        if growing_lags:
            stride += 1
    return max(g, 1.0)


def quadratic_residuals(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y less its least-squares quadratic in t, scaled to a largest magnitude of 1 (the
    autocorrelations are scale-free; squares of 1e-300-sized residuals would underflow);
    all zeros where y lies on a quadratic to within rounding (what is left is not noise).

    >>> quadratic_residuals(np.arange(4.0), np.array([0.0, 1.0, 4.0, 9.0])).round(12) + 0.0
    array([0., 0., 0., 0.])
    """
    half = 0.5 * float(t[-1] - t[0]) or 1.0
    basis = np.vander((t - 0.5 * float(t[0] + t[-1])) / half, 3)
    q, _ = np.linalg.qr(basis)
    residuals = y - q @ (q.T @ y)
    top = float(np.max(np.abs(residuals)))
    if top <= 1e-12 * float(np.ptp(y)):
        return np.zeros_like(residuals)
    return residuals / top


def rank_ar1_time(lag1: float, n: int) -> float:
    """g = (1 + phi) / (1 - phi) of a Gaussian AR(1) whose ranks, less their least-squares
    quadratic in time (:func:`quadratic_residuals`), have lag-1 autocorrelation ``lag1``;
    at most n.

    phi = 2 sin(pi r / 6) is Pearson's correlation of a Gaussian pair whose rank correlation
    is r; the estimate's bias is then removed, about (3 + 9 phi) / n (measured by simulation,
    10,000-20,000 series each: the lag-1 autocorrelation about a fitted quadratic falls short
    by 3/n at phi = 0 and 9-12/n at 0.9, more for ranks than for values, for n = 300 down to
    30; about a line it is (2 + 5 phi) / n, about the mean (1 + 3 phi) / n, Marriott & Pope
    1954).  On 100 points of AR(0.9), whose g is 19, Geyer's sum of the sample
    autocorrelations has a median of ~8: this reading sees most of the persistence a short
    series hides.

    >>> round(rank_ar1_time(0.0, 100), 3), rank_ar1_time(0.99, 100)
    (1.062, 100.0)
    """
    if not np.isfinite(lag1):
        return 1.0
    phi = _corrected_lag1(lag1, n)
    if phi <= 0:
        return 1.0
    if phi >= 1.0:
        return float(n)
    return float(min((1.0 + phi) / (1.0 - phi), n))


def _rank_to_pearson(r: float) -> float:
    """Pearson's correlation of a Gaussian pair whose rank correlation is ``r``."""
    return 2.0 * np.sin(np.pi * min(max(r, -1.0), 1.0) / 6.0)


def _corrected_lag1(lag1: float, n: int) -> float:
    """The lag-1 rank autocorrelation about a quadratic, on Pearson's scale, less its
    measured bias (3 + 9 phi) / n (see :func:`rank_ar1_time`)."""
    phi = _rank_to_pearson(lag1)
    return phi + (3.0 + 9.0 * max(phi, 0.0)) / n


#: the largest decay a lag-2 reading may give: rho_2 / rho_1 is noisy on short series, and
#: near 1 one noisy ratio would make g unbounded
MAX_DECAY = 0.95


def rank_arma_time(lag1: float, lag2: float, n: int) -> float:
    """g = 1 + 2 rho_1 / (1 - rho_2 / rho_1) of Gaussian ARMA(1,1) noise whose ranks, less
    their quadratic in time, have lag-1 and lag-2 autocorrelations ``lag1`` and ``lag2``
    (1 where rho_1 is within 2 / sqrt(n) of zero, or rho_2 is not positive); at most n.

    A slow component under fast noise has a modest first autocorrelation and a slow decay
    after it: ARMA(1,1) phi 0.9, theta -0.5 has rho_1 = 0.63 and g = 13.6, which the lag-1
    reading (:func:`rank_ar1_time`) puts at 4.4.  On AR(1) noise rho_2 / rho_1 = rho_1 and
    this equals the lag-1 reading.  Both lags are bias-corrected as measured for ranks
    about a fitted quadratic: rho_1 by (3 + 9 phi) / n, rho_2 by (2.8 + 20 phi^2) / n (AR(1),
    4,000 series per cell, phi 0-0.9, n 30-300); the decay is capped at MAX_DECAY.

    >>> rank_arma_time(0.0, 0.0, 100)
    1.0
    >>> round(rank_arma_time(0.6, 0.55, 300), 1), round(rank_ar1_time(0.6, 300), 1)   # a slow decay
    (21.2, 4.7)
    """
    if not (np.isfinite(lag1) and np.isfinite(lag2)):
        return 1.0
    first = _corrected_lag1(lag1, n)
    second = _rank_to_pearson(lag2) + (2.8 + 20.0 * max(first, 0.0) ** 2) / n
    if first <= 2.0 / np.sqrt(n) or second <= 0.0:
        return 1.0
    decay = min(second / first, MAX_DECAY)
    return float(min(1.0 + 2.0 * first / (1.0 - decay), n))


def floor_tau(tau: float, n_total: int) -> tuple[float, bool]:
    """Floor g at 1/log10(n) (ESS cap n*log10 n); returns (g, capped)."""
    if n_total < 10:
        floor = 1.0 / np.log10(10)
    else:
        floor = 1.0 / np.log10(n_total)
    if not np.isfinite(tau) or tau < floor:
        return floor, True
    return float(tau), False


def block_means(x: np.ndarray, size: int, *, align: str = "end") -> np.ndarray:
    """Means of consecutive blocks of ``size`` points.

    ``align="end"`` drops a short remainder at the start (the end of a run is
    what convergence is about); ``"start"`` drops it at the end, so that block
    d starts at point d * size (what a warm-up index needs).
    """
    count = len(x) // size
    start = len(x) - count * size if align == "end" else 0
    return x[start : start + count * size].reshape(count, size).mean(axis=1)


#: Longer series are reduced to about this many block means before an FFT.
BLOCK_POINTS = 20_000


def integrated_time(x: np.ndarray, *, exact: bool = False) -> float:
    """Floored Geyer g of one series; long series go through block means unless ``exact``.

    Var(mean) = var(x) g / n = Var(block means) g_blocks / K, so
    g = b Var(block means) g_blocks / var(x) exactly; with K ~ 20,000 blocks
    the estimate costs an FFT of 20,000 points instead of n.
    """
    from .robust import square_safe  # (robust imports nothing of ours)

    x = square_safe(x)  # g is scale-free; 1e-300-sized values' squares underflowed to NaN
    n = len(x)
    size = n // BLOCK_POINTS if n >= 5 * BLOCK_POINTS and not exact else 1
    if size == 1:
        return tau_of(x[None, :], n, _single_rho)
    return blocked_integrated_time(block_means(x, size), size, float(np.var(x)), n)


def blocked_integrated_time(means: np.ndarray, size: int, variance: float, n: int) -> float:
    """g of a series of ``n`` points and population ``variance`` from the means of its blocks
    of ``size`` points: g = size Var(block means) g_blocks / variance (floored as g is)."""
    tau_blocks = tau_of(means[None, :], len(means), _single_rho)
    if not np.isfinite(tau_blocks) or variance <= 0:
        return float("nan")
    return floor_tau(size * float(np.var(means)) * tau_blocks / variance, n)[0]


def _single_rho(chains: np.ndarray, max_lag: int | None) -> np.ndarray:
    acov = autocovariance(chains[0], max_lag=max_lag)
    return acov / acov[0] if acov[0] > 0 else np.full_like(acov, np.nan)


def tau_of(chains: np.ndarray, n_total: int, rho_of) -> float:
    """Floored Geyer g, from a short-lag FFT first and the full one only if needed.

    ``rho_of(chains, max_lag)`` returns the autocorrelation sequence.
    """
    n = chains.shape[1]
    budget = short_lag_budget(n)
    if budget < n - 1:
        rho = rho_of(chains, budget)
        if np.isnan(rho[0]):
            return float("nan")
        tau = geyer_tau(rho, complete=False)
        if np.isfinite(tau):
            return floor_tau(tau, n_total)[0]
    rho = rho_of(chains, None)
    if np.isnan(rho[0]):
        return float("nan")
    return floor_tau(geyer_tau(rho), n_total)[0]


def levinson_durbin(acov: np.ndarray, max_order: int):
    """AR coefficients and innovation variances for orders 0..max_order (Yule-Walker).

    Returns ``(coefs, variances)`` where ``coefs[p]`` holds the p coefficients
    of the order-p fit and ``variances[p]`` its innovation variance.
    """
    variances = np.empty(max_order + 1)
    variances[0] = acov[0]
    coefs = [np.zeros(0)]
    phi = np.zeros(0)
    for order in range(1, max_order + 1):
        if variances[order - 1] <= 0:
            variances[order:] = variances[order - 1]
            coefs.extend([phi] * (max_order - order + 1))
            break
        reflection = (acov[order] - phi @ acov[order - 1 : 0 : -1]) / variances[order - 1]
        phi = np.concatenate([phi - reflection * phi[::-1], [reflection]])
        variances[order] = variances[order - 1] * (1.0 - reflection**2)
        coefs.append(phi)
    return coefs, variances


def ar_spectrum0(x: np.ndarray, max_order: int | None = None) -> tuple[float, int]:
    """Spectral density at frequency zero from an AR(p) fit, p chosen by AIC.

    As coda's ``spectrum0.ar``: Yule-Walker fits of orders 0..min(n-1,
    10 log10 n), the AIC-best order, and S(0) = sigma_e^2 / (1 - sum phi)^2
    with the innovation variance corrected by n / (n - p - 1).  Returns
    ``(S0, p)``; S0 / n is the variance of the mean.  For white noise S0 is the
    variance, for AR(1) it tends to sigma_e^2 / (1 - phi)^2.
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n >= 5 * BLOCK_POINTS:
        # S(0) is the sum of all autocovariances, which block sums preserve:
        # S_x(0) = b S_blockmeans(0).  Keeps a million-point fit to a small FFT.
        size = n // BLOCK_POINTS
        spectrum, order = ar_spectrum0(block_means(x, size), max_order)
        return size * spectrum, order
    if max_order is None:
        max_order = int(min(n - 1, np.floor(10 * np.log10(max(n, 1)))))
    max_order = max(0, min(max_order, n - 2))
    acov = autocovariance(x, max_lag=max_order)
    if acov[0] <= 0:
        return 0.0, 0
    coefs, variances = levinson_durbin(acov, max_order)
    with np.errstate(divide="ignore"):
        aic = n * np.log(np.maximum(variances, 1e-300)) + 2.0 * np.arange(max_order + 1)
    order = int(np.argmin(aic))
    innovation_var = variances[order] * n / max(n - (order + 1), 1)
    denominator = (1.0 - coefs[order].sum()) ** 2
    return float(innovation_var / max(denominator, 1e-300)), order
