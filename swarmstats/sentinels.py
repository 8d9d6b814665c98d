"""Values a logger writes where a metric is undefined: read as missing, one rule for every reader
and the live monitor.

* TRL's GRPO and RLOO trainers log ``completions/mean_terminated_length`` (and ``min_``,
  ``max_``) as 0 when no completion of the step ended before the length limit
  (``clipped_ratio`` is then 1): "no completion terminated", not completions of length 0 - one
  that terminates ends with its end-of-sequence token, so it is at least 1 long.  Taken as
  numbers, the zeros made a run whose completions all hit the limit read as lengths "still
  falling" toward 0.
* SB3 and CleanRL log ``explained_variance`` as NaN when the returns of the batch did not vary
  (0/0; ``stable_baselines3.common.utils.explained_variance``): a sparse-reward run before its
  first reward, not a value function that diverged.  A NaN the log wrote otherwise reads as the
  run diverging (:mod:`swarmstats.io.written_nan`); here it is a value not there.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sentinel:
    """A value that means "undefined" for the metrics whose names match ``pattern``."""

    pattern: re.Pattern
    value: float  # NaN: a NaN the log wrote
    why: str
    #: how every name the pattern matches ends: tested first, since every metric of every log is
    #: looked up (a regular expression ~1 us a name, 0.2 ms on a 70-column W&B export)
    ending: str = ""

    def matches(self, values: np.ndarray) -> np.ndarray:
        if math.isnan(self.value):
            from .io.written_nan import is_written

            return is_written(values)
        return values == self.value


SENTINELS = (
    Sentinel(re.compile(r"(^|[/_.])(mean|min|max)_terminated_length$"), 0.0,
             "what TRL logs when no completion ended before the length limit (clipped_ratio 1)",
             "_terminated_length"),
    Sentinel(re.compile(r"(^|[/_.])explained_variance$"), math.nan,
             "what SB3 and CleanRL log when the returns did not vary (explained variance 0/0)",
             "explained_variance"),
)


#: every rule's ending, for one test of a name that none can match (the common case)
_ENDINGS = tuple(rule.ending for rule in SENTINELS)


def sentinel_of(name) -> Sentinel | None:
    """The rule for metric ``name``, or None."""
    if not isinstance(name, str) or not name.endswith(_ENDINGS):
        return None
    return next((rule for rule in SENTINELS if name.endswith(rule.ending) and rule.pattern.search(name)), None)


def has_sentinel(name) -> bool:
    """Whether ``name`` is a metric with a value that means "undefined".

    >>> has_sentinel("completions/min_terminated_length"), has_sentinel("completions/mean_length")
    (True, False)
    >>> has_sentinel("train/explained_variance")
    True
    """
    return sentinel_of(name) is not None


def is_undefined(name, value: float) -> bool:
    """Whether one logged ``value`` of metric ``name`` means "undefined" (the live monitor's
    test, on a value as logged: there a NaN was written).

    >>> is_undefined("completions/mean_terminated_length", 0.0), is_undefined("reward", 0.0)
    (True, False)
    >>> is_undefined("train/explained_variance", float("nan")), is_undefined("train/loss", float("nan"))
    (True, False)
    """
    if value != value:
        rule = sentinel_of(name)
        return rule is not None and math.isnan(rule.value)
    return value == 0.0 and (rule := sentinel_of(name)) is not None and rule.value == 0.0


def undefined(name, values) -> np.ndarray:
    """Boolean mask of the values of metric ``name`` that mean "undefined" (all False for a
    metric without a sentinel).

    >>> undefined("completions/max_terminated_length", np.array([80.0, 0.0, np.nan])).tolist()
    [False, True, False]
    """
    values = np.asarray(values)
    rule = sentinel_of(name)
    if rule is None or not np.issubdtype(values.dtype, np.number):
        return np.zeros(values.shape, dtype=bool)
    return rule.matches(values)


def note(name, count: int, total: int) -> str:
    """What a reader says about the values it left out."""
    rule = sentinel_of(name)
    shown = "NaN" if math.isnan(rule.value) else f"{rule.value:g}"
    return f"{name}: {count} of {total} values are {shown}, {rule.why}: left out as missing"
