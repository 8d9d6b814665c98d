"""Several runs in one log are never merged; bookkeeping columns are left out; steps keep their
units; one direction rule.  (issue 14; the real-log corpus is tests/test_real_logs.py)"""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.direction import better_direction, guessed_direction, sense
from swarmstats.io.columns import classify_columns
from swarmstats.io.runs import find_runs
from tests.test_cli import run

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"


def two_runs(path, key="run", values=("a", "b")):
    rng = np.random.default_rng(0)
    rows = [(k, s, rng.normal(0 if k == values[0] else 5, 1)) for k in values for s in range(100)]
    pd.DataFrame(rows, columns=[key, "step", "reward"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("key,values", [("run", ("a", "b")), ("seed", (1, 2)), ("seed", ("s1", "s2")),
                                        ("trial_id", ("t0", "t1"))])
def test_two_runs_in_one_file_are_checked_one_by_one(tmp_path, key, values):
    path = two_runs(tmp_path / "tworuns.csv", key, values)
    result = run("check-convergence", path, "--format", "json")
    results = json.loads(result.stdout)["results"]
    # seeds are replicates, summarised together; runs named a and b (t0, t1) are two settings
    pooled = key == "seed"
    assert len(results) == (1 if pooled else 2)
    sizes = [r["n"] for r in results[0]["runs"]] if pooled else [r["n"] for r in results]
    assert sizes == [100, 100]  # never one 200-point series
    assert "2 runs" in result.stderr and "--run" in result.stderr
    if key != "run":
        return  # the other commands share the key finding: checked once, below
    # every command splits, or takes --run
    for command in ("regimes", "windows", "describe"):
        out = run(command, path, "--format", "csv")
        assert out.returncode == 0 and out.stdout.count("[run=") >= 2
    picked = run("regimes", path, "--run", str(values[1]), "--format", "json")
    assert json.loads(picked.stdout)["results"][0]["n"] == 100


def test_two_runs_interleaved_without_a_run_column_are_named_not_silently_merged(tmp_path):
    # every step written twice, once per run (0.5 and 0.8): read as one series it is
    # "converged" at 0.65, nobody's level; the steps' repetition says what happened
    rng = np.random.default_rng(0)
    steps = np.repeat(np.arange(300), 2)
    values = np.where(np.arange(600) % 2, 0.8, 0.5) + rng.normal(0, 0.05, 600)
    path = tmp_path / "interleaved.csv"
    pd.DataFrame({"step": steps, "reward": values}).to_csv(path, index=False)
    for command in ("check-convergence", "describe", "regimes"):
        result = run(command, path)
        assert "each step of 'step' holds 2 values (600 values at 300 steps)" in result.stderr, result.stderr
    # episodes of parallel workers that now and then end at the same step are not that
    ragged = np.sort(rng.integers(0, 500, 400))
    pd.DataFrame({"step": ragged, "reward": rng.normal(size=400)}).to_csv(path, index=False)
    assert "holds" not in run("check-convergence", path).stderr


def mesa_agents(path, agent="AgentID", seeds=None, agents=4, steps=80):
    """A simulation's table of agents as Mesa writes it (``Step,AgentID,Wealth``: every agent at
    every step, step by step), each agent at its own level."""
    rng = np.random.default_rng(4)
    rows = [(*(() if seeds is None else (seed,)), step, agent_id, 2.0 * agent_id + rng.normal())
            for seed in (seeds or [None]) for step in range(1, steps + 1) for agent_id in range(agents)]
    columns = ([] if seeds is None else ["seed"]) + ["Step", agent, "Wealth"]
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("agent", ["AgentID", "agent_id", "agent", "agentId"])
def test_a_simulations_table_of_agents_is_split_by_agent_and_never_pooled(tmp_path, agent):
    # read as one series it was "converged" at the mean of every agent, AgentID itself was judged
    # as a metric, and the hint to add "an agent column" named one the file already had
    path = mesa_agents(tmp_path / "agents.csv", agent)
    key = find_runs(pd.read_csv(path), step="Step")
    assert key.columns == (agent,) and key.of_agents
    assert key.names == [f"{agent}={k}" for k in range(4)]
    assert key.configs == key.names  # each agent its own setting: agents are no replicates
    result = run("check-convergence", path, "--format", "json")
    payload = json.loads(result.stdout)["results"]
    assert [r["name"] for r in payload] == [f"Wealth [{agent}={k}]" for k in range(4)]
    assert [r["n"] for r in payload] == [80] * 4 and not any("runs" in r for r in payload)  # no R-hat
    assert "holds 4 agents" in result.stderr and "each agent on its own" in result.stderr
    assert "holds 4 values" not in result.stderr  # no hint to add the column it has
    means = [r["mean"] for r in payload]
    assert means == sorted(means) and means[-1] - means[0] > 5  # each agent's own level
    # one agent alone: its identifier is no metric
    frame = pd.read_csv(path)
    frame[frame[agent] == 2].to_csv(tmp_path / "one.csv", index=False)
    alone = run("check-convergence", tmp_path / "one.csv", "--format", "json")
    assert [r["name"] for r in json.loads(alone.stdout)["results"]] == ["Wealth"]
    assert f"left out {agent} (an identifier)" in alone.stderr


def test_the_seeds_of_each_agent_are_its_replicates(tmp_path):
    path = mesa_agents(tmp_path / "agents.csv", seeds=[0, 1, 2], agents=3, steps=60)
    key = find_runs(pd.read_csv(path), step="Step")
    assert key.columns == ("seed", "AgentID") and len(key.names) == 9
    assert key.configs == ["AgentID=0", "AgentID=1", "AgentID=2"]
    payload = json.loads(run("check-convergence", path, "--format", "json").stdout)["results"]
    assert [r["name"] for r in payload] == ["Wealth [AgentID=0]", "Wealth [AgentID=1]", "Wealth [AgentID=2]"]
    assert all([x["n"] for x in r["runs"]] == [60] * 3 for r in payload)


def test_a_line_naming_its_agent_is_that_agents_record():
    from swarmstats.io.runs import record_run

    assert record_run({"step": 3, "agent_id": "a7", "reward": 0.5}) == ("agent_id=a7", ("agent_id",))


def test_many_short_runs_keep_their_step_axis(tmp_path):
    # ten seeds of 20 updates start their axis again nine times (4.5% of the rows): it was
    # left out as "a counter" and each run judged on its row numbers
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"seed": np.repeat(np.arange(10), 20), "env_steps": np.tile(np.arange(1, 21) * 2048, 10),
                          "reward": rng.normal(size=200)})
    from swarmstats.io.columns import table_roles

    columns, key = table_roles(frame)
    assert columns.step == "env_steps" and "env_steps" not in columns.bookkeeping
    assert len(key.names) == 10 and key.restarts == 0
    path = tmp_path / "seeds.csv"
    frame.to_csv(path, index=False)
    tidy = ss.read_log(path)
    assert sorted(tidy["step"].unique().tolist()) == list(np.arange(1, 21) * 2048)
    result = run("check-convergence", path, "--format", "json")
    assert "env_steps" not in result.stderr  # not left out as a counter
    assert all(x["n"] == 20 for x in json.loads(result.stdout)["results"][0]["runs"])
    # a column named like a step that goes back within a run (not to where the run began)
    # is still no axis
    frame["env_steps"] = np.tile(np.r_[np.arange(1, 11), np.arange(5, 15)] * 2048, 10)
    assert table_roles(frame)[0].step is None
    # one that starts again from the beginning within each seed is two runs of that seed
    frame["env_steps"] = np.tile(np.r_[np.arange(1, 11), np.arange(1, 11)] * 2048, 10)
    columns, key = table_roles(frame)
    assert columns.step == "env_steps" and key.names[:2] == ["seed=0 #1", "seed=0 #2"] and key.restarts == 10


