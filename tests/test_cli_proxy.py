"""`swarmstats proxy` through a subprocess: exit codes, formats, SWARM exports, bad input."""

import json

import numpy as np
import pandas as pd
import pytest

from tests.test_cli import run


def scores(path, *, noisy=True, outcomes=True, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    agents = {"steady": 0.85, "bad": 0.15} | ({"borderline": 0.52} if noisy else {})
    for agent, mean in agents.items():
        p = np.clip(mean + rng.normal(0, 0.12, 150), 0.001, 0.999)
        row = {"agent": agent, "p": p.round(5), "v_hat": (np.log(p / (1 - p)) / 2).round(6)}
        if outcomes:
            row["outcome"] = (rng.uniform(size=150) < p).astype(int)
        rows.append(pd.DataFrame(row))
    frame = pd.concat(rows, ignore_index=True)
    frame.to_csv(path, index=False)
    return frame


def test_noisy_key_exits_1_and_clear_keys_exit_0(tmp_path):
    noisy, clear = tmp_path / "noisy.csv", tmp_path / "clear.csv"
    scores(noisy)
    scores(clear, noisy=False)
    result = run("proxy", noisy, "--key", "agent", "--outcome", "outcome", "--v-hat", "v_hat")
    assert result.returncode == 1, result.stderr
    assert "borderline" in result.stdout and "TOO NOISY" in result.stdout
    assert "calibration on 450 outcomes" in result.stdout and "recalibration" in result.stdout
    assert run("proxy", noisy, "--key", "agent", "--exit-zero").returncode == 0
    assert run("proxy", clear, "--key", "agent").returncode == 0


def test_the_table_stays_aligned_with_long_key_names(tmp_path):
    # a SWARM agent named "opportunistic_2" (15 characters) pushed its row's columns one over
    frame = scores(tmp_path / "scores.csv")
    frame.assign(agent=frame["agent"] + "_agent_with_a_long_name").to_csv(tmp_path / "long.csv", index=False)
    lines = run("proxy", tmp_path / "long.csv", "--key", "agent").stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("key"))
    rows = [line for line in lines if "_agent_with_a_long_name" in line]
    assert len(rows) == 3 and all(row.index(" 150 ") + 1 == header.index(" n ") + 1 for row in rows), lines


def test_csv_is_sorted_worst_first_and_json_is_complete(tmp_path):
    path = tmp_path / "scores.csv"
    scores(path)
    table = pd.read_csv(pd.io.common.StringIO(run("proxy", path, "--key", "agent", "--format", "csv").stdout))
    assert table["key"].iloc[0] == "borderline"
    assert {"wrong_side_probability", "thrash_rate", "expected_thrash_rate", "too_noisy",
            "observations_needed", "reason"} <= set(table.columns)
    payload = json.loads(run("proxy", path, "--key", "agent", "--outcome", "outcome",
                             "--format", "json").stdout)
    assert payload["command"] == "proxy" and payload["verdict"] == "too_noisy" and not payload["passed"]
    assert payload["calibration"]["n_outcomes"] == 450
    assert len(payload["reliability"]) == 10
    assert payload["table"][0]["key"] == "borderline"


def test_swarm_event_log_per_initiator(tmp_path):
    rng = np.random.default_rng(1)
    lines = []
    for i in range(300):
        agent = ["agent_1", "agent_2"][i % 2]
        p = float(np.clip((0.8 if agent == "agent_1" else 0.5) + rng.normal(0, 0.1), 0, 1))
        lines.append(json.dumps({"event_id": f"e-{i}", "event_type": "interaction_completed",
                                 "initiator_id": agent, "epoch": i // 30, "step": i,
                                 "payload": {"p": p, "v_hat": 0.0, "accepted": True}}))
    lines.append(json.dumps({"event_id": "x", "event_type": "epoch_completed", "epoch": 9, "payload": {}}))
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = run("proxy", path, "--key", "initiator_id", "--format", "json")
    assert result.returncode == 1, result.stderr
    table = {row["key"]: row for row in json.loads(result.stdout)["table"]}
    assert table["agent_2"]["too_noisy"] and not table["agent_1"]["too_noisy"]


def test_plot_has_both_panels_with_outcomes(tmp_path):
    path = tmp_path / "scores.csv"
    scores(path)
    png = tmp_path / "proxy.png"
    assert run("proxy", path, "--key", "agent", "--outcome", "outcome", "--plot", png).returncode == 1
    assert png.stat().st_size > 5000


