"""The penalty path (CROPS; Haynes, Eckley & Fearnhead 2017): every optimal
segmentation for penalties in [low, high], with at most
m(low) - m(high) + 2 PELT runs, and an automatic choice at the elbow of cost
against number of changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._input.series import as_series
from .._result import Result, fmt
from ..errors import InputError
from .offline import RegimeDetector
from .pelt import pelt

__all__ = ["regime_path", "RegimePath"]


@dataclass(frozen=True, repr=False)
class RegimePath(Result):
    """Distinct optimal segmentations over a penalty range, fewest changes last."""

    table: pd.DataFrame  # n_changepoints, cost, penalty_low, penalty_high, changepoints
    chosen: list
    chosen_penalty: float
    pelt_runs: int
    _curve: np.ndarray = field(default=None, repr=False)

    def summary(self) -> str:
        lines = [f"penalty path: {len(self.table)} distinct segmentations from {self.pelt_runs} PELT runs; "
                 f"elbow at {len(self.chosen)} change(s) (penalty {fmt(self.chosen_penalty)})"]
        for row in self.table.to_dict("records"):
            lines.append(f"  {row['n_changepoints']:>3} changes for penalties "
                         f"[{fmt(row['penalty_low'])}, {fmt(row['penalty_high'])}], cost {fmt(row['cost'])}")
        return "\n".join(lines)

def regime_path(y, penalties=None, **detector_options) -> RegimePath:
    """Every distinct optimal segmentation for penalties in ``penalties = (low, high)``.

    The cost is the detector's (``model``: ``"mean"`` by default here, not
    ``"kernel"`` or ``"trend"``, whose penalty is chosen with the noise; ``min_size``
    ...; ``penalty`` and ``method`` are ignored: the path is exact PELT).  Without ``penalties`` the range is the detector's BIC penalty
    / 20 to x 20.  ``min_effect`` merging is not applied along the path: each
    entry is an exact optimum.  The elbow: the segmentation furthest below the
    chord of (changes, cost) between the two ends, both axes scaled to [0, 1].

    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0.0, 3.0, 0.5], [100, 100, 100]) + rng.normal(size=300)
    >>> regime_path(y).chosen
    [100, 200]
    """
    detector = RegimeDetector(**{"model": "mean", **detector_options})
    if detector.model in ("kernel", "trend"):
        raise InputError(f"regime_path needs one of the fixed-scale likelihood costs: model 'mean' (the default "
                         f"here), 'meanvar' or 'linear', not {detector.model!r}")
    values = as_series(y, min_length=1, nan_policy=detector.nan_policy).values
    if np.ptp(values) == 0:
        raise InputError("y: the series is constant; every penalty gives one regime")
    min_size = max(int(detector.min_size), 1)
    sd, tau, _ = detector._noise(values)
    cost, bic, _ = detector._cost_and_penalty(values, sd, tau, penalty="bic")
    if penalties is None:
        penalties = (bic / 20.0, bic * 20.0)
    low, high = (float(p) for p in penalties)
    if not (0 <= low < high and math.isfinite(high)):
        raise InputError(f"penalties must be (low, high) with 0 <= low < high, got {penalties!r}")
    if len(values) < 2 * min_size:
        raise InputError(f"y: needs at least 2 x min_size = {2 * min_size} points for a path, got {len(values)}")

    found: dict[float, tuple[list, float]] = {}

    def run(beta):
        if beta not in found:
            changepoints, _ = pelt(cost, beta, min_size)
            found[beta] = (changepoints, cost.total(changepoints))
        return found[beta]

    stack = [(low, high)]
    run(low), run(high)
    while stack:
        b0, b1 = stack.pop()
        (c0, q0), (c1, q1) = run(b0), run(b1)
        if len(c0) > len(c1) + 1:
            middle = (q1 - q0) / (len(c0) - len(c1))
            if not b0 < middle < b1:
                continue
            cm, _ = run(middle)
            if len(cm) != len(c1):
                stack += [(b0, middle), (middle, b1)]
    distinct: dict[int, tuple[list, float]] = {}
    for changepoints, value in found.values():
        distinct.setdefault(len(changepoints), (changepoints, value))
    counts = sorted(distinct, reverse=True)
    rows = []
    for i, k in enumerate(counts):
        changepoints, value = distinct[k]
        upper = high if i == len(counts) - 1 else (distinct[counts[i + 1]][1] - value) / (k - counts[i + 1])
        lower = low if i == 0 else rows[-1]["penalty_high"]
        rows.append({"n_changepoints": k, "cost": value, "penalty_low": lower,
                     "penalty_high": upper, "changepoints": changepoints})
    table = pd.DataFrame(rows)
    chosen_row = _elbow(table)
    return RegimePath(table=table, chosen=list(table.loc[chosen_row, "changepoints"]),
                      chosen_penalty=float(np.sqrt(max(table.loc[chosen_row, "penalty_low"], 1e-300)
                                                   * table.loc[chosen_row, "penalty_high"])),
                      pelt_runs=len(found), _curve=table[["n_changepoints", "cost"]].to_numpy())


def _elbow(table: pd.DataFrame) -> int:
    if len(table) <= 2:
        return int(table["cost"].idxmin()) if len(table) == 1 else len(table) - 1
    k = table["n_changepoints"].to_numpy(float)
    q = table["cost"].to_numpy(float)
    x = (k - k.min()) / (k.max() - k.min())
    y = (q - q.min()) / (q.max() - q.min()) if q.max() > q.min() else np.zeros_like(q)
    # the chord runs from (most changes, lowest cost) to (fewest changes, highest cost)
    below = (1.0 - x) - y  # distance under the line y = 1 - x
    return int(np.argmax(below))