def test_label_by_seed_is_a_composite_key_and_seeds_are_summarised_per_label(tmp_path):
    rng = np.random.default_rng(1)
    rows = [(label, seed, epoch, rng.normal(), rng.normal()) for label in "ABC" for seed in range(5)
            for epoch in range(10)]
    path = tmp_path / "epochs.csv"
    pd.DataFrame(rows, columns=["label", "seed", "epoch", "toxicity", "welfare"]).to_csv(path, index=False)
    key = find_runs(pd.read_csv(path), step="epoch")
    assert key.columns == ("label", "seed") and len(key.names) == 15 and key.configs == [
        "label=A", "label=B", "label=C"]
    payload = json.loads(run("check-convergence", path, "-m", "welfare", "--format", "json").stdout)
    assert [r["name"] for r in payload["results"]] == ["welfare [label=A]", "welfare [label=B]", "welfare [label=C]"]
    assert all(len(r["runs"]) == 5 and {x["n"] for x in r["runs"]} == {10} for r in payload["results"])


def test_a_step_axis_that_starts_again_splits_the_runs(tmp_path):
    path = tmp_path / "appended.csv"
    rng = np.random.default_rng(2)
    pd.DataFrame({"step": list(range(60)) * 2, "reward": np.r_[rng.normal(0, 1, 60), rng.normal(3, 1, 60)]}
                 ).to_csv(path, index=False)
    result = run("regimes", path, "--format", "json")
    assert [r["n"] for r in json.loads(result.stdout)["results"]] == [60, 60]
    assert "starting again 1 time" in result.stderr


