"""Parquet and Arrow files (issue 20, item 4, in part): read by pyarrow, recognised by their
magic bytes, then by their header like any table; errors are one clear line."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError, MissingDependency
from swarmstats.io import read_log, read_table
from tests.test_cli import run

pa = pytest.importorskip("pyarrow")
import pyarrow.feather as feather  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"step": np.arange(n) * 10, "reward": 0.5 + 0.05 * rng.normal(size=n),
                         "loss": 1.0 + 0.1 * rng.normal(size=n)})


def _write(frame, path, kind):
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "parquet":
        pq.write_table(table, path)
    elif kind == "arrow-file":
        feather.write_feather(table, path)  # the Arrow IPC file format (Feather v2)
    elif kind == "feather-v1":
        feather.write_feather(frame, path, version=1)
    else:  # the IPC stream format
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)


@pytest.mark.parametrize("kind", ["parquet", "arrow-file", "feather-v1", "arrow-stream"])
def test_each_columnar_file_reads_as_the_table_it_holds(kind, tmp_path):
    frame = _frame()
    path = tmp_path / f"log.{'parquet' if kind == 'parquet' else 'arrow'}"
    _write(frame, path, kind)
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == ("parquet" if kind == "parquet" else "arrow")
    pd.testing.assert_frame_equal(wide.reset_index(drop=True), frame, check_dtype=False)
    tidy = read_log(path)
    assert set(tidy["metric"]) == {"reward", "loss"} and len(tidy) == 2 * len(frame)
    assert read_table(path).shape == frame.shape
    # from a stream too (the bytes, not a path)
    assert read_log(io.BytesIO(path.read_bytes()), wide=True).shape == frame.shape


def test_a_parquet_export_of_a_known_log_is_recognised_by_its_header(tmp_path):
    progress = pd.DataFrame({"rollout/ep_rew_mean": np.linspace(0, 1, 20),
                             "time/total_timesteps": np.arange(20) * 2048, "train/loss": np.ones(20)})
    path = tmp_path / "progress.parquet"
    _write(progress, path, "parquet")
    tidy = read_log(path)
    assert tidy.attrs["format"] == "sb3-progress"
    assert tidy["step"].max() == 19 * 2048  # the timestep column became the step axis


def test_commands_read_parquet_logs_and_interactions(tmp_path):
    path = tmp_path / "log.parquet"
    _write(_frame(), path, "parquet")
    done = run("check-convergence", path, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert {r["name"] for r in json.loads(done.stdout)["results"]} == {"reward", "loss"}
    rng = np.random.default_rng(3)
    p = rng.uniform(size=400)
    interactions = tmp_path / "interactions.parquet"
    _write(pd.DataFrame({"p": p, "accepted": rng.uniform(size=400) < p}), interactions, "parquet")
    done = run("quality-gap", interactions, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["input"]["format"] == "parquet" and report["overall"]["n"] == 400


def test_broken_empty_and_mislabelled_files_get_one_clear_error(tmp_path):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1" + b"\x00" * 64)
    with pytest.raises(InputError, match="not a readable Parquet file"):
        read_log(broken)
    done = run("check-convergence", broken)
    assert done.returncode == 2 and "not a readable Parquet file" in done.stderr
    assert "Traceback" not in done.stderr
    empty = tmp_path / "empty.parquet"
    _write(_frame().iloc[:0], empty, "parquet")
    with pytest.raises(InputError, match="no data rows"):
        read_log(empty)
    text = tmp_path / "log.csv"
    _frame().to_csv(text, index=False)
    with pytest.raises(InputError, match="not a readable Parquet file"):
        read_log(text, format="parquet")
    assert read_log(text, wide=True).attrs["format"] == "csv"  # a CSV is still a CSV


def test_without_pyarrow_the_error_names_the_extra(tmp_path, monkeypatch):
    import sys

    path = tmp_path / "log.parquet"
    _write(_frame(), path, "parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # what an install without it sees
    with pytest.raises(MissingDependency, match=r"swarmstats\[arrow\]"):
        read_log(path)
