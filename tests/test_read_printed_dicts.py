"""What a Hugging Face Trainer printed (``swarmstats/io/formats/printed_dicts.py``): its dicts
read as the trainer_state.json of the same run."""

from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.printed_dicts import is_printed_dicts_head
from tests.conftest import printed_in_notebook
from tests.test_cli import run

FOLDER = Path(__file__).resolve().parent / "fixtures" / "logs" / "hf-printed"
#: transformers 5.24 Trainer, logging_steps=10, an evaluation every 50 steps, 200 steps; the
#: terminal's stdout and stderr (tqdm's bar, redrawn with carriage returns) in one file
PRINTED = FOLDER / "printed.txt"
STATE = FOLDER / "trainer_state.json"  # the same run's trainer state
LOGGING_STEPS = 10


def test_the_printed_dicts_read_as_the_trainer_state_of_the_same_run():
    printed = read_log(PRINTED, wide=True)
    state = read_log(STATE, wide=True)
    assert printed.attrs["format"] == "hf-printed" and printed.attrs["step_unit"] == "logs"
    assert sorted(printed.columns) == sorted(state.columns)
    # step k is the k-th training log: k x logging_steps is the trainer's step
    assert (printed["step"] * LOGGING_STEPS).tolist() == state["step"].tolist()
    for column in state.columns.drop("step"):  # printed with "{:.4g}": within half a unit of the 4th digit
        np.testing.assert_allclose(printed[column].to_numpy(float), state[column].to_numpy(float),
                                   rtol=5e-4, equal_nan=True, err_msg=column)
    notes = " ".join(printed.attrs["notes"])
    assert "4 significant digits" in notes and "training-summary dict (the end of a train() call) is not" in notes


def test_transformers_4_printed_floats_and_a_key_after_the_epoch(tmp_path):
    lines = [f"{{'loss': {1 / (k + 1)!r}, 'learning_rate': 5e-05, 'epoch': {round(k / 30, 2)}, "
             f"'num_input_tokens_seen': {512 * k}}}" for k in range(1, 31)]
    lines.insert(10, "{'eval_loss': 0.25, 'eval_runtime': 1.5, 'epoch': 0.33}")
    lines.insert(3, "{'loss': tensor(0.5), 'epoch': 0.1}")  # not a literal: skipped, nothing run
    lines.append("{'loss': 0.0")  # cut short by a run still printing
    (tmp_path / "train.log").write_text("Some warning\n" + "\n".join(lines) + "\n")
    wide = read_log(tmp_path / "train.log", wide=True)
    assert wide["step"].tolist() == [float(k) for k in range(1, 31)]
    assert wide["loss"].tolist() == [1 / (k + 1) for k in range(1, 31)]  # exact: printed as floats
    assert wide.loc[wide["step"] == 10, "eval_loss"].tolist() == [0.25]  # with the 10th log, before it
    assert not any("significant digits" in note for note in wide.attrs["notes"])
    done = run("check-convergence", tmp_path / "train.log", "-m", "loss")
    assert done.returncode == 1 and "per 100 logs" in done.stdout


def test_other_text_is_not_taken_for_printed_dicts():
    assert not is_printed_dicts_head('{"loss": 0.5, "epoch": 1.0}\n', "metrics.jsonl")  # JSON lines
    assert not is_printed_dicts_head("{'a': 1}\n{'b': 2}\n", "notes.txt")  # no trainer epoch
    assert not is_printed_dicts_head("step,loss\n0,1\n", "log.csv")
    assert is_printed_dicts_head(PRINTED.read_text()[:2000], "printed.txt")


def test_a_file_of_printed_dicts_without_a_number_is_one_clear_error(tmp_path):
    (tmp_path / "out.txt").write_text("{'note': 'warming up', 'epoch': 'n/a'}\n")
    with pytest.raises(InputError, match="no printed log dict with a number"):
        read_log(tmp_path / "out.txt")
    done = run("check-convergence", tmp_path / "out.txt")
    assert done.returncode == 2 and "no printed log dict" in done.stderr and "Traceback" not in done.stderr


def test_watch_follows_printed_dicts_on_the_step_read_log_gives_them():
    import json

    done = run("watch", PRINTED, "-m", "loss", "-m", "eval_loss", "--once", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout[done.stdout.index('{\n  "schema_version"'):])
    assert report["skipped_lines"] == 0  # tqdm's bar between the dicts is terminal text
    metrics = report["report"]["metrics"]
    assert metrics["loss"]["n"] == 20 and metrics["loss"]["last_step"] == 20
    assert metrics["eval_loss"]["n"] == 4 and metrics["eval_loss"]["last_step"] == 20
    assert "train_loss" not in metrics  # the summary dict is not a data point
    # its step is the training log's number, and watch says so as check-convergence does
    text = run("watch", PRINTED, "-m", "loss", "--once").stdout
    assert "more logs would show it" in text and " steps" not in text


def test_two_train_calls_printed_one_after_another_are_two_runs(tmp_path):
    """Counted on, the second run's logs were steps 21-40 of one run of both."""
    text = PRINTED.read_text()
    (tmp_path / "twice.txt").write_text(text + text)  # each ends with its training summary
    wide = read_log(tmp_path / "twice.txt", wide=True)
    assert wide.groupby("run")["step"].agg(["min", "max"]).values.tolist() == [[1, 20], [1, 20]]
    # a run cut short (no summary), then a new one: its epoch goes back
    cut = "\n".join(line for line in text.splitlines() if "train_runtime" not in line)
    (tmp_path / "restart.txt").write_text(cut + "\n" + cut + "\n")
    assert sorted(read_log(tmp_path / "restart.txt", wide=True)["run"].unique()) == ["#1", "#2"]
    done = run("watch", tmp_path / "twice.txt", "-m", "loss", "--once")
    assert done.returncode == 0 and "loss [run=#2]: n 20" in done.stdout


def test_the_dicts_a_notebook_printed_are_read_from_its_outputs(tmp_path):
    """A Trainer run in a notebook with disable_tqdm=True prints its dicts instead of drawing
    its table: the saved notebook holds them as JSON strings in a cell's stream output."""
    (tmp_path / "train.ipynb").write_text(printed_in_notebook(PRINTED.read_text()))
    from_notebook = read_log(tmp_path / "train.ipynb", wide=True)
    assert from_notebook.attrs["format"] == "hf-printed"
    assert from_notebook.equals(read_log(PRINTED, wide=True))


@pytest.mark.parametrize("nan", ["nan", "'nan'"])  # transformers 4 prints the float bare, 5 a string
def test_a_loss_printed_as_nan_is_a_run_that_diverged(tmp_path, nan):
    lines = [f"{{'loss': {0.5 + 0.001 * k}, 'learning_rate': 5e-05, 'epoch': {k / 100}}}" for k in range(1, 41)]
    lines += [f"{{'loss': {nan}, 'learning_rate': 5e-05, 'epoch': {k / 100}}}" for k in range(41, 51)]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "train.log", wide=True)
    assert len(wide) == 50  # (a bare nan is no Python literal: those lines were skipped whole)
    done = run("check-convergence", tmp_path / "train.log", "-m", "loss")
    assert done.returncode == 1 and "diverged: from step 41 on every value is NaN" in done.stdout
