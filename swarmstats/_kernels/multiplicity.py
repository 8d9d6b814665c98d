"""Adjusting many p-values at once.  numpy in, numpy out."""

from __future__ import annotations

import numpy as np


def holm_adjusted(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control; NaN stays NaN): reject
    every hypothesis whose adjusted p is below alpha.

    >>> holm_adjusted([0.01, 0.04, 0.03, np.nan]).round(3)
    array([0.03, 0.06, 0.06,  nan])
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    defined = np.flatnonzero(np.isfinite(p))
    order = defined[np.argsort(p[defined], kind="stable")]
    m = len(order)
    scaled = (m - np.arange(m)) * p[order]
    out[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return out
