"""The default ``"trend"`` model: levels or lines in AR(1) noise, the noise's
persistence chosen by profile likelihood.

Why: a changepoint penalty is only as good as its noise scale, and on real
curves every cheap scale fails somewhere.  Residuals around a running median
follow a slow wander (AR(0.9): SD 0.4 instead of 1, g 3 instead of 19, ten
"regimes" per 200 points) and vanish on smooth curves (a staircase every five
points); a variogram of the raw series mistakes a real shift for persistence
(the Nile's 1898 dam disappears).  Wander and shifts can only be told apart
jointly, so for each persistence phi on a grid the series is whitened,
x_t = y_t - phi y_(t-1) (a level mu becomes a level (1 - phi) mu, a line
stays a line), segmented with iid-noise penalties, and scored by its Gaussian
likelihood with BIC terms; the best phi wins (Chakar, Lebarbier, Levy-Leduc &
Robin 2017 whiten with a fixed robust phi; choosing it by likelihood is what
keeps a shift from being read as persistence and the reverse).

Three guards come from real series (the TCPD benchmark of van den Burg &
Williams 2020, and public RL logs):

- a **spread floor**: the long-run variance is taken at least
  ``SPREAD_FLOOR`` x Var(y), so that on a curve dominated by large movements
  only changes a reader of the whole curve would notice are reported (without
  it, a smooth population series gets a change every few points);
- **winsorised** innovations (at 3 robust SDs, with the scale of the clipped
  values, so that cost and penalty agree): Student-t(3) noise gives no
  spurious change;
- a **seasonal cycle** (a clear peak in the autocorrelation of the
  differences at a lag >= 3) is removed first and named in the notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from .._kernels.autocorr import autocovariance
from .._kernels.robust import clip_limit, robust_centre_scale
from .costs import LevelOrTrendCost

#: persistence values tried; 1.0 is a random walk (a level is then a jump)
PHI_GRID = (0.0, 0.25, 0.45, 0.6, 0.72, 0.82, 0.9, 0.95, 0.98, 1.0)
#: BIC constants: a change adds its location, a level and one more (see offline._PARAMETERS); a slope one
CHANGE_CONSTANT, SLOPE_CONSTANT = 3.0, 1.0
#: the long-run variance is at least this share of Var(y).  TCPD (31 series,
#: two halves): 0.1, 0.15 and 0.25 score alike; 0 loses 0.05 in F1.
SPREAD_FLOOR = 0.15
FLOOR_PHI_CAP = 0.97
WINSOR = 3.0
#: a first value this many noise SDs from its regime's median is said (:func:`start_note`)
START_SDS = 3.0
#: a seasonal peak: autocorrelation of the differences >= 0.4 at lag p, and
#: 0.5 above its lowest value at shorter lags (a smooth series has high
#: autocorrelation at every lag, and no cycle)
SEASON_PEAK, SEASON_RISE = 0.4, 0.5
#: above this many points phi is chosen on STRETCHES stretches of STRETCH points
PROFILE_POINTS, STRETCHES, STRETCH = 20_000, 4, 5_000


@dataclass(frozen=True)
class WhitenedFit:
    changepoints: list  # first indices of new segments, in y's indexing
    phi: float  # the AR(1) persistence chosen
    innovation_variance: float  # of the whitened series (winsorised scale)
    long_run_variance: float  # of y's noise: innovation / (1 - phi)^2, floored; inf for a random walk
    marginal_sd: float  # of y's noise (phi capped at 0.99)
    period: int | None  # the seasonal cycle removed, if any
    profile: list  # (phi, changes, sloped segments, criterion) for every phi tried
    adjusted: np.ndarray = field(default=None, repr=False)  # the series without its seasonal cycle


def seasonal_cycle(y: np.ndarray, max_period: int = 60) -> tuple[np.ndarray, int | None]:
    """``y`` without a clear seasonal cycle, and its period (or ``y`` and None).

    >>> t = np.arange(240)
    >>> _, period = seasonal_cycle(np.sin(2 * np.pi * t / 12) + 0.01 * t)
    >>> period
    12
    """
    n = len(y)
    if n < 24:
        return y, None
    d = np.diff(y)
    acov = autocovariance(d - np.median(d), max_lag=min(max_period, n // 4))
    if len(acov) < 5 or acov[0] <= 0:
        return y, None
    rho = acov / acov[0]
    period = int(np.argmax(rho[3:])) + 3
    if rho[period] < SEASON_PEAK or rho[period] - np.min(rho[1:period]) < SEASON_RISE:
        return y, None
    # a centred moving average over one period (2 x p for even p) removes the cycle from the trend
    weights = np.ones(period) if period % 2 else np.r_[0.5, np.ones(period - 1), 0.5]
    trend = ndimage.convolve1d(y, weights / weights.sum(), mode="nearest")
    phase = np.arange(n) % period
    detrended = y - trend
    cycle = np.array([np.median(detrended[phase == k]) for k in range(period)])
    return y - (cycle - cycle.mean())[phase], period


def fit_whitened(y: np.ndarray, *, min_size: int, search, grid=PHI_GRID) -> WhitenedFit:
    """Changepoints of levels-or-lines in AR(1) noise (see the module's docstring).

    ``search(cost, x, penalty, min_size)`` returns the changepoints of the
    whitened series ``x`` for a prepared cost (exact PELT, the seeded search or
    a ruptures search).  Above ``PROFILE_POINTS`` points, phi is chosen on
    ``STRETCHES`` evenly spaced stretches of ``STRETCH`` points (their criteria
    summed) and the whole series is then segmented once: phi is a property of
    the noise, pinned down well by 20,000 points, and ten full searches of a
    long series would cost ten times one.
    """
    adjusted, period = seasonal_cycle(np.asarray(y, dtype=np.float64))
    spread = float(np.var(adjusted))
    n = len(adjusted)
    profile = []
    best = None
    if n > PROFILE_POINTS:
        starts = np.linspace(0, n - STRETCH, STRETCHES).astype(np.int64)
        scores = {}
        for phi in grid:
            fits = [_segment_at(adjusted[a:a + STRETCH], phi, spread, min_size, search) for a in starts]
            if any(fit is None for fit in fits):
                continue
            scores[phi] = sum(fit.criterion for fit in fits)
            profile.append((phi, sum(fit.changes for fit in fits), sum(fit.sloped for fit in fits), scores[phi]))
        if scores:
            best = _segment_at(adjusted, min(scores, key=scores.get), spread, min_size, search)
    else:
        for phi in grid:
            fit = _segment_at(adjusted, phi, spread, min_size, search)
            if fit is None:
                continue
            profile.append((phi, fit.changes, fit.sloped, fit.criterion))
            if best is None or fit.criterion < best.criterion:
                best = fit
    if best is None:  # no noise at any phi: a noise-free series
        return WhitenedFit([], 0.0, 0.0, 0.0, 0.0, period, profile, adjusted)
    phi, variance = best.phi, best.variance
    capped = min(phi, 0.99)
    long_run = variance / (1.0 - phi) ** 2 if phi < 1 else math.inf
    return WhitenedFit(changepoints=[c + 1 for c in best.changepoints], phi=float(phi),
                       innovation_variance=float(variance), long_run_variance=long_run,
                       marginal_sd=math.sqrt(variance / (1.0 - capped**2)), period=period,
                       profile=profile, adjusted=adjusted)


@dataclass(frozen=True)
class _Segmented:
    phi: float
    changepoints: list  # in the whitened series' indexing
    variance: float
    criterion: float
    changes: int
    sloped: int


def _segment_at(adjusted: np.ndarray, phi: float, spread: float, min_size: int, search) -> _Segmented | None:
    """The whitened series at ``phi``, segmented and scored (None when it has no noise)."""
    x = adjusted[1:] - phi * adjusted[:-1]
    m = len(x)
    clipped, variance = _winsorised(x)
    if variance <= 0:
        return None
    # the spread floor, in x's units: Var(x-noise) = (1 - phi)^2 x long-run variance of y.
    # phi is capped for it: at phi = 1 the floor would vanish, and a smooth curve read as a
    # random walk would be cut wherever its growth rate bends (a population series: 28 cuts)
    variance = max(variance, SPREAD_FLOOR * (1.0 - min(phi, FLOOR_PHI_CAP)) ** 2 * spread)
    log_m = math.log(m)
    cost = LevelOrTrendCost(clipped, slope_penalty=SLOPE_CONSTANT * variance * log_m)
    changepoints = list(search(cost, clipped, CHANGE_CONSTANT * variance * log_m, min_size))
    bounds = [0, *changepoints, m]
    sloped = [cost.sloped(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    rss = sum(float((cost.line if s else cost.level).cost(np.array([a]), b)[0])
              for a, b, s in zip(bounds[:-1], bounds[1:], sloped))
    criterion = (m * math.log(max(rss / m, 1e-300 * max(variance, 1e-300)))
                 + (CHANGE_CONSTANT * len(changepoints) + SLOPE_CONSTANT * sum(sloped)) * log_m)
    return _Segmented(phi=phi, changepoints=changepoints, variance=variance, criterion=criterion,
                      changes=len(changepoints), sloped=int(sum(sloped)))


def start_note(values: np.ndarray, first_end: int, sd: float, phi: float, sloped: bool = False) -> str | None:
    """A note when the series starts far from its first regime, a level (``sloped`` False: a
    line's start is where it starts): its first value more than START_SDS noise SDs (``sd``,
    marginal) from that regime's median, on a fit with persistence ``phi`` > 0; None otherwise.

    Why: whitening conditions on the first value, so an AR(1) relaxing from wherever the series
    starts costs nothing, and a short climb before a plateau is read as persistence, not as a
    regime (a real TD-MPC2 evaluation curve: 8.6 -> 651 over its first five evaluations, then
    ~600 for 36 more, read "one regime, AR(1) persistence 0.6" and nothing else).  Giving the
    start its stationary likelihood in the fit instead changed 28 of 350 real segmentations in
    both directions (a random walk keeps its start free, and gained), so the fit stands and the
    reading is said, as what the fit did: under stationary noise it is said on 0-1% of series
    (white, AR(0.6), t(3) at 41 and 200 points), 2.5% of AR(0.9) series of 41 points, whose
    start the short series has not wandered back to (200 series each).

    >>> rng = np.random.default_rng(0)
    >>> start_note(np.r_[[8.0, 112, 285, 447, 497], 600 + 60 * rng.normal(size=36)], 41, 90.0, 0.6).split(" from")[0]
    'the series starts 6.4 noise SDs'
    """
    if sloped or not phi > 0 or not sd > 0 or first_end < 2:
        return None
    median = float(np.median(values[:first_end]))
    distance = np.abs(values[:first_end] - median) / sd
    if not distance[0] > START_SDS:
        return None
    within = np.flatnonzero(distance <= 2.0)
    count = int(within[0]) if len(within) else first_end
    return (f"the series starts {distance[0]:.1f} noise SDs from its first regime's median ({values[0]:.4g} "
            f"against {median:.4g}), its first {count} point{'s' if count > 1 else ''} more than 2 SDs "
            f"from it: the fit reads that as the noise's persistence (AR(1) {phi:.2f}) relaxing from where "
            "the series started, not as a regime of its own; if it was a warm-up, detect_warmup finds "
            "where it ended")


def _winsorised(x: np.ndarray) -> tuple[np.ndarray, float]:
    """``x`` clipped at WINSOR robust SDs around a running median, and the
    variance of its noise on the clipped scale (the scale the RSS cost sees)."""
    # the innovations' SD from differences: robust to shifts, outliers and linear trends
    _, scale = robust_centre_scale(np.diff(x))
    scale /= math.sqrt(2.0)
    if scale <= 0:
        return x, 0.0
    window = int(min(max(len(x) // 20, 11), 101)) | 1
    smooth = ndimage.median_filter(x, size=window, mode="nearest")
    residuals = x - smooth
    # ... reaching at most MAX_CLIPPED of them: a second mode clipped toward a running median
    # that jumps to it wherever it bunches makes "regimes" of where the median jumps
    limit = clip_limit(np.abs(residuals), WINSOR * scale)
    bounded = np.clip(residuals, -limit, limit)
    clipped = smooth + bounded
    if limit > WINSOR * scale:
        # a second mode: the robust scales measure the main mode alone, and the values are
        # (nearly) unclipped, so their own spread is the noise's (from differences, which a
        # shift or a trend barely moves)
        return clipped, float(np.var(np.diff(clipped))) / 2.0
    _, residual_scale = robust_centre_scale(residuals)
    # heavy tails: the clipped values vary more than the MAD says; normal data: factor ~1
    factor = max(float(np.var(bounded)) / residual_scale**2, 1.0) if residual_scale > 0 else 1.0
    return clipped, scale * scale * factor


def broken_stick(y: np.ndarray, min_size: int) -> tuple[int, float]:
    """The best bend of a continuous two-piece line through ``y`` (the fit
    a + b t + c (t - k)+ over every k with ``min_size`` points either side):
    (k, residual sum of squares).

    A slope change is located much more sharply by this continuous fit than
    by two free lines, which may trade a small jump for a shifted bend.

    >>> t = np.arange(100.0)
    >>> broken_stick(np.where(t < 60, 0.0, t - 60), 5)[0]
    60
    """
    n = len(y)
    y = np.asarray(y, dtype=np.float64) - np.mean(y)
    first, last = min_size, n - min_size  # the admissible bends
    if last < first:
        return -1, float("inf")
    centre = (n - 1) / 2.0
    positions = np.arange(n, dtype=np.float64)
    # sums over p >= k of y and of p y, for every k (the only sums that depend on the data);
    # those of the hinge u = (p - k)+ and of t = p - centre have closed forms in m = n - k
    # (prefix sums of t^2 reach ~10^17 at 10^6 points and lose the short tails' digits)
    tail_y = np.cumsum(y[::-1])[::-1]
    tail_py = np.cumsum((positions * y)[::-1])[::-1]
    total_yy, total_ty = float(y @ y), float((positions - centre) @ y)
    spread_t = n * (n * n - 1.0) / 12.0  # sum t^2 (t centred: sum t = 0)
    best_k, best_rss = -1, np.inf
    for low in range(first, last + 1, _BEND_BLOCK):  # bounded temporaries at any length
        k = np.arange(low, min(low + _BEND_BLOCK, last + 1))
        m = (n - k).astype(np.float64)
        su = m * (m - 1) / 2.0
        suu = (m - 1) * m * (2 * m - 1) / 6.0
        sut = suu + (k - centre) * su
        suy = tail_py[k] - k * tail_y[k]
        gram = np.empty((len(k), 3, 3))
        gram[:, 0, 0], gram[:, 0, 1], gram[:, 0, 2] = n, 0.0, su
        gram[:, 1, 1], gram[:, 1, 2], gram[:, 2, 2] = spread_t, sut, suu
        gram[:, 1, 0], gram[:, 2, 0], gram[:, 2, 1] = 0.0, su, sut
        moments = np.stack([np.zeros(len(k)), np.full(len(k), total_ty), suy], axis=1)
        coefficients = np.linalg.solve(gram, moments[..., None])[..., 0]
        rss = total_yy - np.einsum("ij,ij->i", coefficients, moments)
        j = int(np.argmin(rss))
        if rss[j] < best_rss:  # strictly: the first of equal bends wins
            best_k, best_rss = int(k[j]), float(rss[j])
    return best_k, float(max(best_rss, 0.0))


#: bends evaluated at once by broken_stick (a 3 x 3 system each)
_BEND_BLOCK = 1 << 15


def place_bends(y: np.ndarray, changepoints: list, min_size: int, jump_penalty: float) -> list:
    """Move each change that is a bend rather than a jump to where a continuous
    broken line puts it: between its neighbouring changes, the broken line
    replaces two free lines when it costs at most ``jump_penalty`` more."""
    from .costs import LinearCost

    points = list(changepoints)
    lines = LinearCost(y)
    for i, point in enumerate(points):
        start = points[i - 1] if i else 0
        end = points[i + 1] if i + 1 < len(points) else len(y)
        if end - start < 2 * min_size + 1:
            continue
        free = float(lines.cost(np.array([start]), point)[0] + lines.cost(np.array([point]), end)[0])
        bend, bent = broken_stick(y[start:end], min_size)
        if bend > 0 and bent <= free + jump_penalty:
            points[i] = start + bend
    return points