@pytest.mark.parametrize("content,args,message", [
    # the first value outside as a plain number (it read "first: np.float64(1.3)")
    ("p\n0.5\n1.3\n", (), "p must lie in [0, 1]; 1 value(s) do not (first: 1.3, position 1)"),
    ("p\n0.5\n\n0.4\nnan\n", (), "nan_policy"),
    ("p,outcome\n0.5,1\n0.4,2\n", ("--outcome", "outcome"), "0/1"),
    ("p,outcome\n0.5,1\n0.4,-1\n", ("--outcome", "outcome"), "ground_truth"),
    ("p\n0.5\n", ("--key", "agent"), "no column 'agent' for --key"),
    ("score\n0.5\n", (), "no column 'p'"),
    ("p\n0.5\n", ("--window", "1"), "window"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, content, args, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    result = run("proxy", path, *args)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_scores_can_be_skipped(tmp_path):
    path = tmp_path / "gaps.csv"
    path.write_text("agent,p\na,0.9\na,\na,0.85\nb,0.2\nb,0.25\n")
    assert run("proxy", path, "--key", "agent").returncode == 2
    result = run("proxy", path, "--key", "agent", "--nan-policy", "omit", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert {row["key"]: row["n"] for row in json.loads(result.stdout)["table"]} == {"a": 2, "b": 2}


def test_the_tolerated_wrong_side_probability_has_its_own_name(tmp_path, capsys):
    """--alpha is a significance level everywhere else; proxy's tolerance is --max-wrong-side
    (--alpha still works for a release, with a note)."""
    from swarmstats.cli import main

    path = tmp_path / "scores.csv"
    rng = np.random.default_rng(5)
    pd.DataFrame({"agent": np.repeat(["a", "b"], 40), "p": np.r_[rng.uniform(0.4, 0.6, 40),
                                                                  rng.uniform(0.8, 0.9, 40)]}).to_csv(path, index=False)
    main(["proxy", str(path), "--key", "agent", "--max-wrong-side", "0.3", "--format", "json"])
    new = capsys.readouterr()
    main(["proxy", str(path), "--key", "agent", "--alpha", "0.3", "--format", "json"])
    old = capsys.readouterr()
    assert json.loads(new.out)["max_wrong_side"] == 0.3 and new.out == old.out
    assert "--alpha is renamed --max-wrong-side" in old.err and "renamed" not in new.err


def test_without_a_key_every_score_is_one_key_named_all():
    # the real SWARM events file has no key column: its one row read "None"
    result = run("proxy", "tests/fixtures/real/swarm/strict-governance-events.jsonl")
    assert result.returncode == 0, result.stderr
    row = result.stdout.splitlines()[2]
    assert row.split()[:2] == ["(all)", "163"] and "None" not in result.stdout


def test_scores_that_name_their_agents_get_a_hint_to_judge_each_apart(tmp_path):
    # pooled, the real SWARM log's SD (0.109) is mostly the spread between its agents' levels
    # (means 0.39 to 0.75), not any agent's own noise (SDs 0.04 to 0.075)
    events = "tests/fixtures/real/swarm/strict-governance-events.jsonl"
    pooled = run("proxy", events)
    assert "--key initiator_id judges each apart (or --key counterparty_id)" in pooled.stderr
    keyed = run("proxy", events, "--key", "initiator_id", "--format", "json")
    assert keyed.returncode == 0 and "judges each apart" not in keyed.stderr
    sds = [row["sd"] for row in json.loads(keyed.stdout)["table"]]
    assert len(sds) == 6 and max(sds) < 0.08 < 0.1 < json.loads(run("proxy", events, "--format", "json")
                                                                 .stdout)["table"][0]["sd"]
    # one agent named throughout: nothing to split, nothing said
    path = tmp_path / "scores.csv"
    pd.DataFrame({"agent": ["a"] * 30, "p": np.linspace(0.6, 0.9, 30)}).to_csv(path, index=False)
    assert "judges each apart" not in run("proxy", path).stderr
    # a simulation's agent table as Mesa writes it names its agents AgentID
    steps, agents = np.meshgrid(np.arange(40), np.arange(4), indexing="ij")
    pd.DataFrame({"Step": steps.ravel(), "AgentID": agents.ravel(),
                  "p": 0.3 + 0.12 * agents.ravel() + 0.01 * np.sin(steps.ravel())}).to_csv(path, index=False)
    assert "--key AgentID judges each apart" in run("proxy", path).stderr
