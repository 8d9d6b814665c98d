"""Calibration and discrimination of probabilities against 0/1 outcomes.

numpy in, numpy out.  Conventions follow SWARM's metric code (swarm-metrics.md
section 7): log loss clips p to [1e-15, 1 - 1e-15]; the reliability table has
10 equal bins [b/10, (b+1)/10) with the last closed at 1.0 (edges compared
exactly, where SWARM's b * 0.1 moves p = 0.3, 0.6, 0.7 down a bin), and an empty bin is
reported as (midpoint, 0, 0) and contributes nothing to the ECE; AUC counts
ties as one half and is undefined when a class is missing.
"""

from __future__ import annotations

import math

import numpy as np

from .bootstrap import wilson_interval
from .bounded_mean import bounded_mean_interval, difference_of_intervals
from .cluster_variance import design_effect
from .distributions import average_ranks
from .mann_whitney import mann_whitney_interval, pair_variance

CLIP = 1e-15


def brier_score(p: np.ndarray, y: np.ndarray) -> float:
    """Mean squared difference between probability and outcome.

    >>> round(brier_score(np.array([0.9, 0.8, 0.3, 0.6, 0.2]), np.array([1, 0, 0, 1, 0])), 12)
    0.188
    """
    return float(np.mean((p - y) ** 2))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """-mean(y ln p + (1 - y) ln(1 - p)), p clipped to [1e-15, 1 - 1e-15].

    >>> round(log_loss(np.array([0.9, 0.8, 0.3, 0.6, 0.2]), np.array([1, 0, 0, 1, 0])), 6)
    0.561089
    """
    q = np.clip(p, CLIP, 1 - CLIP)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log1p(-q)))


