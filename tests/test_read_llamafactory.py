"""LLaMA-Factory's trainer_log.jsonl, and the planned end a Trainer's log states (its
``max_steps``, LLaMA-Factory's ``total_steps``), which check-convergence judges flatness up to."""

import json

import numpy as np
import pytest

import swarmstats as ss
from swarmstats.errors import InputError
from swarmstats.io.formats.llamafactory import clock_seconds
from tests.test_cli import run

FIXTURE = "tests/fixtures/logs/llamafactory/trainer_log.jsonl"


def _write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _line(step, total=100, **values):
    return {"current_steps": step, "total_steps": total, **values, "percentage": round(step / total * 100, 2),
            "elapsed_time": f"0:{step // 60:02d}:{step % 60:02d}", "remaining_time": "0:00:10"}


def test_the_step_is_current_steps_and_the_progress_is_left_out():
    log = ss.read_log(FIXTURE, wide=True)
    assert log.columns.tolist() == ["step", "epoch", "eval_loss", "loss", "lr", "wall_time"]
    assert log["step"].tolist() == [5, 10, 15, 20, 25, 30]  # the summary line at 30 adds no row
    assert log["loss"].tolist() == [1.92, 1.41, 1.18, 1.07, 1.02, 0.99]
    assert log["wall_time"].tolist() == [12, 24, 41, 55, 67, 86]  # each step's last line's clock
    assert log.attrs["planned_steps"] == 30 and log.attrs["notes"] == []
    assert ss.read_log(FIXTURE).attrs["planned_steps"] == 30  # the tidy frame says it too


def test_a_log_two_processes_wrote_at_once_is_one_row_per_step(tmp_path):
    """A real two-GPU run's log (rameyjm7/SFT-Training-LLM, trainer_log.jsonl: 1,360 lines for
    680 steps) holds every step twice, its losses a few 1e-4 apart, the two writers' lines
    interleaved, one a line behind the other.  Read as written, its steps went back 416 times,
    taken for 416 resumes, and 256 duplicates stayed in as points of their own."""
    rng = np.random.default_rng(3)
    loss = 1 / np.sqrt(np.arange(1, 41)) + 0.01 * rng.normal(size=40)
    first = [_line(10 * (i + 1), 400, loss=float(loss[i])) for i in range(40)]
    second = [_line(10 * (i + 1), 400, loss=float(loss[i] + 1e-4)) for i in range(40)]
    lines = [first[0], second[0], first[1]]
    for i in range(1, 39):  # the second writer a line behind: 10, 10, 20, 30, 20, 40, 30, ...
        lines += [second[i], first[i + 1]]
    lines.append(second[39])
    log = ss.read_log(_write(tmp_path / "trainer_log.jsonl", lines), wide=True)
    assert log["step"].tolist() == [10.0 * (i + 1) for i in range(40)]
    np.testing.assert_allclose(log["loss"], loss + 1e-4)  # the last line written of each step
    assert log.attrs["notes"] == ["each step was written 2 times, the lines interleaved (a log written by 2 "
                                  "processes at once, as in a multi-GPU run where each process saves): one row "
                                  "per step, its last line's values"]


def test_a_resumed_run_is_left_to_the_resume_handling(tmp_path):
    """A run resumed from its checkpoint at step 60 appends to the same file: steps 70 and 80 are
    written again by the resumed run, whose lines supersede the first run's."""
    lines = ([_line(step, loss=1 / step) for step in range(10, 90, 10)]
             + [_line(step, loss=2 / step) for step in (70, 80, 90, 100)])
    log = ss.read_log(_write(tmp_path / "trainer_log.jsonl", lines), wide=True)
    assert log["step"].tolist() == list(range(10, 110, 10))
    assert log["loss"].tolist() == [1 / s for s in range(10, 70, 10)] + [2 / s for s in (70, 80, 90, 100)]
    assert any(note.startswith("resumed at step 70 after step 80") for note in log.attrs["notes"])


def test_a_prediction_runs_progress_alone_is_refused_clearly(tmp_path):
    path = _write(tmp_path / "trainer_log.jsonl", [_line(step) for step in (5, 10, 15)])
    with pytest.raises(InputError, match="of progress only .* all_results.json"):
        ss.read_log(path)
    done = run("check-convergence", path)
    assert done.returncode == 2 and "progress only" in done.stderr


def test_a_line_without_a_step_number_is_named(tmp_path):
    path = _write(tmp_path / "trainer_log.jsonl", [_line(5, loss=1.0), {**_line(10, loss=0.9), "current_steps": "x"}])
    with pytest.raises(InputError, match="line 2 .* no current_steps number"):
        ss.read_log(path)


@pytest.mark.parametrize("text, seconds", [("0:02:12", 132), ("10:00:01", 36001), ("1 day, 0:08:23", 86400 + 503),
                                           ("2 days, 16:13:34", 231214), ("", np.nan), (None, np.nan),
                                           ("12:3", np.nan)])
def test_the_clock_is_read_as_timedelta_prints_it(text, seconds):
    assert clock_seconds(text) == seconds or (np.isnan(seconds) and np.isnan(clock_seconds(text)))


