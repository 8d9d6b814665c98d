"""The tables SB3's logger prints (``swarmstats/io/formats/console.py``): read from a saved
terminal, a notebook or a pipe, they give the progress table SB3 writes beside them."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats import console
from tests.conftest import notebook
from tests.test_cli import run

CONSOLE = Path(__file__).resolve().parent / "fixtures" / "logs" / "sb3-console"
#: printed by SB3 2.9.2 (PPO on CartPole, an EvalCallback every 640 steps) with its CSV beside it
PRINTED = CONSOLE / "ppo-cartpole.txt"
WRITTEN = CONSOLE / "ppo-cartpole.progress.csv"
REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3-console" / "logger.md"

#: "%-8.3g" keeps three significant digits: a printed value is within half a unit of the third
PRINTED_RTOL = 5e-3


def assert_same_as_written(printed: pd.DataFrame, written: pd.DataFrame) -> None:
    # (the printed keys are sorted; the CSV's in the order the keys were first recorded)
    assert sorted(printed.columns) == sorted(written.columns)
    for column in written.columns:
        np.testing.assert_allclose(printed[column].to_numpy(float), written[column].to_numpy(float),
                                   rtol=PRINTED_RTOL, atol=0, equal_nan=True, err_msg=column)


def test_the_printed_tables_read_as_the_progress_csv_written_beside_them():
    printed = read_log(PRINTED, wide=True)
    written = read_log(WRITTEN, wide=True)
    assert printed.attrs["format"] == "sb3-console"
    assert printed.attrs["step_unit"] == "timesteps"
    assert len(printed) == 36  # 30 rollouts and 6 evaluations, each its own table
    assert_same_as_written(printed, written)
    # the lines around the tables (device, wrappers, "Eval num_timesteps=...") are not rows
    assert printed["step"].tolist() == written["step"].tolist()
    assert any("3 significant digits" in note for note in printed.attrs["notes"])
    # named explicitly, the same frame
    pd.testing.assert_frame_equal(read_log(PRINTED, format="sb3-console", wide=True), printed)


def test_sb3s_own_writer_round_trips_through_the_reader(tmp_path, capsys):
    """Every kind of key and value SB3's stdout writer handles - groups, a key in no group, a
    nested key, a key cut at 36 characters, float32, ints, a string, NaN, a key excluded from
    stdout - against the CSV the same logger writes."""
    logger_module = pytest.importorskip("stable_baselines3.common.logger")
    logger = logger_module.configure(str(tmp_path), ["stdout", "csv", "log"])
    rng = np.random.default_rng(3)
    for dump in range(25):
        logger.record("rollout/ep_rew_mean", float(rng.normal(100 + dump, 5)))
        logger.record("train/loss", np.float32(rng.gamma(2.0, 0.01)))
        logger.record("train/n_updates", 10 * dump)
        logger.record("custom/nested/value", float(rng.normal()) * 1e-5)
        logger.record("zz_bare_key", float(dump) / 3)
        logger.record("custom/a_key_far_longer_than_thirty_six_characters", float(dump))
        logger.record("info/phase", "warmup" if dump < 5 else "main")
        logger.record("train/kl", float("nan") if dump == 7 else float(rng.uniform()))
        logger.record("hidden/secret", 1.0, exclude="stdout")
        logger.record("time/total_timesteps", 128 * (dump + 1))
        logger.dump(128 * (dump + 1))
    logger.close()
    printed_path = tmp_path / "stdout.txt"
    printed_path.write_text(capsys.readouterr().out)
    printed = read_log(printed_path, wide=True)
    written = read_log(tmp_path / "progress.csv", wide=True)
    # SB3 cuts the indented key (three spaces and the name) to 33 characters and "..."
    cut_key = "custom/" + ("   a_key_far_longer_than_thirty_six_characters"[:33] + "...").strip()
    expected = written.drop(columns=["hidden/secret", "info/phase"], errors="ignore").rename(
        columns={"custom/a_key_far_longer_than_thirty_six_characters": cut_key})
    assert sorted(printed.columns) == sorted(expected.columns)
    assert_same_as_written(printed[expected.columns], expected)
    assert any("cut short" in note and cut_key in note for note in printed.attrs["notes"])
    assert np.isnan(printed["train/kl"].iloc[7])
    from swarmstats.io.written_nan import is_written

    # the NaN SB3 printed is one the run logged (between numbers a gap; at the end, a divergence)
    assert is_written(printed["train/kl"].to_numpy()).tolist() == [k == 7 for k in range(25)]
    # the "log" output format writes the same tables to log.txt
    pd.testing.assert_frame_equal(read_log(tmp_path / "log.txt", wide=True), printed, check_like=True)


def test_a_notebooks_printed_output_is_read_from_its_cells(tmp_path):
    lines = PRINTED.read_text().splitlines(keepends=True)
    half = len(lines) // 2
    # a stream output split over two cells' outputs, as a notebook stores long prints
    path = tmp_path / "train.ipynb"
    path.write_text(notebook([{"output_type": "stream", "name": "stdout", "text": lines[:half]},
                               {"output_type": "stream", "name": "stdout", "text": lines[half:]}]))
    printed = read_log(path, wide=True)
    assert printed.attrs["format"] == "sb3-console"
    assert_same_as_written(printed, read_log(WRITTEN, wide=True))
    # the text of an output may also be one string (nbformat allows both)
    path.write_text(notebook([{"output_type": "stream", "name": "stdout", "text": "".join(lines)}]))
    assert_same_as_written(read_log(path, wide=True), read_log(WRITTEN, wide=True))


def test_prefixes_windows_line_ends_progress_bars_and_lost_rules_are_tolerated(tmp_path):
    text = PRINTED.read_text()
    # a logging prefix on every line, CRLF line ends, and a progress bar redrawn with \r
    prefixed = "".join(f"2026-11-29 10:00:00 INFO {line}\r\n" for line in text.splitlines())
    prefixed = prefixed.replace("Using cpu device", " 12%|#2        | 5/40 [00:01<00:07]\r 15%|#5        | 6/40")
    # a terminal's colour codes and line erases around some lines (rich's progress bar)
    prefixed = prefixed.replace("|    ep_rew_mean", "\x1b[2K\x1b[1;32m|    ep_rew_mean").replace(
        "|\r\n", "|\x1b[0m\r\n")
    (tmp_path / "prefixed.log").write_text(prefixed, newline="")
    written = read_log(WRITTEN, wide=True)
    assert_same_as_written(read_log(tmp_path / "prefixed.log", wide=True), written)
    # pasted without the lines of dashes: a table ends where a key repeats
    bare = "\n".join(line for line in text.splitlines() if not set(line.strip()) <= {"-"})
    (tmp_path / "bare.txt").write_text(bare)
    read = read_log(tmp_path / "bare.txt", format="sb3-console", wide=True)
    assert_same_as_written(read, written)
    # pasted into HTML or Markdown (a GitHub comment, an exported notebook): each line ends "<br>"
    (tmp_path / "pasted.md").write_text("".join(f"{line}<br>\n" for line in text.splitlines()))
    assert_same_as_written(read_log(tmp_path / "pasted.md", wide=True), written)


def test_a_table_still_being_printed_is_left_out_with_a_note(tmp_path):
    lines = PRINTED.read_text().splitlines(keepends=True)
    cut = "".join(lines[:-5])  # the last table's bottom rows and rule not written yet
    (tmp_path / "live.txt").write_text(cut)
    read = read_log(tmp_path / "live.txt", wide=True)
    assert len(read) == 35
    assert any("not closed" in note for note in read.attrs["notes"])
    assert_same_as_written(read, read_log(WRITTEN, wide=True).iloc[:35])


def test_two_runs_printed_one_after_the_other_are_two_runs(tmp_path):
    (tmp_path / "two.txt").write_text(PRINTED.read_text() * 2)
    assert len(read_log(tmp_path / "two.txt", wide=True)) == 72
    done = run("check-convergence", tmp_path / "two.txt", "-m", "rollout/ep_rew_mean")
    assert done.returncode in (0, 1), done.stderr
    assert "2 runs" in done.stderr and "starting again" in done.stderr
    assert "[run=#1]" in done.stdout and "[run=#2]" in done.stdout


def test_baselines_tables_have_bare_keys_and_their_own_step(tmp_path):
    rows = []
    for update in range(1, 31):
        values = {"eplenmean": 20 + update, "eprewmean": 20.0 + update * 1.5, "fps": 1200,
                  "nupdates": update, "total_timesteps": 2048 * update, "policy_entropy": 0.69 - 0.01 * update}
        width = max(map(len, values))
        body = [f"| {key.ljust(width)} | {format(value, '<8.3g') if isinstance(value, float) else value} |"
                for key, value in sorted(values.items())]
        rule = "-" * 30
        rows += [rule, *body, rule]
    (tmp_path / "baselines.out").write_text("\n".join(rows) + "\n")
    wide = read_log(tmp_path / "baselines.out", wide=True)
    assert wide.attrs["format"] == "sb3-console" and wide.attrs["step_unit"] == "timesteps"
    assert wide["step"].tolist() == [2048.0 * u for u in range(1, 31)]
    assert wide["eprewmean"].iloc[-1] == pytest.approx(65.0)
    done = run("check-convergence", tmp_path / "baselines.out", "-m", "eprewmean")
    assert done.returncode == 1 and "not_converged" in done.stdout and "per 100 timesteps" in done.stdout


def test_the_real_example_in_sb3s_own_docs_is_one_table():
    wide = read_log(REAL, wide=True)
    assert wide.attrs["format"] == "sb3-console"
    assert len(wide) == 1
    row = wide.iloc[0]
    assert row["step"] == 77824 and row["eval/mean_reward"] == -157 and row["rollout/ep_rew_mean"] == -227
    assert row["train/approx_kl"] == pytest.approx(0.037781604)
    done = run("check-convergence", REAL)
    assert done.returncode == 2 and "too few values" in done.stderr and "Traceback" not in done.stderr


def test_other_text_is_not_taken_for_a_console_log():
    assert not console.is_console_head("step,reward\n0,1\n1,2\n", "log.csv")
    assert not console.is_console_head("| a | b |\n|---|---|\n| 1 | 2 |\n", "table.md")
    assert not console.is_console_head("Title\n-----\nsome text | with | pipes\n", "notes.txt")
    assert console.is_console_head(PRINTED.read_text()[:4096], "ppo-cartpole.txt")


@pytest.mark.parametrize("content, message", [
    ("Using cpu device\nno table here\n", "no logger table found"),
    ("----------\n| rollout/ |   |\n| name | ppo |\n----------\n", "hold no number"),
    ("----------\n| rollout/ |   |\n|    ep_rew_mean | 1.0 |\n", "not closed by its line of dashes yet"),
])
def test_a_file_without_a_readable_table_is_one_clear_error(tmp_path, content, message):
    (tmp_path / "out.txt").write_text(content)
    with pytest.raises(InputError, match=message):
        read_log(tmp_path / "out.txt", format="sb3-console")
    done = run("check-convergence", tmp_path / "out.txt", "--input-format", "sb3-console")
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_broken_notebook_is_one_clear_error(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_text('{"cells": [{"outputs": [{"text": ["-----------\\n", "| a | 1 |\\n"')
    with pytest.raises(InputError, match="not a readable notebook"):
        read_log(path)


def test_the_bundled_example_is_a_climb_the_verdict_calls_still_improving():
    example = Path(__file__).resolve().parent.parent / "examples" / "data" / "sb3-stdout.txt"
    wide = read_log(example, wide=True)
    assert len(wide) == 110  # 100 rollouts, 10 evaluations
    assert wide["step"].max() == 25_600
    done = run("check-convergence", example, "-m", "rollout/ep_rew_mean")
    assert done.returncode == 1 and "still improving" in done.stdout


def test_the_example_generator_prints_what_the_reader_reads(tmp_path):
    import importlib.util
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("stable_baselines3") is None:
        pytest.skip("stable_baselines3 is not installed")
    script = Path(__file__).resolve().parent.parent / "examples" / "make_example_sb3_stdout.py"
    printed = subprocess.run([sys.executable, str(script), "--rollouts", "3"], capture_output=True, text=True,
                             timeout=300, cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg"})
    assert printed.returncode == 0, printed.stderr[-2000:]
    (tmp_path / "out.txt").write_text(printed.stdout)
    assert read_log(tmp_path / "out.txt", wide=True)["step"].tolist() == [256.0, 512.0, 768.0]


def test_watch_follows_a_printed_log_as_it_grows(tmp_path):
    """``python train.py > train.log`` watched: the text before the first table is held, not
    taken for a CSV header, and each table counts once it is closed."""
    from swarmstats.io.follow import Follower

    lines = PRINTED.read_text().splitlines(keepends=True)
    path = tmp_path / "train.log"
    path.write_text("".join(lines[:4]))  # "Using cpu device" ... and no table yet
    follower = Follower(str(path))
    assert follower.records() == [] and follower.skipped == 0
    cut = next(i for i, line in enumerate(lines) if "value_loss" in line)  # inside the second table
    with path.open("a") as handle:
        handle.write("".join(lines[4:cut]))
    first = follower.records()
    assert [box["time/total_timesteps"] for box in first] == ["128"]
    with path.open("a") as handle:
        handle.write("".join(lines[cut:]))
    rest = follower.records()
    assert len(first) + len(rest) == 36 and follower.skipped == 0
    assert rest[0]["time/total_timesteps"] == "256" and "train/value_loss" in rest[0]


def test_watch_reads_a_printed_log_with_the_step_it_names(tmp_path):
    done = run("watch", PRINTED, "-m", "rollout/ep_rew_mean", "--once", "--format", "json")
    assert done.returncode == 0, done.stderr
    # one JSON line per verdict change, then the final report
    report = json.loads(done.stdout[done.stdout.index('{\n  "schema_version"'):])
    assert report["skipped_lines"] == 0
    entry = report["report"]["metrics"]["rollout/ep_rew_mean"]
    assert entry["n"] == 30 and float(entry["last_step"]) == 128 * 30


def test_watch_names_the_printed_tables_steps_as_check_convergence_does():
    # the same slope on the same axis was "per 100 steps" in watch, "per 100 timesteps" in
    # check-convergence
    example = "examples/data/sb3-stdout.txt"
    watched = run("watch", example, "-m", "rollout/ep_rew_mean", "--once")
    checked = run("check-convergence", example, "-m", "rollout/ep_rew_mean")
    assert watched.returncode == 0 and checked.returncode == 1, (watched.stderr, checked.stderr)
    slope = "still improving after the warm-up: +0.755 per 100 timesteps"
    assert slope in watched.stdout and slope in checked.stdout
    assert "per 100 steps" not in watched.stdout
    # a monitor.csv: a row per episode, as check-convergence counts them
    monitor = "tests/fixtures/real/sb3/dqn-MountainCar-v0.monitor.csv"
    slope = "still improving after the warm-up: +8.17 per 100 episodes"
    assert slope in run("watch", monitor, "-m", "r", "--once").stdout
    assert slope in run("check-convergence", monitor, "-m", "r").stdout


@pytest.mark.parametrize("text, rows", [
    ("reward\n0.5\n0.6\n0.7\n", [{"reward": "0.5"}, {"reward": "0.6"}, {"reward": "0.7"}]),
    ("step,reward\n0,0.5\n1,0.6\n", [{"step": "0", "reward": "0.5"}, {"step": "1", "reward": "0.6"}]),
])
def test_watch_still_reads_a_csv_whose_header_has_no_delimiter(tmp_path, text, rows):
    from swarmstats.io.follow import Follower

    (tmp_path / "log.csv").write_text(text)
    assert Follower(str(tmp_path / "log.csv")).records() == rows


def test_a_scripts_own_prints_between_the_tables_are_said_not_read(tmp_path):
    """A FrozenLake script printed its own reward before each of SB3's tables ("Output 2:
    Average over 100 episodes - Reward: 0.02") and no rollout/ in them (no Monitor wrapper):
    the tables' train/ losses were judged and the reward vanished without a word.  The note
    names such recurring prints; SB3's own (EvalCallback's results, which its tables hold),
    progress bars and a logging prefix's time are not counted."""
    boxes = []
    for i in range(1, 6):
        boxes.append(f"Output {i}: Average over 100 episodes - Reward: {i / 50}\n"
                     "-----------------------------\n| time/              |      |\n"
                     f"|    fps             | 1089 |\n|    total_timesteps | {2048 * i} |\n"
                     f"| train/             |      |\n|    loss            | {0.1 / i:.3g} |\n"
                     "-----------------------------\n")
    path = tmp_path / "4x4_ppo_on.txt"
    path.write_text("Using cpu device\n" + "".join(boxes))
    notes = read_log(path).attrs["notes"]
    assert ("5 printed line(s) outside the logger's tables hold numbers that are not read, e.g. "
            "'Output 1: Average over 100 episodes - Reward: 0.02'") in " ".join(notes)
    # SB3's EvalCallback lines under a logging prefix, and a progress bar: nothing to say
    own = "".join(f"2026-11-29 10:00:0{i} INFO Eval num_timesteps={2048 * i}, episode_reward=1.00 +/- 0.00\n"
                  f" {i * 10}%|##   | {i}/10 [00:0{i}<00:10, 1.00it/s]\n" + box.split("\n", 1)[1]
                  for i, box in enumerate(boxes, start=1))
    (tmp_path / "own.txt").write_text(own)
    assert not any("printed line" in note for note in read_log(tmp_path / "own.txt").attrs["notes"])