def test_short_runs_appended_to_one_file_are_split_not_merged(tmp_path):
    # four 15-row runs start their step again 3 times, 5% of the rows: beyond the 2% a drop
    # was allowed, the step column was "a counter" and the four runs one merged series
    rng = np.random.default_rng(4)
    steps = np.tile(np.arange(1, 16) * 1000, 4)
    frame = pd.DataFrame({"step": steps, "total_env_steps": steps * 8,
                          "reward": np.repeat([0.0, 0.5, 1.0, 1.5], 15) + rng.normal(size=60)})
    from swarmstats.io.columns import table_roles

    columns, key = table_roles(frame)
    assert columns.step == "step" and columns.metrics == ["reward"]
    assert columns.bookkeeping == {"total_env_steps": "a counter"}  # a counter too, run by run
    assert key.names == ["#1", "#2", "#3", "#4"] and key.restarts == 3
    path = tmp_path / "appended.csv"
    frame.to_csv(path, index=False)
    result = run("describe", path, "--format", "json")
    assert [r["n"] for r in json.loads(result.stdout)["results"]] == [15] * 4
    assert "starting again 3 time(s)" in result.stderr
    assert "step (a counter)" not in result.stderr and "total_env_steps (a counter)" in result.stderr
    # a run that resumes half-way through the one before is no restart from the beginning:
    # with more than one such drop the column stays no axis, as before
    resumed = pd.DataFrame({"step": np.r_[np.arange(1, 16), np.arange(8, 23), np.arange(15, 30), np.arange(22, 37)],
                            "reward": rng.normal(size=60)})
    assert table_roles(resumed)[0].step is None


def test_a_single_run_is_not_split_and_run_says_so(tmp_path):
    path = tmp_path / "one.csv"
    pd.DataFrame({"step": range(50), "reward": np.random.default_rng(3).normal(size=50)}).to_csv(path, index=False)
    assert "runs" not in run("describe", path).stderr
    refused = run("describe", path, "--run", "x")
    assert refused.returncode == 2 and "single run" in refused.stderr


def test_counters_clocks_and_schedules_do_not_fail_the_gate(tmp_path):
    # an SB3-style progress log whose reward is flat: the gate passes on the reward alone
    rng = np.random.default_rng(4)
    n = 400
    frame = pd.DataFrame({
        "time/total_timesteps": np.arange(1, n + 1) * 2048, "time/iterations": np.arange(1, n + 1),
        "time/fps": rng.integers(800, 900, n), "time/time_elapsed": np.arange(1, n + 1) * 3,
        "train/learning_rate": np.linspace(3e-4, 1e-5, n), "train/n_updates": np.arange(1, n + 1) * 10,
        "rollout/ep_rew_mean": 200 + rng.normal(0, 5, n)})
    path = tmp_path / "progress.csv"
    frame.to_csv(path, index=False)
    result = run("check-convergence", path, "--format", "json")
    assert result.returncode == 0, result.stdout
    assert [r["name"] for r in json.loads(result.stdout)["results"]] == ["rollout/ep_rew_mean"]
    text = run("check-convergence", path).stderr
    for column, why in (("time/fps", "throughput"), ("time/time_elapsed", "a clock"),
                        ("train/learning_rate", "schedule"), ("train/n_updates", "a counter")):
        assert column in text and why in text
    named = run("check-convergence", path, "-m", "train/learning_rate", "--format", "json")
    assert json.loads(named.stdout)["results"][0]["verdict"] == "not_converged"  # named: analysed


