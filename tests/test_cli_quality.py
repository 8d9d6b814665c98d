"""`swarmstats quality-gap` and `swarmstats describe` through a subprocess."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.test_cli import run

WORKED = pd.DataFrame({"p": [0.9, 0.8, 0.3, 0.6, 0.2], "accepted": [True, True, False, True, False]})


def interactions(path, adverse_epochs=(), epochs=8, n=80, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for epoch in range(epochs):
        p = rng.beta(2, 2, n)
        accept = (1 - p) if epoch in adverse_epochs else p
        rows.append(pd.DataFrame({"epoch": epoch, "p": p.round(5), "accepted": rng.uniform(size=n) < accept}))
    frame = pd.concat(rows, ignore_index=True)
    frame.to_csv(path, index=False)
    return frame


def test_worked_example_in_json(tmp_path):
    path = tmp_path / "batch.csv"
    WORKED.to_csv(path, index=False)
    result = run("quality-gap", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    soft = payload["overall"]["soft"]
    assert round(soft["quality_gap"]["value"], 4) == 0.5167
    assert round(soft["toxicity"]["value"], 4) == 0.2333
    assert payload["overall"]["hard"]["hard_toxicity"]["value"] == 0.0
    assert payload["passed"] is True and payload["adverse_selection"] is False


def test_adverse_selection_exits_1_and_exit_zero_reports_only(tmp_path):
    path = tmp_path / "adverse.csv"
    interactions(path, adverse_epochs=range(8))
    result = run("quality-gap", path, "--by", "epoch", "--n-boot", "300")
    assert result.returncode == 1, result.stderr
    assert "ADVERSE SELECTION" in result.stdout and "after Holm" in result.stdout
    assert run("quality-gap", path, "--n-boot", "300", "--exit-zero").returncode == 0
    healthy = tmp_path / "healthy.csv"
    interactions(healthy)
    assert run("quality-gap", healthy, "--by", "epoch", "--n-boot", "300").returncode == 0


def test_by_epoch_csv_has_one_row_per_epoch(tmp_path):
    path = tmp_path / "epochs.csv"
    interactions(path)
    result = run("quality-gap", path, "--by", "epoch", "--format", "csv", "--n-boot", "200")
    table = pd.read_csv(pd.io.common.StringIO(result.stdout))
    assert table["epoch"].tolist() == list(range(8))
    assert {"quality_gap", "quality_gap_low", "toxicity_high", "hard_toxicity"} <= set(table.columns)


def test_output_is_reproducible(tmp_path):
    path = tmp_path / "epochs.csv"
    interactions(path)
    first = run("quality-gap", path, "--format", "json", "--n-boot", "200")
    assert first.stdout == run("quality-gap", path, "--format", "json", "--n-boot", "200").stdout


def test_swarm_history_json_and_event_log(tmp_path):
    events = [{"event_type": "interaction", "interaction_id": f"i-{i}", "epoch": i // 3, "step": i,
               "initiator": "agent_1", "counterparty": "agent_3", "accepted": bool(a), "p": p,
               "v_hat": 0.0} for i, (p, a) in enumerate(zip(WORKED.p, WORKED.accepted))]
    history = {"simulation_id": "sim-demo", "epoch_snapshots": [{"epoch": 0, "toxicity_rate": 0.23}],
               "agent_snapshots": [{"agent_id": "agent_1", "epoch": 0}], "interactions": events}
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    result = run("quality-gap", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    assert round(json.loads(result.stdout)["overall"]["soft"]["quality_gap"]["value"], 4) == 0.5167

    log = tmp_path / "events.jsonl"
    lines = [json.dumps({"event_id": "e-1", "event_type": "epoch_started", "epoch": 0, "payload": {}})]
    lines += [json.dumps({"event_id": f"e-{i + 2}", "event_type": "interaction_completed", "epoch": 0,
                          "step": i, "payload": {"p": e["p"], "v_hat": 0.0, "tau": 0.0,
                                                 "accepted": e["accepted"]}})
              for i, e in enumerate(events)]
    lines.append(json.dumps({"event_id": "e-99", "event_type": "reputation_updated", "agent_id": "agent_1",
                             "payload": {"delta": 0.1}}))
    log.write_text("\n".join(lines) + "\n")
    result = run("quality-gap", log, "--format", "json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["input"]["rows"] == 5
    assert round(payload["overall"]["soft"]["toxicity"]["value"], 4) == 0.2333


@pytest.mark.parametrize("content,args,message", [
    ("p,accepted\n0.5,1\n1.5,0\n", (), "p must lie in"),
    ("p,accepted\n0.5,1\n0.4,maybe\n", (), "booleans"),
    ("score,accepted\n0.5,1\n", (), "no column 'p'"),
    ("p,accepted\n0.5,1\n", ("--by", "epoch"), "no column 'epoch'"),
    ("", (), "empty"),
    ('{"epochs": [{"epoch": 0}]}', (), "no list of interaction records"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, content, args, message):
    path = tmp_path / ("bad.json" if content.startswith("{") else "bad.csv")
    path.write_text(content)
    result = run("quality-gap", path, *args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_quality_plot_is_written(tmp_path):
    path = tmp_path / "batch.csv"
    interactions(path, epochs=2)
    png = tmp_path / "q.png"
    assert run("quality-gap", path, "--plot", png, "--n-boot", "100").returncode == 0
    assert png.stat().st_size > 1000


def test_describe_text_json_csv_and_groups(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"step": np.tile(np.arange(200), 2), "seed": np.repeat([1, 2], 200),
                          "reward": rng.normal(0.5, 0.1, 400)})
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    text = run("describe", path, "-m", "reward")
    assert text.returncode == 0 and "peak - mean" in text.stdout
    payload = json.loads(run("describe", path, "--group", "seed", "--format", "json").stdout)
    assert [r["name"] for r in payload["results"]] == ["reward [seed=1]", "reward [seed=2]"]
    assert payload["results"][0]["n"] == 200
    table = pd.read_csv(pd.io.common.StringIO(run("describe", path, "--format", "csv").stdout))
    assert {"mean", "ci_low", "ci_high", "median", "iqm", "q05", "q95", "cvar", "bimodal"} <= set(table.columns)
    png = tmp_path / "d.png"
    assert run("describe", path, "--plot", png).returncode == 0 and png.stat().st_size > 1000


def test_describe_clusters_by_a_column_and_an_eval_by_its_examples(tmp_path):
    import swarmstats as ss

    rng = np.random.default_rng(2)
    prompts = np.repeat([f"p{i}" for i in range(40)], 4)
    score = rng.normal(0, 1, 40)[np.repeat(np.arange(40), 4)] + rng.normal(0, 1, 160)
    order = rng.permutation(160)  # logged in any order
    path = tmp_path / "eval.csv"
    pd.DataFrame({"prompt_id": prompts[order], "score": score[order]}).to_csv(path, index=False)
    result = run("describe", path, "-m", "score", "--cluster", "prompt_id", "--format", "json")
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)["results"]
    api = ss.describe(score[order], clusters=prompts[order])
    assert row["clusters"] == 40 and row["n"] == 160
    assert tuple(row["ci"]) == pytest.approx(api.ci, rel=1e-12)
    bad = run("describe", path, "-m", "score", "--cluster", "prompt")
    assert bad.returncode == 2 and "no column 'prompt'" in bad.stderr and "Traceback" not in bad.stderr
    # a value without its label is named by its step and column, not by a 0-based position
    (tmp_path / "gap.csv").write_text("step,score,prompt_id\n10,1,a\n20,2,\n30,3,b\n40,4,b\n50,5,a\n")
    gap = run("describe", tmp_path / "gap.csv", "-m", "score", "--cluster", "prompt_id")
    assert gap.returncode == 2 and "--cluster prompt_id: no label for score at step 20" in gap.stderr
    # a verifiers eval: 5 Wordle games x 3 rollouts is one description, clustered by game
    wordle = Path(__file__).resolve().parent / "fixtures/real/verifiers/wordle-gpt-5-mini-results.jsonl"
    pooled = run("describe", wordle, "-m", "reward", "--format", "json")
    [row] = json.loads(pooled.stdout)["results"]
    assert row["n"] == 15 and row["clusters"] == 5 and row["ci"][0] < row["mean"] < row["ci"][1]
    assert "clustered by example" in pooled.stderr and "holds 5 runs" not in pooled.stderr
    each = json.loads(run("describe", wordle, "-m", "reward", "--group", "run", "--format", "json").stdout)
    assert len(each["results"]) == 5 and all(r["n"] == 3 for r in each["results"])


def test_describe_bad_input(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("step,reward\n0,0.5\n1,abc\n")
    result = run("describe", path, "-m", "nope")
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_missing_values_are_an_error_unless_omitted(tmp_path):
    path = tmp_path / "gaps.csv"
    path.write_text("epoch,p,accepted\n0,0.9,1\n0,,0\n0,0.3,0\n1,0.8,1\n1,0.2,\n1,0.4,0\n1,0.7,1\n")
    result = run("quality-gap", path, "--by", "epoch")
    assert result.returncode == 2 and "--nan-policy omit" in result.stderr
    result = run("quality-gap", path, "--by", "epoch", "--nan-policy", "omit", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["overall"]["n"] == 5


def test_describe_median_method_flag(tmp_path):
    path = tmp_path / "log.csv"
    pd.DataFrame({"step": range(300), "reward": np.random.default_rng(3).normal(size=300)}).to_csv(
        path, index=False)
    payload = json.loads(run("describe", path, "--median-method", "order-statistics",
                             "--format", "json").stdout)
    low, high = payload["results"][0]["median_ci"]
    assert low < payload["results"][0]["median"] < high
