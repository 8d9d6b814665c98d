"""``random_state``: the one way every randomised method takes its randomness."""

from __future__ import annotations

import numpy as np

from ..errors import InputError


def resolve_rng(random_state) -> np.random.Generator:
    """A Generator from None (fresh entropy), an int seed or a Generator.

    >>> int(resolve_rng(3).integers(10)) == int(resolve_rng(3).integers(10))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise InputError(
        f"random_state must be None, an int or a numpy Generator, got {type(random_state).__name__}"
    )
