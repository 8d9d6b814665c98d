"""The in-control reference of an online detector: what "no change" looks like, learnt
from a warm-up, turning each new value into a standardised, winsorised innovation.

Why not (y - median) / MAD, as before: on the streams people have, the false-alarm rate
then has nothing to do with the one promised.  Stationary AR(0.5) noise raised 32 CUSUM
and 77 BOCPD alarms per 10,000 points, Student-t(3) noise 36 and 70, against a promised
0.5 - because persistent noise wanders like a shift, a heavy tail looks like one, and the
MAD understates a heavy-tailed SD.  So the reference

- whitens: e_t = (y_t - mu) - phi (y_(t-1) - mu), with phi the warm-up's AR(1)
  persistence taken at its upper standard error (over-whitening only lowers the false-alarm
  rate; under-whitening raises it).  A level shift d in y is a shift (1 - phi) d in e - the
  same number of long-run SDs, so the detectors' sensitivity is unchanged in those units;
- clips e at ``CLIP`` robust SDs and scales by the SD of the clipped values, so that the
  standardised innovation has variance 1 whatever the tails;
- says how many points it was estimated from, so that a detector can allow for the error of
  an estimated reference (a mean that is off by one standard error already cuts a CUSUM's
  in-control run length by a factor of three).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._kernels.robust import clip_limit, robust_centre_scale

#: what "in control" is: a level, or a line at whatever slope (:mod:`.line_reference`)
REFERENCE_MODELS = ("level", "trend")

#: innovations are clipped at this many robust SDs (BOCPD, which also learns the spread and
#: reads a burst of large values as a change of it, clips at 2: t(3) streams then raise 0.4
#: false alarms per 10,000 points instead of 1.2)
CLIP = 3.0
#: persistence is capped: near 1 a stream is a random walk and a "level" means nothing
MAX_PERSISTENCE = 0.95


@dataclass(frozen=True)
class Reference:
    mean: float
    persistence: float  # phi
    scale: float  # SD of the clipped innovations
    points: int  # how many points it was estimated from (0: given)
    bound: float = CLIP  # where standardised innovations are clipped (the clip that set the scale)
    #: share of the warm-up's values beyond CLIP robust SDs of their median: above MAX_CLIPPED
    #: the stream has a second mode (see :func:`clip_limit`), not a tail
    far_share: float = 0.0
    #: more than half the warm-up's values tie (a 0/1 success, a score at its cap): discrete
    #: values, which a normal model of the innovations does not describe
    tied: bool = False

    def innovation(self, x: float, previous: float | None) -> float:
        """The standardised, clipped innovation of ``x`` given the previous value."""
        deviation = x - self.mean
        if previous is not None:
            deviation -= self.persistence * (previous - self.mean)
        z = deviation / self.scale
        return min(max(z, -self.bound), self.bound)


def estimate_reference(values: np.ndarray, clip: float = CLIP, max_clipped: float = 1.0) -> Reference:
    """The reference of a warm-up (see the module's docstring); ``max_clipped`` caps the share of
    values (and of innovations) the clip may reach.

    >>> rng = np.random.default_rng(0)
    >>> reference = estimate_reference(rng.normal(5.0, 2.0, 400))
    >>> abs(reference.mean - 5.0) < 0.2, reference.persistence < 0.15, round(reference.scale, 1)
    (True, True, 2.0)
    """
    values = np.asarray(values, dtype=np.float64)
    m = len(values)
    centre, spread = robust_centre_scale(values)
    if spread <= 0:
        spread = 1.0
    reach = clip_limit(np.abs(values - centre), clip * spread, max_clipped)
    clipped = np.clip(values, centre - reach, centre + reach)
    mean = float(clipped.mean())
    deviations = clipped - mean
    denominator = float(np.dot(deviations, deviations))
    phi = float(np.dot(deviations[1:], deviations[:-1]) / denominator) if denominator > 0 else 0.0
    # the lag-1 estimate is biased low by about (1 + 3 phi) / m, and uncertain by sqrt((1 - phi^2) / m)
    phi = phi + (1 + 3 * max(phi, 0.0)) / m + math.sqrt(max(1 - phi * phi, 0.0) / m)
    phi = min(max(phi, 0.0), MAX_PERSISTENCE)
    innovations = deviations[1:] - phi * deviations[:-1]
    _, robust = robust_centre_scale(innovations)
    robust = robust if robust > 0 else float(np.std(innovations)) or spread
    limit = clip_limit(np.abs(innovations), clip * robust, max_clipped)
    bounded = np.clip(innovations, -limit, limit)
    scale = float(np.sqrt(np.mean(bounded * bounded))) or robust
    far = float(np.mean(np.abs(values - centre) > CLIP * spread))
    tied = bool(m) and float(np.median(np.abs(values - centre))) == 0.0
    return Reference(mean=mean, persistence=phi, scale=scale, points=m, bound=limit / scale,
                     far_share=far, tied=tied)


#: a change inside a relearn buffer counts when its selection-adjusted p-value is below this:
#: the offline detector then finds one in 1-3% of 100-point buffers of AR(0.5) or t(3) noise
#: with no change (8% of AR(0.9)), and 94 of 100 2-SD steps (57 of 1.5-SD)
RELEARN_P = 0.01


#: while a relearn buffer ends in a climb, it is not learnt from (:func:`relearn_cut`) - up to
#: this many times ``warmup`` values; then from the latest ``warmup`` of them, as before
MAX_WAIT = 5


@dataclass(frozen=True)
class RelearnCut:
    """What a relearn buffer holds (:func:`relearn_cut`): learn from ``start`` on (0: all of
    it); ``changes``, where changes inside it began that are alarms of their own, in order;
    ``wait``: it ends in a climb, so no reference is learnt yet."""
    start: int = 0
    changes: tuple[int, ...] = ()
    wait: bool = False


def relearn_cut(values: np.ndarray, warmup: int, climbs: bool = True) -> RelearnCut:
    """Where the reference of a relearn buffer starts, by the offline detector's regimes of it
    (changes with a selection-adjusted p-value below ``RELEARN_P``).

    An online detector learns its reference again after an alarm from the next ``warmup``
    values.  A second change among them was learnt into the reference and missed - a 2-SD step
    60 points after another: CUSUM 59 of 60 missed, BOCPD 25 of 60 - as persistence: a step
    inside the buffer reads as AR(1) persistence near 1, and the whitened step is then tiny.
    So a step between two levels is an alarm, and the reference is learnt after it - each step,
    when the levels before it step more than once (A2C Pong, below: jumps at 259 and 281; the
    latest alone read "change from 281", after most of the move).  A climb
    was learnt the same way: A2C's Pong reward (tests/fixtures/real/sb3) crept from -20 to -17
    (an alarm at episode 199), jumped to +18 over episodes 259-290 inside the next buffer,
    whose reference read persistence 0.95 and a level of -6.8, and the new level was never
    alarmed; PPO Hopper's reward crept from ~18 to ~48 over 5,000 episodes with no alarm.  So
    while the buffer ends in a climb nothing is learnt (``wait``; up to ``MAX_WAIT`` times
    ``warmup`` values, then the latest ``warmup``), and once the climb has levelled off the
    reference is learnt from the level after it - with an alarm where the climb began if a
    level of at least ``warmup / 4`` values came before it in the buffer, none if it is the
    climb already alarmed.  (Cut at a climb's start instead, the next buffer bent again, and
    the alarms were a staircase: TD3 Humanoid, CUSUM 14 -> 28.)  Without ``climbs`` (a
    detector whose "no change" is a line, which a climb is) only steps cut the buffer.

    >>> rng = np.random.default_rng(1)
    >>> relearn_cut(np.r_[rng.normal(2, 1, 60), rng.normal(4, 1, 40)], 100)
    RelearnCut(start=60, changes=(60,), wait=False)
    >>> cut = relearn_cut(np.r_[np.linspace(0, 6, 60), np.full(60, 6.0)] + rng.normal(0, 0.5, 120), 100)
    >>> cut.changes, abs(cut.start - 60) <= 5   # the climb already alarmed: learnt after it
    ((), True)
    >>> relearn_cut(np.r_[np.zeros(40), np.linspace(0, 6, 60)] + rng.normal(0, 0.5, 100), 100).wait
    True
    """
    from .offline import detect_regimes

    result = detect_regimes(np.asarray(values, dtype=np.float64))
    strengths = result.strengths
    found = strengths[strengths["pvalue_adjusted"] < RELEARN_P] if len(strengths) else strengths
    if not len(found):
        return RelearnCut()
    starts = set(found["changepoint"].astype(int))
    start = max(starts)
    segments = result.segments
    last = segments[segments["start"] == start]
    before = segments[segments["end"] == start]
    if not climbs and (last["sloped"].any() or before["sloped"].any()):
        return RelearnCut()
    if last["sloped"].any():  # it is climbing now
        return RelearnCut(start=len(values) - warmup) if len(values) >= MAX_WAIT * warmup else RelearnCut(wait=True)
    if not before["sloped"].any():  # a step between two levels, and any steps into the level before
        steps = [start]
        while True:
            level = segments[segments["end"] == steps[0]]
            first = int(level["start"].iloc[0]) if len(level) else 0
            if first not in starts or level["sloped"].any():
                break
            steps.insert(0, first)
        return RelearnCut(start=start, changes=tuple(steps))
    began = int(before["start"].iloc[0])
    level = segments[segments["end"] == began]  # a level of its own before the climb
    own = began in starts and len(level) and int(level["n"].iloc[0]) >= max(warmup // 4, 1)
    return RelearnCut(start=start, changes=(began,) if own else ())


def look_at_buffer(buffer: list[float], warmup: int, model: str) -> tuple[RelearnCut, int]:
    """:func:`relearn_cut` of a detector's relearn ``buffer`` (a climb counts only where "no
    change" is a level), and the buffer's length at which to try again: a quarter of
    ``warmup`` later while it climbs (the offline detector is not run at every value), else
    ``warmup``."""
    cut = relearn_cut(np.asarray(buffer), warmup, climbs=model == "level")
    return cut, len(buffer) + max(warmup // 4, 1) if cut.wait else warmup
