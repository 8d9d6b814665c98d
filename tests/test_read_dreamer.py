"""What a Dreamer agent's logger prints (``swarmstats/io/formats/dreamer.py``): ``[step] name value /
name value / ...``, DreamerV2's short numbers (``1.2e-3``, ``2.5e4``) included."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.dreamer import parse_line
from tests.test_cli import run, watched_metrics

#: made up as DreamerV2's train.py prints a walker_walk run (its TerminalOutput's number format):
#: a line per training episode, an evaluation's and the model's every 10,000 steps, the job's
#: messages and "Train episode has 500 steps and return 41.3." between them
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "dreamer" / "train.log"


def test_each_write_is_a_row_at_its_step_and_writes_at_one_step_share_it():
    # read as a log it stopped at "no numeric metric column (columns: Logdir /home/user/...)"
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "dreamer-console" and wide.attrs["step_unit"] == "steps"
    assert len(wide) == 96 and wide["step"].tolist() == list(range(10000, 200001, 2000))
    first = wide.iloc[0]  # the episode's, the evaluation's and the model's writes at 10000
    assert (first["train_return"], first["eval_return"], first["model_loss"]) == (41.25, 105.79, 78.98)
    assert first["actor_ent_scale"] == 1e-4 and wide["eval_return"].notna().sum() == 20
    assert wide.attrs["notes"] == ["96 step(s) of a Dreamer logger's lines ('[step] name value / ...'), step = "
                                   "the environment step; 165 other line(s) skipped"]


def test_the_returns_and_losses_are_judged_and_the_replays_counts_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert {"train_return", "eval_return", "model_loss", "actor_ent"} <= set(results)
    # the replay's counts: train_loaded_steps printed past 10,000 as 1.1e4, 1.2e4 ... (two digits)
    # repeats values and is no counter by shape; it is one by its name
    left_out = {"train_total_steps", "train_loaded_steps", "eval_total_episodes", "fps", "actor_ent_scale"}
    assert not left_out & set(results)
    # the return climbed to ~900 and is not yet shown flat; the entropies have no better side
    assert results["train_return"]["verdict"] == "insufficient_data" and results["train_return"]["warmup"] > 0
    text = run("check-convergence", LOG).stderr
    assert "prior_ent, post_ent, model_grad_norm, actor_ent" in text and "(a diagnostic" in text
    assert "actor_ent_scale (a coefficient the algorithm sets" in text


@pytest.mark.parametrize("line, expected", [
    ("[5000] train_return 2.15 / train_length 1000", (5000.0, {"train_return": 2.15, "train_length": 1000.0})),
    ("[250000] model_kl 1.2e-3 / replay_steps 2.5e5 / actor_loss -1.5e2", (
        250000.0, {"model_kl": 0.0012, "replay_steps": 250000.0, "actor_loss": -150.0})),
    ("[12] loss 0.5", (12.0, {"loss": 0.5})),  # one scalar
    ("[12] episode/score 130 / episode/length 500", (12.0, {"episode/score": 130.0, "episode/length": 500.0})),
])
def test_a_logger_line_gives_its_step_and_scalars(line, expected):
    assert parse_line(line) == expected


@pytest.mark.parametrize("line", ["[1] Create envs.", "[12] loss 0.5 / done", "[Actor] Actor Steps = 2 | Loss = 1",
                                  "[2023-01-01 12:00:00][77] Fps is 12", "10000 train_return 2.15 / x 1", "[12]"])
def test_other_lines_are_no_record(line):
    assert parse_line(line) is None


def test_a_log_without_a_logger_line_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("[1] Create envs.\n[2] Start training.\n")
    with pytest.raises(InputError, match="no Dreamer logger line"):
        read_log(path, format="dreamer-console")
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_watch_follows_the_lines_as_read_log_reads_them():
    watched = watched_metrics(LOG)
    assert watched["train_return"]["n"] == 96 and watched["eval_return"]["n"] == 20
    assert "fps" not in watched and "train_total_steps" not in watched
