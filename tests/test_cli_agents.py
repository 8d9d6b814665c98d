"""`swarmstats agents`: the multi-agent estimators that apply to the files given, one line each."""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from tests.test_cli import run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from scenarios import (  # noqa: E402
    agent_actions,
    agent_behaviour,
    seeds_at_equilibria,
    team_evaluations,
)

SWARM = Path(__file__).resolve().parent / "fixtures" / "real" / "swarm" / "strict-governance-events.jsonl"


def test_a_real_swarm_event_log_gets_contagion_between_reputations():
    # 6 agents' reputations over 121 SWARM steps (tests/fixtures/real/README.md): reputations move
    # when two agents interact - in the same step - so no agent leads another
    done = run("agents", SWARM)
    assert done.returncode == 0, done.stderr
    assert "(6 agents' reputations): contagion: none_shown" in done.stdout


def test_tables_runs_and_json(tmp_path):
    rng = np.random.default_rng(0)
    teams, _ = team_evaluations(rng, members_layout=False, per_member=-0.05)
    teams.to_csv(tmp_path / "teams.csv", index=False)
    behaviour = pd.DataFrame(agent_behaviour(rng, agents=3, follow_lag=2, noise=0.1, steps=600))
    long = behaviour.rename_axis("step").reset_index().melt(id_vars="step", var_name="agent", value_name="effort")
    long.to_csv(tmp_path / "effort.csv", index=False)
    runs, picks = seeds_at_equilibria(rng, [0.0, 3.0], seeds=4)
    paths = []
    for name, values in runs.items():
        paths.append(tmp_path / f"{name}.csv")
        pd.DataFrame({"step": np.arange(len(values)), "reward": values}).to_csv(paths[-1], index=False)

    done = run("agents", tmp_path / "teams.csv")
    assert done.returncode == 0 and "synergy gap: negative synergy" in done.stdout
    done = run("agents", tmp_path / "effort.csv", "--value", "effort")
    assert done.returncode == 0 and "contagion: contagion - changes in agent_0" in done.stdout
    votes = pd.DataFrame(agent_actions(rng, agents=5, steps=1000, conform=(0.0, 0.9), persistence=0.8))
    votes.rename_axis("step").reset_index().melt(id_vars="step", var_name="agent", value_name="vote").assign(
        vote=lambda f: "option_" + f["vote"].astype(str)).to_csv(tmp_path / "votes.csv", index=False)
    done = run("agents", tmp_path / "votes.csv", "--value", "vote")
    assert done.returncode == 0 and "(agents' vote as actions): agreement: escalating" in done.stdout
    done = run("agents", *paths, "-m", "reward", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["results"][0]
    assert result["analysis"] == "4 runs (reward)"
    assert result["n_equilibria"] == len(set(picks))


def test_nothing_to_analyse_and_a_missing_metric_exit_2(tmp_path):
    pd.DataFrame({"step": range(50), "reward": np.arange(50.0)}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"step": range(50), "reward": np.arange(50.0)}).to_csv(tmp_path / "b.csv", index=False)
    done = run("agents", tmp_path / "a.csv")
    assert done.returncode == 2 and "nothing to analyse" in done.stderr and "Traceback" not in done.stderr
    done = run("agents", tmp_path / "a.csv", tmp_path / "b.csv")
    assert done.returncode == 2 and "--metric" in done.stderr
