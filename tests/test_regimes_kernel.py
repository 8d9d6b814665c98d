"""The kernel model's feature form (KernelCost) and its seeded search against ruptures' exact
KernelCPD: the same kernel to 3e-8, the same changes on series where both run."""

import numpy as np
import pytest

from swarmstats import detect_regimes
from swarmstats.regimes.costs import KernelCost
from swarmstats.regimes.offline import KERNEL_EXACT_UP_TO


def test_features_reproduce_the_gaussian_kernel_at_every_distance_up_to_twice_the_clip():
    distance = np.linspace(0, 2 * KernelCost.CLIP, 4001)
    assert np.max(np.abs(KernelCost.kernel(distance) - np.exp(-distance**2 / 2))) < 5e-8


def test_cost_equals_the_all_pairs_kernel_cost():
    rng = np.random.default_rng(3)
    z = np.r_[rng.normal(size=150), rng.standard_t(2, size=150) * 2]  # beyond the clip too
    cost = KernelCost(z)
    clipped = np.clip(z, -KernelCost.CLIP, KernelCost.CLIP)
    for start, end in [(0, 300), (0, 10), (140, 160), (200, 300), (17, 18)]:
        part = clipped[start:end]
        exact = len(part) - np.exp(-np.subtract.outer(part, part) ** 2 / 2).sum() / len(part)
        assert cost.cost(np.array([start]), end)[0] == pytest.approx(exact, abs=1e-6 * len(part))


def _series(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "scale":
        return rng.normal(size=1500) * np.repeat([1.0, 3.0, 1.0], [600, 400, 500])
    if kind == "shape":  # the same mean, Gaussian then two clusters
        bimodal = rng.choice([-1.5, 1.5], size=700) + rng.normal(0, 0.3, 700)
        return np.r_[rng.normal(size=800), bimodal]
    return rng.normal(size=1500) + np.repeat([0.0, 1.5, 0.0], [500, 500, 500])


@pytest.mark.parametrize("kind", ["scale", "shape", "level"])
@pytest.mark.parametrize("seed", range(2))
def test_seeded_search_finds_what_exact_kernel_pelt_finds(kind, seed):
    pytest.importorskip("ruptures")
    y = _series(kind, seed)
    # min_effect=0: the searches compared, not the merging after them (which would drop
    # the change of shape: its means and SDs differ by less than one noise SD)
    exact = detect_regimes(y, model="kernel", method="pelt", min_effect=0).changepoints
    seeded = detect_regimes(y, model="kernel", method="seeded", min_effect=0).changepoints
    assert len(exact) >= 1
    assert len(seeded) == len(exact)
    assert all(abs(a - b) <= 3 for a, b in zip(seeded, exact))


def test_long_series_use_the_seeded_search_and_find_changes_of_distribution():
    rng = np.random.default_rng(5)
    n = 30_000
    assert n > KERNEL_EXACT_UP_TO  # ruptures' exact search would take minutes here
    y = rng.normal(size=n) * np.repeat([1.0, 2.5, 1.0], [10_000, 10_000, 10_000])
    found = detect_regimes(y, model="kernel").changepoints
    assert len(found) == 2 and abs(found[0] - 10_000) <= 50 and abs(found[1] - 20_000) <= 50
    assert detect_regimes(rng.normal(size=n), model="kernel").changepoints == []
    heavy = rng.standard_t(3, size=n)  # heavy tails alone are not a change of distribution
    assert detect_regimes(heavy, model="kernel").changepoints == []
