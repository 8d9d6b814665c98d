"""Metrics that are proportions by their name: a success or win rate lies in [0, 1].

An interval for the mean of such a metric may be cut at 0 and 1 whatever the series holds:
the true mean lies there, so the cut never costs coverage.  (The cut to the values' own range,
:func:`swarmstats._kernels.precision.within_range`, needs enough effective values, since a
short persistent stretch can lie wholly on one side of its mean.)  A real HER run on
FetchPickAndPlace, its test success rate at 0.92-0.98 over its last 13 epochs with 4 effective
values, read "0.918 [0.820, 1.061]".

Only names that say a rate of successes are taken - an accuracy may be printed in percent
(DeiT's ``test_acc1``: 81.2) - and only when every finite value lies in [0, 1].
"""

from __future__ import annotations

import re

import numpy as np

from ._names import metric_part, normalise

#: a share of successes, wins or solved tasks by its name (compared normalised: no case, "_"
#: for separators): success_rate, test/success_rate, eval/success, win_rate, battle_won_mean,
#: is_success, solve_rate, pass_rate
_PROPORTION = re.compile(r"(^|_)(success|successes|win|won|wins|solve|solved|pass|passed)"
                         r"(_rate|_ratio|_frac|_fraction|_mean)?$"
                         r"|(^|_)battle_won_mean$|(^|_)is_success$")


def is_proportion_name(name) -> bool:
    """Does ``name`` say a rate of successes (a streaming window checks each value as it comes)?
    A run's label appended by the commands is not part of it (pymarl's ``test_battle_won_mean
    [run=1]`` read "0.639 [0.368, 1.047]").

    >>> is_proportion_name("eval/success"), is_proportion_name("test_acc1")
    (True, False)
    >>> is_proportion_name("test_battle_won_mean [run=1]"), is_proportion_name("success [env=Hopper-v3]")
    (True, True)
    """
    return name is not None and _PROPORTION.search(normalise(metric_part(name))) is not None


def proportion_bounds(name, values) -> tuple[float, float] | None:
    """(0, 1) when ``name`` says a rate of successes and every finite value lies in [0, 1];
    else None.

    >>> proportion_bounds("test/success_rate", [0.1, 0.95, 1.0]), proportion_bounds("reward", [0.5])
    ((0.0, 1.0), None)
    >>> proportion_bounds("success_rate", [12.0, 87.5])   # printed in percent: no bound known
    """
    if not is_proportion_name(name):
        return None
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if not len(finite) or finite.min() < 0.0 or finite.max() > 1.0:
        return None
    return 0.0, 1.0


def within_bounds(interval: tuple[float, float], bounds: tuple[float, float] | None) -> tuple[float, float]:
    """``interval`` cut to ``bounds`` (None: unchanged); a NaN end stays NaN.

    >>> within_bounds((0.82, 1.061), (0.0, 1.0)), within_bounds((0.82, 1.061), None)
    ((0.82, 1.0), (0.82, 1.061))
    """
    if bounds is None:
        return interval
    low, high = interval
    return (low if np.isnan(low) else max(low, bounds[0]), high if np.isnan(high) else min(high, bounds[1]))
