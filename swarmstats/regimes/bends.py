"""Bends and jumps: what kind of change each of the "trend" model's changes is, and what a
segmentation made only of bends that ease one movement says about the curve.

A smooth curve - a loss that flattens as 1/t, a climb that saturates - is not made of lines,
and the level-or-line search cuts it where one line stops fitting: a real Whisper fine-tune's
loss (2,000 points) read "5 regimes, changes at 700, 3350, 13600, 40100", each "-30 to -5
noise SDs" at p < 1e-29.  Each cut is real in the sense that one line does not fit across it,
but nothing happened there; a reader of the curve sees no event.  The changes' kinds and the
curve note say so.
"""

from __future__ import annotations

import numpy as np


def hinge_rss(y: np.ndarray, knot: int) -> float:
    """Residual sum of squares of the continuous broken line a + b t + c (t - knot)+ through
    ``y``: the fit :func:`broken_stick` scans, at one bend.

    >>> t = np.arange(50.0)
    >>> round(hinge_rss(np.where(t < 20, 1.0, 1.0 + 0.5 * (t - 20)), 20), 12)
    0.0
    """
    y = np.asarray(y, dtype=np.float64)
    t = np.arange(len(y), dtype=np.float64)
    design = np.column_stack([np.ones_like(t), t - t.mean(), np.maximum(t - knot, 0.0)])
    centred = y - y.mean()
    coefficients = np.linalg.lstsq(design, centred, rcond=None)[0]
    residuals = centred - design @ coefficients
    return float(residuals @ residuals)


def change_kinds(y: np.ndarray, changepoints: list, jump_penalty: float) -> list:
    """"bend" or "jump" for each change: a bend where the lines either side meet - one
    continuous broken line through both regimes costs at most ``jump_penalty`` more than two
    free lines (the rule :func:`place_bends` places bends by) - else a jump.  A smooth curve
    cut into lines has only bends; a level that moves at once, a jump."""
    from .costs import LinearCost

    lines = LinearCost(y)
    bounds = [0, *changepoints, len(y)]
    kinds = []
    for start, point, end in zip(bounds[:-2], bounds[1:-1], bounds[2:]):
        free = float(lines.cost(np.array([start]), point)[0] + lines.cost(np.array([point]), end)[0])
        kinds.append("bend" if hinge_rss(y[start:end], point - start) <= free + jump_penalty else "jump")
    return kinds


def curve_note(slopes: list, kinds: list) -> str | None:
    """A note when the regimes are three or more and every change is a bend along one
    movement whose pace only eases: ``slopes`` are the regimes' slopes per step (0 for a
    level), ``kinds`` the changes' (:func:`change_kinds`).  None otherwise - a climb between
    two plateaus, a jump anywhere, a fall that turns into a rise, one bend alone (a kink or a
    curve: two lines cannot tell), and a pace that steepens (where a climb takes off is an
    event a reader looks for, smooth or not).

    >>> curve_note([-0.3, -0.05, -0.01, 0.0], ["bend"] * 3)
    "every change is a bend where one fall eases, none a jump: the shape of a smooth curve (a loss that flattens) drawn as lines, so these changes may mark only where one line stops fitting - an event only if something happened there (a schedule's step)"
    >>> curve_note([0.0, 0.5, 0.0], ["bend", "bend"]) is None   # a climb between plateaus
    True
    >>> curve_note([0.01, 0.2, 1.5], ["bend", "bend"]) is None   # a take-off
    True
    """
    if len(kinds) < 2 or any(kind != "bend" for kind in kinds):
        return None
    moving = [s for s in slopes if s != 0]
    if len(moving) < 2 or len({np.sign(s) for s in moving}) != 1:
        return None
    if not np.all(np.diff(np.abs(np.asarray(slopes, dtype=np.float64))) < 0):
        return None
    way, example = (("fall", "a loss that flattens") if moving[0] < 0 else ("climb", "a climb that saturates"))
    return (f"every change is a bend where one {way} eases, none a jump: the shape of a smooth curve "
            f"({example}) drawn as lines, so these changes may mark only where one line stops fitting - "
            "an event only if something happened there (a schedule's step)")
