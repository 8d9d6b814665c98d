"""Did the log show the run getting to the level it holds?  A converged verdict says a metric
is flat; a win rate at 0 for two million timesteps is flat too.  What tells a run that learned
and settled from one that never learned is its start: worse than the level it reached."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._kernels.distributions import norm_sf, t_sf

__all__ = ["BELOW_BEST", "HEAD_SHARE", "NO_IMPROVEMENT", "Best", "Start", "compare_best", "compare_start",
           "no_improvement_note", "worse_than_best_note"]

#: how the note on a converged run that showed no approach to its level begins
NO_IMPROVEMENT = "no improvement shown"
#: how the note on a run that settled worse than it had been before its warm-up cut begins
BELOW_BEST = "worse than its best"
#: the best stretch before the kept part is at least this many points (and 2 autocorrelation
#: times): a single lucky evaluation is not a level the run held
BEST_POINTS = 5
#: the level must be worse than the best stretch by this many tolerances: the warm-up cut is
#: placed where the start looks unlike the rest, so on stationary noise the part it sets aside
#: holds a stretch better than the level by a tolerance (0.75 noise SD) far more often than
#: the test's p-value says
REGRESSION_TOLERANCES = 2.0

#: the start compared with the rest: this share of the run.  Not the warm-up: a warm-up of
#: two points in white noise is two extreme values, not a start, and one that takes in a climb
#: and the peak after it (a policy that learned, then degraded to a lower level) averages
#: above the level that followed though the run began far below it
HEAD_SHARE = 0.1


@dataclass(frozen=True)
class Start:
    """The first ``length`` points' mean against the rest's (``level``), and whether the start
    was worse by more than noise (one-sided, at ``alpha``)."""

    length: int
    mean: float
    level: float
    pvalue: float
    improved: bool


def no_improvement_note(reasons) -> str | None:
    """The note a converged verdict's reasons hold when the log showed no improvement, if any
    (what a CI annotation lifts out of the reasons).

    >>> no_improvement_note(["flat within +-1", "no improvement shown: ..."])
    'no improvement shown: ...'
    """
    return next((reason for reason in reasons or () if str(reason).startswith(NO_IMPROVEMENT)), None)


@dataclass(frozen=True)
class Best:
    """The best ``length`` consecutive points before the kept part (from index ``first``),
    their mean against the kept part's (``level``), how much worse the level is (``loss``, on
    the metric's better side), and the one-sided p-value of that, Bonferroni over the
    ``stretches`` starting points the best was picked from."""

    first: int
    length: int
    mean: float
    level: float
    loss: float
    pvalue: float
    stretches: int


def compare_best(values: np.ndarray, start: int, tau: float, sd: float, better: str, alpha: float,
                 tolerance: float) -> Best | None:
    """The run's best stretch before its kept part (``values[start:]``) when the kept part is
    worse by more than REGRESSION_TOLERANCES x ``tolerance`` and beyond noise (one-sided at
    ``alpha``, Bonferroni over every start the stretch could have had; the noise is the kept
    part's: ``sd`` and its autocorrelation time ``tau``); None otherwise.

    Why: a converged verdict says the metric is flat now, not that it is at its best.  A real
    fine-tune's evaluation loss (tests/fixtures/real/hf) fell to 1.11 after one epoch, climbed
    while the training loss kept falling, and has held ~2.6 for the last 15 epochs: the
    warm-up cut sets the climb aside and the verdict judges the plateau, which says nothing of
    the better checkpoint before it.

    >>> eval_loss = np.r_[5.7, 1.1, 1.1, 1.3, 1.5, 1.6, np.linspace(1.8, 2.6, 9), 2.6 + np.tile([0.1, -0.1], 8)]
    >>> best = compare_best(eval_loss, 15, 1.0, 0.1, "lower", 0.05, 0.075)
    >>> best.first, best.length, round(best.mean, 2), round(best.loss, 2)
    (1, 5, 1.32, 1.28)
    >>> compare_best(eval_loss, 15, 1.0, 0.1, "higher", 0.05, 0.075) is None   # higher: the level is the best
    True
    """
    length = max(BEST_POINTS, int(math.ceil(2.0 * max(tau, 1.0))))
    before, kept = values[:start], values[start:]
    if len(before) < length or len(kept) < 2 or not sd > 0:
        return None
    sums = np.concatenate([[0.0], np.cumsum(before)])
    means = (sums[length:] - sums[:-length]) / length
    first = int(np.argmin(means) if better == "lower" else np.argmax(means))
    mean, level = float(means[first]), float(kept.mean())
    loss = (level - mean) if better == "lower" else (mean - level)
    if not loss > REGRESSION_TOLERANCES * tolerance:
        return None
    stretches = len(means)  # every position was a candidate (conservative: they overlap)
    spread = sd * math.sqrt(max(tau, 1.0) * (1.0 / length + 1.0 / len(kept)))
    # Student's t on the kept part's effective size: its sd and tau are read from it, and on a
    # short persistent run both come out small (AR(0.9) noise, 50 points: 13% of runs said
    # worse than their best on the normal law)
    dof = max(len(kept) / max(tau, 1.0) - 1.0, 1.0)
    pvalue = min(1.0, t_sf(loss / spread, dof) * stretches)
    if not pvalue < alpha:
        return None
    return Best(first=first, length=length, mean=mean, level=level, loss=loss, pvalue=pvalue, stretches=stretches)


def worse_than_best_note(reasons) -> str | None:
    """The reason saying a run settled worse than its best, if any (what a CI annotation lifts).

    >>> worse_than_best_note(["flat within +-1", "worse than its best: ..."])
    'worse than its best: ...'
    """
    return next((reason for reason in reasons or () if str(reason).startswith(BELOW_BEST)), None)


def compare_start(values: np.ndarray, tau: float, better: str, alpha: float) -> Start | None:
    """The run's first tenth against the rest, on the side ``better`` ("higher" or
    "lower"), the rest's noise counted with its autocorrelation time ``tau``; None when the
    rest is too short to compare.

    >>> rng = np.random.default_rng(0)
    >>> compare_start(rng.normal(0.5, 0.1, 200), 1.0, "higher", 0.05).improved
    False
    >>> climb = np.concatenate([np.linspace(0, 0.5, 30), rng.normal(0.5, 0.1, 170)])
    >>> compare_start(climb, 1.0, "higher", 0.05).improved
    True
    """
    length = max(int(math.ceil(HEAD_SHARE * len(values))), 1)
    head, rest = values[:length], values[length:]
    if len(rest) < 2:
        return None
    mean, level = float(head.mean()), float(rest.mean())
    gain = (level - mean) if better == "higher" else (mean - level)
    # the start's own scatter is that of the transient, not noise: the rest's sets the scale
    spread = float(rest.std(ddof=1)) * math.sqrt(max(tau, 1.0) * (1.0 / length + 1.0 / len(rest)))
    if gain <= 1e-12 * max(abs(mean), abs(level)):  # (a difference of round-off is none)
        pvalue = 1.0
    elif spread == 0:
        pvalue = 0.0  # a held level after worse values: the start was worse, without noise
    else:
        pvalue = norm_sf(gain / spread)
    return Start(length=length, mean=mean, level=level, pvalue=pvalue, improved=pvalue < alpha)