def test_a_run_stopped_early_is_judged_up_to_its_planned_end(tmp_path):
    """200 flat steps of a run planned for 5,000: flat so far, but "converged" claims the rest of
    the training too, so the verdict is insufficient_data and names the planned end; --horizon
    judges the next steps alone, and a run that reached its end is judged as before."""
    rng = np.random.default_rng(7)
    values = 0.69 + 0.1 * rng.normal(size=200)
    early = _write(tmp_path / "early.jsonl", [_line(i + 1, 5000, loss=float(v)) for i, v in enumerate(values)])
    done = run("check-convergence", early, "--format", "json")
    row = json.loads(done.stdout)["results"][0]
    assert done.returncode == 1 and row["verdict"] == "insufficient_data"
    assert "to the budget's end at 5,000" in row["reasons"][0]
    assert "planned to 5000 steps and its log ends at 200" in done.stderr
    assert json.loads(run("check-convergence", early, "--horizon", "100", "--format", "json").stdout
                      )["results"][0]["verdict"] == "converged"
    given = run("check-convergence", early, "--budget", "400", "--format", "json")  # --budget wins
    assert "planned" not in given.stderr and "budget's end at 400" in given.stdout
    finished = _write(tmp_path / "done.jsonl", [_line(i + 1, 200, loss=float(v)) for i, v in enumerate(values)])
    done = run("check-convergence", finished, "--format", "json")
    assert "planned" not in done.stderr and "budget" not in done.stdout
    # the report's verdicts are judged the same way, and its notes say so
    report = run("report", early, "-o", tmp_path / "early.html")
    assert report.returncode == 0
    page = (tmp_path / "early.html").read_text()
    assert "planned to 5000 steps and its log ends at 200" in page and "insufficient data" in page


def test_a_trainer_state_saved_mid_run_states_its_planned_end(tmp_path):
    """A checkpoint's trainer_state.json holds max_steps and global_step: mid-run the planned end
    is ahead; a finished run's last log may fall short of max_steps (logging every 100 of 692
    steps), which is no unfinished run."""
    state = json.loads(open("tests/fixtures/real/hf-lora/trainer_state.json").read())
    assert state["global_step"] == state["max_steps"] == 692
    assert "planned_steps" not in ss.read_log("tests/fixtures/real/hf-lora/trainer_state.json").attrs
    state["global_step"], state["max_steps"] = 600, 5000
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(state))
    assert ss.read_log(path).attrs["planned_steps"] == 5000
    done = run("check-convergence", path, "-m", "loss")
    assert "planned to 5000 steps and its log ends at 600" in done.stderr


def test_watch_follows_the_log_on_its_steps_without_the_progress():
    """watch reads the lines as they come, without the reader: it took ``epoch`` for the step
    and followed ``percentage`` as a metric ("not converged: +1e+03 per 100 epochs")."""
    done = run("watch", "tests/fixtures/real/llamafactory/trainer_log.jsonl", "--once")
    assert done.returncode in (0, 1), done.stderr
    assert "percentage (progress through the planned run)" in done.stdout
    assert "loss: n 202" in done.stdout and "accuracy: n 202" in done.stdout
    assert "epochs" not in done.stdout
    # the planned end the lines state is the budget, as check-convergence takes it
    assert "the run is planned to 5100 steps: converged means flat up to there" in done.stdout
    assert "over the next 4,898 steps, to the budget's end at 5,100" in done.stdout
    given = run("watch", "tests/fixtures/real/llamafactory/trainer_log.jsonl", "--once", "--budget", "1000")
    assert "planned to" not in given.stdout and "to the budget's end at 1,000" in given.stdout


def test_a_training_and_an_evaluation_line_at_every_step_are_no_second_writer(tmp_path):
    """Evaluated at every logging step, the log holds two lines a step - of different metrics:
    one row per step, no note of two processes."""
    lines = []
    for step in range(10, 210, 10):
        lines += [_line(step, 200, loss=1 / step, lr=1e-5), _line(step, 200, eval_loss=2 / step)]
    log = ss.read_log(_write(tmp_path / "trainer_log.jsonl", lines), wide=True)
    assert log["step"].tolist() == list(range(10, 210, 10)) and log.attrs["notes"] == []
    assert log["eval_loss"].tolist() == [2 / s for s in range(10, 210, 10)]


def test_watch_takes_a_mid_run_trainer_states_planned_end(tmp_path):
    """watch reads a trainer_state.json whole at each change: its max_steps, while global_step is
    short of it, is the budget too; a finished run's is not."""
    state = json.loads(open("tests/fixtures/real/hf/trainer_state.json").read())
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(state))
    finished = run("watch", path, "--once")
    assert finished.returncode == 0 and "planned" not in finished.stdout
    state["global_step"], state["max_steps"] = state["global_step"], 4 * state["max_steps"]
    path.write_text(json.dumps(state))
    early = run("watch", path, "--once")
    assert f"the run is planned to {4 * state['global_step']} steps" in early.stdout
    assert "to the budget's end" in early.stdout
