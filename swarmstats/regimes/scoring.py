"""Comparing detected changepoints with annotated ones.

Conventions (``shared/reference/changepoint-methods.md`` §8): a changepoint is
the first index of a new segment; index 0 is never a changepoint.  Matching is
greedy and one-to-one: true points in increasing order, each matched to the
nearest unused prediction within ``margin``.  P = 1 when nothing is predicted,
R = 1 when nothing is true, F1 = 0 when P + R = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = ["f1_score", "covering", "PrecisionRecall"]


@dataclass(frozen=True)
class PrecisionRecall:
    precision: float
    recall: float
    f1: float
    true_positives: int


def _points(points, n: int | None, name: str) -> list[int]:
    values = sorted({int(p) for p in points})
    if any(p <= 0 for p in values) or (n is not None and any(p >= n for p in values)):
        raise InputError(f"{name}: changepoints must lie in 1..n-1, got {values}")
    return values


def _true_positives(truth: list[int], predicted: list[int], margin: int) -> int:
    used = [False] * len(predicted)
    hits = 0
    for point in truth:
        best, best_distance = None, None
        for i, guess in enumerate(predicted):
            distance = abs(guess - point)
            if not used[i] and distance <= margin and (best_distance is None or distance < best_distance):
                best, best_distance = i, distance
        if best is not None:
            used[best] = True
            hits += 1
    return hits


def f1_score(truth, predicted, *, margin: int = 5, n: int | None = None,
             count_start: bool = False) -> PrecisionRecall:
    """Precision, recall and F1 of ``predicted`` changepoints against ``truth``.

    ``truth`` may be one list of changepoints or a list of several annotators'
    lists; then P uses the union of the annotations and R their mean recall.
    ``count_start=True`` counts index 0 as a changepoint in every set, as the
    Turing Change Point Dataset's evaluation does (van den Burg & Williams
    2020), so that "no change" against "no change" scores 1 either way and
    published TCPD numbers can be compared.

    >>> f1_score([30, 70], [28, 50, 75], margin=5)
    PrecisionRecall(precision=0.6666666666666666, recall=1.0, f1=0.8, true_positives=2)
    >>> round(f1_score([[30, 70], []], [], count_start=True).f1, 4)
    0.8
    """
    if margin < 0:
        raise InputError(f"margin must be >= 0, got {margin}")
    annotations = truth if truth and all(np.ndim(t) == 1 for t in truth) else [truth]
    annotations = [_points(t, n, "truth") for t in annotations]
    guesses = _points(predicted, n, "predicted")
    if count_start:
        annotations = [[0, *t] for t in annotations]
        guesses = [0, *guesses]
    union = sorted(set().union(*map(set, annotations)))
    hits_union = _true_positives(union, guesses, margin)
    precision = hits_union / len(guesses) if guesses else 1.0
    recalls = [(_true_positives(t, guesses, margin) / len(t)) if t else 1.0 for t in annotations]
    recall = float(np.mean(recalls))
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return PrecisionRecall(precision=precision, recall=recall, f1=f1, true_positives=hits_union)


def _segments(points: list[int], n: int) -> list[tuple[int, int]]:
    bounds = [0, *points, n]
    return list(zip(bounds[:-1], bounds[1:]))


def covering(truth, predicted, n: int) -> float:
    """Segmentation covering C(predicted, truth) (Arbelaez et al. 2011), averaged over annotators.

    >>> round(covering([30, 70], [28, 50, 75], 100), 6)
    0.720476
    """
    annotations = truth if truth and all(np.ndim(t) == 1 for t in truth) else [truth]
    guess = _segments(_points(predicted, n, "predicted"), n)
    scores = []
    for annotation in annotations:
        total = 0.0
        for a_start, a_end in _segments(_points(annotation, n, "truth"), n):
            best = 0.0
            for b_start, b_end in guess:
                overlap = min(a_end, b_end) - max(a_start, b_start)
                if overlap > 0:
                    best = max(best, overlap / (max(a_end, b_end) - min(a_start, b_start)))
            total += (a_end - a_start) * best
        scores.append(total / n)
    return float(np.mean(scores))
