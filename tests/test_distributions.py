"""The verdict's scipy-free distribution functions against scipy.stats, and the direct
Mann-Kendall count against scipy's Kendall tau."""

import math

import numpy as np
import pytest
from scipy import stats

from swarmstats._kernels import distributions as d
from swarmstats._kernels.mann_kendall import direct_s, kendall_s

DOFS = [0.5, 1.0, 2.0, 3.0, 4.5, 10.0, 29.0, 100.0, 1e4, 1e7]


def close(ours, theirs, rel=1e-10, abs_=1e-300):
    return ours == pytest.approx(theirs, rel=rel, abs=abs_)


@pytest.mark.parametrize("x", [-40.0, -5.0, -1.0, -1e-8, 0.0, 0.3, 1.96, 4.0, 8.5, 30.0])
def test_normal_tail_and_quantile(x):
    assert close(d.norm_sf(x), stats.norm.sf(x))
    q = stats.norm.cdf(x)
    if 0 < q < 1:
        assert d.norm_ppf(q) == pytest.approx(stats.norm.ppf(q), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("dof", DOFS)
def test_student_t_tail_against_scipy(dof):
    for x in [-50.0, -3.0, -0.5, 0.0, 1e-6, 0.7, 2.0, 6.0, 25.0, 300.0]:
        assert close(d.t_sf(x, dof), stats.t.sf(x, dof), rel=1e-9), (x, dof)


@pytest.mark.parametrize("dof", DOFS)
def test_student_t_quantile_against_scipy(dof):
    for q in [1e-12, 1e-4, 0.025, 0.2, 0.5, 0.8, 0.95, 0.975, 0.9999, 1 - 1e-10]:
        assert d.t_ppf(q, dof) == pytest.approx(stats.t.ppf(q, dof), rel=1e-9, abs=1e-12), (q, dof)


@pytest.mark.parametrize("a, b", [(0.5, 0.5), (1.0, 3.0), (2.5, 7.0), (40.0, 3.0), (500.0, 480.0)])
def test_incomplete_beta_and_beta_quantile_against_scipy(a, b):
    for x in [1e-9, 0.01, 0.3, 0.5, 0.77, 0.999]:
        assert close(d.incomplete_beta(x, a, b), stats.beta.cdf(x, a, b), rel=1e-10), (x, a, b)
    for q in [1e-6, 0.1586552539314571, 0.5, 0.8413447460685429, 0.99]:
        assert d.beta_ppf(q, a, b) == pytest.approx(stats.beta.ppf(q, a, b), rel=1e-10), (q, a, b)


@pytest.mark.parametrize("dfn, dfd", [(1.0, 1.0), (4.0, 9.0), (19.0, 39.0), (200.0, 3.0)])
def test_f_quantile_against_scipy(dfn, dfd):
    for q in [0.01, 0.5, 0.95, 0.99]:
        assert d.f_ppf(q, dfn, dfd) == pytest.approx(stats.f.ppf(q, dfn, dfd), rel=1e-9)


def test_edges_are_nan_or_infinite_like_scipy():
    assert math.isnan(d.t_sf(1.0, 0.0)) and math.isnan(d.t_ppf(0.5, -1.0)) and math.isnan(d.t_ppf(1.5, 3.0))
    assert d.t_ppf(1.0, 3.0) == math.inf and d.t_ppf(0.0, 3.0) == -math.inf
    assert d.t_sf(math.inf, 3.0) == 0.0 and d.t_sf(-math.inf, 3.0) == 1.0
    assert d.norm_ppf(0.0) == -math.inf and math.isnan(d.norm_ppf(2.0))


def test_average_ranks_and_root_against_scipy():
    rng = np.random.default_rng(1)
    for x in (rng.normal(size=50), rng.integers(0, 4, size=(3, 20)).astype(float)):
        assert np.array_equal(d.average_ranks(x), stats.rankdata(x, axis=None))
    from scipy import optimize
    f = lambda q: q**3 - 0.3  # noqa: E731
    assert d.increasing_root(f, 1e-6, 50) == pytest.approx(optimize.brentq(f, 1e-6, 50), rel=1e-11)


@pytest.mark.parametrize("n", [2, 3, 64, 65, 300, 2_000, 2_001])
def test_mann_kendall_s_direct_and_merge_counts_agree(n):
    rng = np.random.default_rng(n)
    t = np.arange(n, dtype=float)
    for y in (rng.normal(size=n), rng.integers(0, 6, n).astype(float)):
        pairs = n * (n - 1) // 2
        ties = pairs - len(y) * 0  # unused
        del ties
        tau = stats.kendalltau(y, t).statistic
        untied = pairs - int(sum(c * (c - 1) // 2 for c in np.unique(y, return_counts=True)[1]))
        expected = int(round(tau * math.sqrt(pairs * untied))) if untied else 0
        assert direct_s(y) == expected
        assert kendall_s(t, y) == expected
