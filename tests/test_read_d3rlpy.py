"""d3rlpy's logs (``swarmstats/io/formats/d3rlpy.py``): a headerless ``epoch,step,value`` file
per metric in ``d3rlpy_logs/<experiment>_<time>/``, beside ``params.json``.  Before, a file was
refused as "a table without a header" and a run folder as "no log swarmstats recognises"."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.direction import guessed_direction
from swarmstats.io import read_log
from swarmstats.io.columns import bookkeeping_by_name, classify_columns
from tests.test_cli import run

#: made up as d3rlpy lays out two fits of CQL (its default experiment name, the algorithm's,
#: and the time): environment.csv (the evaluation's return), critic_loss.csv, time_step.csv
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs" / "d3rlpy" / "d3rlpy_logs"
FIRST = LOGS / "CQL_20240301120000"
RETURNS = [112.5, 240.25, 398.0, 512.75, 601.5, 640.0, 655.25, 648.5]


def test_a_metric_file_is_the_metric_at_d3rlpys_steps_with_the_epoch_beside_it():
    wide = read_log(FIRST / "environment.csv", wide=True)
    assert wide.attrs["format"] == "d3rlpy-csv"
    assert wide["step"].tolist() == [1000.0 * k for k in range(1, 9)]  # gradient steps, not rows
    assert wide["environment"].tolist() == RETURNS
    assert wide["epoch"].tolist() == list(range(1, 9))
    done = run("check-convergence", FIRST / "environment.csv", "--format", "json")
    assert [row["name"] for row in json.loads(done.stdout)["results"]] == ["environment"]
    assert "epoch (another step axis)" in done.stderr


def test_a_run_folder_reads_every_metric_file_and_leaves_its_clock_out():
    wide = read_log(FIRST, wide=True)
    assert wide.attrs["format"] == "d3rlpy-csv" and "run" not in wide.columns
    assert sorted(wide.columns) == ["critic_loss", "environment", "epoch", "step", "time_step"]
    done = run("check-convergence", FIRST, "--format", "json")
    assert sorted(r["name"] for r in json.loads(done.stdout)["results"]) == ["critic_loss", "environment"]
    assert "time_step (a clock)" in done.stderr  # the seconds a step took, not a count of steps


def test_d3rlpy_logs_is_one_run_per_folder_and_two_fits_of_one_algorithm_are_pooled(tmp_path):
    wide = read_log(LOGS, wide=True)
    assert wide["run"].unique().tolist() == ["CQL_20240301120000", "CQL_20240302093012"]
    assert wide.attrs["notes"][0] == "2 d3rlpy run folders, one run each: CQL_20240301120000, CQL_20240302093012"
    done = run("check-convergence", LOGS, "-m", "environment", "--format", "json")
    assert "holds 2 runs" in done.stderr
    # a folder of other CSVs is not taken for d3rlpy's: refused as before
    (tmp_path / "a.csv").write_text("x,y\n1,2\n")
    (tmp_path / "b.csv").write_text("x,y\n1,2\n")
    with pytest.raises(InputError, match="no log swarmstats recognises"):
        read_log(tmp_path)


def test_a_csv_beside_the_metric_files_is_named_and_left_out(tmp_path):
    folder = tmp_path / "CQL_20240301120000"
    folder.mkdir()
    for file in ("environment.csv", "params.json"):
        (folder / file).write_bytes((FIRST / file).read_bytes())
    (folder / "notes.csv").write_text("epoch,comment\n1,ok\n")
    wide = read_log(folder, wide=True)
    assert wide["environment"].tolist() == RETURNS
    assert wide.attrs["notes"] == ["left out notes.csv: not d3rlpy's epoch,step,value lines"]


def test_a_second_fit_appended_to_the_same_files_is_a_second_run(tmp_path):
    # with_timestamp=False and the same experiment name: d3rlpy appends to the files
    lines = [f"{e},{e * 100},{float(e)}" for e in range(1, 7)] + [f"{e},{e * 100},{10.0 + e}" for e in range(1, 7)]
    (tmp_path / "environment.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "environment.csv", wide=True)
    assert wide["run"].tolist() == ["#1"] * 6 + ["#2"] * 6
    assert wide[wide["run"] == "#2"]["environment"].tolist() == [11.0, 12.0, 13.0, 14.0, 15.0, 16.0]
    assert any("runs #1, #2" in note for note in wide.attrs["notes"])


def test_malformed_and_unfinished_lines_are_left_out_and_counted(tmp_path):
    text = "1,100,0.5\n2,200,0.6\n3,300,0.7\n4,400,0.8\n5,500,0.9\n6,600,oops\n7,700,1.1\n8,800,1.2"
    (tmp_path / "loss.csv").write_text(text)
    wide = read_log(tmp_path / "loss.csv", wide=True)
    assert wide["step"].tolist() == [100.0 * k for k in (1, 2, 3, 4, 5, 7)]
    assert wide.attrs["notes"] == ["a last line still being written left out (loss)",
                                   "1 line(s) that are not 'epoch,step,value' left out"]
    (tmp_path / "empty.csv").write_text("1,100,0.5")  # one line, still being written: nothing read
    with pytest.raises(InputError, match="no 'epoch,step,value' line in d3rlpy's file"):
        read_log(tmp_path / "empty.csv", format="d3rlpy-csv")


def test_a_headerless_table_of_another_width_is_still_refused(tmp_path):
    (tmp_path / "x.csv").write_text("1,2,3,0.5\n2,4,6,0.7\n")
    with pytest.raises(InputError, match="its first line is numbers"):
        read_log(tmp_path / "x.csv")


@pytest.mark.parametrize("name, kind", [
    ("time_sample_batch", "a clock"), ("time_algorithm_update", "a clock"), ("time_inference", "a clock"),
    ("time_environment_step", "a clock"), ("temp", "a coefficient the algorithm sets"),
    ("time_to_goal", None), ("temp_loss", None), ("alpha_loss", None)])
def test_d3rlpys_timers_and_sac_temperature_are_bookkeeping_by_name(name, kind):
    why = bookkeeping_by_name(name)
    assert (why is None) if kind is None else why.startswith(kind)


def test_a_time_step_of_seconds_is_a_clock_and_one_of_whole_steps_a_counter():
    import pandas as pd

    frame = pd.DataFrame({"step": [1, 2, 3, 4, 5, 6], "reward": [1.0, 2, 3, 2, 3, 4],
                          "time_step": [0.0124, 0.0125, 0.0123, 0.0124, 0.0125, 0.0123]})
    assert classify_columns(frame).bookkeeping["time_step"] == "a clock"
    counted = frame.assign(time_step=[10, 20, 30, 40, 50, 60])
    assert classify_columns(counted).bookkeeping["time_step"] == "a counter"


def test_sac_temperature_and_a_q_value_scale_have_no_better_side():
    assert guessed_direction("temp") is None and guessed_direction("value_scale") is None
    assert guessed_direction("temp_loss") == "lower" and guessed_direction("environment") == "higher"


def test_watch_follows_a_metric_file_and_names_what_a_clock_alone_leaves_out(tmp_path):
    out = run("watch", FIRST / "environment.csv", "--once", "--format", "json").stdout
    report = json.loads(out[out.index('{\n  "schema_version"'):])["report"]
    assert report["metrics"]["environment"]["n"] == 8 and "epoch" in report["left_out"]
    done = run("watch", FIRST / "time_step.csv", "--once")
    assert done.returncode == 2
    assert "no numeric metric values were read; left out as bookkeeping: " in done.stderr
    assert "time_step (a clock)" in done.stderr and "name one with -m to follow it" in done.stderr


def test_a_monitor_tells_a_time_step_of_seconds_from_one_of_steps_by_its_first_value():
    from swarmstats import Monitor

    # (a first value that is NaN or infinite tells nothing: the name's kind stands)
    for first, kind in ((0.0124, "a clock"), (10, "a counter"), (float("nan"), "a counter"),
                        (float("inf"), "a counter"), (None, "a counter")):
        monitor = Monitor()
        monitor.log(1, reward=1.0, time_step=first)
        assert monitor.status.left_out == {"time_step": kind}
