"""Mesa's batch runs (``mesa.batch_run`` saved as a CSV): parameters as each run's configuration,
the model's reporters once per run and step, the agents' per agent, iterations as replicates.

The fixtures are what Mesa 3.3.1 wrote for a Boltzmann wealth model (its tutorial's model, written
for these tests): ``batch_run.csv`` what ``batch_run`` returned (4 and 8 agents, 3 iterations
each, 40 steps collected at every step), saved with ``pd.DataFrame(results).to_csv(path,
index=False)``; ``agents.csv`` and ``model.csv`` one run's ``DataCollector`` tables (6 agents, 60
steps), saved with ``get_agent_vars_dataframe().to_csv(path)`` and
``get_model_vars_dataframe().to_csv(path)``."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats._table import ONE_CONFIGURATION
from tests.test_cli import run

MESA = Path(__file__).resolve().parent / "fixtures" / "logs" / "mesa"
RESULTS = MESA / "batch_run.csv"


def test_a_batch_run_reads_as_runs_of_the_model_and_of_its_agents():
    raw = pd.read_csv(RESULTS)
    wide = read_log(RESULTS, wide=True)
    assert wide.attrs["format"] == "mesa-batch"
    # the parameter and the replicate number are no metrics, nor the ids
    assert wide.columns.tolist() == ["run", "step", "Gini", "Wealth"]
    model = wide[wide["Gini"].notna()]
    assert model["run"].unique().tolist() == [f"RunId={k}" for k in range(6)]
    assert model.groupby("run").size().tolist() == [41] * 6  # once per step, not once per agent
    for run_id in range(6):
        expected = raw[raw["RunId"] == run_id].groupby("Step")["Gini"].first()
        got = model[model["run"] == f"RunId={run_id}"].set_index("step")["Gini"]
        np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
        assert got.index.tolist() == expected.index.astype(float).tolist()
    agents = wide[wide["Wealth"].notna()]
    assert agents["run"].nunique() == 3 * (4 + 8) and agents["Gini"].isna().all()
    expected = raw[(raw["RunId"] == 1) & (raw["AgentID"] == 3)].set_index("Step")["Wealth"]
    got = agents[agents["run"] == "RunId=1 AgentID=3"].set_index("step")["Wealth"]
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy(dtype=float))
    # each run's configuration is its parameters: the iterations of one setting are replicates
    configs = wide.attrs["run_configs"]
    assert [configs[f"RunId={k}"] for k in range(6)] == ["n=4", "n=8"] * 3
    assert configs["RunId=1 AgentID=3"] == "n=8, AgentID=3" and wide.attrs["run_configs_complete"]
    assert "parameters n" in wide.attrs["notes"][0] and "agent reporters Wealth" in wide.attrs["notes"][0]


def test_check_convergence_pools_the_iterations_of_each_setting_and_judges_agents_when_named():
    result = run("check-convergence", RESULTS, "--format", "json")
    payload = json.loads(result.stdout)["results"]
    # by default the model's reporters, once per setting over its iterations: each agent's
    # wealth is a series of its own (this small batch gave 12 more pooled verdicts, and 36
    # more rows; 100 agents in 20 runs would give 2,000)
    assert [r["name"] for r in payload] == ["Gini [n=4]", "Gini [n=8]"]
    assert [[x["n"] for x in r["runs"]] for r in payload] == [[41] * 3] * 2
    assert "left out Wealth (agent reporter: a series per agent of each run, 36 agents in 6 runs" in result.stderr
    assert "2 configuration(s)" in result.stderr and "not logged" not in result.stderr
    # named, an agent's series pools the same agent's replicates, never two agents, and the
    # model's runs (which hold no agent's value) are not listed as missing it
    named = run("check-convergence", RESULTS, "-m", "Wealth", "--format", "json")
    names = [r["name"] for r in json.loads(named.stdout)["results"]]
    assert names == [f"Wealth [n=4, AgentID={a}]" for a in range(1, 5)] + [
        f"Wealth [n=8, AgentID={a}]" for a in range(1, 9)]
    assert all(len(r["runs"]) == 3 for r in json.loads(named.stdout)["results"])
    assert "not logged" not in named.stderr and "left out Wealth" not in named.stderr
    # both named: both judged; the model's reporters are missing from the agents' runs by design
    both = run("check-convergence", RESULTS, "-m", "Gini", "-m", "Wealth", "--format", "json")
    assert len(json.loads(both.stdout)["results"]) == 2 + 12
    assert both.stderr.count("Gini: not logged in the runs of 12 configurations") == 1
    # a metric the batch run lacks: the error lists the agents' reporters too
    missing = run("check-convergence", RESULTS, "-m", "Nope")
    assert missing.returncode == 2 and "available: Gini, Wealth" in missing.stderr
    # one agent's run, picked with --run: its series alone
    one = run("check-convergence", RESULTS, "--run", "RunId=1 AgentID=3", "-m", "Wealth", "--format", "json")
    assert [r["n"] for r in json.loads(one.stdout)["results"]] == [41]


def test_a_saved_index_and_runs_finished_out_of_order_read_the_same(tmp_path):
    raw = pd.read_csv(RESULTS)
    expected = read_log(RESULTS, wide=True)
    indexed = tmp_path / "indexed.csv"
    raw.to_csv(indexed)  # pandas' default: the index first, unnamed
    pd.testing.assert_frame_equal(read_log(indexed, wide=True), expected)
    # batch_run with several processes returns the runs as they finish
    shuffled = tmp_path / "unordered.csv"
    pd.concat([raw[raw["RunId"] == k] for k in (3, 0, 5, 1, 4, 2)]).to_csv(shuffled, index=False)
    pd.testing.assert_frame_equal(read_log(shuffled, wide=True), expected)


def test_a_table_of_plain_numbers_and_one_pandas_parses_read_the_same(tmp_path, monkeypatch):
    """A file whose every cell is a plain number is read without a DataFrame (numpy columns,
    ``read_batch_numbers``); one holding a word goes through pandas (``read_batch_run``): the
    same runs, steps, values and configurations either way."""
    from swarmstats.io.formats import mesa
    from swarmstats.io.plain_csv import numeric_table

    names, rows = numeric_table(RESULTS.read_bytes())
    by_numbers = mesa.read_batch_numbers({c: rows[:, i] for i, c in enumerate(names)}, len(rows), "x")
    by_pandas = mesa.read_batch_run(pd.read_csv(RESULTS), "x")
    pd.testing.assert_frame_equal(by_numbers.frame, by_pandas.frame)
    assert by_numbers.run_configs == by_pandas.run_configs and by_numbers.notes == by_pandas.notes
    taken = []
    monkeypatch.setattr(mesa, "_batch_run", lambda columns, *rest: taken.append(columns["RunId"].dtype.kind) or by_numbers)
    read_log(RESULTS, wide=True)
    pd.read_csv(RESULTS).assign(Gini="x").to_csv(tmp_path / "text.csv", index=False)
    read_log(tmp_path / "text.csv", wide=True)
    assert taken == ["f", "i"]  # plain numbers come as floats, pandas keeps its integers
    monkeypatch.undo()
    # a parameter written as a word: pandas' path, the same series under the word's label
    worded = pd.read_csv(RESULTS).assign(n=lambda t: t["n"].map({4: "four", 8: "eight"}))
    worded.to_csv(tmp_path / "worded.csv", index=False)
    frame = read_log(tmp_path / "worded.csv", wide=True)
    pd.testing.assert_frame_equal(frame, by_pandas.frame, check_like=True)
    assert set(frame.attrs["run_configs"].values()) >= {"n=four", "n=eight"}


def test_model_reporters_alone_and_a_seed_parameter(tmp_path):
    rng = np.random.default_rng(0)
    rows = [{"RunId": run_id, "iteration": 0, "Step": step, "n": 10, "seed": seed,
             "Gini": 0.4 * (1 - np.exp(-step / 5)) + rng.normal(0, 0.01)}
            for run_id, seed in enumerate((11, 12, 13)) for step in range(60)]
    path = tmp_path / "model.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["run", "step", "Gini"] and len(wide) == 180
    # runs that differ only in a seed are replicates of one configuration
    assert set(wide.attrs["run_configs"].values()) == {ONE_CONFIGURATION}
    payload = json.loads(run("check-convergence", path, "--format", "json").stdout)["results"]
    assert [r["name"] for r in payload] == [f"Gini [{ONE_CONFIGURATION}]"] and len(payload[0]["runs"]) == 3


def test_a_batch_run_of_last_steps_is_each_settings_final_values(tmp_path):
    # batch_run's default keeps each run's last step: every column holds one value within a
    # run, so the parameters are told by what repeats across the iterations of a setting
    raw = pd.read_csv(RESULTS)
    last_step = raw[raw["Step"] == raw["Step"].max()]
    last = tmp_path / "last.csv"
    last_step.to_csv(last, index=False)
    wide = read_log(last, wide=True)
    assert wide.attrs["final_values"] and wide.columns.tolist() == ["run", "step", "Gini", "Wealth"]
    assert "parameters n" in " ".join(wide.attrs["notes"])
    ginis = wide.dropna(subset=["Gini"])
    assert ginis["run"].tolist() == ["n=4", "n=8"] * 3  # in RunId order, once per run
    assert ginis["Gini"].tolist() == last_step.groupby("RunId")["Gini"].first().tolist()
    wealth = wide.dropna(subset=["Wealth"])
    assert sorted(wealth.groupby("run").size().tolist()) == [3 * 4, 3 * 8]  # every agent of every run
    described = json.loads(run("describe", last, "--format", "json").stdout)["results"]
    by_name = {r["name"]: r for r in described}
    assert set(by_name) == {"Gini [n=4]", "Gini [n=8]", "Wealth [n=4]", "Wealth [n=8]"}
    assert by_name["Wealth [n=8]"]["n"] == 24 and by_name["Wealth [n=8]"]["mean"] == pytest.approx(1.0)  # conserved
    # the agents of one run are alike (their wealth sums to their count): clustered by run
    assert by_name["Wealth [n=8]"]["clusters"] == 3 and by_name["Gini [n=8]"]["clusters"] == 3
    refused = run("check-convergence", last)
    assert refused.returncode == 2 and "final measurement only" in refused.stderr and "Traceback" not in refused.stderr
    # one iteration: nothing tells the parameters from the reporters
    first = tmp_path / "first.csv"
    last_step[last_step["iteration"] == 0].to_csv(first, index=False)
    with pytest.raises(InputError, match="data_collection_period=1"):
        read_log(first)


@pytest.mark.parametrize("text,message", [
    ("RunId,iteration,Step,n\n0,0,0,4\n0,0,1,4\n", "no reporter"),
    ("RunId,iteration,Step,n,Gini\n0,0,0,4,0.1\nx,0,1,4,0.2\n", "no RunId or Step"),
    ("RunId,iteration,Step,n,label\n0,0,0,4,a\n0,0,1,4,b\n", "hold no numbers"),
])
def test_a_broken_batch_run_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "results.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_log(path)


def test_a_single_runs_datacollector_tables():
    # the agents' table (Step, AgentID, Wealth): a series per agent, never one series
    # alternating between them nor AgentID judged
    result = run("check-convergence", MESA / "agents.csv", "--format", "json")
    payload = json.loads(result.stdout)["results"]
    assert [r["name"] for r in payload] == [f"Wealth [AgentID={a}]" for a in range(1, 7)]
    assert [r["n"] for r in payload] == [61] * 6
    assert "holds 6 agents" in result.stderr
    raw = pd.read_csv(MESA / "agents.csv")
    for agent, result in zip(range(1, 7), payload):  # each agent's own values, after its warm-up
        wealth = raw.loc[raw["AgentID"] == agent, "Wealth"].to_numpy()
        assert result["mean"] == pytest.approx(wealth[result["warmup"]:].mean())
    # the model's table, its index unnamed: the row is the step, Gini a diagnostic
    model = json.loads(run("check-convergence", MESA / "model.csv", "--format", "json").stdout)["results"]
    assert [(r["name"], r["n"]) for r in model] == [("Gini", 61)]
    assert model[0]["mean"] == pytest.approx(pd.read_csv(MESA / "model.csv")["Gini"][model[0]["warmup"]:].mean())


def test_sweep_and_curves_of_a_batch_run_take_the_agents_when_named():
    # sweep's default: the model's reporters by setting, one line each, the agents said to be
    # left out (there were 36 agent runs, each with "Gini mean n/a over 0 runs" beside it)
    swept = json.loads(run("sweep", RESULTS, "--format", "json").stdout)
    assert swept["n_runs"] == 6 and {row["metric"] for row in swept["table"]} == {"Gini"}
    assert any(note.startswith("left out Wealth (agent reporter") for note in swept["notes"])
    named = json.loads(run("sweep", RESULTS, "-m", "Wealth", "--format", "json").stdout)
    assert named["n_runs"] == 36 and len(named["table"]) == 12
    assert not any("left out" in note for note in named["notes"])
    # curves of an agent reporter: each agent's band across the iterations of its setting (it
    # stopped at the model's first run, which holds no agent's value)
    curves = run("curves", RESULTS, "-m", "Wealth", "--format", "json")
    assert curves.returncode == 0, curves.stderr
    names = [r["name"] for r in json.loads(curves.stdout)["results"]]
    assert len(names) == 12 and names[0] == "Wealth [n=4, AgentID=1]"
    gini = json.loads(run("curves", RESULTS, "-m", "Gini", "--format", "json").stdout)["results"]
    assert [r["name"] for r in gini] == ["Gini [n=4]", "Gini [n=8]"]
