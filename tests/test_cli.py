"""`swarmstats check-convergence` through a subprocess: exit codes, formats, bad input."""

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from .conftest import ar1

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "reward_log.csv"


#: ``SWARMSTATS_TEST_SUBPROCESS=1`` runs every command of ``run`` through the real entry point
SUBPROCESS = os.environ.get("SWARMSTATS_TEST_SUBPROCESS") == "1"
#: seconds a command may take before it counts as a hang
TIMEOUT = 120


def run(*args, stdin=None) -> subprocess.CompletedProcess:
    """``swarmstats ARGS`` run in this process, as ``main(argv)``: its exit code, stdout and
    stderr, and a traceback on stderr with exit 1 for an exception that escaped (what the shell
    would show).  Started as ``python -m swarmstats.cli`` each of ~300 calls cost ~1.5 s of
    interpreter start and imports on a loaded 2-core machine, 84% of the CLI tests' time.
    :func:`run_process` goes through the real entry point (a few tests always do; with
    ``SWARMSTATS_TEST_SUBPROCESS=1`` every call does); a sweep over several worker processes
    always does, so no pool is forked from a test worker."""
    argv = [str(a) for a in args]
    if SUBPROCESS or _spawns_workers(argv):
        return run_process(*argv, stdin=stdin)
    from swarmstats.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    previous = signal.signal(signal.SIGALRM, _hang)
    signal.alarm(TIMEOUT)
    try:
        sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: --help, --version, a usage error
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception:
                traceback.print_exc()
                code = 1
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin = saved_stdin
    return subprocess.CompletedProcess(["swarmstats", *argv], code, out.getvalue(), err.getvalue())


def watched_metrics(path, *args) -> dict:
    """The metrics of the report ``swarmstats watch PATH --once --format json`` ends with (after
    the status lines it prints as it reads)."""
    out = run("watch", path, "--once", "--format", "json", *args).stdout
    return json.loads(out[out.index('{\n  "schema_version"'):])["report"]["metrics"]