def test_a_return_of_whole_numbers_rising_at_every_evaluation_is_a_metric_not_a_counter(tmp_path):
    """CartPole's returns are whole numbers, and an evaluation's that rose at each check was
    left out as "a counter" (integers rising at 90% of rows or more): the run's one metric gone,
    "no numeric metric column".  A name that measures how well the run does is a metric; one
    that counts (num_success, Safety Gym's CumulativeCost) stays a counter by its shape."""
    returns = [9, 12, 21, 30, 44, 61, 95, 130, 176, 220, 301, 365, 420, 480, 500]
    frame = pd.DataFrame({"global_step": np.arange(1, 16) * 5000, "eval/episodic_return": returns,
                          "num_success": np.arange(15) * 2, "CumulativeCost": np.arange(15) * 7 + 2})
    columns = classify_columns(frame)
    assert columns.metrics == ["eval/episodic_return"]
    assert set(columns.bookkeeping) == {"num_success", "CumulativeCost"}
    path = tmp_path / "eval.csv"
    frame.to_csv(path, index=False)
    done = run("check-convergence", path, "--format", "json")
    assert [row["name"] for row in json.loads(done.stdout)["results"]] == ["eval/episodic_return"]
    monitor = ss.Monitor(check_every=5)
    for step, value in enumerate(returns):
        monitor.log(step, **{"eval/episodic_return": float(value), "num_success": float(step)})
    assert list(monitor.status.metrics) == ["eval/episodic_return"]
    assert list(monitor.status.left_out) == ["num_success"]


@pytest.mark.parametrize("name", ["total timesteps", "Total_Timesteps", "time/total_timesteps", "episode",
                                  "global_step", "training_iteration", "epoch", "_step"])
def test_step_columns_are_found_by_name_without_case_or_separators(name):
    frame = pd.DataFrame({name: [0, 10, 20, 30, 40, 50], "reward": [1.0, 2, 1, 3, 2, 4]})
    columns = classify_columns(frame)
    assert columns.step == name and columns.metrics == ["reward"]


def test_a_column_named_like_a_step_must_be_shaped_like_one():
    # 'steps' here is the length of each episode, not a step axis: 'episode' is the axis
    frame = pd.DataFrame({"steps": [200, 180, 210, 150, 199, 170], "episode": range(6),
                          "reward": [1.0, 2, 1, 3, 2, 4]})
    assert classify_columns(frame).step == "episode"
    assert classify_columns(frame).metrics == ["steps", "reward"]  # then it is a metric
    appended = pd.DataFrame({"step": [0, 1, 2, 0, 1, 2], "reward": [1.0, 2, 1, 3, 2, 4]})
    assert classify_columns(appended).step == "step"  # a restart is a new run, not a non-axis


def test_a_slope_is_quoted_per_100_units_of_the_step_axis_in_api_and_cli(tmp_path):
    rng = np.random.default_rng(5)
    steps = np.arange(300) * 10  # logged every 10 steps
    reward = 0.001 * steps + rng.normal(0, 0.3, 300)
    path = tmp_path / "log.csv"
    pd.DataFrame({"global_step": steps, "reward": reward}).to_csv(path, index=False)
    cli = json.loads(run("check-convergence", path, "--format", "json").stdout)["results"][0]
    api = ss.check_convergence(reward, steps=steps)
    frame = ss.check_convergence(pd.Series(reward, index=pd.Index(steps, name="global_step")))
    assert cli["trend_slope"] == pytest.approx(api.trend_slope) == pytest.approx(frame.trend_slope)
    assert cli["trend_slope"] == pytest.approx(0.001, rel=0.2)
    epochs = ss.check_convergence(pd.Series(reward, index=pd.Index(steps / 100, name="epoch")))
    assert "per 100 epochs" in epochs.main_reason and epochs.step_unit == "epochs"
    rows = ss.check_convergence(reward)  # no axis: per 100 rows (steps)
    assert rows.trend_slope == pytest.approx(10 * api.trend_slope, rel=1e-6)


