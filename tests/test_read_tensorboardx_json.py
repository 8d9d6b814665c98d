"""tensorboardX's ``export_scalars_to_json`` (``swarmstats/io/formats/tensorboardx_json.py``):
``{tag: [[wall_time, step, value], ...]}``, as MAPPO's runner (on-policy, MAT, HAPPO) saves it in
``logs/summary.json``.  Read as a log it stopped at "expected a JSON list of records"."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.tensorboardx_json import metric_names
from tests.test_cli import run

#: made up as MAPPO exports it: add_scalars(k, {k: v}) under the run's absolute logs/ folder
SUMMARY = Path(__file__).resolve().parent / "fixtures" / "logs" / "tensorboardx" / "summary.json"


def test_each_tag_is_a_metric_named_without_the_writers_folder_and_the_doubling():
    wide = read_log(SUMMARY, wide=True)
    assert wide.attrs["format"] == "tensorboardx-json"
    assert wide.columns.tolist() == ["step", "agent0/individual_rewards", "agent1/individual_rewards",
                                     "agent2/individual_rewards", "average_episode_rewards", "dist_entropy",
                                     "value_loss"]
    assert wide["step"].tolist() == [16000.0 * i for i in range(25)]
    payload = json.loads(SUMMARY.read_text())
    tag = next(t for t in payload if t.endswith("/average_episode_rewards"))
    assert wide["average_episode_rewards"].tolist() == [point[2] for point in payload[tag]]


def test_the_team_reward_is_judged_and_the_entropy_has_no_better_side():
    done = run("check-convergence", SUMMARY, "--format", "json")
    rows = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    reward = rows["average_episode_rewards"]
    assert reward["verdict"] == "not_converged" and reward["trend_slope"] > 0
    text = run("check-convergence", SUMMARY).stderr
    assert "no better side for dist_entropy" in text and "lower is better for value_loss" in text


@pytest.mark.parametrize("tags, names", [
    # add_scalar's tags as given beside add_scalars' under the folder
    (["/r/logs/reward/reward", "train/lr"], ["reward", "train/lr"]),
    # one main tag, two keys: the main tag kept
    (["/r/logs/loss/train", "/r/logs/loss/val"], ["loss/train", "loss/val"]),
    # a Windows folder
    (["C:\\runs\\a/logs/reward/reward"], ["reward"]),
])
def test_metric_names(tags, names):
    assert list(metric_names(tags).values()) == names


def test_a_point_without_a_step_is_left_out_and_said(tmp_path):
    path = tmp_path / "summary.json"
    points = [[1.7e9 + i, i, float(i)] for i in range(6)] + [[1.7e9 + 9, None, 9.0]]
    path.write_text(json.dumps({"/r/logs/reward/reward": points}))
    wide = read_log(path, wide=True)
    assert wide["reward"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert wide.attrs["notes"] == ["1 point(s) logged without a step left out"]


def test_an_export_whose_values_are_not_numbers_is_one_clear_error(tmp_path):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"/r/logs/reward/reward": [[1.7e9, 0, "high"], [1.7e9, 1, "low"]]}))
    with pytest.raises(InputError, match="maps each tag to its \\[wall_time, step, value\\] points"):
        read_log(path, format="tensorboardx-json")
