"""Long memory seen in the spectrum: does a fractionally integrated model fit a series
clearly better than every short-memory one?

The batch-means ladder of :mod:`.precision` sees long memory only when the series holds
about 100 integrated autocorrelation times; at n = 1,000 fractionally integrated noise
with d = 0.3 was flagged in 1% of runs, and the interval of a "converged" run covered the
mean 56% of the time.  The spectrum sees it sooner: long memory makes the spectral
density rise like lambda^(-2d) towards frequency zero, which no ARMA model does.

Six models are fitted to the periodogram by Whittle's approximate likelihood (Whittle
1953; for fractional models Fox & Taqqu 1986): white noise, AR(1), ARMA(1,1) - the short
memory side - and ARFIMA(0,d,0), ARFIMA(1,d,0), ARFIMA(1,d,1) with 0 < d < 0.5.  Long
memory is read when the best long-memory model's BIC is lower than the best short one's
by more than ``STRONG_EVIDENCE`` (6: "strong" evidence on Kass & Raftery's 1995 scale).
ARMA(1,1) on the short side is what keeps a slow component under fast noise (an AR(0.99)
skill level under episode noise) or an ARMA process from passing for long memory.

Measured (400 runs per cell, ``benchmarks/calibration.py --memory-only``): flagged in 0-1%
of AR(1) phi <= 0.97, ARMA(1,1), Bernoulli, Poisson, t(2.5), Beta, periodic, GARCH and
AR(0.99)-plus-noise runs at n = 300, 1,000 and 5,000, except ARMA(1,1) at n = 300 (3.5%);
ARFIMA d = 0.3 in 28.5% / 89% / 100% of runs at n = 300 / 1,000 / 5,000, d = 0.2 in
7% / 71% / 98.5%, d = 0.1 in 0% / 22.5% / 89%.

The variance of the mean under the winning model (its spectrum against Fejer's kernel)
is what an interval should use when the flag is raised, on a t law whose degrees of
freedom carry the uncertainty of the fitted parameters; so is ARMA(1,1)'s when that is
the best short-memory model (a slow component under fast noise).
numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: BIC difference read as long memory: "strong" evidence on Kass & Raftery's scale (6-10).
STRONG_EVIDENCE = 6.0
#: ... and as long memory possible ("positive" evidence, 2-6): too little to name it, enough
#: that the convergence verdict does not claim a precise mean beside it.
POSSIBLE_EVIDENCE = 2.0
#: Shorter series are not judged: at n = 300 d = 0.3 is flagged in 30% of runs.
MIN_POINTS = 200
#: Above this many Fourier frequencies the periodogram is averaged in bins (the lowest
#: ``KEPT_LOW`` stay single, where long memory shows), so the cost stays bounded.
MAX_BINS = 1024
KEPT_LOW = 256
#: The models are fitted to the latest this many points: a 10^6-point FFT cost 20 ms per
#: metric, and at 65,536 points d = 0.1 is already told from short memory nearly always.
FIT_POINTS = 65_536
#: the fewest degrees of freedom given to the model's variance of the mean (t_2: 4.3 SEs)
MIN_DOF = 2.0
#: Var(mean) integrates the spectrum against Fejer's kernel finely over this many of the
#: kernel's oscillations, and against its average beyond.
OSCILLATIONS = 64

_D_GRID = np.linspace(0.025, 0.475, 10)
_PHI_GRID = np.array([-0.6, -0.3, 0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995])
# MA roots close to -1 let ARMA(1,1) hold a slow component under white noise
_THETA_GRID = np.array([-0.99, -0.97, -0.93, -0.85, -0.7, -0.5, -0.3, 0.0, 0.3, 0.6])
_LOWER = np.array([0.0, -0.995, -0.995])
_UPPER = np.array([0.49, 0.998, 0.995])
#: the first zoom's step on (d, artanh phi, artanh ma), and how many times it is halved
_ZOOM_STEP = np.array([0.025, 0.2, 0.2])
ZOOMS = 5
#: the bounds on the zoom's scale (d, artanh phi, artanh ma), and its five points around the best
_ZOOM_LOWER = np.r_[_LOWER[:1], np.arctanh(_LOWER[1:])]
_ZOOM_UPPER = np.r_[_UPPER[:1], np.arctanh(_UPPER[1:])]
_OFFSETS = np.arange(-2, 3)

#: (name, fractional d free, AR coefficient free, MA coefficient free)
SHORT_MODELS = (("white noise", False, False, False), ("AR(1)", False, True, False),
                ("ARMA(1,1)", False, True, True))
LONG_MODELS = (("ARFIMA(0,d,0)", True, False, False), ("ARFIMA(1,d,0)", True, True, False),
               ("ARFIMA(1,d,1)", True, True, True))


@dataclass(frozen=True)
class SpectralMemory:
    long_memory: bool
    d: float  # the fractional order of the best long-memory model
    evidence: float  # BIC of the best short-memory model minus that of the best long one
    #: the model whose variance of the mean is given: the best long-memory one when long
    #: memory is read, else ARMA(1,1) when it is the best short-memory model (a slow
    #: component under fast noise), else "" (batch means and Geyer's g do as well)
    model: str
    #: Var(mean) under ``model`` (nan without one).  A long-memory model is not used below
    #: the threshold: at n = 300 ARFIMA(0,d,0) with d ~ 0.4 often beats ARMA(1,1) noise by a
    #: small margin, and its variance of the mean is 4-9 times the batch-means one.
    variance_of_mean: float
    #: degrees of freedom that carry the uncertainty of ``variance_of_mean`` (Satterthwaite:
    #: 2 / Var(log variance), by the delta method through the fitted parameters)
    dof: float = math.inf
    #: the best long-memory model's shape (d, phi, ma) and Whittle scale, whether or not it
    #: is the one read (:func:`mean_variance` of any length under it)
    long_theta: tuple = (0.0, 0.0, 0.0)
    long_scale: float = math.nan


@dataclass(frozen=True)
class _Periodogram:
    power: np.ndarray  # periodogram, averaged within each bin
    weight: np.ndarray  # Fourier frequencies per bin
    log_gap: np.ndarray  # log |1 - e^(i lambda)| at each bin's frequency
    cosine: np.ndarray
    # read by each of the ~36 objective evaluations of a spectral look, so made once
    total: float  # weight.sum()
    weighted_power: np.ndarray  # weight * power
    weighted_log_gap: float  # (weight * log_gap).sum()


def _periodogram(x: np.ndarray) -> _Periodogram:
    n = len(x)
    m = (n - 1) // 2
    power = np.abs(np.fft.rfft(x - x.mean())[1:m + 1]) ** 2 / n
    freq = 2.0 * np.pi * np.arange(1, m + 1) / n
    weight = np.ones(m)
    if m > MAX_BINS:
        # the spectrum of every model here is smooth away from zero: bins of neighbouring
        # frequencies lose almost nothing there, and the lowest ones are kept single
        bins = MAX_BINS - KEPT_LOW
        starts = KEPT_LOW + (np.arange(bins) * (m - KEPT_LOW)) // bins
        counts = np.diff(np.r_[starts, m]).astype(float)
        power = np.r_[power[:KEPT_LOW], np.add.reduceat(power, starts) / counts]
        freq = np.r_[freq[:KEPT_LOW], np.add.reduceat(freq, starts) / counts]
        weight = np.r_[weight[:KEPT_LOW], counts]
    log_gap = np.log(2.0 * np.sin(freq / 2.0))
    return _Periodogram(power, weight, log_gap, np.cos(freq), weight.sum(), weight * power,
                        (weight * log_gap).sum())


def _log_shape(theta, log_gap: np.ndarray, cosine: np.ndarray) -> np.ndarray:
    """log of the spectral shape |1 - e^(il)|^(-2d) |1 + ma e^(il)|^2 / |1 - phi e^(il)|^2, at
    the frequencies whose log |1 - e^(il)| and cos l are given."""
    d, phi, ma = (float(v) for v in theta)
    return (-2.0 * d * log_gap - np.log(1.0 - 2.0 * phi * cosine + phi * phi)
            + np.log(1.0 + 2.0 * ma * cosine + ma * ma))


def _objectives(d: np.ndarray, phi: np.ndarray, ma: np.ndarray, gram: _Periodogram) -> np.ndarray:
    """Whittle's objective with the scale profiled out, log(mean of I / shape) + mean of
    log shape, for every combination of the given d, phi and ma: (len d, len phi, len ma).
    Minus the log-likelihood is (frequencies) x (this + 1).

    The shape factorises over its three parameters, so the mean of its log is a sum of
    three per-parameter means and the mean of I / shape is one matrix product per d."""
    c, w = gram.cosine, gram.weight
    total = gram.total
    ar = 1.0 - 2.0 * phi[:, None] * c + phi[:, None] ** 2           # 1 / AR part of the shape
    moving = 1.0 + 2.0 * ma[:, None] * c + ma[:, None] ** 2         # MA part
    fractional = np.exp(2.0 * d[:, None] * gram.log_gap)           # 1 / fractional part
    weighted = gram.weighted_power[None, :] * fractional            # (d, bins)
    scale = (weighted[:, None, :] * ar[None, :, :]) @ (1.0 / moving).T / total
    mean_log = ((-2.0 * d * gram.weighted_log_gap)[:, None, None]
                - (np.log(ar) @ w)[None, :, None] + (np.log(moving) @ w)[None, None, :]) / total
    return np.log(scale) + mean_log


def _fit(gram: _Periodogram, free: np.ndarray) -> tuple[float, np.ndarray]:
    """(objective, parameters) of the best fit of one model: a coarse grid (it reaches the
    near-cancelling ARMA pairs that a local search from one start misses), then a grid
    around the best point, halved ``ZOOMS`` times.  The AR and MA coefficients are zoomed on
    the artanh scale, fine near +-1 where their spectra change fastest.  Vectorised
    throughout: a quasi-Newton polish cost ~1 ms per call in scipy's overhead alone."""
    grids = [grid if on else np.zeros(1) for grid, on in zip((_D_GRID, _PHI_GRID, _THETA_GRID), free)]
    values = _objectives(*grids, gram)
    index = np.unravel_index(int(np.argmin(values)), values.shape)
    best_value = float(values[index])
    best = np.array([grid[i] for grid, i in zip(grids, index)])
    # zoom on (d, artanh phi, artanh ma); a parameter held at 0 stays there
    def zoomed(theta):
        return np.r_[theta[:1], np.arctanh(theta[1:])]

    point, lower, upper = zoomed(best), _ZOOM_LOWER, _ZOOM_UPPER
    step = np.where(free, _ZOOM_STEP, 0.0)
    for _ in range(ZOOMS):
        # each axis: five points around the best, clipped, repeats dropped (np.unique's
        # answer: the points are in order already, and a held parameter is one point)
        spans = np.clip(point[:, None] + step[:, None] * _OFFSETS, lower[:, None], upper[:, None]).tolist()
        axes = [np.array(sorted(set(span))) for span in spans]
        values = _objectives(axes[0], np.tanh(axes[1]), np.tanh(axes[2]), gram)
        index = np.unravel_index(int(np.argmin(values)), values.shape)
        if values[index] < best_value:
            best_value = float(values[index])
            point = np.array([axis[i] for axis, i in zip(axes, index)])
        step = step / 2.0
    return best_value, np.array([point[0], np.tanh(point[1]), np.tanh(point[2])])


