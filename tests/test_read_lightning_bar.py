"""What PyTorch Lightning's progress bar prints while a Trainer fits
(``swarmstats/io/formats/lightning_bar.py``): every redraw of ``Epoch E: ..%|...| n/total [...,
v_num=0, train_loss=2.250]``, read on ``E x total + n``, the validation's metrics where they are
new rather than on every redraw that still shows them."""

import json
from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.lightning_bar import parse_update
from tests.test_cli import run, watched_metrics

#: made up as Lightning 2.x's TQDMProgressBar draws a fit into a file: 3 epochs of 20 batches,
#: each batch redrawn twice (the count with the last metrics, then the new ones) and parted by
#: carriage returns, a validation's bar on the line below after each epoch, then the epoch's last
#: redraw with val_loss and val_acc; the Trainer's banner, model summary and sanity check before
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "lightning-console" / "train.log"


def test_each_batch_is_a_step_and_each_validation_is_read_once_at_its_epochs_end():
    # read as a log it was "malformed row: Expected 5 fields in line 3, saw 7"
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "lightning-console" and wide.attrs["step_unit"] == "batches"
    assert wide["step"].tolist() == list(range(1, 61))
    assert wide.columns.tolist() == ["step", "train_loss", "val_loss", "val_acc"]  # v_num is no metric
    # the redraw with the new metrics wins over the one before it at the same batch
    assert wide["train_loss"].iloc[:3].tolist() == [2.25, 2.13, 2.02]
    # the validation's values stay on every redraw of the next epoch: read once each, where new
    validated = wide[wide["val_loss"].notna()]
    assert validated["step"].tolist() == [20, 40, 60]
    assert validated["val_loss"].tolist() == [2.4, 1.57, 1.07] and validated["val_acc"].tolist() == [0.3, 0.5, 0.7]
    assert wide.attrs["notes"][0].startswith("60 step(s) of Lightning's progress bar, step = epoch x batches")


def test_the_losses_are_judged_per_100_batches_and_watch_reads_what_read_log_reads():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert set(results) == {"train_loss", "val_loss", "val_acc"}
    assert results["val_loss"]["n"] == 3 and results["val_loss"]["verdict"] == "insufficient_data"
    assert results["train_loss"]["n"] == 60
    # watch opens on the bar (not on the Trainer's "GPU available: False, used: False" as a CSV
    # header, nor on the model summary's bars as SB3's table) and reads each batch once
    watched = watched_metrics(LOG)
    assert {name: row["n"] for name, row in watched.items()} == {"train_loss": 60, "val_loss": 3, "val_acc": 3}


def test_redraws_on_lines_of_their_own_read_the_same_in_read_log_and_watch(tmp_path):
    # a copy of the log whose carriage returns became line ends (a CI's log viewer, an editor):
    # each batch's two redraws on two lines, the first showing the last batch's loss again
    path = tmp_path / "train.log"
    path.write_bytes(LOG.read_bytes().replace(b"\r", b"\n"))
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == list(range(1, 61)) and wide["train_loss"].iloc[:3].tolist() == [2.25, 2.13, 2.02]
    watched = watched_metrics(path)
    assert {name: row["n"] for name, row in watched.items()} == {"train_loss": 60, "val_loss": 3, "val_acc": 3}
    assert watched["train_loss"]["mean"] == pytest.approx(wide["train_loss"].mean())


