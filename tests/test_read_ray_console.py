"""What Ray Tune 1.x printed for each result (``swarmstats/io/formats/ray_console.py``): the
``Result for <trial>:`` blocks of YAML, read as the trial's result.json is."""

from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.follow import Follower
from swarmstats.io.formats.ray_console import result_blocks
from tests.test_cli import run

REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "ray-console" / "terminal_output.md"


def _result(trial: str, iteration: int, reward: float) -> str:
    """A result as Tune 1.x prints it (pretty_print's YAML), with a status table before it."""
    return f"""== Status ==
Number of trials: 2/2 (2 RUNNING)
+-----------------------------+----------+-------+
| Trial name                  | status   | loc   |
|-----------------------------+----------+-------|
| {trial} | RUNNING  |       |
+-----------------------------+----------+-------+


Result for {trial}:
  agent_timesteps_total: {4000 * iteration}
  custom_metrics: {{}}
  date: 2021-05-12_10-00-{iteration:02d}
  done: false
  episode_reward_mean: {reward}
  hist_stats:
    episode_reward:
    - 21.0
    - 35.0
  info:
    learner:
      '1':
        learner_stats:
          entropy: {0.69 - iteration * 0.01:.4f}
          kl: .nan
  timestamp: {1620835228 + 10 * iteration}
  training_iteration: {iteration}
  trial_id: '{trial[-5:]}'

"""


def test_a_tune_console_reads_each_trial_as_a_run_on_its_iterations(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("".join(_result(trial, i, reward) for i in range(1, 8)
                           for trial, reward in (("PPO_CartPole-v0_0339b_00000", 10.0 * i),
                                                 ("PPO_CartPole-v0_0339b_00001", 5.0 * i))))
    frame = read_log(log, wide=True)
    assert frame.attrs["format"] == "ray-console" and frame.attrs["step_unit"] == "iterations"
    assert frame["run"].unique().tolist() == ["PPO_CartPole-v0_0339b_00000", "PPO_CartPole-v0_0339b_00001"]
    first = frame[frame["run"] == "PPO_CartPole-v0_0339b_00000"]
    assert first["step"].tolist() == list(range(1, 8)) and first["episode_reward_mean"].tolist() == [10.0 * i for i in range(1, 8)]
    # nested keys joined as in result.json; a quoted key (a policy id) unquoted; YAML's .nan a NaN
    assert first["info/learner/1/learner_stats/entropy"].iloc[0] == pytest.approx(0.68)
    assert np.isnan(first["info/learner/1/learner_stats/kl"]).all()
    # Tune's timestamp is the wall time; a list's items, dates, ids and booleans are no values
    assert "wall_time" in frame.columns and not [c for c in frame.columns if "hist_stats" in c or c in ("date", "done")]
    assert frame.attrs["notes"][0] == ("14 Ray Tune result(s) printed ('Result for <trial>:'), step = "
                                       "training_iteration; 2 trials, a run each")


def test_a_block_ends_at_a_blank_line_or_the_job_s_next_output():
    text = ("Result for T:\n  a: 1\n  training_iteration: 1\n(pid=6355) success rate :  2 87\n  b: 2\n"
            "Result for T:\n  a: 3\n  training_iteration: 2")
    assert result_blocks(text) == [("T", {"a": 1.0, "training_iteration": 1.0}),
                                   ("T", {"a": 3.0, "training_iteration": 2.0})]


def test_a_text_without_a_result_is_refused_in_one_line(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("== Status ==\nResult for T:\n  date: 2021-05-12\n\n")
    with pytest.raises(InputError, match="no Ray Tune result"):
        read_log(log, format="ray-console")


def test_the_real_console_of_a_ppo_run_is_still_climbing_when_it_stops():
    """A DeepCoMP user's terminal, pasted into Markdown: Ray 1.x training RLlib's PPO on a
    multi-cell mobile network for 50 iterations (200,000 steps), between Tune's status tables and
    the environment's own output.  The mean reward -38.6 -> 2.9, rising at every iteration but
    more slowly: a reader says "still improving, not done"."""
    result = run("check-convergence", REAL, "-m", "episode_reward_mean")
    assert result.returncode == 1, result.stderr
    assert "50 Ray Tune result(s) printed" in result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("episode_reward_mean"))
    assert "not_converged" in row and "still improving" in row
    frame = read_log(REAL, wide=True)
    assert frame["step"].tolist() == list(range(1, 51))
    assert frame["episode_reward_mean"].iloc[[0, -1]].round(2).tolist() == [-38.59, 2.91]
    # RLlib's counters, timers and the learner's coefficients are bookkeeping, as in its result.json
    text = run("check-convergence", REAL).stderr
    assert "timesteps_total" in text and "(a counter)" in text and "timers/learn_throughput" in text


def test_watch_follows_the_results_as_read_log_reads_them():
    follower = Follower(str(REAL))
    try:
        records = follower.records()
        assert type(follower._output).__name__ == "_Blocks" and follower.step_unit("step") == "iterations"
        assert [record["step"] for record in records] == list(range(1, 51))
        assert records[-1]["episode_reward_mean"] == pytest.approx(read_log(REAL, wide=True)["episode_reward_mean"].iloc[-1])
    finally:
        follower.close()


def _ray2_result(iteration: int, loss: float, trial: str | None = None) -> str:
    """A result as Ray 2 prints it: the line saying the iteration finished, then its box."""
    said = f"Trial {trial}" if trial else "Training"
    return (f"{said} finished iteration {iteration} at 2024-11-21 19:{10 + iteration}:46. Total running time: {iteration}min 2s\n"
            "╭───────────────────────────────╮\n"
            f"│ {'Trial ' + trial + ' result' if trial else 'Training result'}               │\n"
            "├───────────────────────────────┤\n"
            "│ checkpoint_dir_name           │\n"
            f"│ time_this_iter_s        144.9 │\n"
            f"│ training_iteration          {iteration} │\n"
            f"│ accuracy                {0.8 + iteration / 100:.3f} │\n"
            f"│ learning_rate              0. │\n"
            f"│ loss                  {loss:.5f} │\n"
            "╰───────────────────────────────╯\n"
            "(RayTrainWorker pid=1193, ip=10.244.4.193) Train Epoch 1:   0%|          | 0/1875 [00:00<?, ?it/s]\n")


def test_ray_2_s_result_boxes_are_read_as_the_results_they_are(tmp_path):
    # Ray Train and Tune 2.x print each result as a box after "... finished iteration N at ..."
    log = tmp_path / "train.log"
    log.write_text("".join(_ray2_result(i, 0.9 / i) for i in range(1, 7)))
    frame = read_log(log, wide=True)
    assert frame.attrs["format"] == "ray-console" and frame["step"].tolist() == list(range(1, 7))
    assert frame["loss"].tolist() == pytest.approx([0.9 / i for i in range(1, 7)], abs=1e-5)
    assert frame["learning_rate"].tolist() == [0.0] * 6 and "checkpoint_dir_name" not in frame.columns
    # Tune's trials, each a run
    log.write_text("".join(_ray2_result(i, 0.9 / i, trial) for i in range(1, 4)
                           for trial in ("TorchTrainer_95d16_00000", "TorchTrainer_95d16_00001")))
    frame = read_log(log, wide=True)
    assert frame["run"].unique().tolist() == ["TorchTrainer_95d16_00000", "TorchTrainer_95d16_00001"]
    follower = Follower(str(log))
    try:
        assert [record["step"] for record in follower.records()] == [1, 1, 2, 2, 3, 3]
    finally:
        follower.close()