@pytest.mark.parametrize("name,better", [("train/loss", "lower"), ("eval_wer", "lower"), ("kl_loss", "lower"),
                                         ("toxicity_rate", "lower"), ("val_perplexity", "lower"),
                                         ("regret", "lower"), ("reward", "higher"), ("ankle_angle", "higher"),
                                         ("eval/accuracy", "higher"), ("ep_rew_mean", "higher"),
                                         # TRL's preference trainers: the rejected completion's
                                         # implicit reward is pushed down
                                         ("rewards/rejected", "lower"), ("eval_rewards/rejected", "lower"),
                                         ("rewards/chosen", "higher"), ("rewards/margins", "higher"),
                                         ("rewards/accuracies", "higher")])
def test_one_direction_rule(name, better):
    assert better_direction(name) == better


@pytest.mark.parametrize("name", ["grad_norm", "train/grad_norm", "gradnorm", "l", "rollout/ep_len_mean",
                                  "completion_length", "train/clip_fraction", "clip_ratio/low_mean",
                                  "policy_entropy", "reward_std", "ent_coef", "temperature",
                                  "train/approx_kl", "kl", "objective/kl", "kld",
                                  # verl's batch balancing and centred advantage estimates
                                  "global_seqlen/mean", "critic/advantages/mean", "critic/kl_coeff",
                                  # the completions' log-probabilities and logits (DPO): watched
                                  "logps/chosen", "logps/rejected", "logits/chosen", "eval_logits/rejected",
                                  # Dreamer's entropies (a falling one read "still worsening")
                                  "actor_ent", "prior_ent", "post_ent",
                                  # a simulation's inequality (Mesa's Gini of the agents' wealth)
                                  "Gini", "gini_coefficient", "wealth_inequality",
                                  # a population or a tally: NetLogo's reporters, a trainer's counts
                                  "count wolves", "count sheep", "count turtles with [infected?]", "n_agents",
                                  "population", "number of agents", "env_runners/num_episodes", "num_tokens"])
def test_a_diagnostic_has_no_better_side_but_a_ranking_still_gets_one(name):
    assert guessed_direction(name) is None and sense("auto", name) is None
    assert better_direction(name) == "higher"  # what ranks runs needs a side
    assert sense("lower", name) == "lower"      # and the user's word is taken


@pytest.mark.parametrize("name,better", [("cross_entropy", "lower"), ("train/entropy_loss", "lower"),
                                         ("clip_score", "higher"), ("normalized_score", "higher"),
                                         ("length_penalty", "lower"), ("level", "higher"),
                                         ("actor_ent_loss", "lower"), ("agent_return", "higher"),
                                         # a count of successes, a cumulative reward or cost
                                         ("num_success", "higher"), ("cumulative_reward", "higher"),
                                         ("CumulativeCost", "lower"), ("count_turns_reward_func", "higher")])
def test_words_near_a_diagnostic_keep_their_side(name, better):
    assert guessed_direction(name) == better


def test_a_diagnostic_rises_and_falls_in_the_window_and_the_verdict():
    rng = np.random.default_rng(8)
    y = np.linspace(0, 3, 400) + rng.normal(0, 1, 400)
    window = ss.AdaptiveWindow().fit(pd.Series(y, name="grad_norm"))
    statuses = set(window.table["status"])
    assert window.better is None and "rising" in statuses and not statuses & {"improving", "degrading"}
    assert "no better side" in window.summary() and "rising" in window.summary()
    falling = ss.AdaptiveWindow().fit(pd.Series(-y, name="grad_norm"))
    assert "falling" in set(falling.table["status"])
    verdict = ss.check_convergence(pd.Series(y, name="grad_norm"))
    assert verdict.verdict == "not_converged" and "still rising" in verdict.main_reason
    told = ss.check_convergence(pd.Series(y, name="grad_norm"), better="lower")
    assert "still worsening" in told.main_reason
    assert "improving" in set(ss.AdaptiveWindow(better="higher").fit(pd.Series(y, name="grad_norm")).table["status"])


