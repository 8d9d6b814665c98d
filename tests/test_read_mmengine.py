"""OpenMMLab's runner logs (``swarmstats/io/formats/mmengine.py``): MMEngine's ``Epoch(train)
[1][ 50/400]  ...`` and MMCV's ``Epoch [1][50/400]\\t...`` lines, read on the iteration of the run,
with each validation's result at the end of the epoch it validated."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.mmengine import parse_line
from tests.test_cli import run, watched_metrics

#: made up as MMEngine's LogProcessor writes an MMDetection 3 run's <time>.log (RTMDet-tiny, 12
#: epochs of 400 iterations, a line every 50; each epoch's validation: its progress lines, COCO's
#: printed evaluation, bbox_mAP_copypaste, then the result line)
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "mmengine" / "20230610_195844.log"

MMCV = ("2021-06-01 10:00:00,000 - mmdet - INFO - Epoch [{e}][{i}/400]\tlr: 1.996e-03, eta: 1 day, 2:41:03, time: 0.547, "
        "data_time: 0.050, memory: 3819, loss_rpn_cls: 0.5411, loss: {loss:.4f}, grad_norm: 6.0178\n")


def test_each_training_line_is_an_iteration_of_the_run_and_each_validation_its_epochs_end():
    # read as a log it stopped at "malformed rows: the rows hold more fields than the header names"
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "mmengine-console" and wide.attrs["step_unit"] == "iterations"
    assert len(wide) == 96 and wide["step"].tolist() == [400 * e + i for e in range(12) for i in range(50, 401, 50)]
    assert wide.columns.tolist() == ["step", "base_lr", "lr", "time", "data_time", "memory", "grad_norm", "loss",
                                     "loss_cls", "loss_bbox", "coco/bbox_mAP", "coco/bbox_mAP_50", "coco/bbox_mAP_75",
                                     "coco/bbox_mAP_s", "coco/bbox_mAP_m", "coco/bbox_mAP_l"]
    validated = wide[wide["coco/bbox_mAP"].notna()]
    assert validated["step"].tolist() == [400 * e for e in range(1, 13)]
    assert validated["coco/bbox_mAP"].iloc[[0, -1]].tolist() == [0.21, 0.4091]
    assert wide.attrs["notes"] == [
        "96 step(s) of an OpenMMLab runner's log, step = the iteration of the run ((epoch - 1) x iterations per "
        "epoch + iteration, for an epoch-based runner); 12 validation result(s) at the end of the epoch (or the "
        "iteration) they validated; 215 other line(s) skipped"]


def test_the_losses_and_the_map_are_judged_and_the_machines_measurements_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert {"loss", "loss_cls", "loss_bbox", "grad_norm", "coco/bbox_mAP"} <= set(results)
    assert not {"base_lr", "lr", "time", "data_time", "memory"} & set(results)
    # 12 validations are too few to test; the mAP rose to ~0.41 and flattened
    assert results["coco/bbox_mAP"]["verdict"] == "insufficient_data" and results["coco/bbox_mAP"]["n"] == 12
    assert "per 100 iterations" in " ".join(results["loss"]["reasons"])


def test_mmcvs_text_log_and_an_iteration_based_runner_are_read(tmp_path):
    path = tmp_path / "20210601_100000.log"
    path.write_text("".join(MMCV.format(e=e, i=i, loss=2 - 0.1 * e - i / 1000) for e in (1, 2) for i in (200, 400))
                    + "2021-06-01 11:00:00,000 - mmdet - INFO - Epoch(val) [2][625]\tbbox_mAP: 0.2100, bbox_mAP_50: "
                    "0.4000, bbox_mAP_copypaste: 0.210 0.400 0.205\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [200, 400, 600, 800] and wide["bbox_mAP"].iloc[-1] == 0.21
    assert "bbox_mAP_copypaste" not in wide and wide["lr"].iloc[0] == 1.996e-03
    path.write_text("".join(f"06/10 20:03:05 - mmengine - INFO - Iter(train) [{i:>5}/80000]  lr: 1.0000e-02  eta: 1 day, "
                            f"2:00:00  time: 0.5000  data_time: 0.0100  memory: 3000  loss: {3 - i / 10000:.4f}  "
                            "decode.loss_ce: 1.2000  decode.acc_seg: 60.0000\n" for i in range(50, 1001, 50))
                    + "06/10 20:03:05 - mmengine - INFO - Iter(val) [500/500]    aAcc: 80.1000  mIoU: 41.2000  mAcc: 52.0000\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == list(range(50, 1001, 50)) and wide["mIoU"].tolist()[-1] == 41.2
    assert "decode.acc_seg" in wide  # (MMSegmentation's names, dots and all)


@pytest.mark.parametrize("line, expected", [
    ("Epoch(train)  [2][ 50/100]  base_lr: 2.0000e-02 lr: 1.9880e-03  eta: 1 day, 2:41:03  loss: 1.6932",
     ("train", 150.0, {"base_lr": 0.02, "lr": 0.001988, "loss": 1.6932})),
    ("Epoch(val) [1][313/313]  accuracy/top1: 35.7000  data_time: 0.0047  time: 0.0122",
     ("val", -1.0, {"accuracy/top1": 35.7})),
    # a dictionary printed as a value holds no field; the number after it is read
    ("Epoch(val) [6][551/551]    dota/mAP: 0.5491  dota/IoU_50_Detail: {'plane': {'ap': 0.8803}}  data_time: 0.0041",
     ("val", -6.0, {"dota/mAP": 0.5491})),
])
def test_a_line_gives_its_mode_step_and_fields(line, expected):
    assert parse_line(line) == expected


@pytest.mark.parametrize("line", [
    "Epoch(val) [40][ 5/13]    eta: 0:00:00  time: 0.0632  data_time: 0.0231  memory: 307  ",  # a validation's progress
    "Epoch(test) [625/625]    coco/bbox_mAP: 0.3740", "Epoch [1/5], Step [100/600], Loss: 0.2208",
    "Epoch: [0]  [0/6]  eta: 0:00:25  loss: 8.2 (8.2)", "Saving checkpoint at 12 epochs", "Epoch 3/30"])
def test_other_lines_are_no_record(line):
    assert parse_line(line) is None


def test_a_test_run_alone_is_refused_in_one_line(tmp_path):
    path = tmp_path / "20230610_195844.log"
    path.write_text("06/10 20:03:10 - mmengine - INFO - Epoch(train) [1][5/6]\n"  # (no field: nothing to read)
                    "06/10 20:03:10 - mmengine - INFO - Epoch(test) [13/13]    coco/bbox_mAP: 0.7640\n")
    with pytest.raises(InputError, match="no OpenMMLab training line"):
        read_log(path, format="mmengine-console")
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_watch_follows_the_lines_as_read_log_reads_them():
    watched = watched_metrics(LOG)
    assert watched["loss"]["n"] == 96 and watched["coco/bbox_mAP"]["n"] == 12
    assert "memory" not in watched and "lr" not in watched
