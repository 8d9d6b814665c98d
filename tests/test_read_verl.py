"""What verl logs (``swarmstats/io/formats/verl.py``): the step lines its console logger prints,
found among everything else a Ray job prints, and its file logger's JSON Lines."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.columns import classify_columns, is_bookkeeping_name
from swarmstats.io.formats.verl import is_console_head, parse_step_line, printed_value
from tests.conftest import diverged_reasons, printed_in_notebook
from tests.test_cli import run

FOLDER = Path(__file__).resolve().parent / "fixtures" / "logs" / "verl"
#: made up in the format verl's LocalLogger prints (pprint of numpy 2 scalars), Ray's coloured
#: actor prefix, the job's preamble and progress bar; the job died after step 4 and was resumed
#: from its checkpoint at step 3 into the same file
CONSOLE = FOLDER / "console.log"
FILE = FOLDER / "file.jsonl"  # the first steps of the same run as verl's file logger writes them
RAY = "\x1b[36m(TaskRunner pid=7)\x1b[0m "
SCORE = "critic/score/mean"
VALIDATION = "val-core/openai/gsm8k/reward/mean@1"


def test_the_step_lines_are_read_from_among_the_jobs_other_output():
    wide = read_log(CONSOLE, wide=True)
    assert wide.attrs["format"] == "verl-console"
    assert wide["step"].tolist() == [0, 1, 2, 3, 4, 5, 6]
    # the validation before training is its own line at step 0; later ones share their step's line
    assert wide[VALIDATION].dropna().to_dict() == {0: 0.212, 3: 0.43, 6: 0.47}
    assert wide.loc[1, "actor/lr"] == 1e-06 and wide.loc[1, "actor/entropy"] == 0.33
    assert not any("3 decimals" in note for note in wide.attrs["notes"])  # pprint: full precision
    assert "9 step line(s) printed by verl" in wide.attrs["notes"][0]


def test_a_run_resumed_from_its_checkpoint_keeps_the_checkpoints_step_and_replaces_the_rest():
    """verl's checkpoint global_step_3 holds the model after step 3: the resumed run validates
    at step 3, then trains step 4 again.  The step-4 row printed before the crash is replaced;
    step 3's training values, printed only once, are kept with the new validation."""
    wide = read_log(CONSOLE, wide=True)
    assert wide[SCORE].tolist()[1:] == [0.259, 0.315, 0.402, 0.451, 0.497, 0.52]
    assert wide.loc[3, VALIDATION] == 0.43
    assert "resumed from its checkpoint at step 3 after step 4 (1 time): the 1 row(s)" in " ".join(
        wide.attrs["notes"])


def test_a_fresh_run_printed_after_another_is_a_second_run(tmp_path):
    lines = [f"{RAY}step:{step} - {SCORE}:{0.1 * step:.3f}" for step in range(1, 6)]
    (tmp_path / "two.log").write_text("\n".join(lines + lines) + "\n")
    wide = read_log(tmp_path / "two.log", wide=True)
    assert wide.groupby("run")["step"].agg(["min", "max"]).values.tolist() == [[1, 5], [1, 5]]
    assert any(note.startswith("2 runs printed one after another") for note in wide.attrs["notes"])
    # the three-decimal values of verl before mid-2025 are noted
    assert any("3 decimals" in note for note in wide.attrs["notes"])


@pytest.mark.parametrize("line,expected", [
    (f"{RAY}step:3 - {SCORE}:np.float64(0.25) - actor/lr:1e-06", (3, {SCORE: "np.float64(0.25)", "actor/lr": "1e-06"})),
    # verl before mid-2025 printed "{v:.3f}" and early versions' Ray task was main_task
    ("(main_task pid=19799) step:52 - critic/kl:0.017 - actor/pg_loss:-0.011",
     (52, {"critic/kl": "0.017", "actor/pg_loss": "-0.011"})),
    # a line printed right after a progress bar that ended without a newline
    ("Training Progress:  10%|#         | 1/10 [01:01<09:09, 61.1s/it]step:1 - reward:0.5", (1, {"reward": "0.5"})),
    (f"{RAY}step:2 - a:1 [repeated 2x across cluster]", (2, {"a": "1"})),  # Ray's fold of identical lines
    ("step:7 - acc/mean@8:nan", (7, {"acc/mean@8": "nan"})),
])
def test_a_step_line_in_each_form_verl_prints_it(line, expected):
    assert parse_step_line(line) == expected


@pytest.mark.parametrize("line", [
    "saved to /ckpt/global_step:9/actor",                # a path
    f"{RAY}timing_s/step:1.25",                          # a key ending in step
    "(TaskRunner pid=1) epoch 0, step 3",                # verl's own progress words
    "step:3 done",                                       # no metrics after it
    "step:3 - loading the next shard",                   # words, not key:value pairs
    "val/global_step:12 something",
])
def test_text_that_says_step_is_not_a_step_line(line):
    assert parse_step_line(line) is None


