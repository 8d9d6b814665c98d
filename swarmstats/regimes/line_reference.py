"""An in-control reference that is a line: "no change" means the stream goes on along the
line it has followed since the last change, at whatever slope.

Why: with a level as the reference, a learning curve that climbs steadily is a change at every
step, and an online detector replays it as a staircase of alarms (CUSUM: 25 per 10,000 steps
on a drift of 0.002 noise SDs per step; QR-DQN Breakout's S-shaped climb, 13).  What a
practitioner wants to hear is "the climb started" and "it levelled off": a change of level or
of slope.

How: the warm-up gives a line, fitted to values clipped around a first fit, and the AR(1)
persistence phi and innovation scale of its residuals (:func:`.reference.estimate_reference`).
From then on the line is followed by recursive least squares on the AR(1)-whitened values
u_t = y_t - phi y_(t-1), whose regressors are (1 - phi, t - phi (t - 1)).  Each new value's
*recursive residual* - its distance from the line fitted to every point before it, divided by
sqrt(1 + x' P x) for the line's own uncertainty - is, under a line with AR(1) Gaussian noise,
independent N(0, sigma^2) from point to point (Brown, Durbin & Evans 1975, "Techniques for
testing the constancy of regression relationships over time", JRSS B 37: 149-192).  So a CUSUM
on the standardised recursive residuals keeps the false-alarm rate it promises on a level:
the slope it follows costs it nothing in control.  Residuals are clipped as the level
reference clips its innovations, and the value the fit then learns from is the one at the
clip, so that one wild value does not bend the line.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels.robust import MAX_CLIPPED, clip_limit, robust_centre_scale
from .reference import CLIP, estimate_reference

__all__ = ["LineReference"]


class LineReference:
    """A line followed since the last change (see the module docstring).

    ``innovation(x)`` returns the standardised, clipped recursive residual of the next value
    and learns from it; ``level`` and ``slope`` are the line's value at the last point and its
    slope per point.

    >>> rng = np.random.default_rng(0)
    >>> t = np.arange(400)
    >>> reference = LineReference(0.05 * t[:100] + rng.normal(0, 1, 100))
    >>> z = [reference.innovation(v) for v in 0.05 * t[100:] + rng.normal(0, 1, 300)]
    >>> round(reference.slope, 2), bool(abs(np.mean(z)) < 0.2), bool(0.8 < np.std(z) < 1.2)
    (0.05, True, True)
    """

    def __init__(self, values, clip: float = CLIP, max_clipped: float = MAX_CLIPPED):
        values = np.asarray(values, dtype=np.float64)
        m = len(values)
        t = np.arange(m, dtype=np.float64)
        noise = estimate_reference(values, clip=clip, max_clipped=max_clipped)
        self.tied = noise.tied  # judged on the values: residuals of a line through ties tie too
        if self.tied:
            # more than half the values are one value (a score at its cap, a 0/1 success): the
            # residuals of any line through them tie too, their robust scale is next to 0, and
            # every value off the line alarmed (a stationary evaluation stuck at -100 in 97% of
            # episodes: 10 alarms); and a slope learnt from the few values off the tie swings
            # with each of them (still 2).  So a level, the level reference's, with its scale,
            # followed by its running mean: a score held at its cap has no slope to follow.
            slope, intercept = 0.0, float(noise.mean)
            clipped = np.clip(values, noise.mean - noise.bound * noise.scale,
                              noise.mean + noise.bound * noise.scale)
        else:
            # a first line, then the values clipped around it, then the line again
            slope, intercept = np.polyfit(t, values, 1)
            residuals = values - (intercept + slope * t)
            _, spread = robust_centre_scale(residuals)
            reach = clip_limit(np.abs(residuals), clip * (spread or 1.0), max_clipped)
            clipped = intercept + slope * t + np.clip(residuals, -reach, reach)
            slope, intercept = np.polyfit(t, clipped, 1)
            noise = estimate_reference(clipped - (intercept + slope * t), clip=clip, max_clipped=max_clipped)
        self.persistence = noise.persistence
        # floored at a billionth of the values' size: a perfect line (a counter, a schedule)
        # leaves only rounding in its residuals, and every rounding error alarmed
        self.scale = max(noise.scale, 1e-9 * float(np.max(np.abs(values))))
        self.bound = noise.bound
        self.points = m
        self.far_share = noise.far_share
        # recursive least squares on the whitened values, started from the warm-up's own fit;
        # the 2 x 2 algebra is written out in floats (a numpy call costs more than the sum)
        phi = self.persistence
        level_part = np.full(m - 1, 1.0 - phi)
        slope_part = np.zeros(m - 1) if self.tied else t[1:] - phi * t[:-1]
        whitened = clipped[1:] - phi * clipped[:-1]
        if not self.tied:
            gram = np.array([[level_part @ level_part, level_part @ slope_part],
                             [level_part @ slope_part, slope_part @ slope_part]])
            inverse = np.linalg.inv(gram)
            coef = inverse @ np.array([level_part @ whitened, slope_part @ whitened])
        else:
            inverse = np.array([[1.0 / (level_part @ level_part), 0.0], [0.0, 0.0]])
            coef = np.array([intercept, 0.0])
        self._a, self._b = float(coef[0]), float(coef[1])  # the line: a + b t
        self._p11, self._p12, self._p22 = float(inverse[0, 0]), float(inverse[0, 1]), float(inverse[1, 1])
        self._t = float(m)  # the next value's time, counted from the warm-up's first point
        self._last = float(clipped[-1])

    @property
    def level(self) -> float:
        """The line's value at the last point seen."""
        return float(self._a + self._b * (self._t - 1.0))

    @property
    def slope(self) -> float:
        """The line's slope, per point (0 for a warm-up whose values mostly tie)."""
        return float(self._b)

    def innovation(self, x: float, previous: float | None = None) -> float:
        """The standardised, clipped recursive residual of ``x`` given the previous value (as
        the level reference whitens: with the value itself, so that a burst of a second mode
        is partly cancelled by the step after it; None: the last value learnt); the line then
        learns from it."""
        phi = self.persistence
        r1 = 1.0 - phi
        r2 = 0.0 if self.tied else self._t - phi * (self._t - 1.0)
        predicted = r1 * self._a + r2 * self._b
        g1 = self._p11 * r1 + self._p12 * r2  # P x
        g2 = self._p12 * r1 + self._p22 * r2
        variance = 1.0 + r1 * g1 + r2 * g2  # 1 + x' P x: the prediction's own uncertainty
        spread = math.sqrt(variance)
        last = self._last if previous is None else previous
        z = (x - phi * last - predicted) / (self.scale * spread)
        z = min(max(z, -self.bound), self.bound)
        # learn from the value at the clip (one rank-one update: P -= P x x' P / (1 + x' P x))
        step = z * self.scale * spread / variance
        self._a += g1 * step
        self._b += g2 * step
        self._p11 -= g1 * g1 / variance
        self._p12 -= g1 * g2 / variance
        self._p22 -= g2 * g2 / variance
        self._last = predicted + z * self.scale * spread + phi * last
        self._t += 1.0
        return z
