"""What Keras' ``model.fit`` prints (``swarmstats/io/formats/keras.py``).  Read as a log it
stopped at "no numeric metric column (columns: Epoch 1/30)"."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.keras import EpochReader
from tests.test_cli import run

#: made up as Keras 2 prints a small classifier's fit in a terminal (verbose=1): the model's
#: summary first, each epoch's bar redrawn with \r (the updates with an ETA hold running
#: averages), ReduceLROnPlateau's lr, then model.evaluate's line and the script's own print
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "keras" / "fit.log"


def test_each_epoch_is_a_row_of_its_final_line():
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "keras-console" and wide.attrs["step_unit"] == "epochs"
    assert wide["step"].tolist() == list(range(1, 26))
    assert wide.columns.tolist() == ["step", "loss", "accuracy", "val_loss", "val_accuracy", "lr"]
    # the epoch's last redraw, not an update with an ETA (a running average of part of it)
    finals = [line.rpartition("\r")[2] for line in LOG.read_bytes().decode().split("\n") if "\r" in line]
    assert wide["loss"].tolist() == [float(line.split("- loss: ")[1].split()[0]) for line in finals]
    assert wide["lr"].iloc[[0, 16, 17]].tolist() == [1e-3, 1e-3, 2e-4]
    assert wide.attrs["notes"] == ["25 Keras epoch line(s), step = the epoch",
                                   "1 line(s) of values with no epoch before them (model.evaluate?) not read"]


@pytest.mark.parametrize("line", [
    "32/32 - 0s - loss: 0.4803 - accuracy: 0.8127 - val_loss: 0.5 - val_accuracy: 0.79 - 66ms/epoch - 2ms/step",
    "\x1b[1m32/32\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m0s\x1b[0m 2ms/step - accuracy: 0.8127 "
    "- loss: 0.4803 - val_accuracy: 0.79 - val_loss: 0.5",
    "60000/60000 [==============================] - 5s - loss: 0.4803 - acc: 0.8127 - val_loss: 0.5 - val_acc: 0.79",
    "xxx\b\b\b32/32 [====] - 0s 4ms/step - loss: 0.4803 - accuracy: 0.8127 - val_loss: 0.5 - val_accuracy: 0.79",
    # Keras 3 in a terminal: its updates show the time left without the word ETA; the count says
    "\r 1/32 ━━━━━━━━━━━━━━━━━━━━ 3s 112ms/step - accuracy: 0.2000 - loss: 1.1000\r32/32 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step "
    "- accuracy: 0.8127 - loss: 0.4803 - val_accuracy: 0.79 - val_loss: 0.5",
])
def test_the_forms_of_verbose_2_keras_3_keras_1_and_a_notebook_redraw_are_read(line):
    reader = EpochReader()
    assert reader.feed("Epoch 7/30") is None
    record = reader.feed(line)
    assert record["step"] == 7 and record["loss"] == 0.4803 and record["val_loss"] == 0.5
    assert {"accuracy", "acc"} & set(record) and len(record) == 5
    assert reader.feed(line) is None and reader.unplaced == 1  # a second line: not an epoch's


def test_a_notebook_that_ran_fit_is_read_from_its_cells_output(tmp_path):
    lines = ["Epoch 1/3\n", "8/8 [====] - 1s 3ms/step - loss: 0.9 - accuracy: 0.5\n",
             "Epoch 2/3\n", "8/8 [====] - 0s 3ms/step - loss: 0.7 - accuracy: 0.6\n",
             "Epoch 3/3\n", "8/8 [====] - 0s 3ms/step - loss: 0.6 - accuracy: 0.7\n"]
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["model.fit(x, y, epochs=3)"],
            "outputs": [{"name": "stdout", "output_type": "stream", "text": lines}]}
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "keras-console" and wide["loss"].tolist() == [0.9, 0.7, 0.6]


def test_the_losses_and_accuracies_are_judged_per_epoch_and_the_learning_rate_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    rows = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert set(rows) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert rows["loss"]["step_unit"] == "epochs"
    assert "left out lr (a schedule" in done.stderr


def test_a_log_without_an_epoch_line_is_refused_in_one_line(tmp_path):
    path = tmp_path / "fit.log"
    path.write_text("10/10 [====] - 0s 2ms/step - loss: 0.36 - accuracy: 0.93\nEpoch 1/5 starting\n")
    with pytest.raises(InputError, match="no Keras epoch"):
        read_log(path, format="keras-console")


def test_watch_follows_the_epochs_past_the_model_summary():
    out = run("watch", LOG, "--once", "--format", "json").stdout
    report = json.loads(out[out.index('{\n  "schema_version"'):])["report"]
    assert set(report["metrics"]) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert report["metrics"]["loss"]["n"] == 25 and "lr" in report["left_out"]


@pytest.mark.parametrize("text", [
    'Model: "sequential"\nTotal params: 1,000\nEpoch 1/3\n',  # the summary, then the fit's first line
    "Epoch 1/3\n",
    "Epoch 1/3\n 50/100 [=====>.....] - ETA: 1s - loss: 0.5012\n",  # the bar part-way
    "Epoch 1/3\n 50/100 [====>...] - ETA: 1s - loss: 0.52\r 80/100 [=======>..] - ETA: 0s - loss: 0.51\n",
])
def test_a_fit_whose_first_epoch_has_not_ended_says_so(tmp_path, text):
    # read as a CSV it was "malformed rows: ... a column without a name in the header?" or
    # "no numeric metric column (columns: Epoch 1/3)"
    path = tmp_path / "fit.log"
    path.write_text(text)
    with pytest.raises(InputError, match=r"fit has begun \(Epoch 1/3\) and no epoch has finished yet"):
        read_log(path)
    done = run("check-convergence", path)
    assert done.returncode == 2 and "no epoch has finished yet" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("text", ["Epoch 1/10\ntrain_loss=0.5 val_loss=0.4\nEpoch 2/10\ntrain_loss=0.4 val_loss=0.3\n",
                                  "Epoch 2/3\n 50/100 [=====>.....] - ETA: 1s - loss: 0.5\n"])
def test_an_epoch_line_followed_by_something_else_is_not_taken_for_a_keras_fit(tmp_path, text):
    # another script's "Epoch 1/10" with its own lines after it, or a later epoch (the file is no
    # fit's start), is left to the other readers
    path = tmp_path / "train.log"
    path.write_text(text)
    try:
        table = read_log(path)
    except InputError as refused:
        assert "Keras" not in str(refused)
    else:
        assert table.attrs["format"] != "keras-console"