def test_printed_values():
    assert printed_value("np.float64(0.259)") == 0.259 and printed_value("np.int64(12)") == 12.0
    assert printed_value("1e-06") == 1e-06 and np.isnan(printed_value("np.float64(nan)"))
    assert printed_value("True") is None and printed_value("87.47s") is None


def test_a_key_never_printed_as_a_number_is_not_a_metric(tmp_path):
    lines = [f"step:{step} - {SCORE}:{0.5 + 0.01 * step} - actor/is_offload:True" for step in range(1, 30)]
    (tmp_path / "run.log").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "run.log", wide=True)
    assert list(wide.columns) == ["step", SCORE]
    assert any("1 key(s) never printed as a number, not metrics: actor/is_offload" in note
               for note in wide.attrs["notes"])


def test_the_log_is_recognised_by_its_preamble_when_the_first_step_is_far_in():
    # a real log's first step line comes after ~100 KB of configuration, past the sniffed head
    head = CONSOLE.read_text().split("step:0")[0]
    assert is_console_head(head, "verl_demo.log")
    assert not is_console_head("step,reward\n1,0.5\n", "log.csv")
    assert not is_console_head("Epoch 1/3 - loss: 0.69 - acc: 0.5\n", "keras.log")


def test_a_verl_job_that_died_before_its_first_step_is_one_clear_error(tmp_path):
    (tmp_path / "verl_demo.log").write_text(CONSOLE.read_text().split(RAY.replace("7", "4121") + "step:0")[0])
    with pytest.raises(InputError, match="no verl step line"):
        read_log(tmp_path / "verl_demo.log")
    done = run("check-convergence", tmp_path / "verl_demo.log")
    assert done.returncode == 2 and "no verl step line" in done.stderr and "Traceback" not in done.stderr


def test_the_file_logger_reads_as_the_console_of_the_same_run():
    wide = read_log(FILE, wide=True)
    assert wide.attrs["format"] == "verl-file"
    console = read_log(CONSOLE, wide=True)
    for column in (VALIDATION, SCORE, "actor/entropy", "actor/lr"):  # the keys as printed, no data/
        # (the console's step 3 also holds the resumed run's validation)
        np.testing.assert_array_equal(wide[column].to_numpy()[:3], console[column].to_numpy()[:3], err_msg=column)
    assert wide[SCORE].tolist()[1:] == console[SCORE].tolist()[1:4]


def test_timing_and_hardware_keys_are_left_out_of_the_gate_and_said_so():
    done = run("check-convergence", CONSOLE, "--format", "json")
    names = {row["name"] for row in json.loads(done.stdout)["results"]}
    assert SCORE in names and not {"timing_s/step", "actor/lr", "training/global_step"} & names
    assert "timing_s/step" in done.stderr and "actor/lr (a schedule" in done.stderr


def test_watch_follows_a_verl_log_past_the_commas_of_its_preamble(tmp_path):
    """The shell trace and configuration before the first step line hold commas: taken for a
    CSV's rows, every step line after them was skipped as 'N fields where the header has 1'."""
    done = run("watch", CONSOLE, "-m", SCORE, "--once", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout[done.stdout.index('{\n  "schema_version"'):])
    assert report["skipped_lines"] == 0
    metric = report["report"]["metrics"][SCORE]
    assert metric["n"] == 6 and metric["last_step"] == 6  # step 4 printed twice: the resumed run's replaces it
    # verl's file logger: its metrics named as read_log names them
    done = run("watch", FILE, "-m", SCORE, "--once", "--format", "json")
    report = json.loads(done.stdout[done.stdout.index('{\n  "schema_version"'):])
    assert report["report"]["metrics"][SCORE]["n"] == 3


@pytest.mark.parametrize("name,left_out", [
    ("timing_s/gen", True), ("timing/gen", True), ("timing_per_token_ms/update_actor", True),
    ("perf/mfu/actor", True), ("perf/max_memory_allocated_gb", True), ("timers/learn_time_ms", True),
    ("timing_error", False), ("performance", False), ("critic/score/mean", False), ("response_length/mean", False),
])
def test_how_the_machine_ran_is_bookkeeping_by_its_namespace(name, left_out):
    assert is_bookkeeping_name(name) is left_out
    frame = pd.DataFrame({"step": range(30), name: np.linspace(0.2, 0.4, 30) ** 2})
    assert (name in classify_columns(frame).bookkeeping) is left_out


def test_watch_says_a_sparse_validation_was_not_checked_yet_not_checked_at_zero_values():
    text = run("watch", CONSOLE, "-m", VALIDATION, "--once").stdout
    assert f"{VALIDATION} is insufficient data (not checked yet at 3 values" in text
    assert "checked at 0" not in text


