"""The MetricLogger of torchvision's reference scripts (``swarmstats/io/formats/metric_logger.py``),
as DeiT, DETR, MAE and many research repositories print it: ``Epoch: [E]  [i/n]  eta: ...  loss:
median (epoch mean)  ...``, read on ``E x n + i`` with each meter's first number."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.metric_logger import parse_line, parse_summary
from tests.test_cli import run, watched_metrics

#: made up as DeiT's main.py prints a run (its MetricLogger, delimiter two spaces, print_freq 10):
#: 12 epochs of 100 iterations, each followed by the evaluation's per-batch lines and its
#: "* Acc@1 ... Acc@5 ... loss ..." summary, the configuration and DeiT's other prints around them
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "metric-logger" / "train.log"


def test_each_training_line_is_a_step_of_the_run_and_each_summary_its_epochs_last():
    # read as a log it stopped at "no numeric metric column (columns: Not using distributed mode)"
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "metric-logger-console" and wide.attrs["step_unit"] == "iterations"
    # print_freq 10 over 100 iterations: 0, 10, ..., 90 and the last, 99, in each of 12 epochs
    assert len(wide) == 132 and wide["step"].is_monotonic_increasing
    assert wide["step"].iloc[:12].tolist() == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 99, 100]
    # the first number of "loss: 4.2587 (4.2587)" and "loss: 4.1665 (4.0936)": the window's median
    assert wide["loss"].iloc[:2].tolist() == [4.2587, 4.1665]
    assert wide.columns.tolist() == ["step", "lr", "loss", "time", "data_time", "max mem",
                                     "test_acc1", "test_acc5", "test_loss"]
    evaluated = wide[wide["test_acc1"].notna()]
    assert evaluated["step"].tolist() == [100 * epoch + 99 for epoch in range(12)]
    assert evaluated["test_loss"].iloc[0] == 1.034 and evaluated["test_acc5"].iloc[0] == 74.165
    assert wide.attrs["notes"] == [
        "132 MetricLogger record(s), step = epoch x iterations per epoch + iteration (the iteration starts "
        "again each epoch); each meter's first number (by default the median of its last 20 updates), not its "
        "running mean of the epoch in parentheses; 12 evaluation summary line(s) (* Acc@1 ...) at the step "
        "before each; 127 other line(s) skipped"]


def test_the_losses_and_accuracies_are_judged_and_the_machines_measurements_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert set(results) == {"loss", "test_acc1", "test_acc5", "test_loss"}
    # the training loss fell for ~3 epochs, then wandered around 2.05: a warm-up is cut, and what
    # is left is not yet shown flat to the tolerance; 12 evaluations are too few to test
    assert results["loss"]["verdict"] == "insufficient_data" and 200 <= results["loss"]["warmup_step"] <= 500
    assert results["test_acc1"]["verdict"] == "insufficient_data" and results["test_acc1"]["n"] == 12
    text = run("check-convergence", LOG).stderr
    assert "time, data_time (a clock)" in text and "max mem (a system measurement" in text
    assert "lr (a schedule" in text


@pytest.mark.parametrize("line, expected", [
    # torchvision's own default delimiter is a tab; DINO prints the epochs' total; a unit on max mem
    ("Epoch: [3]\t[ 5/50]\teta: 0:00:41\tlr: 0.1\tloss: 2.3 (2.4)\tacc1: 40.0 (38.5)\ttime: 0.2\tdata: 0.01",
     (155.0, {"lr": 0.1, "loss": 2.3, "acc1": 40.0, "time": 0.2, "data_time": 0.01})),
    ("Epoch: [2/100]  [ 40/625]  eta: 1 day, 2:03:04  loss: nan (nan)  max mem: 5092MB",
     (1290.0, {"loss": float("nan"), "max mem": 5092.0})),
    # behind a logger's prefix, with DETR's class_error (one number) and a step named as a meter
    ("2021-10-10 20:16:43,670 - INFO - Epoch: [0]  [10/157]  eta: 0:31:00  class_error: 14.29  step: 3 (3)",
     (10.0, {"class_error": 14.29, "step": 3.0})),
])
def test_a_training_line_gives_its_step_and_the_first_number_of_each_meter(line, expected):
    step, meters = parse_line(line)
    assert step == expected[0] and meters.keys() == expected[1].keys()
    assert all(meters[key] == value or (value != value and meters[key] != meters[key])
               for key, value in expected[1].items())


@pytest.mark.parametrize("line", [
    "Epoch: [0] Total time: 0:00:05 (0.9880 s / it)", "Averaged stats: lr: 0.002000  loss: 0.0102 (0.0102)",
    "Test:  [ 0/40]  eta: 0:00:04  loss: 0.97 (0.97)  acc1: 52.8 (52.8)", "Epoch: [0]  [0/6]  eta: 0:00:25",
    "Epoch [1/5], Step [100/600], Loss: 0.2208"])
def test_the_other_lines_are_no_training_record(line):
    assert parse_line(line) is None


def test_summaries_are_named_as_the_scripts_name_them_in_their_log_txt():
    assert parse_summary("* Acc@1 81.800 Acc@5 95.600 loss 0.800") == {
        "test_acc1": 81.8, "test_acc5": 95.6, "test_loss": 0.8}
    assert parse_summary("Test:  Acc@1 76.130 Acc@5 92.862") == {"test_acc1": 76.13, "test_acc5": 92.862}
    assert parse_summary("Test: EMA Acc@1 76.5 Acc@5 93.0") == {"test_ema_acc1": 76.5, "test_ema_acc5": 93.0}
    assert parse_summary("Max accuracy: 81.80%") is None and parse_summary("Acc@1 is 3") is None


def test_an_evaluation_alone_is_refused_in_one_line(tmp_path):
    # a --eval run prints the evaluation's lines and summary but no training line: no step to put them on
    path = tmp_path / "eval.log"
    path.write_text("Test:  [ 0/2]  eta: 0:00:04  loss: 0.97 (0.97)  acc1: 52.8 (52.8)  acc5: 69.8 (69.8)\n"
                    "Test: Total time: 0:00:01\n* Acc@1 81.800 Acc@5 95.600 loss 0.800\n"
                    "Epoch: [0]  [0/6]  eta: 0:00:25\n")
    with pytest.raises(InputError, match="no MetricLogger training line"):
        read_log(path, format="metric-logger-console")
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_a_run_appended_to_the_log_is_a_second_run(tmp_path):
    # tee -a: the second run's epochs start again at 0, so its steps go back
    path = tmp_path / "train.log"
    path.write_text(LOG.read_text() + LOG.read_text())
    assert read_log(path, wide=True)["step"].tolist() == 2 * read_log(LOG, wide=True)["step"].tolist()
    assert "loss: insufficient_data over 2 runs" in run("check-convergence", path).stdout


def test_watch_follows_the_lines_as_read_log_reads_them():
    watched = watched_metrics(LOG)
    assert watched["loss"]["n"] == 132 and watched["test_acc1"]["n"] == 12
    assert "data_time" not in watched and "max mem" not in watched