def test_windows_and_report_use_the_direction_rule_and_say_so(tmp_path):
    rng = np.random.default_rng(6)
    loss = np.r_[np.full(300, 1.0), np.full(300, 0.2)] + rng.normal(0, 0.05, 600)
    path = tmp_path / "loss.csv"
    pd.DataFrame({"step": range(600), "val_loss": loss}).to_csv(path, index=False)
    result = run("windows", path, "--format", "json")
    changes = json.loads(result.stdout)["results"][0]["changes"]
    assert changes and "lower is better for val_loss" in result.stderr
    table = pd.read_csv(pd.io.common.StringIO(run("windows", path, "--format", "csv").stdout))
    assert "improving" in set(table["status"]) and "degrading" not in set(table["status"])
    higher = pd.read_csv(pd.io.common.StringIO(run("windows", path, "--better", "higher", "--format", "csv").stdout))
    assert "degrading" in set(higher["status"])
    assert ss.AdaptiveWindow().fit(pd.Series(loss, name="val_loss")).better == "lower"
    assert ss.check_convergence(pd.Series(-np.linspace(0, 1, 400) + rng.normal(0, 0.1, 400),
                                          name="loss")).main_reason.startswith("still improving")


def test_lightning_version_folders_are_runs(tmp_path):
    logs = tmp_path / "lightning_logs"
    for version in ("version_0", "version_1", "version_10"):
        shutil.copytree(FIXTURES / "lightning" / "version_0", logs / version)
    tidy = ss.read_log(logs)
    assert tidy.attrs["format"] == "lightning-csv"
    assert list(dict.fromkeys(tidy["run"])) == ["version_0", "version_1", "version_10"]
    result = run("describe", logs, "-m", "train_loss_step", "--format", "csv")
    assert result.returncode == 0 and "[run=version_10]" in result.stdout and "3 runs" in result.stderr


def test_a_lightning_run_that_logs_nan_is_said_to_have_diverged(tmp_path):
    folder = tmp_path / "version_0"
    folder.mkdir()
    (folder / "metrics.csv").write_text("step,epoch,train_loss,val_loss\n0,0,1.5,\n1,0,1.2,\n1,0,,1.3\n"
                                        "2,0,nan,\n3,0,nan,\n")
    table = ss.read_log(folder, wide=True)
    assert any("2 logged row(s) hold only NaN or inf, from step 2" in note for note in table.attrs["notes"])
    healthy = ss.read_log(FIXTURES / "lightning" / "version_0", wide=True)
    assert not any("diverged" in note for note in healthy.attrs["notes"])  # sparse rows are not NaN rows


def test_a_git_lfs_pointer_in_place_of_an_event_file(tmp_path):
    pointer = tmp_path / "events.out.tfevents.1700000000.host"
    pointer.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 10\n")
    result = run("describe", pointer)
    assert result.returncode == 2 and "Git LFS pointer" in result.stderr


def _seeded_log(path, names, levels):
    rng = np.random.default_rng(11)
    frames = [pd.DataFrame({"run": name, "step": np.arange(300), "reward": level + rng.normal(0, 0.3, 300)})
              for name, level in zip(names, levels)]
    pd.concat(frames).to_csv(path, index=False)
    return path


