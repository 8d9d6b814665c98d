import numpy as np
import pytest
from scipy.signal import lfilter


def ar1(phi: float, n: int, rng: np.random.Generator, reps: int | None = None, sd: float = 1.0):
    """Stationary AR(1) with unit innovations scaled by ``sd`` (burn-in discarded)."""
    burn = 0 if phi == 0 else int(min(50 / (1 - abs(phi)), 5000))
    shape = (n + burn,) if reps is None else (reps, n + burn)
    noise = rng.normal(0.0, sd, size=shape)
    series = lfilter([1.0], [1.0, -phi], noise, axis=-1)
    return series[..., burn:]


def binomial_upper(p: float, reps: int, z: float = 3.0) -> float:
    """p + z binomial standard errors: a tolerance that makes a Monte-Carlo check non-flaky."""
    return p + z * np.sqrt(p * (1 - p) / reps)


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)
