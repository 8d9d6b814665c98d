"""TorchRL's CSV logger (``swarmstats/io/formats/torchrl.py``), which BenchMARL logs through:
``scalars/<name>.csv`` files of ``step,value`` lines with no header; and a headerless CSV of
any other width, refused rather than read with its first row as the column names."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.written_nan import is_written
from tests.test_cli import run

#: made up as TorchRL's CSVLogger lays out two BenchMARL runs (MAPPO on VMAS balance, seeds 0
#: and 1): <log_dir>/<experiment>/scalars/<name>.csv, BenchMARL's "/" replaced by "_", and one
#: name kept with its "/" (TorchRL then makes a subfolder: scalars/eval/success.csv)
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs" / "torchrl" / "csv_logs"
SEED0 = LOGS / "mappo_balance_mlp__seed0"
REWARD = "collection_reward_episode_reward_mean"


def test_a_scalar_file_is_one_metric_named_after_it_at_the_steps_it_logged():
    path = SEED0 / "scalars" / f"{REWARD}.csv"
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "torchrl-csv" and wide.columns.tolist() == ["step", REWARD]
    first = path.read_text().splitlines()[0].split(",")
    assert wide["step"].tolist() == list(range(30)) and wide[REWARD][0] == float(first[1])
    # read as a plain CSV its first line named the columns and the steps were left out: the
    # slope was quoted per row; per logged step it is the same here only because steps are 0, 1, ...
    done = run("check-convergence", path, "--format", "json")
    assert [row["name"] for row in json.loads(done.stdout)["results"]] == [REWARD]


def test_an_experiment_folder_reads_every_scalar_file_and_a_slash_is_a_subfolder():
    for path in (SEED0, SEED0 / "scalars"):
        wide = read_log(path, wide=True)
        assert wide.attrs["format"] == "torchrl-csv"
        assert sorted(wide.columns) == sorted(["step", REWARD, "eval/success", "eval_reward_episode_reward_mean",
                                               "train_agents_loss_objective"])
        assert wide.set_index("step")["eval/success"].dropna().tolist() == [0.0, 0.0, 0.2, 0.4, 0.6, 0.8]


def test_a_log_dir_of_experiments_is_one_run_each():
    wide = read_log(LOGS, wide=True)
    assert wide["run"].unique().tolist() == ["mappo_balance_mlp__seed0", "mappo_balance_mlp__seed1"]
    assert wide.attrs["notes"][0].startswith("2 TorchRL experiment folders, one run each")
    done = run("check-convergence", LOGS, "-m", REWARD)
    assert "holds 2 runs" in done.stderr and "over 2 runs" in done.stdout  # two seeds of one setting


def test_a_run_resumed_into_its_file_replaces_the_values_past_the_resume(tmp_path):
    lines = [f"{s},{float(s)}" for s in range(10)] + [f"{s},{100.0 + s}" for s in range(6, 12)]
    (tmp_path / "reward.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "reward.csv", wide=True)
    assert wide["step"].tolist() == list(range(12))
    assert wide["reward"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0]
    assert wide.attrs["notes"][0].endswith("replaced by the resumed run's: reward (4)")
    # the resumed run has not reached the step the first one stopped at: nothing past it is kept
    lines = [f"{s},{float(s)}" for s in range(10)] + [f"{s},{100.0 + s}" for s in range(6, 8)]
    (tmp_path / "short.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "short.csv", wide=True)
    assert wide["short"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 106.0, 107.0]


def test_a_run_appended_from_its_start_is_a_second_run(tmp_path):
    lines = [f"{s},{float(s)}" for s in range(10)] * 2
    (tmp_path / "reward.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "reward.csv", wide=True)
    assert wide.groupby("run")["step"].count().to_dict() == {"#1": 10, "#2": 10}


def test_nan_is_written_a_cut_last_line_and_bad_lines_are_left_out_and_said(tmp_path):
    good = "".join(f"{s},0.{9 - s}\n" for s in range(5))  # (the format is told by its first lines)
    (tmp_path / "loss.csv").write_text(good + "5,nan\nnot a line\n6,0.3,7\n7,0.2\n8,0.1")
    wide = read_log(tmp_path / "loss.csv", wide=True)
    assert wide["step"].tolist() == [0, 1, 2, 3, 4, 5, 7]
    assert is_written(wide["loss"].to_numpy()).tolist() == [False] * 5 + [True, False]
    assert wide.attrs["notes"] == ["a last line still being written left out (loss)",
                                   "2 line(s) that are not 'step,value' left out"]


def test_a_csv_whose_first_line_is_numbers_is_refused_not_read_with_a_number_for_a_header(tmp_path):
    (tmp_path / "runs.csv").write_text("0,0.5,3\n1,0.6,4\n2,0.7,5\n")
    with pytest.raises(InputError, match=r"its first line is numbers \(0, 0.5, 3\), not column names"):
        read_log(tmp_path / "runs.csv")
    done = run("describe", tmp_path / "runs.csv")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    # pandas' default labels are a header: a frame saved with to_csv(index=False)
    rng = np.random.default_rng(0)
    for width in (2, 3):
        pd.DataFrame(rng.random((30, width))).to_csv(tmp_path / f"frame{width}.csv", index=False)
        wide = read_log(tmp_path / f"frame{width}.csv", wide=True)
        assert wide.attrs["format"] == "csv" and wide.columns.tolist() == [str(i) for i in range(width)]
        assert len(wide) == 30


def test_a_folder_of_other_csv_files_is_not_a_torchrl_experiment(tmp_path):
    (tmp_path / "scalars").mkdir()
    (tmp_path / "scalars" / "table.csv").write_text("step,reward\n0,1.5\n1,2.5\n")
    with pytest.raises(InputError, match="is a directory with no log swarmstats recognises"):
        read_log(tmp_path)
    # beside TorchRL's files, such a table is left out and named
    (tmp_path / "scalars" / "reward.csv").write_text("0,1.5\n1,2.5\n")
    wide = read_log(tmp_path, wide=True)
    assert wide.columns.tolist() == ["step", "reward"]
    assert wide.attrs["notes"] == ["left out table.csv: not TorchRL's step,value lines"]


def test_watch_follows_a_scalar_file_from_its_first_line_and_refuses_a_headless_table(tmp_path):
    done = run("watch", SEED0 / "scalars" / f"{REWARD}.csv", "--once", "--format", "json")
    report = json.loads(done.stdout[done.stdout.index("\n{\n") + 1:])
    assert report["skipped_lines"] == 0 and report["report"]["metrics"][REWARD]["n"] == 30
    (tmp_path / "runs.csv").write_text("0,0.5,3\n1,0.6,4\n2,0.7,5\n")
    refused = run("watch", tmp_path / "runs.csv", "--once")
    assert refused.returncode == 2 and "numbers, not column names" in refused.stderr
