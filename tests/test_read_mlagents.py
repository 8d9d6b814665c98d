"""What Unity ML-Agents' ``mlagents-learn`` prints (``swarmstats/io/formats/mlagents.py``): a
summary line per behaviour every ``summary_freq`` steps.  Read as a log it stopped at "not valid
JSON"."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from tests.test_cli import run

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs" / "mlagents"
#: made up as mlagents-learn 1.x prints a self-play soccer run of two behaviours, saved with tee
SOCCER = LOGS / "soccer.log"


def test_each_behaviour_is_a_run_of_its_summaries():
    wide = read_log(SOCCER, wide=True)
    assert wide.attrs["format"] == "mlagents-console"
    assert wide["run"].unique().tolist() == ["Striker", "Goalie"]
    striker = wide[wide["run"] == "Striker"].set_index("step")
    assert striker.index.tolist() == [10000.0 * k for k in range(1, 9)]
    assert striker["Mean Reward"].tolist()[1:] == [-0.305, -0.251, -0.118, -0.052, 0.031, 0.104, 0.155]
    assert striker["ELO"].iloc[-1] == 1224.5 and striker["Time Elapsed"].iloc[0] == 41.237
    notes = wide.attrs["notes"]
    assert notes[0] == "16 ML-Agents summary line(s) of 2 behaviours, one run each: Striker, Goalie"
    # the first summary came before any episode ended: its step holds no reward, said so
    assert "1 summary line(s) where no episode had ended since the one before: no reward there" in notes
    assert striker["Mean Reward"].isna().tolist() == [True] + [False] * 7


def test_the_striker_and_the_goalie_are_judged_apart_and_the_clock_left_out():
    done = run("check-convergence", SOCCER, "--format", "json")
    rows = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert "left out Time Elapsed (a clock)" in done.stderr
    assert sorted(rows) == [f"{metric} [run={run}]" for metric in ("ELO", "Mean Reward", "Std of Reward")
                            for run in ("Goalie", "Striker")]
    assert "each its own setting" in done.stderr  # never pooled: a striker is no seed of a goalie
    # eight summaries are too few to judge; each behaviour's own curve is said as read
    striker, goalie = rows["Mean Reward [run=Striker]"], rows["Mean Reward [run=Goalie]"]
    assert striker["verdict"] == goalie["verdict"] == "insufficient_data"
    assert "up from -0.305 to 0.155" in striker["reasons"][0]
    assert "down from 0.398 to -0.161" in goalie["reasons"][0]
    text = run("check-convergence", SOCCER).stderr  # (the direction note, with the table)
    assert "higher is better for Mean Reward, ELO; no better side for Std of Reward" in text


def test_ml_agents_0x_summaries_after_the_loggers_name_are_read():
    wide = read_log(LOGS / "3dball-0.x.txt", wide=True)
    assert wide.attrs["format"] == "mlagents-console" and "run" not in wide.columns
    assert wide["step"].tolist() == [1000.0 * k for k in range(1, 7)]
    assert wide["Mean Reward"].tolist() == [1.242, 1.319, 1.804, 2.151, 3.175, 4.898]
    assert wide.attrs["notes"] == ["6 ML-Agents summary line(s) of the behaviour 3DBallLearning"]


@pytest.mark.parametrize("line, behavior, stats", [
    ("2021-01-19 13:18:53 INFO [stats.py:139] 3DBall. Step: 12000. Time Elapsed: 18.819 s. "
     "Mean Reward: 1.139. Std of Reward: 0.710. Training.", "3DBall",
     {"Time Elapsed": 18.819, "Mean Reward": 1.139, "Std of Reward": 0.71}),
    ("INFO:mlagents.trainers: firstRun: 3DBall: Step: 12000. Time Elapsed: 13.570 s Mean Reward: 2.254. "
     "Std of Reward: 0.691. Training.", "3DBall", {"Time Elapsed": 13.57, "Mean Reward": 2.254, "Std of Reward": 0.691}),
    ("[INFO] SoccerTwos. Step: 20000. Time Elapsed: 60.1 s. Mean Reward: 0.000. Mean Group Reward: -0.012. "
     "Training. ELO: 1201.5.", "SoccerTwos",
     {"Time Elapsed": 60.1, "Mean Reward": 0.0, "Mean Group Reward": -0.012, "ELO": 1201.5}),
    ("[INFO] Pyramids. Step: 30000. Time Elapsed: 75.4 s. No episode was completed since last summary. Training.",
     "Pyramids", {"Time Elapsed": 75.4}),
])
def test_every_release_s_summary_line_is_parsed(line, behavior, stats):
    from swarmstats.io.formats.mlagents import parse_line

    assert parse_line(line) == (behavior, float(line.split("Step: ")[1].split(".")[0]), stats)


@pytest.mark.parametrize("line", ["Episode: 3. Step: 100. Reward: 5.", "[INFO] Resuming training from step 249988.",
                                  "Step: 5 of the tutorial. Mean Reward: 3"])
def test_a_line_in_other_words_is_no_summary(line):
    from swarmstats.io.formats.mlagents import parse_line

    assert parse_line(line) is None


def test_trainings_kept_in_one_terminal_are_runs_named_by_their_run_id():
    # made up as a terminal kept across two trainings (the second with --force): read as one
    # series, its 20 summaries were one curve that fell from 100 to 18 half-way
    wide = read_log(LOGS / "two-trainings.log", wide=True)
    assert wide["run"].unique().tolist() == ["ball_lr3e-4", "ball_lr1e-3"]
    assert (wide["run"] == "ball_lr3e-4").sum() == 12 and (wide["run"] == "ball_lr1e-3").sum() == 8
    assert wide.attrs["notes"][1] == "2 trainings, each named by its --run-id: ball_lr3e-4, ball_lr1e-3"
    done = run("check-convergence", LOGS / "two-trainings.log", "-m", "Mean Reward", "--format", "json")
    rows = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert sorted(rows) == ["Mean Reward [run=ball_lr1e-3]", "Mean Reward [run=ball_lr3e-4]"]
    assert rows["Mean Reward [run=ball_lr1e-3]"]["n"] == 8 and rows["Mean Reward [run=ball_lr3e-4]"]["n"] == 12
    assert "each its own setting" in done.stderr  # two learning rates, never replicates


def test_trainings_without_their_commands_are_told_apart_where_the_step_starts_again(tmp_path):
    # the same terminal without the command lines (a tee of each training appended to one file)
    text = (LOGS / "two-trainings.log").read_text()
    path = tmp_path / "appended.log"
    path.write_text("\n".join(line for line in text.splitlines() if "mlagents-learn" not in line) + "\n")
    wide = read_log(path, wide=True)
    assert "run" not in wide.columns and wide.attrs["notes"] == ["20 ML-Agents summary line(s) of the behaviour 3DBall"]
    done = run("describe", path, "-m", "Mean Reward", "--format", "json")
    assert [row["n"] for row in json.loads(done.stdout)["results"]] == [12, 8]
    assert "the step column 'step' starting again 1 time(s)" in done.stderr


def test_every_summary_of_ml_agents_0x_names_its_run():
    from swarmstats.io.formats.mlagents import run_id

    text = (LOGS / "3dball-0.x.txt").read_text().replace("first3DBallRun", "secondRun", 3)
    runs = [run_id(line) for line in text.splitlines() if "Step:" in line]
    assert runs == ["secondRun"] * 3 + ["first3DBallRun"] * 3


def test_a_log_with_no_summary_yet_is_refused_in_one_line(tmp_path):
    path = tmp_path / "run.log"
    path.write_text("[INFO] Listening on port 5004. Start training by pressing the Play button.\n"
                    "[INFO] Hyperparameters for behavior name 3DBall: \n")
    with pytest.raises(InputError, match="no ML-Agents summary line"):
        read_log(path, format="mlagents-console")


def test_watch_follows_the_summaries_of_each_behaviour():
    out = run("watch", SOCCER, "--once", "--format", "json").stdout
    report = json.loads(out[out.index('{\n  "schema_version"'):])["report"]
    assert sorted(report["metrics"]) == sorted(f"{metric} [run={run}]" for run in ("Striker", "Goalie")
                                               for metric in ("ELO", "Mean Reward", "Std of Reward"))
    assert report["metrics"]["Mean Reward [run=Striker]"]["n"] == 7  # (the first summary: no episode yet)
    assert "Time Elapsed" in report["left_out"]
