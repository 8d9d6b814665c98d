"""Holm's adjusted p-values against statsmodels' reference implementation."""

import numpy as np
from statsmodels.stats.multitest import multipletests

from swarmstats._kernels.multiplicity import holm_adjusted


def test_holm_matches_statsmodels_and_keeps_missing_values_missing():
    rng = np.random.default_rng(0)
    for _ in range(12):  # each multipletests call costs ~60 ms (50 took 21 s on a loaded machine)
        p = rng.uniform(size=rng.integers(1, 30)) ** 3
        reference = multipletests(p, method="holm")[1]
        assert np.allclose(holm_adjusted(p), reference)
    with_gap = np.array([0.01, np.nan, 0.04, 0.03])
    adjusted = holm_adjusted(with_gap)
    assert np.isnan(adjusted[1])
    assert np.allclose(adjusted[[0, 2, 3]], multipletests(with_gap[[0, 2, 3]], method="holm")[1])
