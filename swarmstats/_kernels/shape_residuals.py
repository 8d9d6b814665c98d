"""The residuals a window's noise is read from: its values less a quadratic, and less a step
too where the window holds one.

A quadratic absorbs a trend and a rise that levels off; a level shift inside the window it
cannot follow, and its residuals then carry the shift itself: on 60 points of unit noise and
10 after a jump of 8, the residual SD came out ~1.8 with an autocorrelation time ~9, the alarm
limit rose past 60 and the jump was never called (nor the one in a public 100-episode DDPG
Pendulum log).  So the step that most reduces the residual sum of squares - over every start
with at least 10 points before it and 5 after, all at once from tail sums - is kept when it
earns its place in the AR(1)-whitened residuals: (n - 1) log(RSS_0 / RSS_1) > 4 log n, and
beats a cubic (as many parameters) by log n.  Whitened, because persistent noise wanders like
a string of steps: judged on the raw residuals a step would "explain" AR(0.9) noise and shrink
its scale.  The factor 4 is set by that case: stationary AR(0.9) series of 1,000 points got a
trend or change call in 3 of 100 (2 of 100 without steps; 12 at 2 log n, 5 at 3 log n), while
a 3-SD shift after 60 points of unit noise is called in 26 of 40 (2 of 40 without).
numpy in, numpy out.
"""

from __future__ import annotations

import math

import numpy as np

#: The shortest stretch on either side of a step (after, before).
STEP_AFTER, STEP_BEFORE = 5, 10
#: log(RSS_0 / RSS_1) must exceed this many log(n) / (n - 1) for the step to stay.
STEP_PENALTY = 4.0


def ar1_innovation_ss(residuals: np.ndarray) -> float:
    """The sum of squares of ``residuals`` whitened by their own lag-1 autocorrelation
    (clipped to [0, 0.99]): what an AR(1) model leaves unexplained.

    >>> round(ar1_innovation_ss(np.array([1.0, -1.0, 1.0, -1.0])), 3)
    3.0
    """
    centred = residuals - residuals.mean()
    total = float(centred @ centred)
    if total <= 0:
        return 0.0
    phi = min(max(float(centred[1:] @ centred[:-1]) / total, 0.0), 0.99)
    innovations = centred[1:] - phi * centred[:-1]
    return float(innovations @ innovations)


def shape_residuals(values: np.ndarray) -> np.ndarray:
    """``values`` less their least-squares quadratic, and less a step as well when one earns
    its place (see the module docstring).

    >>> rng = np.random.default_rng(0)
    >>> jump = np.r_[rng.normal(0, 1, 60), rng.normal(8, 1, 10)]
    >>> round(float(shape_residuals(jump).std()), 2)   # the quadratic alone: 1.81
    0.93
    >>> calm = rng.normal(0, 1, 70)
    >>> bool(np.allclose(shape_residuals(calm), calm - np.polyval(np.polyfit(np.arange(70), calm, 2), np.arange(70))))
    True
    """
    n = len(values)
    position = np.linspace(-1.0, 1.0, n)
    base = np.column_stack([np.ones(n), position, position * position])
    gram_inverse = np.linalg.inv(base.T @ base)
    plain = values - base @ (gram_inverse @ (base.T @ values))
    if n < STEP_AFTER + STEP_BEFORE:
        return plain

    def tail_sums(v: np.ndarray) -> np.ndarray:  # sums of the last m values, m = STEP_AFTER ..
        return np.cumsum(v[::-1])[STEP_AFTER - 1:n - STEP_BEFORE]

    lengths = np.arange(STEP_AFTER, n - STEP_BEFORE + 1, dtype=float)
    overlap = np.column_stack([lengths, tail_sums(position), tail_sums(position * position)])
    # each step indicator less its projection on the quadratic: its squared norm, and the
    # residuals' inner product with it (the residuals are already orthogonal to the quadratic)
    norm = lengths - np.einsum("ij,jk,ik->i", overlap, gram_inverse, overlap)
    inner = tail_sums(plain)
    usable = norm > 1e-9 * lengths
    if not usable.any():
        return plain
    gain = np.where(usable, inner * inner / np.where(usable, norm, 1.0), -1.0)
    best = int(np.argmax(gain))
    step = np.zeros(n)
    step[n - int(lengths[best]):] = 1.0
    orthogonal = step - base @ (gram_inverse @ overlap[best])
    stepped = plain - (inner[best] / norm[best]) * orthogonal
    before, after = ar1_innovation_ss(plain), ar1_innovation_ss(stepped)
    if not (before > 0 and after > 0 and (n - 1) * math.log(before / after) > STEP_PENALTY * math.log(n)):
        return plain
    # a curve that bends more than a quadratic (a climb levelling off) is not a step: the
    # step must also beat a cubic, which has as many parameters, by the cost of its place
    cube = position ** 3
    cube = cube - base @ (gram_inverse @ (base.T @ cube))
    cubic = plain - (float(cube @ plain) / float(cube @ cube)) * cube
    smooth = ar1_innovation_ss(cubic)
    if smooth > 0 and (n - 1) * math.log(smooth / after) > math.log(n):
        return stepped
    return plain
