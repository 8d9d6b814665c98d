"""DeepMind Acme's terminal loggers (``swarmstats/io/formats/acme.py``): ``[Label] Key = value |
...`` lines, read as Acme's CSV logger names their values, on ``actor_steps``."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.acme import parse_line
from tests.test_cli import run, watched_metrics

#: made up as Acme prints (its TerminalLogger through absl's logging.info): an actor's line per
#: episode, a learner's every sixth, an evaluator's every tenth, all with the shared actor_steps
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "acme" / "terminal.log"


def test_each_labels_values_are_named_as_its_csv_file_names_them_on_actor_steps():
    # read as a log it stopped at "not valid JSON (line 1: Expecting value)": a line began with '['
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "acme-console" and wide.attrs["step_unit"] == "actor steps"
    assert {"actor/episode_return", "evaluator/episode_return", "learner/loss"} <= set(wide.columns)
    assert wide["step"].is_monotonic_increasing and len(wide) == 60  # the actor's 60 episodes
    assert wide["actor/episode_return"].iloc[:3].tolist() == [53.0, 47.0, 61.0]
    assert wide["learner/loss"].notna().sum() == 11 and wide["evaluator/episode_return"].notna().sum() == 6
    assert wide.attrs["notes"] == ["77 Acme terminal logger line(s), step = actor_steps; each value named as "
                                   "Acme's CSV logger names it in its label's file (actor/episode_return)"]


def test_the_returns_are_judged_and_the_counters_and_rates_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert set(results) == {"actor/episode_length", "actor/episode_return", "evaluator/episode_length",
                            "evaluator/episode_return", "learner/loss"}
    assert results["actor/episode_return"]["verdict"] == "not_converged"  # climbing over the run
    assert "per 100 actor steps" in results["actor/episode_return"]["reasons"][0]
    text = run("check-convergence", LOG).stderr
    assert "actor/actor_episodes" in text and "a counter" in text and "throughput" in text


def test_lines_without_actor_steps_are_left_out_and_said_and_a_log_without_any_takes_its_own_count(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("".join(f"[Actor] Actor Steps = {100 * i} | Episode Return = {i}.000\n"
                            f"[Learner] Learner Steps = {10 * i} | Loss = 0.{9 - i}00\n" for i in range(1, 6)))
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "actor/episode_return"] and wide["step"].tolist() == [100, 200, 300, 400, 500]
    assert wide.attrs["notes"][1] == ("left out, without 'actor_steps': 5 learner line(s) (a learner counting only its "
                                      "own steps: its CSV file, logs/learner/logs.csv, is read on them)")
    path.write_text("".join(f"[Learner] Learner Steps = {10 * i} | Loss = 0.{9 - i}00\n" for i in range(1, 6)))
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [10, 20, 30, 40, 50] and wide.attrs["step_unit"] == "learner steps"


def test_a_value_that_is_no_number_is_left_out_and_a_line_without_two_numbers_is_none():
    assert parse_line("[Evaluator] Actor Steps = 2400 | Episode Return = 45.000 | Policy = greedy") == (
        "evaluator", {"actor_steps": 2400.0, "episode_return": 45.0})
    assert parse_line("[Actor] Actor Steps = 2400 | Policy = greedy") is None
    assert parse_line("[INFO] x = 1") is None and parse_line("Actor Steps = 1 | Loss = 2") is None
    nan = parse_line("[Learner] Actor Steps = 10 | Loss = nan")[1]["loss"]
    assert nan != nan  # a printed nan: a NaN the run logged


def test_a_log_of_acme_lines_with_no_step_count_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("[Actor] Episode Length = 200 | Episode Return = 12.000\n" * 3)
    with pytest.raises(InputError, match="carry no step count"):
        read_log(path)
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_watch_follows_the_lines_as_read_log_reads_them():
    watched = watched_metrics(LOG)
    assert watched["actor/episode_return"]["n"] == 60 and watched["learner/loss"]["n"] == 11
    assert "actor/actor_episodes" not in watched