def reliability_bins(p: np.ndarray, y: np.ndarray, bins: int = 10):
    """Per equal-width bin: (lower edge, upper edge, count, mean p, share of positives).

    The last bin includes 1.0.  Empty bins report the bin midpoint as mean p
    and 0 as the share (SWARM's convention).
    """
    edges = np.arange(bins + 1) / bins
    # exact comparisons with the edges b / bins (SWARM compares with b * (1 / bins), which puts
    # p = 0.3, 0.6 and 0.7 one bin lower through rounding); 1.0 joins the last bin
    index = np.minimum(np.searchsorted(edges, p, side="right") - 1, bins - 1)
    count = np.bincount(index, minlength=bins).astype(float)
    sum_p = np.bincount(index, weights=p, minlength=bins)
    sum_y = np.bincount(index, weights=y, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.where(count > 0, sum_p / count, (edges[:-1] + edges[1:]) / 2)
        share = np.where(count > 0, sum_y / count, 0.0)
    return edges[:-1], edges[1:], count, mean_p, share


def calibration_errors(p: np.ndarray, y: np.ndarray, bins: int = 10) -> tuple[float, float]:
    """(ECE, MCE): count-weighted and maximum |mean p - share| over non-empty bins.

    >>> ece, mce = calibration_errors(np.array([0.9, 0.8, 0.3, 0.6, 0.2]), np.array([1, 0, 0, 1, 0]))
    >>> round(ece, 6), round(mce, 6)
    (0.36, 0.8)
    """
    _, _, count, mean_p, share = reliability_bins(p, y, bins)
    gaps = np.abs(mean_p - share)
    used = count > 0
    return float(np.sum(count[used] * gaps[used]) / len(p)), float(gaps[used].max())


def auc(p: np.ndarray, y: np.ndarray) -> float:
    """Mann-Whitney concordance P(p_pos > p_neg) + P(tie)/2; NaN if a class is missing.

    From average ranks in O(n log n), not the O(n_pos n_neg) pair loop.

    >>> round(auc(np.array([0.9, 0.8, 0.3, 0.6, 0.2]), np.array([1, 0, 0, 1, 0])), 6)
    0.833333
    """
    positives = int(np.sum(y))
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    ranks = average_ranks(p)
    rank_sum = float(ranks[y == 1].sum())
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


#: fewer outcomes than this in a class: the AUC's interval keeps Hanley & McNeil's variance,
#: whose DeLong estimate is too noisy to scale it by
DELONG_MIN_CLASS = 5


def delong_variance(p: np.ndarray, y: np.ndarray) -> float:
    """DeLong, DeLong & Clarke-Pearson's (1988) nonparametric variance of the AUC: each
    positive's share of negatives it beats and each negative's share of positives that beat it
    (ties half), their variances over the two class sizes; NaN if a class has fewer than 2.

    >>> round(delong_variance(np.array([0.9, 0.8, 0.3, 0.6, 0.2, 0.7]), np.array([1, 0, 0, 1, 0, 1])), 6)
    0.061728
    """
    positives = y == 1
    m, n = int(positives.sum()), int((~positives).sum())
    if m < 2 or n < 2:
        return float("nan")
    return _placement_variance(*_placements(p, positives))


def _placement_variance(beaten: np.ndarray, beating: np.ndarray) -> float:
    """DeLong's variance from the two classes' placement values."""
    return float(beaten.var(ddof=1) / len(beaten) + beating.var(ddof=1) / len(beating))


def _placements(p: np.ndarray, positives: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's placement values: each positive's share of negatives it beats, each negative's
    share of positives that beat it (ties half); each set's mean is the AUC."""
    m = int(positives.sum())
    n = len(p) - m
    pooled = average_ranks(p)
    beaten = (pooled[positives] - average_ranks(p[positives])) / n
    beating = 1.0 - (pooled[~positives] - average_ranks(p[~positives])) / m
    return beaten, beating


def auc_interval(p: np.ndarray, y: np.ndarray, level: float = 0.95,
                 clusters: np.ndarray | None = None) -> tuple[float, float]:
    """Score interval of the AUC: the Mann-Whitney score interval
    (:func:`~swarmstats._kernels.mann_whitney.mann_whitney_interval`), its Hanley & McNeil
    variance scaled up to DeLong's estimate where that is larger and each class has at least
    :data:`DELONG_MIN_CLASS` outcomes.  Hanley & McNeil's alone, which assumes exponential-like
    scores, covered 91-92% on some score distributions; scaled to DeLong's both ways, 91-92% where
    a class had ~10 outcomes or the AUC was near 1 (DeLong's estimate is itself noisy there);
    the larger of the two 93-99% (docs/proxy.md).  NaN if a class is missing.

    ``clusters`` (codes 0 .. G - 1, e.g. each outcome's agent): the variance is also scaled by
    the clusters' design effect on DeLong's placement values (Obuchowski's clustered AUC,
    :func:`~swarmstats._kernels.cluster_variance.design_effect`): 20 agents' 1,000 outcomes,
    taken as independent, held the population's AUC 55-78% of the time; so 93-96%.

    >>> low, high = auc_interval(np.array([0.9, 0.8, 0.3, 0.6, 0.2, 0.7]), np.array([1, 0, 0, 1, 0, 1]))
    >>> round(low, 3), round(high, 3)
    (0.28, 0.976)
    """
    positives = int(np.sum(y))
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        return float("nan"), float("nan")
    estimate = auc(p, y)
    ratio = 1.0
    if min(positives, negatives) < 2:
        return mann_whitney_interval(estimate, positives, negatives, level)
    placements = _placements(p, y == 1)  # ranked once for DeLong's variance and the clusters'
    if min(positives, negatives) >= DELONG_MIN_CLASS:
        shape, spread = pair_variance(estimate, positives, negatives), _placement_variance(*placements)
        if shape > 0 and spread > shape:
            ratio = spread / shape
    if clusters is not None:
        ratio *= design_effect(_placement_influence(y == 1, placements, estimate), clusters, level)
    return mann_whitney_interval(estimate, positives, negatives, level, variance_ratio=ratio)


def _placement_influence(positives: np.ndarray, placements: tuple, estimate: float) -> np.ndarray:
    """Each outcome's influence on the AUC: its placement value less the AUC, over its
    class's size (their squares add up to DeLong's variance, on m and n rather than m - 1 and
    n - 1)."""
    beaten, beating = placements
    influence = np.empty(len(positives))
    influence[positives] = (beaten - estimate) / len(beaten)
    influence[~positives] = (beating - estimate) / len(beating)
    return influence


def calibration_error_interval(p: np.ndarray, y: np.ndarray, level: float = 0.95,
                               clusters: np.ndarray | None = None) -> tuple[float, float]:
    """Interval of E[p] - E[y], calibration in the large: the mean p's score interval and the
    outcome rate's Wilson interval, combined for paired data by their correlation (Zou &
    Donner's dependent form of Newcombe's method).  Student's t of the mean of p - y covered
    40% / 62% with 10 / 20 outcomes of a 5% event (no positive seen, the error reads E[p]
    alone) and 84-87% with 10-20 outcomes of a 92% one; this 91-96% from 10 outcomes, 93-96%
    from 20 (docs/proxy.md).

    ``clusters`` (codes 0 .. G - 1, e.g. each outcome's agent): both ends are moved away from
    the estimate by the square root of the clusters' design effect on p - y
    (:func:`~swarmstats._kernels.cluster_variance.design_effect`): agents whose p run high or
    low by their own bias, 20 of them with 50 outcomes each, taken as independent, held the
    population's E[p] - E[y] 73-78% of the time; so 95-96%.

    >>> low, high = calibration_error_interval(np.array([0.9, 0.8, 0.3, 0.6, 0.2]), np.array([1, 0, 0, 1, 0]))
    >>> round(low, 3), round(high, 3)
    (-0.164, 0.421)
    """
    if len(p) < 2:
        return float("nan"), float("nan")
    successes = float(np.sum(y))
    rate_low, rate_high = (float(v) for v in wilson_interval(successes, len(y), level))
    mean_low, mean_high = bounded_mean_interval(p, level)
    varies = 0 < successes < len(y) and np.ptp(p) > 0
    correlation = float(np.corrcoef(p, y)[0, 1]) if varies else 0.0
    low, high = difference_of_intervals((float(np.mean(p)), mean_low, mean_high),
                                        (successes / len(y), rate_low, rate_high), correlation)
    if clusters is None:
        return low, high
    error = p - y
    estimate = float(error.mean())
    widen = math.sqrt(design_effect(error - estimate, clusters, level))
    return max(-1.0, estimate - (estimate - low) * widen), min(1.0, estimate + (high - estimate) * widen)