def mean_variance(theta: np.ndarray, scale: float, n: int) -> float:
    """Var(mean of n points) of the ARFIMA(1,d,1) process with spectral shape ``theta``
    (d, phi, ma) and Whittle scale ``scale`` (2 pi f = scale * shape): the spectrum
    against Fejer's kernel, (scale / pi) * integral over (0, pi) of shape * F_n.

    >>> round(mean_variance(np.zeros(3), 1.0, 100), 4)   # white noise: 1 / n
    0.01
    """
    d = float(theta[0])
    edge = 2.0 * np.pi / n
    # geometric below the kernel's first zero (where lambda^(-2d) is steep), a grid fine
    # enough for the kernel's oscillation up to OSCILLATIONS zeros, and beyond them the
    # kernel averaged over its oscillation, sin^2 -> 1/2 (the spectrum is smooth there)
    far = min(OSCILLATIONS * edge, np.pi)
    low = np.geomspace(edge * 1e-6, edge, 400)
    near = np.linspace(edge, far, 16 * int(round((far - edge) / edge)) + 2)[1:]
    tail = np.geomspace(far, np.pi, 2000)[1:] if far < np.pi else np.zeros(0)
    freq = np.r_[low, near, tail]
    oscillation = np.r_[np.sin(n * np.r_[low, near] / 2.0) ** 2, np.full(len(tail), 0.5)]
    fejer = oscillation / (n * np.sin(freq / 2.0)) ** 2
    integrand = np.exp(_log_shape(theta, np.log(2.0 * np.sin(freq / 2.0)), np.cos(freq))) * fejer
    # below the grid the integrand is ~ c lambda^(-2d): its integral there is closed
    below = integrand[0] * freq[0] / (1.0 - 2.0 * d)
    trapezoid = float(np.sum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(freq)))
    return float(scale / np.pi * (below + trapezoid))


