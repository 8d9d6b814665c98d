"""Calibration and discrimination of probabilities against 0/1 outcomes.

numpy in, numpy out.  Conventions follow SWARM's metric code (swarm-metrics.md
section 7): log loss clips p to [1e-15, 1 - 1e-15]; the reliability table has
10 equal bins [b/10, (b+1)/10) with the last closed at 1.0 (edges compared
exactly, where SWARM's b * 0.1 moves p = 0.3, 0.6, 0.7 down a bin), and an empty bin is
reported as (midpoint, 0, 0) and contributes nothing to the ECE; AUC counts
ties as one half and is undefined when a class is missing.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

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
    ranks = stats.rankdata(p)
    rank_sum = float(ranks[y == 1].sum())
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)