def test_runs_named_by_configuration_and_seed_are_pooled_per_configuration(tmp_path):
    # PPO and SAC settle at different levels: one R-hat over all four runs said "the runs
    # disagree" of seeds that agree within each algorithm
    path = _seeded_log(tmp_path / "runs.csv", ["ppo_seed1", "ppo_seed2", "sac_seed1", "sac_seed2"], [1, 1, 2, 2])
    result = run("check-convergence", path, "--format", "json")
    names = [r["name"] for r in json.loads(result.stdout)["results"]]
    assert names == ["reward [ppo]", "reward [sac]"], names
    text = run("check-convergence", path)
    assert "disagree" not in text.stdout and "configurations ppo, sac by the names' seed numbers" in text.stderr
    assert "(1 metric in 2 configurations: 2 checked," in text.stdout.splitlines()[-1]  # not "2 metrics"
    # a configuration's only seed keeps its own name
    lone = _seeded_log(tmp_path / "lone.csv", ["ppo_seed1", "ppo_seed2", "sac_seed1"], [1, 1, 2])
    names = [r["name"] for r in json.loads(run("check-convergence", lone, "--format", "json").stdout)["results"]]
    assert names == ["reward [ppo]", "reward [run=sac_seed1]"]
    # one seed of each algorithm, or two named settings: each judged alone, and two flat runs
    # at different levels pass the gate (pooled, "the runs disagree" failed it)
    for names in (["ppo_seed1", "sac_seed1"], ["baseline", "tuned"]):
        single = run("check-convergence", _seeded_log(tmp_path / "single.csv", names, [1, 2]), "--format", "json")
        results = json.loads(single.stdout)["results"]
        assert [r["name"] for r in results] == [f"reward [run={name}]" for name in names]
        assert single.returncode == 0 and all(r["verdict"] == "converged" for r in results), results
    # names that say nothing about configurations are pooled as before (W&B's random names)
    random = _seeded_log(tmp_path / "wandb.csv", ["glowing-sun-12", "dark-moon-3"], [1, 2])
    pooled = run("check-convergence", random)
    assert "R-hat" in pooled.stdout and "disagree" in pooled.stdout


def test_a_time_stamp_at_the_end_of_a_name_marks_a_replicate(tmp_path):
    # runs named when they were made ("ppo_2024-01-05_14-32-00") were settings of their own,
    # one run each; the stamp says when, not what
    names = ["ppo_2024-01-05_14-32-00", "ppo_2024-01-06_09-15-00", "sac_20240107_1130", "sac_20240108_0800"]
    path = _seeded_log(tmp_path / "stamped.csv", names, [1, 1, 2, 2])
    results = json.loads(run("check-convergence", path, "--format", "json").stdout)["results"]
    assert [(r["name"], len(r["runs"])) for r in results] == [("reward [ppo]", 2), ("reward [sac]", 2)]


def test_an_infinite_step_is_a_broken_cell_not_a_restart():
    steps = np.r_[np.arange(10.0), np.inf, 12.0, 13.0]
    assert not find_runs(pd.DataFrame({"step": steps, "r": np.arange(13.0)}), step="step").several
    restarted = np.r_[steps, np.arange(5.0)]  # a real restart after it is still one
    key = find_runs(pd.DataFrame({"step": restarted, "r": np.arange(18.0)}), step="step")
    assert key.names == ["#1", "#2"] and key.restarts == 1


