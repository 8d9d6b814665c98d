"""What MAPPO's on-policy runners and HARL's loggers print (``swarmstats/io/formats/mappo.py``):
a progress line's total timesteps, then sentences of values, read at those timesteps."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.mappo import parse_progress, parse_values
from tests.test_cli import run, watched_metrics

#: made up as marlbenchmark/on-policy's shared MPE runner prints a run of simple_spread (25-step
#: episodes, 128 rollout threads: 3,200 timesteps an update; log_interval 5, eval_interval 25)
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "mappo" / "train.log"


def test_the_values_after_each_progress_line_are_read_at_its_timesteps():
    # read as a log it stopped at "no numeric metric column (columns: choose to use gpu...)"
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "mappo-console" and wide.attrs["step_unit"] == "timesteps"
    assert wide.columns.tolist() == ["step", "average_episode_rewards", "eval_average_episode_rewards"]
    assert wide["step"].tolist() == [3200 * (5 * k + 1) for k in range(60)]  # (episode + 1) x 25 x 128
    assert wide["average_episode_rewards"].iloc[:2].tolist() == [-188.9544, -184.0198]
    assert wide["eval_average_episode_rewards"].notna().sum() == 12  # every fifth progress line
    assert wide.attrs["notes"] == ["60 step(s) of MAPPO's or HARL's printed progress, step = total num timesteps of "
                                   "the progress line before each value; each value named by its words "
                                   "(average_episode_rewards)"]


def test_the_rewards_are_judged_per_100_timesteps():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert set(results) == {"average_episode_rewards", "eval_average_episode_rewards"}
    # the return climbed for ~45 updates, then wandered around -118: the warm-up is cut and the
    # rest not yet shown flat; 12 evaluations are too few to test
    reward = results["average_episode_rewards"]
    assert reward["verdict"] == "insufficient_data" and reward["warmup"] > 0
    assert "timesteps" in reward["reasons"][0]
    assert results["eval_average_episode_rewards"]["n"] == 12


def test_harls_sentences_and_mappos_starcraft_lines_are_read(tmp_path):
    path = tmp_path / "harl.log"
    path.write_text("".join(
        f"Env smac Task 3m Algo happo Exp test updates {5 * k}/625 episodes, total num timesteps {16000 * k}/10000000, FPS 980.\n"
        f"Average step reward is 0.1{k}.\n"
        f"Increase games 32.0000, win rate on these games is 0.{k}000, average step reward is 0.1{k}00, "
        f"average episode length is 6{k}.0000, average episode reward is 6.{k}.\n\n"
        + (f"Evaluation win rate is 0.{k}, evaluation average episode reward is 1{k}.5.\n\n" if k % 2 else "")
        for k in range(1, 6)))
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [16000.0 * k for k in range(1, 6)]
    assert wide.columns.tolist() == ["step", "average_step_reward", "win_rate_on_these_games", "average_episode_length",
                                     "average_episode_reward", "evaluation_win_rate", "evaluation_average_episode_reward"]
    assert wide["evaluation_win_rate"].fillna(-1).tolist() == [0.1, -1, 0.3, -1, 0.5]  # every other update
    assert parse_values("incre win rate is 0.25.") == {"incre_win_rate": 0.25}
    assert parse_values("eval win rate is 0.03125.") == {"eval_win_rate": 0.03125}
    # the separated runner prints each agent's evaluation: named as its TensorBoard names it
    assert parse_values("eval average episode rewards of agent1: -1.5") == {"agent1/eval_average_episode_rewards": -1.5}
    assert parse_values("obs_space:  [Box(-inf, inf, (18,), float32)]") is None
    assert parse_progress("updates 5/625 episodes, total num timesteps 16000/10000000, FPS 980.") == 16000
    assert parse_progress("Scenario spread updates 5") is None


def test_values_before_any_progress_line_are_left_out_and_said(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("average episode rewards is -190.0\n"
                    + "".join(f" Scenario s Algo mappo Exp x updates {k}/9 episodes, total num timesteps {100 * k}/900, "
                              f"FPS 10.\naverage episode rewards is -{180 - k}.0\n" for k in range(1, 4)))
    wide = read_log(path, wide=True)
    assert wide["average_episode_rewards"].tolist() == [-179.0, -178.0, -177.0]
    assert wide.attrs["notes"][1] == "1 line(s) of values before the first progress line left out (no step)"


def test_progress_with_no_value_after_it_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text(" Scenario s Algo mappo Exp x updates 0/9 episodes, total num timesteps 100/900, FPS 10.\n")
    with pytest.raises(InputError, match="no value"):
        read_log(path)
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_watch_follows_the_lines_as_read_log_reads_them():
    watched = watched_metrics(LOG)
    assert watched["average_episode_rewards"]["n"] == 60 and watched["eval_average_episode_rewards"]["n"] == 12


def test_harls_headerless_progress_txt_is_refused_with_what_its_columns_are(tmp_path):
    # HARL writes its evaluations as total_num_steps,eval_avg_rew[,eval_win_rate] with no header
    path = tmp_path / "progress.txt"
    path.write_text("16000,10.5,0.1\n32000,11.2,0.2\n48000,12.0,0.25\n")
    with pytest.raises(InputError, match=r"not column names.*HARL's progress.txt holds the total timesteps"):
        read_log(path)
    path.write_text("step,eval_avg_rew,eval_win_rate\n" + path.read_text())  # the header it suggests
    assert read_log(path, wide=True).columns.tolist() == ["step", "eval_avg_rew", "eval_win_rate"]
    other = tmp_path / "log.csv"
    other.write_text("16000,10.5,0.1\n32000,11.2,0.2\n")
    with pytest.raises(InputError) as refused:
        read_log(other)
    assert "HARL" not in str(refused.value)
