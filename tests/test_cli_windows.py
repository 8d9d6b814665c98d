"""`swarmstats windows` through a subprocess."""

import json

import numpy as np
import pandas as pd
import pytest

from tests.test_cli import EXAMPLE, run


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({"step": np.arange(n) * 10,
                          "reward": np.r_[rng.normal(0.6, 0.05, 400), rng.normal(0.5, 0.05, 200)],
                          "loss": np.r_[np.linspace(2, 1, 300), np.ones(300)] + rng.normal(0, 0.05, n)})
    path = tmp_path_factory.mktemp("windows") / "log.csv"
    frame.to_csv(path, index=False)
    return path


def test_text_lists_status_changes_and_csv_every_step(log):
    text = run("windows", log, "-m", "reward")
    assert text.returncode == 0, text.stderr
    assert "degrading" in text.stdout and "level dropped" in text.stdout
    table = pd.read_csv(pd.io.common.StringIO(run("windows", log, "--format", "csv").stdout))
    assert len(table) == 1200 and set(table["metric"]) == {"reward", "loss"}
    assert {"step", "value", "length", "start", "mean", "ci_low", "ci_high", "slope", "status",
            "reason", "change"} <= set(table.columns)
    assert table.loc[table.metric == "reward", "step"].iloc[-1] == 5990


def test_summary_json_and_better(log):
    payload = json.loads(run("windows", log, "--summary", "--format", "json").stdout)
    assert payload["command"] == "windows"
    entry = {r["name"]: r for r in payload["results"]}
    assert "table" not in entry["reward"] and entry["reward"]["changes"][0]["direction"] == "down"
    full = json.loads(run("windows", log, "-m", "reward", "--format", "json").stdout)
    assert len(full["results"][0]["table"]) == 600
    summary = pd.read_csv(pd.io.common.StringIO(
        run("windows", log, "-m", "loss", "--better", "lower", "--summary", "--format", "csv").stdout))
    assert summary.loc[0, "share_improving"] > 0 and summary.loc[0, "share_degrading"] == 0


def test_a_series_longer_than_max_points_is_followed_through_block_means(log):
    # 600 steps, at most 100 points: blocks of 6 steps, each at its last step (10 apart)
    payload = json.loads(run("windows", log, "-m", "reward", "--max-points", "100", "--format", "json").stdout)
    entry = payload["results"][0]
    table = pd.DataFrame(entry["table"])
    assert len(table) == 100 and table["step"].iloc[-1] == 5990 and table["step"].iloc[0] == 50
    np.testing.assert_allclose(table["value"].iloc[-1], pd.read_csv(log)["reward"].iloc[-6:].mean())
    assert "means of 6 consecutive steps" in entry["notes"][-1] and entry["block"] == 6
    text = run("windows", log, "-m", "reward", "--max-points", "100").stdout
    assert "over 100 points, each the mean of 6 steps:" in text and "over 100 steps" not in text
    # the drop at step 4000 (row 400) is still seen, within a block
    assert entry["changes"] and 4000 <= entry["changes"][0]["start"] <= 4600
    every = json.loads(run("windows", log, "-m", "reward", "--max-points", "0", "--format", "json").stdout)
    assert every["results"][0]["block"] == 1
    assert len(every["results"][0]["table"]) == 600 and not any(
        "consecutive steps" in note for note in every["results"][0]["notes"])


def test_plot_and_bundled_example(tmp_path):
    png = tmp_path / "w.png"
    result = run("windows", EXAMPLE, "--summary", "--plot", png)
    assert result.returncode == 0, result.stderr
    assert png.stat().st_size > 5000


@pytest.mark.parametrize("args,message", [
    (("--min-length", "5"), "at least 10"),
    (("--max-length", "30"), "twice"),
    (("--precision", "-1"), "precision"),
    (("-m", "nope"), "no metric 'nope'"),
])
def test_bad_input_exits_2(log, args, message):
    result = run("windows", log, *args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