def test_watch_does_not_take_a_json_record_that_quotes_a_step_line_for_one(tmp_path):
    lines = [json.dumps({"step": step, "reward": 0.5 + 0.01 * step, "note": f"step:{step} - done:1"})
             for step in range(1, 31)]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n")
    done = run("watch", tmp_path / "log.jsonl", "-m", "reward", "--once", "--format", "json")
    report = json.loads(done.stdout[done.stdout.index('{\n  "schema_version"'):])
    assert report["report"]["metrics"]["reward"]["n"] == 30


def test_a_report_of_a_wide_verl_log_draws_its_scores_before_its_diagnostics():
    from swarmstats.cli.report import MAX_SECTIONS, _first_sections

    real = Path(__file__).resolve().parent / "fixtures" / "real" / "verl" / "qwen2-7b_math.log"
    metrics = classify_columns(read_log(real, wide=True)).metrics  # the timings and counters left out
    shown = _first_sections(metrics, "auto")
    assert len(shown) == MAX_SECTIONS and shown[:2] == [VALIDATION, "val-core/DigitalLearningGmbH/MATH-lighteval/reward/mean@1"]
    assert SCORE in shown and "critic/rewards/mean" in shown and "actor/pg_loss" in shown
    assert metrics.index(SCORE) > 10  # in the log's order it came after the batch statistics
    assert _first_sections(metrics, "higher") == metrics[:MAX_SECTIONS]  # one side given: the log's order


def test_a_last_step_line_still_being_written_is_left_out_not_read_cut_short(tmp_path):
    lines = [f"{RAY}step:{step} - {SCORE}:{0.4 + 0.01 * step:.3f} - actor/entropy:0.3" for step in range(1, 8)]
    text = "\n".join(lines) + "\n" + f"{RAY}step:8 - actor/entropy:0.29 - {SCORE}:0.49"  # 0.497 being written
    (tmp_path / "live.log").write_text(text)
    wide = read_log(tmp_path / "live.log", wide=True)
    assert wide["step"].tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert any("no newline after it" in note for note in wide.attrs["notes"])
    (tmp_path / "done.log").write_text(text + "7\n")  # the same line finished
    assert read_log(tmp_path / "done.log", wide=True)[SCORE].iloc[-1] == 0.497


def test_a_loss_printed_as_nan_is_a_run_that_diverged_not_values_missing(tmp_path):
    """Before, the printed NaN read as missing cells: the 40 finite values before it were judged
    and a constant loss was 'converged'."""
    lines = [f"step:{step} - actor/pg_loss:0.01 - {SCORE}:0.5" for step in range(1, 41)]
    lines += [f"step:{step} - actor/pg_loss:np.float64(nan) - {SCORE}:0.5" for step in range(41, 61)]
    (tmp_path / "diverged.log").write_text("\n".join(lines) + "\n")
    reason = diverged_reasons(tmp_path / "diverged.log", "actor/pg_loss")
    assert "diverged: from step 41 on every value is NaN" in reason


def test_a_late_validation_from_the_same_process_joins_its_step_and_is_no_restart(tmp_path):
    """verl's fully asynchronous trainer logs a validation at the parameter version it checked,
    which can come after the next version's line: read as a resume, it dropped that line."""
    lines = []
    for step in range(1, 31):
        lines.append(f"{RAY}step:{step} - {SCORE}:{0.5 + 0.001 * step:.4f}")
        if step % 5 == 1 and step > 1:  # the validation of version step-1, printed after step's line
            lines.append(f"{RAY}step:{step - 1} - {VALIDATION}:0.8")
    (tmp_path / "async.log").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "async.log", wide=True)
    assert wide["step"].tolist() == list(range(1, 31)) and wide[SCORE].notna().all()
    assert wide[VALIDATION].dropna().index.tolist() == [4, 9, 14, 19, 24]  # steps 5, 10, ... 25
    assert any("5 line(s) printed after a later step by the same process" in note for note in wide.attrs["notes"])
    assert not any("resumed" in note for note in wide.attrs["notes"])
    # watch follows it the same way: no resume said, every training value counted
    done = run("watch", tmp_path / "async.log", "-m", SCORE, "-m", VALIDATION, "--once", "--format", "json")
    report = json.loads(done.stdout[done.stdout.index('{\n  "schema_version"'):])
    assert "resumed" not in done.stdout
    assert report["report"]["metrics"][SCORE]["n"] == 30 and report["report"]["metrics"][VALIDATION]["n"] == 5


def test_a_verl_run_launched_from_a_notebook_is_read_from_its_outputs(tmp_path):
    (tmp_path / "train.ipynb").write_text(printed_in_notebook(CONSOLE.read_text(), "!bash run_grpo.sh"))
    wide = read_log(tmp_path / "train.ipynb", wide=True)
    assert wide.attrs["format"] == "verl-console"
    assert wide.equals(read_log(CONSOLE, wide=True))