def test_a_metric_only_some_runs_logged_is_judged_where_it_was_logged(tmp_path):
    """An evaluation only one seed ran (TorchRL's log_dir: eval/success in one experiment): the
    whole command failed, check-convergence saying the metric 'has no values in any run' and
    report 'has no values (every cell is empty)'."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"run": np.repeat(["a", "b"], 60), "step": np.tile(np.arange(60), 2),
                          "reward": rng.normal(0.5, 0.05, 120),
                          "success": np.r_[rng.normal(0.8, 0.05, 60), np.full(60, np.nan)]})
    frame.to_csv(tmp_path / "runs.csv", index=False)
    done = run("check-convergence", tmp_path / "runs.csv")
    assert done.returncode in (0, 1), done.stderr
    assert "success [run=a]" in done.stdout and "success [run=b]" not in done.stdout
    assert "(2 metrics in 2 configurations: 3 checked," in done.stdout.splitlines()[-1]
    assert "success [b]: not logged in this configuration's runs" in done.stderr
    report = run("report", tmp_path / "runs.csv", "-o", tmp_path / "report.html")
    assert report.returncode == 0, report.stderr
    assert "[run=b]: success not logged in this run" in (tmp_path / "report.html").read_text()
    for command in ("describe", "windows", "regimes"):
        assert run(command, tmp_path / "runs.csv").returncode == 0
    # a metric no run logged is still an error, named
    assert run("check-convergence", tmp_path / "runs.csv", "-m", "missing").returncode == 2


def test_a_sweeps_runs_in_one_export_are_told_apart_by_their_setting(tmp_path):
    """W&B users export a sweep as one table ([{**run.config, **row} for run in runs for row in
    run.scan_history()], saved with its index): every row carries its run's lr and seed.  Read
    by the seed and the step starting again, runs of two learning rates were pooled as seeds of
    one setting - "the runs disagree: R-hat 1.95" - and gamma, copied into every row, was judged
    "converged".  A hyperparameter logged once per run now names the run, before its seed, and
    a metric that happens to be constant within each run never does."""
    rng = np.random.default_rng(0)
    rows = []
    for lr, seed in ((3e-4, 0), (3e-4, 1), (1e-3, 0), (1e-3, 1)):
        for step in range(60):
            rows.append({"lr": lr, "seed": seed, "gamma": 0.99, "env": "CartPole-v1", "_step": step,
                         "_runtime": step * 2.0, "solved": float(lr > 5e-4),  # a metric, constant per run
                         "train/episode_return": 200 * (1 - np.exp(-step / (15 if lr > 5e-4 else 30)))
                         + rng.normal(0, 10)})
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path)
    frame = ss.read_log(path, wide=True)
    assert frame.attrs["format"] == "wandb-history"
    key = find_runs(frame, step="step")
    assert key.columns == ("lr", "seed") and key.restarts == 0
    assert key.names == ["lr=0.0003 seed=0", "lr=0.0003 seed=1", "lr=0.001 seed=0", "lr=0.001 seed=1"]
    assert key.configs == ["lr=0.0003", "lr=0.001"]
    columns = classify_columns(frame, runs=key.columns)
    assert columns.bookkeeping["gamma"].startswith("a setting of the run")
    assert "solved" in columns.metrics and "train/episode_return" in columns.metrics
    result = run("check-convergence", path, "--format", "json")
    names = {row["name"] for row in json.loads(result.stdout)["results"]}
    # one verdict per setting, over its seeds (R-hat across seeds of one learning rate)
    assert {"train/episode_return [lr=0.0003]", "train/episode_return [lr=0.001]"} <= names
    assert not any(name.startswith("gamma") for name in names)
    assert "columns 'lr' x 'seed'" in result.stderr
    # a learning rate that follows a schedule within each run is no run's setting
    decaying = pd.DataFrame(rows)
    decaying["lr"] = decaying["lr"] * 0.99 ** decaying["_step"]
    assert find_runs(decaying, step="_step").columns == ("seed",)


def test_an_mmdetection_json_log_leaves_its_iteration_and_memory_out(tmp_path):
    """mmdetection 2's ``*.log.json``: a line per logged iteration (``mode`` train, its ``epoch``
    and ``iter`` within it, ``memory`` the GPU's MB) and one per validation.  ``iter``, which
    starts again at every epoch, was judged "not converged" (it rises within each epoch) and
    ``memory`` "higher is better"; ten values at each epoch were said to be perhaps ten runs."""
    rng = np.random.default_rng(0)
    lines = [json.dumps({"env_info": "sys.platform: linux", "config": "model = dict(...)"})]
    for epoch in range(1, 13):
        for it in range(50, 501, 50):
            done = (epoch - 1) * 500 + it
            lines.append(json.dumps({"mode": "train", "epoch": epoch, "iter": it, "lr": 0.02,
                                     "memory": 3456 + int(rng.integers(0, 50)), "data_time": 0.01, "time": 0.4,
                                     "loss": 0.5 * np.exp(-done / 3000) + 0.3 + rng.normal(0, 0.02)}))
        lines.append(json.dumps({"mode": "val", "epoch": epoch, "iter": 500, "lr": 0.02,
                                 "bbox_mAP": 0.3 * (1 - np.exp(-epoch / 4)) + rng.normal(0, 0.005)}))
    path = tmp_path / "20240101_120000.log.json"
    path.write_text("\n".join(lines) + "\n")
    result = run("check-convergence", path, "--format", "json")
    names = {row["name"] for row in json.loads(result.stdout)["results"]}
    assert names == {"loss", "bbox_mAP"}
    assert "iter (a counter)" in result.stderr and "memory (a system measurement" in result.stderr
    assert "loss: each step of 'epoch' holds 10 values, one per 'iter' within it" in result.stderr
    assert "runs or agents" not in result.stderr
