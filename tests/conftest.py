import os

# Two xdist workers share the machine's two cores.  Libraries that start a thread per core in
# each worker (torch's intra-op pool, OpenBLAS) then fight for them: the SB3 example took 64 s
# of wall time beside one busy process, 12 s with one thread each.  Set before numpy and
# torch are imported here or in the subprocesses the tests start (they inherit it).
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
# The CLI tests run commands in this process (tests/test_cli.py's run): no display to draw on.
os.environ.setdefault("MPLBACKEND", "Agg")


def _stamp_arviz_daily_warning() -> None:
    """Write arviz's once-a-day stamp before any worker imports arviz.

    arviz 0.23 writes ``<cache>/arviz/daily_warning`` on import through one fixed temporary
    name; two xdist workers importing it in the same second race, and the loser's import fails
    with FileNotFoundError (CI failed so, 2026-12-02).  With today's stamp in place arviz writes
    nothing.  Each process writes through its own temporary name, so this write cannot race.
    """
    import datetime

    try:
        from platformdirs import user_cache_dir
    except ImportError:  # no arviz either: nothing to stamp
        return
    folder = user_cache_dir("arviz", "arviz")
    stamp = os.path.join(folder, "daily_warning")
    temporary = f"{stamp}.{os.getpid()}.tmp"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(temporary, "w") as handle:
            handle.write(datetime.date.today().isoformat())
        os.replace(temporary, stamp)
    except OSError:  # a read-only cache: arviz's own write would fail there too
        pass


_stamp_arviz_daily_warning()

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.signal import lfilter  # noqa: E402


def ar1(phi: float, n: int, rng: np.random.Generator, reps: int | None = None, sd: float = 1.0):
    """Stationary AR(1) with unit innovations scaled by ``sd`` (burn-in discarded)."""
    burn = 0 if phi == 0 else int(min(50 / (1 - abs(phi)), 5000))
    shape = (n + burn,) if reps is None else (reps, n + burn)
    noise = rng.normal(0.0, sd, size=shape)
    series = lfilter([1.0], [1.0, -phi], noise, axis=-1)
    return series[..., burn:]


def fractional_noise(d: float, n: int, rng: np.random.Generator, reps: int, lags: int = 4000):
    """ARFIMA(0, d, 0), long memory: the truncated MA(infinity) of fractional integration, SD ~ 1."""
    from scipy.signal import fftconvolve

    k = np.arange(1, lags)
    weights = np.r_[1.0, np.cumprod((k - 1 + d) / k)]
    x = fftconvolve(rng.normal(size=(reps, n + lags)), weights[None, :], axes=1)[:, lags:lags + n]
    return x / np.sqrt(np.sum(weights ** 2))


def binomial_upper(p: float, reps: int, z: float = 3.0) -> float:
    """p + z binomial standard errors: a tolerance that makes a Monte-Carlo check non-flaky."""
    return p + z * np.sqrt(p * (1 - p) / reps)


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def notebook(outputs: list, source: str = "trainer.train()") -> str:
    """A saved Jupyter notebook (its JSON) of one code cell with ``outputs``, as the notebook
    readers find them."""
    import json

    cells = [{"cell_type": "code", "source": [source], "metadata": {}, "execution_count": 1, "outputs": outputs}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def printed_in_notebook(text: str, source: str = "trainer.train()") -> str:
    """A notebook whose one cell printed ``text`` (a stream output, a line per string)."""
    return notebook([{"output_type": "stream", "name": "stdout", "text": text.splitlines(keepends=True)}], source)


def diverged_reasons(path, metric: str) -> str:
    """check-convergence's first reason for ``metric`` of the log at ``path``, asserting that
    the gate fails on it (not_converged) and that ``watch`` says it diverged too."""
    import json

    from tests.test_cli import run

    done = run("check-convergence", path, "-m", metric, "--format", "json")
    row = json.loads(done.stdout)["results"][0]
    assert row["verdict"] == "not_converged", row
    assert "diverged" in run("watch", path, "-m", metric, "--once").stdout
    return row["reasons"][0]
