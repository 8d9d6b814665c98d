"""Did the log show the run getting to the level it holds?  A converged verdict says a metric
is flat; a win rate at 0 for two million timesteps is flat too.  What tells a run that learned
and settled from one that never learned is its start: worse than the level it reached."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._kernels.distributions import norm_sf

__all__ = ["HEAD_SHARE", "NO_IMPROVEMENT", "Start", "compare_start", "no_improvement_note"]

#: how the note on a converged run that showed no approach to its level begins
NO_IMPROVEMENT = "no improvement shown"

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