def test_runs_pasted_under_markdown_headings_are_named_and_set_apart(tmp_path):
    """A Markdown file of results (a public course project's: "# PPO agent", its output in a
    fenced block, "# DQN agent", its own) read as two runs of one setting, pooled: "the runs
    disagree".  Each heading now names its run, runs under different headings are different
    settings, and a heading used twice names two runs of one setting."""
    printed = PRINTED.read_text()
    fenced = lambda title: f"## {title}\n```\nUsing cpu device\n{printed}```\n\n"  # noqa: E731
    path = tmp_path / "results.md"
    # (a '#' line in a code block is a comment, not a heading)
    code = "```python\n# train the agent\nmodel.learn(100_000)\n```\n"
    path.write_text("# Breakout results\nsome prose, 3 runs\n\n" + fenced("PPO agent")
                    + fenced("DQN agent").replace("```\nUsing", code + "```\nUsing") + fenced("PPO agent"))
    wide = read_log(path, wide=True)
    single = read_log(PRINTED, wide=True)
    assert wide["run"].tolist() == ["PPO agent"] * 36 + ["DQN agent"] * 36 + ["PPO agent (2)"] * 36
    assert wide.attrs["run_configs"] == {"PPO agent": "PPO agent", "DQN agent": "DQN agent",
                                         "PPO agent (2)": "PPO agent"}
    for _, part in wide.groupby("run"):
        pd.testing.assert_frame_equal(part.drop(columns="run").reset_index(drop=True), single, check_like=True)
    assert any("each named by the text above it" in note for note in wide.attrs["notes"])
    done = run("check-convergence", path, "-m", "rollout/ep_rew_mean", "--format", "json")
    pooled = [r for r in json.loads(done.stdout)["results"] if "runs" in r]
    assert [r["name"] for r in pooled] == ["rollout/ep_rew_mean [PPO agent]"] and len(pooled[0]["runs"]) == 2
    assert "2 configuration(s)" in done.stderr
    # a section holding two runs (the step starts again under one heading): the headings are
    # not the runs, the step's restarts tell them apart as before
    path.write_text(fenced("PPO agent") + fenced("DQN agent").replace(printed, printed * 2))
    assert "run" not in read_log(path, wide=True).columns
    # one heading, or '#' lines in a text file: one run, as before
    path.write_text(fenced("PPO agent"))
    assert "run" not in read_log(path, wide=True).columns
    (tmp_path / "results.txt").write_text(fenced("PPO agent") + fenced("DQN agent"))
    text = read_log(tmp_path / "results.txt", wide=True)
    assert "run" not in text.columns and len(text) == 72