def run_process(*args, stdin=None) -> subprocess.CompletedProcess:
    """``python -m swarmstats.cli ARGS`` in a fresh interpreter: the real entry point."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "swarmstats.cli", *map(str, args)], input=stdin,
                          capture_output=True, text=True, env=env, timeout=TIMEOUT)


class Hang(BaseException):
    """A command that did not answer within ``TIMEOUT`` (not an Exception: main must not
    catch it)."""


def _hang(signum, frame):
    raise Hang(f"no answer within {TIMEOUT} s")


def _spawns_workers(argv: list) -> bool:
    return "--workers" in argv and argv[argv.index("--workers") + 1:][:1] != ["1"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    rng = np.random.default_rng(1)
    n = 800
    flat = pd.DataFrame({"step": np.arange(n) * 5, "reward": 0.6 + ar1(0.5, n, rng) * 0.05,
                         "loss": 1 + ar1(0.3, n, rng) * 0.1})
    flat.to_csv(folder / "flat.csv", index=False)
    rising = flat.assign(reward=flat["reward"] + np.linspace(0, 0.3, n))
    rising.to_csv(folder / "rising.csv", index=False)
    seeds = pd.concat([flat.assign(seed=s, reward=0.6 + ar1(0.5, n, rng) * 0.05) for s in range(3)])
    seeds.to_csv(folder / "seeds.csv", index=False)
    return folder


def test_converged_log_exits_0_with_one_row_per_metric(logs):
    result = run("check-convergence", logs / "flat.csv")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["metric", "verdict", "n"]
    assert any(line.startswith("reward") and "converged" in line for line in lines)
    assert any(line.startswith("loss") for line in lines)
    assert not any(line.startswith("step") for line in lines)  # the step column is not a metric


def test_not_converged_exits_1_and_says_why(logs):
    result = run("check-convergence", logs / "rising.csv", "-m", "reward")
    assert result.returncode == 1
    assert "not_converged" in result.stdout and "improving" in result.stdout


def test_json_is_stdout_alone_and_has_no_nan(logs):
    result = run("check-convergence", logs / "rising.csv", "--format", "json")
    payload = json.loads(result.stdout)
    assert payload["schema_version"] == 1 and payload["passed"] is False
    assert payload["verdict"] == "not_converged"
    assert {r["name"] for r in payload["results"]} == {"reward", "loss"}
    assert "NaN" not in result.stdout and result.stderr == ""


def test_csv_output(logs):
    result = run("check-convergence", logs / "flat.csv", "--format", "csv")
    frame = pd.read_csv(pd.io.common.StringIO(result.stdout))
    assert list(frame["metric"]) == ["reward", "loss"]
    assert {"verdict", "warmup", "mean", "ci_low", "ci_high", "ess", "reason"} <= set(frame.columns)


def test_group_gives_per_run_rows_and_rhat(logs):
    result = run("check-convergence", logs / "seeds.csv", "--group", "seed", "-m", "reward")
    assert result.returncode in (0, 1)
    assert "over 3 runs" in result.stdout and "R-hat" in result.stdout
    # a row each (the notes below the table name the runs too, indented)
    assert sum(line.startswith("reward [seed=") for line in result.stdout.splitlines()) == 3


def test_stdin_with_input_format(logs):
    text = (logs / "flat.csv").read_text()
    # through the real entry point: a pipe into a fresh interpreter
    result = run_process("check-convergence", "-", "--input-format", "csv", "-m", "loss", stdin=text)
    assert result.returncode == 0, result.stderr
    jsonl = "\n".join(json.dumps({"step": i, "r": float(v)})
                      for i, v in enumerate(np.random.default_rng(2).normal(size=300)))
    result = run("check-convergence", "-", "--input-format", "jsonl", stdin=jsonl)
    assert result.returncode == 0, result.stderr


def test_options_reach_the_verdict(logs):
    precise = run("check-convergence", logs / "flat.csv", "-m", "reward", "--precision", "1e-5",
                  "--format", "json")
    payload = json.loads(precise.stdout)
    assert precise.returncode == 1
    assert payload["results"][0]["verdict"] == "insufficient_data"
    assert payload["results"][0]["steps_needed"] > 1000
    tolerant = run("check-convergence", logs / "rising.csv", "-m", "reward", "--tolerance", "5",
                   "--format", "json")
    result = json.loads(tolerant.stdout)["results"][0]
    assert result["verdict"] != "not_converged"  # the drift is shown to be below the tolerance
    assert result["tolerance"] == 5
    assert any("within +-5" in reason for reason in result["reasons"])


def test_plot_writes_a_png_only_where_asked(logs, tmp_path):
    target = tmp_path / "out.png"
    result = run("check-convergence", logs / "flat.csv", "--plot", target)
    assert result.returncode == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(logs.glob("*.png"))


def test_the_bundled_example_runs():
    result = run_process("check-convergence", EXAMPLE)  # the README's first command, as the shell runs it
    assert result.returncode == 1  # its reward is still improving
    assert "reward" in result.stdout and "entropy" in result.stdout


def _bad_files(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("step,reward\n")
    (tmp_path / "binary.csv").write_bytes(b"\x00\x01\x02\x03" * 10)
    (tmp_path / "words.csv").write_text("name,tag\na,b\nc,d\n")
    (tmp_path / "cells.csv").write_text("step,reward\n0,0.5\n1,oops\n2,0.6\n")
    (tmp_path / "blank.csv").write_text("step,reward,loss\n0,,1\n1,,2\n")
    (tmp_path / "ragged.csv").write_text("step,reward\n0,1\n1,2,3\n")
    (tmp_path / "textstep.csv").write_text("step,reward\n" + "".join(f"s{i},0.{i}\n" for i in range(9)))
    (tmp_path / "flagstep.csv").write_text("flag,reward\n" + "".join(f"{i % 2 == 0},0.{i}\n" for i in range(9)))
    (tmp_path / "newest_first.csv").write_text("step,reward\n" + "".join(f"{90 - i},0.{i}\n" for i in range(9)))
    (tmp_path / "diverged").mkdir()
    (tmp_path / "diverged" / "metrics.csv").write_text("step,epoch,loss\n1,0,nan\n2,0,nan\n3,0,nan\n")
    return tmp_path


@pytest.mark.parametrize("name, extra, message", [
    ("missing.csv", [], "no such file"),
    (".", [], "is a directory"),
    ("binary.csv", [], "binary"),
    ("empty.csv", [], "is empty"),
    ("header.csv", [], "header but no data"),
    ("words.csv", [], "no numeric metric column"),
    # NaN from the first logged value: "no numeric metric column" and nothing more, until the
    # reader's note was added to it; the NaN the log wrote now says it itself
    ("diverged/metrics.csv", [], "left out: loss (NaN in every row, as written: a run that diverged before "
                                 "logging a value); 3 logged row(s) hold only NaN or inf, from step 1"),
    ("cells.csv", [], "non-numeric value 'oops'"),
    ("blank.csv", ["-m", "reward"], "no values"),
    ("ragged.csv", [], "malformed row"),
    ("textstep.csv", ["--step", "step"], "the step column 'step' is not numeric ('s0' at data row 1)"),
    # a flag given as the step axis: each False after a True read as a run starting again
    ("flagstep.csv", ["--step", "flag"], "the step column 'flag' holds True/False, not steps"),
    # a log written newest first: every row read as a run starting again (nine one-point runs)
    ("newest_first.csv", ["--step", "step"], "the column 'step' goes down at 8 of its 8 moves"),
    ("header.csv", ["--alpha", "2"], "alpha"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(tmp_path, name, extra, message):
    folder = _bad_files(tmp_path)
    result = run("check-convergence", folder / name, *extra)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_a_metric_named_twice_is_analysed_once(logs):
    result = run("check-convergence", logs / "flat.csv", "-m", "reward", "-m", "loss", "-m", "reward",
                 "--format", "json")
    assert [r["name"] for r in json.loads(result.stdout)["results"]] == ["reward", "loss"]


def test_unknown_metric_lists_the_available_ones(logs):
    result = run("check-convergence", logs / "flat.csv", "-m", "rewrad")
    assert result.returncode == 2
    assert "available: reward, loss" in result.stderr


def test_usage_errors_exit_2_in_one_line(logs):
    for args in (["check-convergence"], ["check-convergence", logs / "flat.csv", "--format", "xml"],
                 ["frobnicate"]):
        result = run_process(*args)  # argparse's own exit, through the real entry point
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1


def test_debug_shows_the_traceback(tmp_path):
    result = run("check-convergence", tmp_path / "missing.csv", "--debug")
    assert result.returncode == 2 and "Traceback" in result.stderr


def test_short_and_constant_series_get_verdicts_not_errors(tmp_path):
    (tmp_path / "short.csv").write_text("reward\n0.1\n0.2\n0.3\n")
    (tmp_path / "const.csv").write_text("reward\n" + "0.5\n" * 50)
    short = run("check-convergence", tmp_path / "short.csv")
    assert short.returncode == 1 and "insufficient_data" in short.stdout
    constant = run("check-convergence", tmp_path / "const.csv")
    assert constant.returncode == 0 and "constant" in constant.stdout


def test_no_color_and_help():
    help_text = run("check-convergence", "--help")
    assert help_text.returncode == 0 and "exit codes" in help_text.stdout
    version = run("--version")
    assert version.returncode == 0 and "swarmstats" in version.stdout


def test_exit_zero_reports_without_failing(logs):
    result = run("check-convergence", logs / "rising.csv", "-m", "reward", "--exit-zero")
    assert result.returncode == 0 and "not_converged" in result.stdout
    assert run("check-convergence", logs / "missing.csv", "--exit-zero").returncode == 2


def test_github_actions_annotations_and_job_summary(logs, tmp_path):
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    result = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence",
                             str(logs / "rising.csv")], capture_output=True, text=True, env=env)
    assert result.returncode == 1
    assert "::error file=" in result.stdout and "title=reward: not_converged::" in result.stdout
    table = summary.read_text()
    assert "| reward | not_converged |" in table and "| loss |" in table
    as_json = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence",
                              str(logs / "rising.csv"), "--format", "json"],
                             capture_output=True, text=True, env=env)
    json.loads(as_json.stdout)  # annotations never pollute JSON output
    # a converged metric whose log shows no improvement (flat from its start) gets a warning
    flat = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence", str(logs / "flat.csv"),
                           "-m", "reward"], capture_output=True, text=True, env=env)
    assert flat.returncode == 0
    assert "::warning file=" in flat.stdout and "title=reward%3A converged%2C no improvement shown::" in flat.stdout


@pytest.fixture(scope="module")
def regime_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("regimes")
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"step": np.arange(400) * 10,
                          "reward": np.repeat([0.5, 0.8, 0.4], [150, 100, 150]) + rng.normal(0, 0.05, 400),
                          "loss": rng.normal(1, 0.1, 400)})
    frame.to_csv(folder / "log.csv", index=False)
    return folder / "log.csv"


def test_regimes_text_json_and_csv(regime_log):
    text = run("regimes", regime_log)
    assert text.returncode == 0, text.stderr
    assert "reward: 3 regimes, changes at 1500, 2500" in text.stdout
    assert "loss: one regime" in text.stdout
    payload = json.loads(run("regimes", regime_log, "--format", "json").stdout)
    assert payload["command"] == "regimes"
    reward = payload["results"][0]
    assert reward["changepoints"] == [150, 250] and reward["changepoint_steps"] == [1500, 2500]
    assert len(reward["segments"]) == 3 and len(reward["strengths"]) == 2
    table = pd.read_csv(pd.io.common.StringIO(run("regimes", regime_log, "--format", "csv").stdout))
    assert list(table["metric"]) == ["reward"] * 3 + ["loss"]


def test_regimes_options_and_bad_input(regime_log, tmp_path):
    merged_off = json.loads(run("regimes", regime_log, "-m", "reward", "--penalty", "0.001",
                                "--min-effect", "0", "--format", "json").stdout)
    assert len(merged_off["results"][0]["changepoints"]) > 2
    for args, message in ([["--penalty", "aic"], "--penalty"], [["--min-size", "0"], "--min-size"],
                          [["-m", "nope"], "available: reward, loss"]):
        result = run("regimes", regime_log, *args)
        assert result.returncode == 2 and message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    (tmp_path / "empty.csv").write_text("")
    assert run("regimes", tmp_path / "empty.csv").returncode == 2
    target = tmp_path / "r.png"
    assert run("regimes", regime_log, "--plot", target).returncode == 0
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_regimes_online_lists_alarms_in_steps(regime_log, tmp_path):
    text = run("regimes", regime_log, "--online", "-m", "reward")
    assert text.returncode == 0, text.stderr
    assert "alarm at step" in text.stdout
    # --plot draws each detector's evidence (it was silently ignored with --online)
    target = tmp_path / "online.png"
    assert run("regimes", regime_log, "--online", "--plot", target).returncode == 0
    assert target.read_bytes()[:4] == b"\x89PNG"
    payload = json.loads(run("regimes", regime_log, "--online", "--format", "json").stdout)
    changes = [a["change_step"] for a in payload["alarms"] if a["metric"] == "reward"]
    assert any(abs(c - 1500) <= 50 for c in changes) and any(abs(c - 2500) <= 50 for c in changes)
    assert "(online, BOCPD)" in text.stdout and not text.stderr.count("CUSUM rather")  # Gaussian noise


def test_regimes_online_gives_cusum_the_streams_bocpd_cannot_judge(tmp_path):
    # a stationary reward whose episodes fall early 30% of the time, and a 90% success as 0/1:
    # BOCPD raises alarm after alarm on the 0/1 stream; "auto" hands both to CUSUM and says why
    rng = np.random.default_rng(8)
    n = 2000
    falls = rng.random(n) < 0.3
    pd.DataFrame({"step": np.arange(n) * 4,
                  "reward": np.where(falls, rng.uniform(15, 150, n), 990 + rng.normal(0, 10, n)),
                  "success": (rng.random(n) < 0.9).astype(int),
                  "plain": rng.normal(size=n)}).to_csv(tmp_path / "log.csv", index=False)
    auto = run("regimes", tmp_path / "log.csv", "--online", "--format", "csv")
    assert auto.returncode == 0, auto.stderr
    table = pd.read_csv(io.StringIO(auto.stdout))
    assert dict(zip(table["metric"], table["detector"])) == {"reward": "CUSUM", "success": "CUSUM",
                                                           "plain": "BOCPD"}
    assert table["alarm_step"].notna().sum() <= 1  # stationary: at most a stray alarm
    assert "reward: CUSUM rather than BOCPD" in auto.stderr and "second mode" in auto.stderr
    assert "success: CUSUM rather than BOCPD" in auto.stderr and "discrete values" in auto.stderr
    forced = run("regimes", tmp_path / "log.csv", "--online-method", "bocpd", "-m", "success")
    assert forced.returncode == 0 and "(online, BOCPD)" in forced.stdout
    assert forced.stdout.count("alarm at step") > 10  # what auto spared the reader
    assert "use CUSUM" in forced.stderr  # BOCPD still says what limits it
    cusum = json.loads(run("regimes", tmp_path / "log.csv", "--online-method", "cusum", "-m", "plain",
                           "--format", "json").stdout)
    assert cusum["detectors"] == {"plain": "CUSUM"} and cusum["alarms"] == []


@pytest.mark.parametrize("method", ["auto", "bocpd", "bocpd-trend", "cusum", "cusum-trend"])
def test_regimes_online_on_a_log_shorter_than_the_reference_says_nothing_was_judged(tmp_path, method):
    """80 points, and the reference is learnt from the first 100: "no alarm" claimed a quiet
    stream that no detector had looked at."""
    pd.DataFrame({"step": range(80), "reward": np.random.default_rng(0).normal(size=80)}).to_csv(
        tmp_path / "log.csv", index=False)
    text = run("regimes", tmp_path / "log.csv", "--online-method", method)
    assert text.returncode == 0
    assert "reward: no alarm possible: 80 points, fewer than the 100 the reference is learnt from" in text.stdout


def test_describe_csv_columns_are_the_documented_ones():
    """docs/cli.md listed peak_gap_sd, which the table never had."""
    import re

    doc = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    section = doc.split("## `swarmstats describe`", 1)[1].split("\n## ", 1)[0]
    listed = re.search(r"CSV columns: `([^`]*)`", section).group(1).replace("\n", " ")
    header = run("describe", EXAMPLE, "--format", "csv").stdout.splitlines()[0]
    assert header.split(",") == [c.strip() for c in listed.split(",")]


def test_the_readme_sample_output_is_what_the_command_prints():
    # the README's first output block is generated by this command: it cannot go stale
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("```\nmetric ", 1)[1].split("```", 1)[0]
    shown = ("metric " + block).strip().splitlines()
    printed = run("check-convergence", EXAMPLE)
    assert printed.returncode == 1
    table = printed.stdout.rsplit("\n\n", 1)[0].strip().splitlines()  # (the table and its notes)
    assert [line.rstrip() for line in shown] == [line.rstrip() for line in table]


def test_every_command_accepts_the_shared_options():
    """--debug and --no-color are declared once and accepted by every command (--no-color used
    to exit 2 on all but check-convergence)."""
    from swarmstats.cli import COMMANDS, build_parser

    parser = build_parser()
    for name in COMMANDS:
        required = {"report": ["-o", "r.html"], "compare": ["-m", "reward"], "curves": ["-m", "reward"],
                    "best-of": ["-m", "reward"], "divergence": ["--proxy", "reward", "--outcome", "reward"]}.get(name, [])
        argv = [name, "log.csv", "--no-color", "--debug"] + required
        args = parser.parse_args(argv)
        assert args.no_color and args.debug


def test_the_old_seed_option_still_works_and_says_its_new_name(tmp_path, capsys):
    from swarmstats.cli import main

    path = tmp_path / "log.csv"
    path.write_text("step,reward\n" + "".join(f"{i},{0.5 + 0.01 * (i % 7)}\n" for i in range(60)))
    assert main(["describe", str(path), "--seed", "3", "--format", "json"]) == 0
    old = capsys.readouterr()
    assert "--seed is renamed --random-seed" in old.err
    assert main(["describe", str(path), "--random-seed", "3", "--format", "json"]) == 0
    new = capsys.readouterr()
    assert new.out == old.out and "renamed" not in new.err


def test_values_in_rows_without_a_step_are_said_and_a_metric_only_there_is_not_a_failure(tmp_path):
    # a JSON Lines log whose evaluation records carry no step: "metric 'eval_score' has no
    # values (every cell is empty)" stopped describe for every metric; reward's values in such
    # rows were dropped without a word
    lines = []
    for i in range(40):
        lines.append(json.dumps({"step": i, "reward": 0.5 + 0.01 * (i % 3)}))
        if i % 10 == 0:
            lines.append(json.dumps({"eval_score": 0.3}))
            lines.append(json.dumps({"reward": 0.9}))
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    described = run("describe", path)
    assert described.returncode == 0, described.stderr
    assert "reward: n = 40" in described.stdout and "eval_score" not in described.stdout
    assert ("left out eval_score: logged only in rows whose 'step' is empty (4 values), which have no "
            "place on the step axis") in described.stderr
    assert "reward: 4 values logged in rows whose 'step' is empty left out (40 on the step axis analysed)" \
        in described.stderr
    named = run("check-convergence", path, "-m", "eval_score")
    assert named.returncode == 2 and "Traceback" not in named.stderr
    assert "metric 'eval_score' is logged only in rows whose 'step' is empty (4 values)" in named.stderr


def test_the_text_table_is_followed_by_the_notes_beside_each_verdict():
    """The table shows a verdict's first reason; the notes beside it (here the wander's slope
    not claimed on 8 effective samples, on a real pymarl run) reached JSON readers only."""
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "pymarl" / "sacred" / "1"
    text = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence", str(real), "-m", "return_std",
                           "--no-color"], capture_output=True, text=True).stdout
    table, notes = text.split("\nnotes:\n")
    assert "return_std  insufficient_data" in table
    lines = notes.split("\n\n")[0].splitlines()
    assert any(line.startswith("  return_std: since timestep 1366903") and "no move is claimed" in line for line in lines)
    assert not any("warm-up: the first" in line for line in lines)  # in the table already
