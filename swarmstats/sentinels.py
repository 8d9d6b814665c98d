"""Values a logger writes where a metric is undefined: read as missing, one rule for every reader
and the live monitor.

TRL's GRPO and RLOO trainers log ``completions/mean_terminated_length`` (and ``min_``,
``max_``) as 0 when no completion of the step ended before the length limit (``clipped_ratio``
is then 1): "no completion terminated", not completions of length 0 - one that terminates ends
with its end-of-sequence token, so it is at least 1 long.  Taken as numbers, the zeros made a
run whose completions all hit the limit read as lengths "still falling" toward 0.
"""

from __future__ import annotations

import re

import numpy as np

#: metrics whose 0 means "undefined at this step" (TRL: no completion terminated)
_TERMINATED_LENGTH = re.compile(r"(^|[/_.])(mean|min|max)_terminated_length$")
UNDEFINED = 0.0
WHY = "what TRL logs when no completion ended before the length limit (clipped_ratio 1)"


def has_sentinel(name) -> bool:
    """Whether ``name`` is a metric whose 0 means "undefined".

    >>> has_sentinel("completions/min_terminated_length"), has_sentinel("completions/mean_length")
    (True, False)
    """
    return isinstance(name, str) and bool(_TERMINATED_LENGTH.search(name))


def is_undefined(name, value: float) -> bool:
    """Whether one logged ``value`` of metric ``name`` means "undefined" (the live monitor's
    test, value first so that most calls cost one comparison).

    >>> is_undefined("completions/mean_terminated_length", 0.0), is_undefined("reward", 0.0)
    (True, False)
    """
    return value == UNDEFINED and has_sentinel(name)


def undefined(name, values) -> np.ndarray:
    """Boolean mask of the values of metric ``name`` that mean "undefined" (all False for a
    metric without a sentinel).

    >>> undefined("completions/max_terminated_length", np.array([80.0, 0.0, np.nan])).tolist()
    [False, True, False]
    """
    values = np.asarray(values)
    if not has_sentinel(name) or not np.issubdtype(values.dtype, np.number):
        return np.zeros(values.shape, dtype=bool)
    return values == UNDEFINED


def note(name, count: int, total: int) -> str:
    """What a reader says about the values it left out."""
    return f"{name}: {count} of {total} values are 0, {WHY}: left out as missing"