def test_a_terminals_capture_of_each_epochs_last_state_reads_every_validation(tmp_path):
    # what a terminal keeps (a console's scroll-back, a notebook cell): each epoch's last redraw,
    # its metrics cut by the window's width mid-name and overwritten by a callback's message; the
    # checkpoint's lines between them
    lines = []
    for epoch, (loss, val) in enumerate([(1.59, 1.42), (0.799, 0.985), (0.652, 0.626), (0.767, 0.622)]):
        lines.append(f"Epoch {epoch}: 100%|█| 782/782 [01:39<00:00,  7.83it/s, v_num=1, train_loss={loss:.3f}, "
                     f"train_acc=0.688, val_loss={val:.3f}, val_accurMetric val_accuracy improved. New best score: 0.5")
        lines.append(f"Epoch {epoch}, global step {782 * (epoch + 1)}: 'val_accuracy' reached 0.49430 (best "
                     f"0.49430), saving model to 'checkpoints/epoch={epoch:02d}.ckpt' as top 3")
    path = tmp_path / "train.log"
    path.write_text("GPU available: False, used: False\n" + "\n".join(lines) + "\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [782, 1564, 2346, 3128]
    assert wide["val_loss"].tolist() == [1.42, 0.985, 0.626, 0.622]  # no validation's bar shown: where new
    assert "val_accur" not in wide.columns and "val_accurMetric val_accuracy improved. New best score" not in wide
    # the same number again at the next epoch's end, with no validation's bar to say it is new (an
    # epoch that did not validate shows the last validation's): not read twice
    path.write_text("\n".join(lines[:2] + [lines[2].replace("val_loss=0.985", "val_loss=1.420")]) + "\n")
    again = read_log(path, wide=True)
    assert again["step"].tolist() == [782, 1564] and again["val_loss"].tolist()[0] == 1.42
    assert np.isnan(again["val_loss"].iloc[1]) and again["train_loss"].tolist() == [1.59, 0.799]


def test_a_loader_of_unknown_length_counts_the_batches_of_the_epochs_before(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("\r".join(f"Epoch {epoch}: |          | {n}/? [00:20<00:00,  0.05it/s, v_num=0, train_loss={14 - n}.00]"
                              for epoch, last in ((0, 5), (1, 4)) for n in range(1, last + 1)) + "\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert wide["train_loss"].tolist() == [13, 12, 11, 10, 9, 13, 12, 11, 10]


def test_lightning_1x_counts_the_validations_batches_in_the_bar_and_those_redraws_are_left_out(tmp_path):
    # before 2.0 the main bar's total held the validation's batches (8 + 2) and its running
    # "loss" came first; a validation's redraws show the last training values again
    redraws = [f"Epoch 0:  {10 * n}%|#  | {n}/10 [00:00<00:00, 75.01it/s, loss={2.5 - 0.1 * n:.3g}, v_num=0]"
               for n in range(1, 9)]
    redraws += ["Validating: 0it [00:00, ?it/s]",
                "Epoch 0:  90%|#  | 9/10 [00:00<00:00, 75.01it/s, loss=1.7, v_num=0]",
                "Validating:  50%|#  | 1/2 [00:00<00:00, 75.01it/s]",
                "Epoch 0: 100%|#  | 10/10 [00:00<00:00, 75.01it/s, loss=1.7, v_num=0, val_loss=1.9]"]
    path = tmp_path / "train.log"
    path.write_text("\r".join(redraws) + "\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 10]
    assert np.allclose(wide["loss"].iloc[:8], [2.4, 2.3, 2.2, 2.1, 2.0, 1.9, 1.8, 1.7])
    assert np.isnan(wide["loss"].iloc[8]) and wide["val_loss"].tolist()[-1] == 1.9


@pytest.mark.parametrize("line, expected", [
    ("Epoch 12:  45%|████▌     | 9/20 [00:02<00:02,  4.21it/s, v_num=3, train_loss=1.42e+03, lr=0.001]",
     (12, 9, 20, {"v_num": 3.0, "train_loss": 1420.0, "lr": 0.001})),
    ("Epoch 0: 100%|█| 1563/1563 [01:57<00:00, 13.25it/s, v_num=0, train_loss=nan, val_acc",
     (0, 1563, 1563, {"v_num": 0.0, "train_loss": float("nan")})),
    ("Epoch 3:   0%|          | 0/20 [00:00<?, ?it/s]", (3, 0, 20, {})),
])
def test_a_redraw_gives_its_epoch_batch_total_and_pairs(line, expected):
    epoch, batch, total, values = parse_update(line)
    assert (epoch, batch, total) == expected[:3] and values.keys() == expected[3].keys()
    assert all(values[key] == value or (value != value and values[key] != values[key])
               for key, value in expected[3].items())


@pytest.mark.parametrize("line", [
    "Epoch #1: 10001it [00:05, 1886.23it/s, env_step=10000, len=21, loss=0.05]",  # Tianshou's bar
    "Epoch 1/10", "Sanity Checking DataLoader 0: 100%|██████████| 2/2 [00:00<00:00, 31.40it/s]",
    "0 | model | Sequential       | 101 K  | train", "Epoch 0, global step 1563: 'val_accuracy' reached 0.49430"])
def test_the_other_lines_are_no_redraw(line):
    assert parse_update(line) is None


def test_a_bar_without_metrics_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("Epoch 0:   0%|          | 0/20 [00:00<?, ?it/s, v_num=0]\rEpoch 0:   5%|          | 1/20 "
                    "[00:00<00:04,  4.63it/s, v_num=0]\n")
    with pytest.raises(InputError, match="no redraw of Lightning's progress bar with a metric"):
        read_log(path, format="lightning-console")
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
