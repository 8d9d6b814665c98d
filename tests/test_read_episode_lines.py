"""Episode lines a hand-written loop prints with tabs or aligned columns (Udacity's deep RL
course and the many projects built on it), the carriage returns of a terminal's progress line,
and counters that start again in each run."""

import json

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import classify_columns, read_log
from swarmstats.io.follow import Follower
from swarmstats.io.unfinished import unfinished_line_start, without_unfinished_row
from tests.test_cli import run

#: what the course's DQN loop prints: each episode over the last with "\r", every 100th kept with
#: a newline, then a summary line that is no record
UDACITY = ("".join(f"\rEpisode {i}\tAverage Score: {i * 0.1:.2f}" + ("\n" if i % 100 == 0 else "")
                   for i in range(1, 251))
           + "\nEnvironment solved in 150 episodes!\tAverage Score: 25.00\n")


def test_the_course_s_tab_separated_episode_lines_are_read_one_row_per_episode(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(UDACITY)
    frame = read_log(log, wide=True)
    assert frame.attrs["format"] == "printed-pairs" and frame.attrs["step_unit"] == "episodes"
    assert frame["step"].tolist() == list(range(1, 251))  # each 100th printed twice: one row
    assert np.allclose(frame["Average Score"], np.arange(1, 251) * 0.1, atol=0.005)
    assert "1 other line(s) skipped" in frame.attrs["notes"][0]  # the summary line


def test_a_terminal_capture_cut_mid_progress_line_is_read_and_nothing_is_cut(tmp_path):
    # the last "\r" update has no newline after it: before, the check for a row cut mid-write
    # stopped with a traceback from the csv module ("new-line character seen in unquoted field")
    log = tmp_path / "train.log"
    log.write_text("".join(f"\rEpisode {i}\tAverage Score: {i:.2f}" for i in range(1, 31)))
    frame = read_log(log, wide=True)
    assert frame["step"].tolist() == list(range(1, 31))
    assert not any("mid-row" in note for note in frame.attrs["notes"])
    # a carriage return ends a line as a newline does; Windows line ends are one line end
    assert unfinished_line_start(b"\rEpisode 1\tScore: 0.5\rEpisode 2\tScore: 0.6") is None
    assert unfinished_line_start(b"\rEpisode 1\tScore: 0.5\rEpisode 2\t") is None  # as wide: kept
    data, note = without_unfinished_row(b"step,reward\r\n0,0.5\r\n1,0.6\r\n2")
    assert data == b"step,reward\r\n0,0.5\r\n1,0.6\r\n" and "('2') ends mid-row" in note


@pytest.mark.parametrize("line, expected", [
    ("Episode 300\tAverage Score: -56.82\tScore: 12.50", {"Average Score": -56.82, "Score": 12.5}),
    ("Epoch 3, Train Loss: 0.52", {"Train Loss": 0.52}),
    # columns printed aligned, groups parted by "|", symbols for the schedule's names
    ("Episode   300   Avg:   -60.05   BestAvg:   -60.04   σ:    76.34   |   ε: 0.2223  ⍺: 0.5000   |   "
     "Steps:   116499  Secs:    427",
     {"Avg": -60.05, "BestAvg": -60.04, "σ": 76.34, "ε": 0.2223, "⍺": 0.5, "Steps": 116499.0, "Secs": 427.0}),
    # a field that is not name: number pairs only is no field ("learning rate: 1e-3 -> 5e-4")
    ("Epoch 2, loss: 0.5, learning rate: 1e-3 -> 5e-4", {"loss": 0.5}),
])
def test_listed_fields_parted_by_tabs_or_aligned_columns_are_read(tmp_path, line, expected):
    log = tmp_path / "train.log"
    log.write_text(f"{line}\n{line.replace('300', '400').replace('3,', '4,').replace('2,', '5,')}\n")
    frame = read_log(log, wide=True)
    first = frame.iloc[0].to_dict()
    assert {key: first[key] for key in expected} == pytest.approx(expected)
    assert set(frame.columns) == {"step", *expected}


@pytest.mark.parametrize("line", ["Episode 5  finished after 200 timesteps", "Step 5 of 10: 3 left"])
def test_a_step_followed_by_words_is_no_record(tmp_path, line):
    log = tmp_path / "train.log"
    log.write_text(f"{line}\n{line}\nsome other line\n")
    with pytest.raises(InputError, match="no printed line holds a step key"):
        read_log(log, wide=True, format="printed-pairs")


def test_a_counter_that_starts_again_in_each_run_is_bookkeeping_however_short_the_runs():
    # three runs of 6 rows start their total-steps count again twice: 2 drops in 18 rows, more
    # than the 2% a single table's new runs may drop, and the count was judged as a metric
    frame = pd.DataFrame({"run": np.repeat(["a", "b", "c"], 6), "step": np.tile(np.arange(6) * 100, 3),
                          "Steps": np.r_[np.cumsum([5, 9, 7, 8, 6, 9]), np.cumsum([4, 8, 9, 9, 7, 6]),
                                         np.cumsum([7, 7, 8, 5, 9, 8])] * 1000,
                          "Avg": np.linspace(-100, 100, 18)})
    columns = classify_columns(frame, step="step", runs=("run",))
    assert columns.bookkeeping == {"Steps": "a counter"} and columns.metrics == ["Avg"]
    # a count that goes down within a run is no counter
    frame.loc[3, "Steps"] = 1000
    assert "Steps" in classify_columns(frame, step="step", runs=("run",)).metrics


def test_the_cli_reads_the_course_s_log_and_calls_its_steady_climb_still_improving(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(UDACITY)
    result = run("check-convergence", log)
    assert result.returncode == 1, result.stderr
    assert "250 printed record(s) of 'Episode N, name: value, ...' fields, step = Episode" in result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("Average Score"))
    assert "not_converged" in row and "still improving" in row


def test_watch_follows_every_redrawn_episode_as_read_log_reads_them(tmp_path):
    # a terminal shows each line's last redraw only; the file holds every episode's record
    log = tmp_path / "train.log"
    log.write_text(UDACITY)
    follower = Follower(str(log))
    try:
        records = follower.records()
        assert type(follower._output).__name__ == "_Pairs"
        assert [record["step"] for record in records] == list(range(1, 251))  # the 100th once
        assert records[149]["Average Score"] == pytest.approx(15.0)
        assert follower.step_unit("step") == "episodes"
    finally:
        follower.close()


def test_a_notebook_s_printed_episode_lines_are_read_from_its_cells_output(tmp_path):
    # the course's projects train in a notebook: its JSON escapes the tabs and carriage returns,
    # and it was refused as "a Jupyter notebook with no training log in its cells' output"
    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Train the agent\n"]},
                          {"cell_type": "code", "execution_count": 5, "metadata": {}, "source": ["scores = dqn()\n"],
                           "outputs": [{"name": "stdout", "output_type": "stream",
                                        "text": UDACITY.splitlines(True)}]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 2}
    path = tmp_path / "Navigation.ipynb"
    path.write_text(json.dumps(notebook))
    frame = read_log(path, wide=True)
    assert frame.attrs["format"] == "printed-pairs" and frame["step"].tolist() == list(range(1, 251))
    # two agents trained under two headings: two settings, named by them
    notebook["cells"][0]["source"] = ["## DQN\n"]
    notebook["cells"] += [{"cell_type": "markdown", "metadata": {}, "source": ["## Double DQN\n"]},
                          {**notebook["cells"][1], "execution_count": 6}]
    path.write_text(json.dumps(notebook))
    frame = read_log(path, wide=True)
    assert frame["run"].unique().tolist() == ["DQN", "Double DQN"] and len(frame) == 500
    # a notebook that printed no record is still refused as before
    notebook["cells"][1]["outputs"][0]["text"] = ["Loading the environment...\n", "Score: 3.0\n"]
    path.write_text(json.dumps(notebook))
    with pytest.raises(InputError, match="no training log in its cells' output"):
        read_log(path, wide=True)


def test_a_best_so_far_is_left_out_unless_it_goes_back():
    frame = pd.DataFrame({"episode": np.arange(1, 9) * 100, "Avg": [-144.0, -109, -60, 8.6, 166, 150, 190, 201],
                          "BestAvg": [-np.inf, -109, -60, 8.6, 166, 166, 190, 201],
                          "best_loss": [0.9, 0.7, 0.7, 0.5, 0.41, 0.41, 0.40, 0.39]})
    columns = classify_columns(frame, step="episode")
    assert columns.metrics == ["Avg"] and set(columns.bookkeeping) == {"BestAvg", "best_loss"}
    assert columns.bookkeeping["BestAvg"].startswith("a running best")
    # a column named "best" that goes back is no best so far: a metric
    frame.loc[5, "BestAvg"] = 100.0
    assert "BestAvg" in classify_columns(frame, step="episode").metrics
