"""Student's quantiles and the test plans of each window length, shared by every window in
the process."""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats

from .._kernels.window_tests import RecentPlan, length_grid


# Quantiles and test plans are shared by every window in the process: `fit` runs a fresh
# window each call, and refilling per-window caches (a scipy quantile ~150 us, a plan ~40 us,
# for each of ~100-500 lengths and degrees of freedom) cost ~15 us a step on 2,000-point fits.
@functools.lru_cache(maxsize=4096)
def t_isf(tail: float, dof: int) -> float:
    return float(stats.t.isf(tail, dof))


@functools.lru_cache(maxsize=4096)
def t_ppf(level: float, dof: int) -> float:
    return float(stats.t.ppf(level, dof))


#: plans for windows up to this long (the default max_length's) are shared, at most 600 of
#: them: the default window's ~500 plans hold ~5 MB (measured); a longer window keeps its own
#: plans, freed with it
SHARED_PLAN_LENGTH = 512


@functools.lru_cache(maxsize=600)
def shared_plan(length: int, max_length: int, min_length: int) -> RecentPlan:
    return recent_plan(length, max_length, min_length)


def recent_plan(length: int, max_length: int, min_length: int) -> RecentPlan:
    """The test plan for a window of ``length`` points: the grid's lengths that fit, the whole
    window and its half (for the "does the trend go on?" check).  Read-only once made."""
    longest = length_grid(max_length)
    grid = np.unique(np.concatenate([longest[longest <= length], (length, length // 2)]))
    return RecentPlan(length, grid[grid >= longest[0]], min_length)
