"""Robust location and scale."""

from __future__ import annotations

import numpy as np


def robust_centre_scale(x: np.ndarray) -> tuple[float, float]:
    """The median and a robust SD: 1.4826 MAD (consistent for normal data), or the
    plain SD when more than half the values tie (MAD 0); 0 only for a constant.

    >>> robust_centre_scale(np.array([0.0, 1.0, 2.0, 3.0, 100.0]))
    (2.0, 1.4826)
    """
    centre = float(np.median(x))
    scale = 1.4826 * float(np.median(np.abs(x - centre)))
    if scale <= 0:
        scale = float(np.std(x))
    return centre, scale
