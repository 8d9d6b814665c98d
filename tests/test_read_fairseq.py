"""What fairseq's training logs (``swarmstats/io/formats/fairseq.py``): ``train_inner``, ``train`` and
``valid`` stats lines, read on ``num_updates`` with each value named by its logger."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.fairseq import parse_line
from tests.test_cli import run, watched_metrics

#: made up as fairseq-train logs a transformer on IWSLT'14 de-en with --log-format simple
#: --log-interval 100 (fairseq_cli/train.py's logging format; progress_bar.SimpleProgressBar's
#: lines): 12 epochs of 1,100 updates, each followed by its validation and its averages
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "fairseq" / "train.log"


def test_every_stats_line_is_read_on_num_updates_named_by_its_logger():
    # read as a log it stopped at "no numeric metric column": its name=value pairs hold no step key
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "fairseq-console" and wide.attrs["step_unit"] == "updates"
    assert len(wide) == 132 and wide["step"].tolist() == list(range(100, 13201, 100))
    assert wide["train_inner/loss"].iloc[:2].tolist() == [14.705, 14.117]
    # the validation and the epoch's averages at the epoch's last update, never mixed with train_inner's
    assert wide["valid/loss"].notna().sum() == 12 and wide["train/loss"].notna().sum() == 12
    assert wide.loc[wide["step"] == 1100, "valid/loss"].item() == 10.118
    assert not [name for name in wide.columns if "best_" in name]  # a running minimum
    assert wide.attrs["notes"] == [
        "132 step(s) of fairseq's stats lines, step = num_updates; each value named by its logger (train_inner/loss, "
        "train/loss, valid/loss); best_loss (a running minimum) not read; 85 other line(s) skipped"]


def test_the_losses_are_judged_and_fairseqs_bookkeeping_left_out():
    done = run("check-convergence", LOG, "--format", "json")
    results = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    # words and updates per second, the batch's size, the clocks, the free memory: the machine's or
    # the data's, which a real log's gate judged as metrics
    assert set(results) == {f"{tag}/{key}" for tag in ("train_inner", "train", "valid")
                            for key in ("loss", "nll_loss", "ppl", "gnorm") if not (tag == "valid" and key == "gnorm")}
    loss = results["train_inner/loss"]  # falling still, more slowly: the schedule's inverse square root
    assert loss["verdict"] == "not_converged" and "per 100 updates" in loss["reasons"][0]
    text = run("check-convergence", LOG).stderr
    assert "train_inner/wps, train_inner/ups" in text and "(throughput)" in text
    assert "train_inner/train_wall, train_inner/wall" in text and "train_inner/gb_free" in text


@pytest.mark.parametrize("line, expected", [
    ("2021-03-01 12:05:41 | INFO | train_inner | epoch 001:    100 / 1100 loss=14.705, ppl=17615.92, num_updates=100, "
     "lr=1.25e-05, wall=31", (100.0, {"train_inner/loss": 14.705, "train_inner/ppl": 17615.92,
                                      "train_inner/lr": 1.25e-05, "train_inner/wall": 31.0})),
    # fairseq-hydra-train's logging format; a subset of another name
    ("[2021-03-01 12:00:00,000][valid1][INFO] - epoch 002 | valid on 'valid1' subset | loss 8.1 | num_updates 2200",
     (2200.0, {"valid1/loss": 8.1})),
])
def test_a_stats_line_gives_its_updates_and_values(line, expected):
    assert parse_line(line) == expected


@pytest.mark.parametrize("line", [
    "2021-03-01 12:00:00 | INFO | fairseq.trainer | begin training epoch 1",
    "2021-03-01 12:00:00 | INFO | fairseq.checkpoint_utils | Saved checkpoint x.pt (epoch 1 @ 1100 updates, score 7.1)",
    "2021-03-01 12:00:00 | INFO | train | epoch 001 | loss 9.5 | ppl 445",  # no num_updates
    "epoch 001:    100 / 1100 loss=14.7, num_updates=100"])  # no logger's name
def test_other_lines_are_no_stats_line(line):
    assert parse_line(line) is None


def test_a_log_before_any_stats_line_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("2021-03-01 12:00:00 | INFO | fairseq.trainer | begin training epoch 1\n"
                    "2021-03-01 12:00:00 | INFO | train | epoch 001 | loss 9.5 | num_updates 1100 | lr 0.0005\n")
    wide = read_log(path, wide=True)  # one epoch's averages: read
    assert wide["train/loss"].tolist() == [9.5]
    path.write_text("2021-03-01 12:00:00 | INFO | train | epoch 001 | loss 9.5 | ppl 4 | num_updates x\n")
    with pytest.raises(InputError, match="no fairseq stats line"):
        read_log(path, format="fairseq-console")


def test_watch_follows_the_lines_as_read_log_reads_them():
    watched = watched_metrics(LOG)
    assert watched["train_inner/loss"]["n"] == 132 and watched["valid/loss"]["n"] == 12
    assert "train_inner/wps" not in watched and "train_inner/bsz" not in watched


def _as_json_log(simple: str) -> str:
    """The same run as ``--log-format json`` writes it: each stats line's values as a JSON object of
    strings, an epoch's and a validation's keys prefixed by their logger's tag."""
    out = []
    for line in simple.splitlines():
        parsed = parse_line(line)
        if parsed is None:
            out.append(line)
            continue
        step, values = parsed
        tag = next(iter(values)).split("/")[0]
        prefix = "" if tag == "train_inner" else f"{tag}_"
        stats = {"epoch": 1, **{prefix + key.split("/", 1)[1]: f"{value:g}" for key, value in values.items()},
                 prefix + "num_updates": str(int(step))}
        if tag == "valid":
            stats["valid_best_loss"] = stats["valid_loss"]
        out.append(f"{line[:19]} | INFO | {tag} | {json.dumps(stats)}")
    return "\n".join(out) + "\n"


def test_the_json_log_format_reads_as_the_simple_one(tmp_path):
    # --log-format json (real lines: '| INFO | valid | {"epoch": 3, "valid_loss": "8.751", ...,
    # "valid_num_updates": "414", "valid_best_loss": "8.751"}') read as a table of junk names:
    # '2021-03-08 12:31:36 | INFO | train_inner | {"epoch": 1', then "no numeric metric column"
    log = tmp_path / "train.log"
    log.write_text(_as_json_log(LOG.read_text()))
    assert '| INFO | valid | {"epoch": 1, "valid_loss": "10.118"' in log.read_text()
    simple, as_json = read_log(LOG, wide=True), read_log(log, wide=True)
    assert as_json.attrs["format"] == "fairseq-console" and list(as_json.columns) == list(simple.columns)
    assert as_json["step"].tolist() == simple["step"].tolist()
    for column in simple.columns:
        assert as_json[column].to_numpy() == pytest.approx(simple[column].to_numpy(), rel=1e-5, nan_ok=True)
    # a value written as a number (fairseq's accuracy), not a string, is read too
    assert parse_line('2020-04-22 07:47:12 | INFO | valid | {"epoch": 10, "valid_accuracy": 49.83, '
                      '"valid_num_updates": "520", "valid_best_accuracy": 49.83}') == (520.0, {"valid/accuracy": 49.83})
    assert parse_line('2021-03-08 12:29:51 | INFO | fairseq_cli.train | {"note": 1}') is None