def spectral_memory(x: np.ndarray) -> SpectralMemory:
    """Whether a long-memory model fits ``x`` clearly better than any short-memory one.

    >>> rng = np.random.default_rng(0)
    >>> spectral_memory(rng.normal(size=1000)).long_memory
    False
    >>> weights = np.r_[1.0, np.cumprod((np.arange(1, 3000) - 0.7) / np.arange(1, 3000))]
    >>> fractional = np.convolve(rng.normal(size=4000), weights)[3000:4000]   # d = 0.3
    >>> found = spectral_memory(fractional)
    >>> found.long_memory, round(found.d, 1)
    (True, 0.3)
    """
    n = len(x)
    if n < MIN_POINTS or np.ptp(x) == 0:
        return SpectralMemory(False, 0.0, -math.inf, "", math.nan)
    # (the ARMA(1,1) variance below needs these 200 points too: at n = 300 a slow AR(0.99)
    # under noise was told from white noise in a quarter of runs)
    # the models are fitted to the latest FIT_POINTS at most (their parameters do not depend
    # on the length; the variance of the mean below is for all n points)
    fitted = np.asarray(x[-FIT_POINTS:], dtype=float)
    gram = _periodogram(fitted)
    frequencies = float(gram.weight.sum())

    def bic(model):
        _, *free = model
        value, theta = _fit(gram, np.array(free, dtype=bool))
        return 2.0 * frequencies * value + sum(free) * math.log(frequencies), theta

    shorts = [(*bic(model), model[0], model[1:]) for model in SHORT_MODELS]
    longs = [(*bic(model), model[0], model[1:]) for model in LONG_MODELS]
    short_bic, short_theta, short_name, short_free = min(shorts, key=lambda fit: fit[0])
    long_bic, long_theta, long_name, long_free = min(longs, key=lambda fit: fit[0])
    evidence = short_bic - long_bic
    long_fit = dict(long_theta=tuple(float(v) for v in long_theta),
                    long_scale=_whittle_scale(long_theta, gram, frequencies))
    flagged = bool(evidence > STRONG_EVIDENCE)
    if flagged:
        theta, name, free = long_theta, long_name, long_free
    elif short_name == "ARMA(1,1)":
        # a slow component under fast noise: its autocorrelations (~0.08 at lag 1 for an
        # AR(0.99) of SD 0.3 under unit noise) hide in the noise, Geyer's sum stops early,
        # batches are shorter than its memory, and the interval covered 86.5% at n = 1,000
        theta, name, free = short_theta, short_name, short_free
    else:
        return SpectralMemory(False, float(long_theta[0]), float(evidence), "", math.nan, **long_fit)
    variance = mean_variance(theta, _whittle_scale(theta, gram, frequencies), n)
    dof = _variance_dof(theta, np.array(free, dtype=bool), gram, len(fitted), n)
    return SpectralMemory(flagged, float(long_theta[0]), float(evidence), name, variance, dof, **long_fit)


