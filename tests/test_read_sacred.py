"""Sacred run folders (``swarmstats/io/formats/sacred.py``): pymarl's ``info.json``, each
metric beside the timesteps it was logged at, sacred's ``metrics.json``, and a folder of runs
whose configurations are read from their ``config.json``."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats import sacred
from swarmstats.io.formats._table import ONE_CONFIGURATION
from swarmstats.io.written_nan import is_written
from tests.test_cli import run

FOLDER = Path(__file__).resolve().parent / "fixtures" / "logs" / "sacred"
#: made up in pymarl's layout: run 1 on SMAC's 3m (numpy scalars as jsonpickle writes them,
#: grad_norm a torch tensor logged without .item()), run 2 on 8m (it FAILED), sacred's _sources
ROOT = FOLDER / "results" / "sacred"
METRICS = FOLDER / "metrics" / "7"  # an experiment that logs with sacred's log_scalar


def _write(path: Path, payload) -> Path:
    path.write_text(json.dumps(payload))  # json writes a NaN as NaN, as pymarl's sacred does
    return path


def test_each_metric_is_read_at_the_timesteps_it_was_logged_at():
    wide = read_log(ROOT / "1" / "info.json", wide=True)
    assert wide.attrs["format"] == "pymarl-info" and wide.attrs["step_unit"] == "timesteps"
    # the numpy scalars jsonpickle wrote ({"py/object": "numpy.float64", "value": ...}) are numbers
    assert wide["battle_won_mean"].dropna().to_dict() == {0: 0.0, 3: 0.05, 6: 0.2, 9: 0.35}
    assert wide.set_index("step")["loss"].dropna().to_dict() == {1212: 0.0518, 11230: 0.0281, 21250: 0.0209}
    tidy = read_log(ROOT / "1" / "info.json")
    assert tidy.groupby("metric", observed=True)["step"].min().to_dict() == {
        "battle_won_mean": 40, "episode": 10001, "epsilon": 40, "loss": 1212, "test_return_mean": 40}
    # the same file named explicitly reads the same; a run folder reads its info.json
    assert read_log(ROOT / "1" / "info.json", format="pymarl-info", wide=True).equals(wide)
    assert read_log(ROOT / "1", wide=True).equals(wide)


def test_a_tensor_pickled_whole_is_left_out_and_said():
    wide = read_log(ROOT / "1" / "info.json", wide=True)
    assert "grad_norm" not in wide.columns
    assert wide.attrs["notes"] == ["left out grad_norm: values that are not numbers (a tensor logged "
                                   "without .item() is saved as a pickled object)"]


def test_metrics_whose_steps_do_not_fit_are_left_out_and_said(tmp_path):
    info = {"reward": [1.0, 2.0, 3.0], "reward_T": [0, 10, 20],
            "uneven": [1.0, 2.0], "uneven_T": [0, 10, 20],
            "worded": [1.0, 2.0], "worded_T": [0, "ten"],
            "none": [None, 0.5, 0.7], "none_T": [0, 10, 20],
            "config_path": "/tmp/x", "no_steps": [1, 2, 3]}  # not metrics beside steps: ignored
    wide = read_log(_write(tmp_path / "info.json", info), wide=True)
    assert wide.columns.tolist() == ["step", "none", "reward"]
    assert np.isnan(wide["none"][0]) and not is_written(wide["none"].to_numpy())[0]  # null: missing
    assert wide.attrs["notes"] == ["left out uneven (2 values, 3 steps): not one step per value",
                                   "left out worded: a step that is not a number"]


def test_a_loss_written_as_nan_is_a_run_that_diverged(tmp_path):
    steps = list(range(0, 60_000, 1000))
    info = {"loss": [0.3 + 0.01 * np.sin(i) for i in range(40)] + [float("nan")] * 20, "loss_T": steps}
    path = _write(tmp_path / "info.json", info)
    assert is_written(read_log(path, wide=True)["loss"].to_numpy())[-20:].all()
    done = run("check-convergence", path, "-m", "loss", "--format", "json")
    assert done.returncode == 1
    row = json.loads(done.stdout)["results"][0]
    assert row["verdict"] == "not_converged" and "diverged" in row["reasons"][0]


def test_an_info_json_with_nothing_readable_is_one_clear_error(tmp_path):
    tensor = {"py/reduce": [{"py/function": "torch._utils._rebuild_tensor_v2"}]}
    path = _write(tmp_path / "info.json", {"grad_norm": [tensor], "grad_norm_T": [10]})
    with pytest.raises(InputError, match="no metric could be read .left out grad_norm: values that are not numbers"):
        read_log(path)
    done = run("check-convergence", path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    # a dict of lists with no step lists beside them is not pymarl's: the generic JSON reader's error
    plain = _write(tmp_path / "plain.json", {"reward": [1.0, 2.0]})
    assert not sacred.is_info(json.loads(plain.read_text()))
    with pytest.raises(InputError, match="expected a JSON list of records"):
        read_log(plain)


def test_sacreds_own_metrics_json_is_read_from_the_file_or_its_run_folder():
    wide = read_log(METRICS, wide=True)  # its info.json is empty: metrics.json holds the log
    assert wide.attrs["format"] == "sacred-metrics"
    assert wide.columns.tolist() == ["step", "training.loss", "validation.accuracy"]
    assert wide["step"].tolist() == [0, 100, 200] and wide["training.loss"].tolist() == [1.9, 1.4, 1.1]
    assert np.isnan(wide["validation.accuracy"][0]) and wide["validation.accuracy"].tolist()[1:] == [0.61, 0.68]
    assert read_log(METRICS / "metrics.json", wide=True).equals(wide)
    with pytest.raises(InputError, match="maps each metric to its 'steps' and 'values'"):
        read_log(METRICS / "run.json", format="sacred-metrics")


def test_a_folder_of_sacred_runs_is_one_run_per_folder_with_its_configuration():
    wide = read_log(ROOT, wide=True)
    assert wide["run"].unique().tolist() == ["1", "2"]  # sacred's _sources is not a run
    assert wide.attrs["run_configs"] == {"1": "env_args.map_name=3m", "2": "env_args.map_name=8m"}
    assert wide.attrs["run_configs_complete"] is True
    notes = wide.attrs["notes"]
    assert notes[0] == "2 sacred run folders, one run each: 1, 2"
    assert "1: left out grad_norm" in notes[1] and notes[2] == "run 2: sacred says FAILED"
    assert wide[wide["run"] == "2"]["test_return_mean"].dropna().tolist() == [2.3, 3.1, 3.9, 4.4]


def test_runs_whose_configurations_differ_only_in_their_seeds_are_replicates(tmp_path):
    root = tmp_path / "sacred"
    shutil.copytree(ROOT, root)
    config = json.loads((root / "1" / "config.json").read_text())
    config["seed"] = config["env_args"]["seed"] = 7  # run 2's map is 3m too, its seed another
    _write(root / "2" / "config.json", config)
    (root / "2" / "info.json").write_text((root / "1" / "info.json").read_text())
    assert read_log(root).attrs["run_configs"] == {"1": ONE_CONFIGURATION, "2": ONE_CONFIGURATION}
    done = run("check-convergence", root, "-m", "test_return_mean")
    assert "test_return_mean [one configuration]" in done.stdout and "over 2 runs" in done.stdout
    swept = run("sweep", root, "-m", "test_return_mean", "--workers", "1")
    assert "over 2 runs" in swept.stdout and "setting=" not in swept.stdout
    # different maps are never pooled: each configuration is judged on its own
    swept = run("sweep", ROOT, "-m", "test_return_mean", "--workers", "1")
    assert "setting=env_args.map_name=3m: test_return_mean" in swept.stdout
    assert "the runs' recorded configurations say they are of 2 settings" in swept.stdout
    apart = run("check-convergence", ROOT, "-m", "test_return_mean")
    assert "[env_args.map_name=3m]" in apart.stdout and "[env_args.map_name=8m]" in apart.stdout
    assert "2 configuration(s) by what the log records of each run, seeds aside" in apart.stderr


def test_a_run_whose_log_is_broken_or_missing_is_left_out_and_said_not_lost_silently(tmp_path):
    root = tmp_path / "sacred"
    shutil.copytree(ROOT, root)
    (root / "1" / "info.json").write_text('{"loss": [1, 2, 3')  # cut mid-write
    shutil.copytree(root / "2", root / "3")
    (root / "3" / "info.json").unlink()  # started, nothing logged yet
    wide = read_log(root, wide=True)
    assert wide["run"].unique().tolist() == ["2"]
    notes = wide.attrs["notes"]
    assert notes[0] == "1 sacred run folders, one run each: 2"
    assert notes[1].startswith("1: ") and "not valid JSON" in notes[1] and notes[1].endswith(": left out")
    assert notes[2] == "3: no metric logged (no info.json or metrics.json holding one): left out"
    (root / "2" / "info.json").write_text("[")
    with pytest.raises(InputError, match="no sacred run could be read"):
        read_log(root)


def test_a_run_folder_without_a_readable_config_still_reads_its_runs(tmp_path):
    root = tmp_path / "sacred"
    shutil.copytree(ROOT, root)
    (root / "2" / "config.json").unlink()
    wide = read_log(root, wide=True)
    assert wide["run"].unique().tolist() == ["1", "2"] and "run_configs" not in wide.attrs


def test_a_run_that_has_logged_nothing_yet_is_one_clear_error(tmp_path):
    # sacred writes run.json, config.json and cout.txt at the start; pymarl's info.json comes later
    for file in ("run.json", "config.json"):
        _write(tmp_path / file, {"status": "RUNNING"} if file == "run.json" else {"seed": 1})
    (tmp_path / "cout.txt").write_text("[INFO 10:00:00] pymarl Running command 'my_main'\n")
    assert sacred.run_log(str(tmp_path)) is None
    with pytest.raises(InputError, match="is a sacred run folder with no metric logged yet"):
        read_log(tmp_path)
    # with no info.json kept, what pymarl printed into cout.txt is the record (a moving average, noted)
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "logs" / "pymarl" / "cout.txt", tmp_path / "cout.txt")
    printed = read_log(tmp_path, wide=True)
    assert printed.attrs["format"] == "pymarl-console" and printed["step"].tolist() == [40, 10001, 20002]
    # a run.json alone does not make a sacred folder: another log beside it is read
    other = tmp_path / "other"
    other.mkdir()
    _write(other / "run.json", {"status": "RUNNING"})
    (other / "progress.csv").write_text("time/total_timesteps,rollout/ep_rew_mean\n128,1.5\n256,2.5\n")
    assert read_log(other).attrs["format"] == "sb3-progress"
