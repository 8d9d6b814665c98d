"""Has a regression started to fail?  Recursive residuals and a scan for a drift away from it.

Regress y on (1, x) and predict each point from the points before it: the recursive residual
(Brown, Durbin & Evans 1975) is that one-step prediction error divided by its standard error
in units of the noise, sqrt(1 + 1/r + (x_r - mean)^2 / Sxx).  While the relation holds, the
recursive residuals of a Gaussian regression are independent N(0, sigma^2) *whatever the
regressor* - so a scan over them has a null distribution that depends on their count alone.

When y starts to fall behind its prediction at an unknown point tau and the gap keeps growing,
the residuals after tau have a mean that drifts away from zero.  The scan looks, at every point
r, at every onset tau before it, for a linear drift down:

    Z(tau, r) = -sum_{j=tau+1..r} (j - tau) u_j / sqrt(sum_{i=1..r-tau} i^2),
    u_j = clip(w_j / s_tau, -CLIP, CLIP)

with s_tau the root mean square of the residuals before the onset (so a growing gap does not
inflate its own yardstick).  Unclipped, ``Z`` is the likelihood-ratio statistic of a drift with
known onset and noise; the clip keeps one heavy-tailed evaluation from passing for a drift
(with Student-t(3) noise the unclipped scan alarmed in 8% of runs at 5%).  Its maximum over every (tau, r) up to n is compared with a critical value
simulated from independent normal residuals (:func:`simulate_critical`), so the chance of any
alarm over all n looks is the level.  numpy in, numpy out.
"""

from __future__ import annotations

import numpy as np

#: residuals that must precede an onset: their root mean square is the noise yardstick, and
#: fewer make it so uncertain that the scan's null tail is dominated by the first onsets
MIN_BEFORE_ONSET = 10

#: the first recursive residual predicts point FIRST_PREDICTED from the ones before it: two
#: points fix a line, and the third gives the first prediction with an error to measure
FIRST_PREDICTED = 3

#: each residual after an onset counts at most this many noise SDs: a drift is many
#: evaluations falling behind together, not one heavy-tailed evaluation
CLIP = 2.5


def recursive_residuals(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The standardised one-step prediction errors of y on (1, x); NaN where the points before
    give no line (fewer than FIRST_PREDICTED, or x still constant).

    >>> x = np.arange(8.0)
    >>> w = recursive_residuals(x, 2.0 + 0.5 * x)          # an exact line: nothing to predict wrong
    >>> bool(np.isnan(w[:3]).all()), bool(np.allclose(w[3:], 0.0))
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    # centre first: the running sums of squares then do not cancel catastrophically
    xc, yc = x - x.mean(), y - y.mean()
    count = np.arange(1, n + 1, dtype=float)
    sum_x, sum_y = np.cumsum(xc), np.cumsum(yc)
    sum_xx, sum_xy = np.cumsum(xc * xc), np.cumsum(xc * yc)
    residuals = np.full(n, np.nan)
    if n <= FIRST_PREDICTED:
        return residuals
    # the fit on points [0, r) predicts point r
    m = count[FIRST_PREDICTED - 1:n - 1]
    mean_x, mean_y = sum_x[FIRST_PREDICTED - 1:n - 1] / m, sum_y[FIRST_PREDICTED - 1:n - 1] / m
    sxx = sum_xx[FIRST_PREDICTED - 1:n - 1] - m * mean_x ** 2
    sxy = sum_xy[FIRST_PREDICTED - 1:n - 1] - m * mean_x * mean_y
    scale = np.maximum(sum_xx[FIRST_PREDICTED - 1:n - 1], np.finfo(float).tiny)
    varies = sxx > 1e-10 * scale
    safe_sxx = np.where(varies, sxx, 1.0)
    slope = sxy / safe_sxx
    x_next, y_next = xc[FIRST_PREDICTED:], yc[FIRST_PREDICTED:]
    predicted = mean_y + slope * (x_next - mean_x)
    leverage = 1.0 + 1.0 / m + (x_next - mean_x) ** 2 / safe_sxx
    residuals[FIRST_PREDICTED:] = np.where(varies, (y_next - predicted) / np.sqrt(leverage), np.nan)
    return residuals


def _drift_numerator_weights(m: np.ndarray) -> np.ndarray:
    """sqrt(sum_{i=1..m} i^2): the noise SD of a drift sum over m residuals."""
    return np.sqrt(m * (m + 1.0) * (2.0 * m + 1.0) / 6.0)


def drift_scan(residuals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each look r (a count of residuals seen, 1..n): the largest downward drift statistic
    over every onset, and the onset (a count of residuals before it) that gives it.  Looks
    with no admissible onset give -inf and onset -1.  ``residuals`` must be finite.

    >>> rng = np.random.default_rng(0)
    >>> w = np.r_[rng.normal(size=40), rng.normal(size=20) - 0.3 * np.arange(1, 21)]
    >>> z, onset = drift_scan(w)
    >>> round(float(z[:40].max()), 1), int(np.argmax(z > 4.4)), int(onset[-1])   # crosses 10 after
    (2.5, 51, 39)
    """
    stat, onset = _scan(np.asarray(residuals, dtype=float)[None, :])
    return stat[0], onset[0]


def _scan(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """drift_scan for a batch of series (rows): the statistic and onset per row and look."""
    batch, n = w.shape
    stat = np.full((batch, n), -np.inf)
    onset = np.full((batch, n), -1, dtype=int)
    if n <= MIN_BEFORE_ONSET:
        return stat, onset
    rms_before = np.sqrt(np.cumsum(w * w, axis=1) / np.arange(1, n + 1))
    for before in range(MIN_BEFORE_ONSET, n):
        # residuals after the onset in units of the noise before it, clipped so that one wild
        # evaluation (heavy-tailed noise) cannot pass for a drift on its own
        with np.errstate(invalid="ignore", divide="ignore"):
            units = np.clip(w[:, before:] / rms_before[:, [before - 1]], -CLIP, CLIP)
        m = np.arange(1, n - before + 1, dtype=float)
        z = -np.cumsum(m * units, axis=1) / _drift_numerator_weights(m)
        # an exact fit before the onset (no noise) and no drift after: 0 / 0 is no evidence
        z[np.isnan(z)] = -np.inf
        better = z > stat[:, before:]
        stat[:, before:] = np.where(better, z, stat[:, before:])
        onset[:, before:] = np.where(better, before, onset[:, before:])
    return stat, onset


def max_drift_null(n: int, reps: int, rng: np.random.Generator, chunk: int = 500) -> np.ndarray:
    """The scan's maximum over all looks for ``reps`` series of n independent N(0, 1)
    residuals: its null distribution (it depends on n alone)."""
    out = np.empty(reps)
    for start in range(0, reps, chunk):
        stat, _ = _scan(rng.standard_normal((min(chunk, reps - start), n)))
        out[start:start + len(stat)] = stat.max(axis=1)
    return out


def simulate_critical(n: int, alphas, reps: int, seed: int) -> np.ndarray:
    """The scan's (1 - alpha) null quantiles for n residuals, by simulation."""
    null = max_drift_null(n, reps, np.random.default_rng(seed))
    return np.quantile(null, 1.0 - np.asarray(alphas, dtype=float))
