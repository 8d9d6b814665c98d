"""What Tianshou's trainers print after each epoch's test (``swarmstats/io/formats/tianshou.py``).
Read as a log it stopped at "no numeric metric column"."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.tianshou import parse_line
from tests.test_cli import run

#: made up as Tianshou 0.5 prints a DQN run on CartPole with its example script: the shapes
#: and argparse's Namespace first, tqdm's progress bars (each epoch's updates parted by \r,
#: their postfix holding env_step=... pairs), a test summary per epoch, pprint's result dict
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "tianshou" / "train.log"


def summaries():
    return [parse_line(line) for line in LOG.read_text().splitlines() if ": test_reward: " in line]


def test_each_test_summary_is_a_row_at_its_epoch_and_the_running_best_is_not_read():
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "tianshou-console" and wide.attrs["step_unit"] == "epochs"
    printed = summaries()
    assert wide["step"].tolist() == list(range(1, 31)) == [epoch for epoch, _ in printed]
    assert wide["test_reward"].tolist() == [values["test_reward"] for _, values in printed]
    assert wide["test_reward_std"].tolist() == [values["test_reward_std"] for _, values in printed]
    # the progress bars' env_step=... pairs and the configuration are not records
    assert list(wide.columns) == ["step", "test_reward", "test_reward_std"]
    assert wide.attrs["notes"] == ["30 Tianshou test summary line(s), step = the epoch; best_reward not read "
                                   "(the best test reward so far: a running maximum)"]


def test_the_forms_of_other_releases_and_a_logging_prefix_are_read():
    # before 0.4.2: no spread; 1.x scripts often log it with a time and a level
    assert parse_line("Epoch #2: test_reward: 21.000000, best_reward: 21.000000 in #2") == (
        2.0, {"test_reward": 21.0})
    assert parse_line("2024-05-01 10:00:00 INFO Epoch #7: test_reward: -3.5 ± 0.25, best_reward: -1.0 ± 0.5 in #5") \
        == (7.0, {"test_reward": -3.5, "test_reward_std": 0.25})
    # the progress bar of the same epoch, a script's own sentence: not summaries
    assert parse_line("Epoch #7:  50%|####  | 5000/10000 [00:02<00:05, env_step=65000, rew=150.00]") is None
    assert parse_line("test_reward: 5 (no epoch)") is None


def test_the_test_reward_is_judged_per_epoch_and_its_spread_has_no_better_side():
    done = run("check-convergence", LOG, "--format", "json")
    rows = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert set(rows) == {"test_reward", "test_reward_std"}
    assert rows["test_reward"]["step_unit"] == "epochs"
    said = run("check-convergence", LOG).stderr
    assert "higher is better for test_reward; no better side for test_reward_std" in said


def test_a_log_without_a_test_summary_is_refused_in_one_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("Epoch #1:  10%|#  | 1000/10000 [00:00<00:05, env_step=1000, rew=9.00]\n"
                    "the script says: test_reward: unknown\n")
    with pytest.raises(InputError, match="no Tianshou test summary"):
        read_log(path, format="tianshou-console")


def test_watch_follows_the_summaries_past_a_first_line_with_a_comma():
    # "Observations shape: (4,)" holds a comma: taken for a CSV header, every later line was
    # "N fields where the header has 2" and nothing was read
    out = run("watch", LOG, "--once", "--format", "json").stdout
    report = json.loads(out[out.index('{\n  "schema_version"'):])["report"]
    assert set(report["metrics"]) == {"test_reward", "test_reward_std"}
    assert report["metrics"]["test_reward"]["n"] == 30
