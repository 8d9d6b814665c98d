"""xarray and ArviZ inputs (issue 20, item 4, in part): chains are runs, draws are steps."""

import numpy as np
import pytest

import swarmstats as ss
from swarmstats import InputError

az = pytest.importorskip("arviz")
xr = pytest.importorskip("xarray")


def _draws(seed=0):
    rng = np.random.default_rng(seed)
    mu = 0.3 * rng.normal(size=(4, 400)).cumsum(axis=1) / 20 + rng.normal(size=(4, 400))
    theta = rng.normal(size=(4, 400, 2))
    return mu, theta, az.from_dict(posterior={"mu": mu, "theta": theta})


def test_a_chain_draw_variable_is_the_runs_by_steps_array():
    mu, _, idata = _draws()
    from_xarray = ss.check_convergence(idata.posterior["mu"])
    from_numpy = ss.check_convergence(mu)
    assert type(from_xarray) is type(from_numpy)
    assert from_xarray.to_dict() == from_numpy.to_dict()
    single = az.from_dict(posterior={"mu": mu})  # one variable: no need to pick it
    assert ss.check_convergence(single).to_dict() == from_numpy.to_dict()


def test_one_chain_is_one_series_on_its_draw_coordinate():
    mu, _, idata = _draws()
    chain = idata.posterior["mu"].sel(chain=2)
    result = ss.describe(chain)
    assert result.n == 400 and result.mean == pytest.approx(mu[2].mean())
    shifted = xr.DataArray(mu[2], dims=["step"], coords={"step": np.arange(400) * 10 + 1000})
    worst = int(np.argmin(mu[2]))
    assert ss.describe(shifted).minimum_step == worst * 10 + 1000  # the coordinate is the step axis


def test_what_needs_choosing_is_named():
    _, _, idata = _draws()
    with pytest.raises(InputError, match=r"2 variables \(mu, theta\); pass one"):
        ss.check_convergence(idata)
    with pytest.raises(InputError, match="theta_dim_0"):
        ss.check_convergence(idata.posterior["theta"])
    # one element of the variable's own dimension is a (chain, draw) variable again
    assert len(ss.check_convergence(idata.posterior["theta"].sel(theta_dim_0=1)).runs) == 4


def test_read_log_reads_every_variable_with_chains_as_runs():
    mu, theta, idata = _draws()
    tidy = ss.read_log(idata)
    assert tidy.attrs["format"] == "arviz"
    assert sorted(set(tidy["metric"])) == ["mu", "theta[0]", "theta[1]"]
    assert sorted(set(tidy["run"])) == [0, 1, 2, 3] and len(tidy) == 3 * 4 * 400
    rows = tidy[(tidy["metric"] == "theta[1]") & (tidy["run"] == 3)]
    np.testing.assert_array_equal(rows["value"].to_numpy(), theta[3, :, 1])
    wide = ss.read_log(idata.posterior, wide=True)  # a Dataset too
    assert wide.shape == (4 * 400, 5) and wide.attrs["format"] == "xarray"
    np.testing.assert_array_equal(wide[wide["run"] == 0]["mu"].to_numpy(), mu[0])


def test_pyarrow_and_polars_tables_are_read_one_column_per_run_like_pandas():
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=300), rng.normal(size=300)
    expected = ss.check_convergence(np.vstack([a, b])).to_dict()
    for table in (pa.table({"run 0": a, "run 1": b}), pl.DataFrame({"run 0": a, "run 1": b})):
        # numpy's own conversion is rows x columns: 300 "runs" of 2 steps
        result = ss.check_convergence(table)
        assert [run.name for run in result.runs] == ["run 0", "run 1"]
        assert result.to_dict() == expected
    single = ss.check_convergence(a).to_dict()
    for series in (pa.array(a), pa.chunked_array([a[:120], a[120:]]), pl.Series("reward", a)):
        assert {**ss.check_convergence(series).to_dict(), "name": None} == single
    assert ss.check_convergence(pl.Series("reward", a)).name == "reward"
