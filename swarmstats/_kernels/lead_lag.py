"""Does one series' change precede the same change in another?  The lead asymmetry of two
series' changes, and its circular-shift (rotation) null.

For two series of standardised changes z_a and z_b (length n), the circular cross-correlation
r(s) = mean_t z_a(t) z_b(t + s mod n) at every shift s comes from one FFT.  The lead of a over b
is the asymmetry of r over lags 1..K:

    L = sum_{k=1..K} [r(k) - r(-k)]

positive when b moves the way a moved 1 to K steps *after* a, negative when before, and zero
in expectation when they move together in the same step - a common shock is not a lead.
(The maximum of r(k) alone calls synchronous agents leaders as soon as smoothing or timing
jitter spreads a same-step change over the next step.)

Under independence, rotating one series relative to the other keeps both autocorrelations and
breaks any alignment, so L at the true alignment is one draw among the n rotations (the
rotation test; "toroidal shift" in ecology) and its p-value is its rank among them.  The 2 K
rotations next to the true alignment still hold the true lead in one of their windows, so the
two-sided p-values cannot go much below 2 K / n.  numpy in, numpy out.
"""

from __future__ import annotations

import numpy as np


def standardised_changes(values: np.ndarray, smooth: int = 1) -> np.ndarray:
    """Row-wise first differences, centred and scaled to unit SD (rows with no change: zeros),
    after a running median of ``smooth`` steps (1: none), which keeps a switch where it is
    and removes the noise around it.

    >>> standardised_changes(np.array([[0.0, 1.0, 1.0, 3.0]])).round(3)
    array([[ 0.   , -1.225,  1.225]])
    """
    values = np.asarray(values, dtype=float)
    if smooth > 1:
        from scipy.ndimage import median_filter

        values = median_filter(values, size=(1, smooth), mode="nearest")
    changes = np.diff(values, axis=-1)
    changes = changes - changes.mean(axis=-1, keepdims=True)
    sd = changes.std(axis=-1, keepdims=True)
    return np.divide(changes, sd, out=np.zeros_like(changes), where=sd > 0)


def circular_cross_correlations(changes: np.ndarray) -> np.ndarray:
    """r[a, b, s] = mean_t z_a(t) z_b(t + s mod n) for standardised rows z: the correlation of
    a with b shifted s steps later, at every shift, for every ordered pair.

    >>> z = standardised_changes(np.array([[0, 0, 1, 1, 1, 0, 0, 0.0], [0, 0, 0, 1, 1, 1, 0, 0.0]]))
    >>> int(np.argmax(circular_cross_correlations(z)[0, 1]))     # b repeats a one step later
    1
    """
    n = changes.shape[-1]
    spectra = np.fft.rfft(changes, axis=-1)
    # sum_t z_a(t) z_b(t + s) is the inverse transform of conj(Z_a) Z_b
    return np.fft.irfft(np.conj(spectra)[:, None, :] * spectra[None, :, :], n=n, axis=-1) / n


def lead_asymmetry(correlations: np.ndarray, max_lag: int) -> np.ndarray:
    """L at every rotation s: sum_{k=1..K} [r(s + k) - r(s - k)] (index 0: the data as they are).

    >>> r = np.zeros(12); r[2] = 0.5                      # b follows a two steps later
    >>> lead_asymmetry(r, 3)[[0, 2, 4]]
    array([ 0.5,  0. , -0.5])
    """
    n = correlations.shape[-1]
    tripled = np.concatenate([correlations, correlations, correlations], axis=-1)
    cumulative = np.cumsum(tripled, axis=-1)
    shifts = np.arange(n) + n                              # index of r(s) in the tripled array

    def window(first, last):                               # sum of r(u) for u in [first, last]
        return cumulative[..., last] - cumulative[..., first - 1]

    return window(shifts + 1, shifts + max_lag) - window(shifts - max_lag, shifts - 1)


def lead_lag(correlations: np.ndarray, max_lag: int) -> np.ndarray:
    """The lag (1..K) with the largest r(k) - r(-k): where the follower's echo is strongest."""
    lags = np.arange(1, max_lag + 1)
    contrast = correlations[..., lags] - correlations[..., -lags]
    return np.argmax(contrast, axis=-1) + 1


def rotation_pvalues(asymmetry: np.ndarray) -> np.ndarray:
    """Two-sided: the share of rotations whose |L| is at least the observed |L| (index 0
    included, so p >= 1/n)."""
    size = np.abs(asymmetry)
    return (size >= size[..., :1] - 1e-12).mean(axis=-1)
