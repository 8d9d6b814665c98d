"""The penalty path (CROPS): exact intervals, the run bound, the elbow."""

import numpy as np
import pytest

from swarmstats.errors import InputError
from swarmstats.regimes.costs import MeanCost
from swarmstats.regimes.path import regime_path
from swarmstats.regimes.pelt import pelt


@pytest.mark.parametrize("seed", range(3))
def test_every_penalty_gets_the_segmentation_of_its_interval(seed):
    rng = np.random.default_rng(seed)
    y = np.repeat([0.0, 2.5, 0.5, 3.0], [80, 60, 90, 70]) + rng.normal(size=300)
    path = regime_path(y, min_size=5)
    table = path.table
    assert list(table["n_changepoints"]) == sorted(table["n_changepoints"], reverse=True)
    low, high = table["penalty_low"].iloc[0], table["penalty_high"].iloc[-1]
    assert path.pelt_runs <= table["n_changepoints"].iloc[0] - table["n_changepoints"].iloc[-1] + 2
    cost = MeanCost(y)
    for beta in np.geomspace(low * 1.01, high * 0.99, 25):
        row = table[(table["penalty_low"] <= beta) & (beta <= table["penalty_high"])].iloc[0]
        found, _ = pelt(cost, beta, 5)
        assert len(found) == row["n_changepoints"]
    assert len(path.chosen) == 3  # the elbow finds the three true changes
    assert all(any(abs(c - t) <= 5 for c in path.chosen) for t in (80, 140, 230))


def test_explicit_range_and_bad_input():
    y = np.repeat([0.0, 3.0], [50, 50]) + np.random.default_rng(4).normal(size=100)
    path = regime_path(y, penalties=(1.0, 500.0))
    assert path.table["penalty_low"].iloc[0] == 1.0 and path.table["penalty_high"].iloc[-1] == 500.0
    assert "penalty path" in path.summary()
    with pytest.raises(InputError):
        regime_path(y, penalties=(5.0, 1.0))
    with pytest.raises(InputError):
        regime_path(np.arange(6.0), min_size=5)


def test_kernel_model_and_constant_series_are_refused_clearly():
    y = np.repeat([0.0, 3.0], [50, 50]) + np.random.default_rng(5).normal(size=100)
    with pytest.raises(InputError, match="likelihood costs"):
        regime_path(y, model="kernel")
    with pytest.raises(InputError, match="constant"):
        regime_path(np.full(100, 2.0))