def _whittle_scale(theta: np.ndarray, gram: _Periodogram, frequencies: float) -> float:
    """The Whittle scale of the spectral shape ``theta`` profiled out of the periodogram."""
    shape = _log_shape(theta, gram.log_gap, gram.cosine)
    return float((gram.weight * gram.power * np.exp(-shape)).sum() / frequencies)


def _variance_dof(theta: np.ndarray, free: np.ndarray, gram: _Periodogram, fitted: int,
                  n: int) -> float:
    """Degrees of freedom of the model's variance of the mean, 2 / Var(log variance).

    Var(mean) grows like n^(2d - 1), so an error of 0.05 in d at n = 1,000 is a factor 2 in
    the variance, and with phi near 1 like 1 / (1 - phi)^2.  Var(theta-hat) is Whittle's
    asymptotic one, the inverse of (1 / 4 pi) * integral of grad log shape grad log shape'
    over (-pi, pi), divided by the points fitted (Fox & Taqqu 1986); the log variance's
    gradient (at all n points) is taken by central differences.  ~10 for ARFIMA(0,d,0) at
    n = 1,000 (where 5-20 batches give as few); fewer for ARFIMA(1,d,1) or ARMA(1,1) with
    phi near 1."""
    d, phi, ma = theta
    c = gram.cosine
    gradients = np.array([-2.0 * gram.log_gap,
                          2.0 * (c - phi) / (1.0 - 2.0 * phi * c + phi * phi),
                          2.0 * (c + ma) / (1.0 + 2.0 * ma * c + ma * ma)])[free]
    information = 0.5 * (gradients * gram.weight) @ gradients.T / gram.weight.sum()
    covariance = np.linalg.pinv(information) / fitted
    step = 1e-4
    slope = np.zeros(3)
    for k in np.flatnonzero(free):
        up, down = theta.copy(), theta.copy()
        up[k] = min(theta[k] + step, _UPPER[k])
        down[k] = max(theta[k] - step, _LOWER[k])
        rise = math.log(mean_variance(up, 1.0, n)) - math.log(mean_variance(down, 1.0, n))
        slope[k] = rise / (up[k] - down[k])
    spread = float(slope[free] @ covariance @ slope[free])
    return max(2.0 / spread, MIN_DOF) if spread > 0 else math.inf
