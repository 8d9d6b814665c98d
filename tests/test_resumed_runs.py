"""A run resumed from a checkpoint and appended to its own log is one run: the rows it logged
again replace the ones logged before past its checkpoint (TensorBoard's rule), with a note.  A
new run appended to the file is still a run of its own."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from swarmstats import read_log
from tests.test_cli import run

REAL = Path(__file__).parent / "fixtures" / "real"


def _curve(steps, rng):
    return 1 - np.exp(-np.asarray(steps) / 200) + rng.normal(0, 0.05, len(steps))


def test_a_run_resumed_from_its_checkpoint_is_one_run(tmp_path):
    # crashed after step 720, resumed from the checkpoint at step 500: read as two runs,
    # "the runs disagree: R-hat = 1.18"
    rng = np.random.default_rng(0)
    first, resumed = np.arange(0, 730, 10), np.arange(500, 1500, 10)
    frame = pd.DataFrame({"step": np.r_[first, resumed], "reward": np.r_[_curve(first, rng), _curve(resumed, rng)]})
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == list(range(0, 500, 10)) + list(range(500, 1500, 10))
    np.testing.assert_array_equal(wide["reward"].to_numpy()[50:], frame["reward"].to_numpy()[73:])
    assert any("resumed at step 500 after step 720" in note and "23 row(s)" in note
               for note in wide.attrs["notes"])
    result = run("check-convergence", path, "--format", "json")
    (reward,) = json.loads(result.stdout)["results"]
    assert reward["name"] == "reward" and reward["n"] == 150 and "runs" not in reward
    assert "resumed at step 500" in result.stderr


def test_new_runs_appended_to_one_file_stay_runs_of_their_own(tmp_path):
    rng = np.random.default_rng(1)
    steps = np.arange(0, 500, 10)
    # two runs from step 0; then a third whose first logged step is 10 (no evaluation at 0):
    # a resume from 10 would erase nearly all of the run before it, so it is a new run too
    frame = pd.DataFrame({"step": np.r_[steps, steps, steps[1:]],
                          "reward": np.r_[_curve(steps, rng), _curve(steps, rng), _curve(steps[1:], rng)]})
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    wide = read_log(path, wide=True)
    assert len(wide) == len(frame) and not any("resumed" in note for note in wide.attrs["notes"])
    result = run("check-convergence", path, "--format", "json")
    assert len(json.loads(result.stdout)["results"][0]["runs"]) == 3


def test_each_seed_is_looked_at_on_its_own_and_every_resume_counted(tmp_path):
    rng = np.random.default_rng(2)
    one = np.r_[np.arange(0, 300, 10), np.arange(200, 600, 10), np.arange(500, 800, 10)]  # resumed twice
    two = np.arange(0, 800, 10)
    frame = pd.DataFrame({"seed": [1] * len(one) + [2] * len(two), "step": np.r_[one, two],
                          "reward": np.r_[_curve(one, rng), _curve(two, rng)]})
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    wide = read_log(path, wide=True)
    assert wide.groupby("seed")["step"].apply(list).to_dict() == {1: list(range(0, 800, 10)),
                                                                  2: list(range(0, 800, 10))}
    assert any("(2 times)" in note and "20 row(s)" in note for note in wide.attrs["notes"])


def test_a_real_progress_file_with_a_resume_appended_reads_as_the_run(tmp_path):
    # SB3's progress.csv of a real run, with its last ten iterations logged again after a
    # resume from the checkpoint at iteration 15: the same 25 iterations
    source = REAL / "sb3-progress" / "progress.csv"
    lines = source.read_text().splitlines(keepends=True)
    (tmp_path / "progress.csv").write_text("".join(lines) + "".join(lines[16:]))
    whole = read_log(source, wide=True)
    wide = read_log(tmp_path / "progress.csv", wide=True)
    pd.testing.assert_frame_equal(wide, whole, check_like=True)
    assert any("replaced by the resumed run" in note for note in wide.attrs["notes"])


def test_two_runs_flushed_into_one_file_in_turns_lose_no_rows(tmp_path):
    # 0-9 of a, 0-9 of b, 10-19 of a, 10-19 of b: at b's second turn the step goes back to 10,
    # inside the stretch before it, but taking it for a resume would erase half of a's rows
    steps = np.r_[np.arange(10), np.arange(10), np.arange(10, 20), np.arange(10, 20)]
    path = tmp_path / "log.csv"
    pd.DataFrame({"step": steps, "reward": np.arange(40.0)}).to_csv(path, index=False)
    wide = read_log(path, wide=True)
    assert len(wide) == 40 and not any("resumed" in note for note in wide.attrs["notes"])


def test_watch_reads_a_resume_and_a_new_run_as_the_tables_do(tmp_path):
    # watch followed the lines as one series: a resume counted the replayed steps twice,
    # and a second run appended to the file was merged into the first
    rng = np.random.default_rng(5)
    resumed = tmp_path / "resumed.jsonl"
    steps = list(range(0, 730, 10)) + list(range(500, 1500, 10))
    resumed.write_text("".join(json.dumps({"step": s, "reward": 0.5 + rng.normal(0, 0.05)}) + "\n" for s in steps))
    result = run("watch", resumed, "--once", "--format", "json")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith('{"event"')]
    assert {"event": "resumed", "message": "resumed at step 500 after step 720: the 23 record(s) logged before "
            "at or past it are replaced"} in lines
    report = json.loads(result.stdout[result.stdout.index('{\n'):])["report"]
    assert report["metrics"]["reward"]["n"] == 150  # 50 before the checkpoint, 100 after: none twice
    appended = tmp_path / "appended.csv"
    appended.write_text("step,reward\n" + "".join(f"{s},{base + rng.normal(0, 0.05):.4f}\n"
                                                  for base in (0.3, 0.8) for s in range(0, 1000, 10)))
    result = run("watch", appended, "--once")
    assert "the step went back from 990 to 0: a new run, followed apart as run=#2" in result.stdout
    means = dict(re.findall(r"(reward \[run=#\d\]): n 100, mean ([\d.]+)", result.stdout))
    assert abs(float(means["reward [run=#1]"]) - 0.3) < 0.02 and abs(float(means["reward [run=#2]"]) - 0.8) < 0.02
    # the names are the ones check-convergence gives the same runs
    assert "reward [run=#2]" in run("check-convergence", appended).stdout
