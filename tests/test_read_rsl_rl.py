"""What rsl_rl's on-policy runner prints (``swarmstats/io/formats/rsl_rl.py``): a block per
learning iteration, saved from a terminal.  Read as a log it stopped at "not valid JSON"."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.direction import guessed_direction
from swarmstats.io import read_log
from swarmstats.io.formats.rsl_rl import BlockReader
from tests.test_cli import run

#: made up as rsl_rl 2.x prints an Isaac Lab run of 24 iterations (the banner in bold, its
#: first block before any episode ended)
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "rsl-rl" / "train.log"


def test_each_iteration_block_is_a_row_at_its_iteration():
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "rsl-rl-console"
    assert wide["step"].tolist() == list(range(24))
    rewards = [line.split(":")[1] for line in LOG.read_text().splitlines() if "Mean reward:" in line]
    assert wide["Mean reward"].dropna().tolist() == [float(v) for v in rewards]
    # a time printed H:MM:SS is seconds; a duration printed with its s a number
    assert wide["Time elapsed"].tolist()[:3] == [1.0, 3.0, 5.0] and wide["Iteration time"][0] == 1.7
    assert wide["ETA"][0] == 2550.0  # 00:42:30
    # the first block, before any episode ended, names its losses by their keys: one column
    assert wide["Mean value_function loss"][0] == 0.085 and "value_function" not in wide.columns
    assert wide.attrs["notes"] == ["24 iteration block(s) printed by rsl_rl's runner, step = the learning iteration",
                                   "1 block(s) before the first episode ended: no reward there",
                                   "'Mean entropy loss' read as 'Mean entropy': rsl_rl prints the policy's "
                                   "entropy under that name, not a loss (no better side)"]


def test_the_reward_is_judged_per_iteration_and_the_clocks_and_counter_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    rows = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert "left out Total timesteps (another step axis); Iteration time, Time elapsed, ETA (a clock)" in done.stderr
    reward = rows["Mean reward"]
    assert reward["verdict"] == "not_converged" and reward["trend_slope"] > 0
    assert reward["step_unit"] == "iterations"
    assert not {"Total timesteps", "Iteration time", "Time elapsed", "ETA"} & set(rows)


def test_a_termination_share_and_the_action_noise_have_no_better_side():
    # Isaac Lab's Episode_Termination/base_contact is the share of episodes ended by a fall,
    # .../time_out of those that lasted: neither is "better" by its name alone
    assert guessed_direction("Episode_Termination/base_contact") is None
    assert guessed_direction("Episode_Termination/time_out") is None
    assert guessed_direction("Mean action noise std") is None
    assert guessed_direction("Episode_Reward/track_lin_vel_xy_exp") == "higher"


def test_the_entropy_printed_as_a_loss_is_read_as_the_entropy_it_is():
    # rsl_rl's PPO returns the policy's mean entropy under its losses' "entropy" key, printed
    # "Mean entropy loss: 11.25" (and written to TensorBoard as Loss/entropy): lower-is-better
    # by its name, a falling entropy read "improving"
    wide = read_log(LOG, wide=True)
    printed = [float(line.split(":")[1]) for line in LOG.read_text().splitlines() if "Mean entropy loss:" in line]
    assert "Mean entropy loss" not in wide.columns and wide["Mean entropy"].dropna().tolist() == printed
    assert guessed_direction("Mean entropy") is None and guessed_direction("Loss/entropy") is None
    done = run("check-convergence", LOG, "-m", "Mean entropy", "--format", "json")
    reason = json.loads(done.stdout)["results"][0]["reasons"][0]
    assert "falling" in reason and "improving" not in reason
    # a first block before any episode ended, its entropy printed by key, joins the same column
    reader = BlockReader()
    for line in ["Learning iteration 0/10", "  entropy: 11.3", "Learning iteration 1/10"]:
        first = reader.feed(line)
    assert first == {"Mean entropy": 11.3, "step": 0.0}


def test_releases_before_2_print_their_losses_and_total_time_without_mean():
    lines = ["#" * 80, "                       Learning iteration 7/1500                       ", "",
             "                       Computation: 41235 steps/s (collection: 2.101s, learning 0.283s)",
             "               Value function loss: 0.0123", "                    Surrogate loss: -0.0045",
             "             Mean action noise std: 1.00", "                       Mean reward: 0.12",
             "               Mean episode length: 20.00", "      Mean episode rew_tracking_lin_vel: 0.0211",
             "-" * 80, "                   Total timesteps: 786432", "                    Iteration time: 2.38s",
             "                        Total time: 17.41s", "                               ETA: 3712.3s", ""]
    reader = BlockReader()
    given = [reader.feed(line) for line in lines]
    assert given[:-2] == [None] * (len(lines) - 2) and given[-1] is None and reader.finish() is None
    assert given[-2] == {"step": 7.0, "Value function loss": 0.0123, "Surrogate loss": -0.0045,
                               "Mean action noise std": 1.0, "Mean reward": 0.12, "Mean episode length": 20.0,
                               "Mean episode rew_tracking_lin_vel": 0.0211, "Total timesteps": 786432.0,
                               "Iteration time": 2.38, "Total time": 17.41, "ETA": 3712.3}


def test_the_scripts_own_output_after_a_block_ends_it():
    reader = BlockReader()
    for line in ["Learning iteration 0/10", "  Mean reward: 1.5"]:
        assert reader.feed(line) is None
    assert reader.feed("Storing checkpoint: model_0.pt") == {"step": 0.0, "Mean reward": 1.5}
    assert reader.feed("  Mean reward: 9.9") is None and reader.finish() is None  # outside a block


def test_a_log_without_an_iteration_block_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("[INFO] Logging experiment in directory: logs/rsl_rl/anymal\nLearning iteration 0/10 soon\n")
    with pytest.raises(InputError, match="no rsl_rl iteration block"):
        read_log(path, format="rsl-rl-console")


def test_watch_follows_the_blocks_and_names_the_clocks_it_leaves_out():
    out = run("watch", LOG, "--once", "--format", "json").stdout
    report = json.loads(out[out.index('{\n  "schema_version"'):])["report"]
    # every block is given at its ETA line, the last printed: all 24 (the last was held until
    # a line after it came, and a log that ended with it never gave it)
    assert report["metrics"]["Mean value_function loss"]["n"] == 24
    assert report["metrics"]["Mean reward"]["n"] == 23 and "value_function" not in report["metrics"]
    assert {"Iteration time", "Time elapsed", "ETA"} <= set(report["left_out"])
