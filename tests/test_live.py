"""Monitor (live use) and `swarmstats watch` on a growing file."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from swarmstats import ConvergenceMonitor, InputError, Monitor


def test_monitor_matches_the_streaming_check_and_stops_on_convergence():
    rng = np.random.default_rng(0)
    rewards = 0.5 + 0.3 * (1 - np.exp(-np.arange(3000) / 300)) + rng.normal(0, 0.02, 3000)
    monitor = Monitor(metrics=["reward"], check_every=100)
    reference = ConvergenceMonitor(check_every=100)
    stopped_at = None
    for step, value in enumerate(rewards):
        monitor.log(step, reward=value, loss=float(rng.normal()), note="text is ignored")
        reference.update(value)
        if stopped_at is None and monitor.should_stop:
            stopped_at = step
    assert monitor.status.metrics["reward"]["verdict"] == reference.state.verdict
    assert "loss" not in monitor.status.metrics  # only the chosen metrics are tracked
    assert stopped_at is not None and stopped_at > 300  # not while it is still rising


def test_monitor_accepts_what_trainers_log():
    class Tensor:  # a 0-d tensor: .item() and ndim == 0
        ndim = 0

        def __init__(self, value):
            self.value = value

        def item(self):
            return self.value

    monitor = Monitor(checks=("convergence", "window"))
    for step in range(60):
        monitor.log(step, loss=Tensor(1.0 / (step + 1)), kl=None, reward=np.float32(0.5), bad=float("nan"))
    report = monitor.status
    assert report.metrics["loss"]["n"] == 60 and "kl" not in report.metrics
    assert report.skipped == {"bad": 60}
    # NaN from the first call on: a metric that diverged at once, not one never logged
    assert report.metrics["bad"]["verdict"] == "not_converged" and report.metrics["bad"]["n"] == 0
    assert report.metrics["bad"]["reason"].startswith("diverged: from step 0 on every value is NaN (60 of them)")
    assert report.metrics["reward"]["window_status"] in ("stable", "uncertain")
    assert "reward" in report.summary()
    with pytest.raises(InputError, match="no finite values of 'nope'"):
        monitor.result("nope")
    with pytest.raises(InputError, match="checks must be one of"):
        Monitor(checks=("magic",))


def test_min_steps_holds_the_stop():
    monitor = Monitor(metrics=["r"], min_steps=10_000, check_every=100)
    rng = np.random.default_rng(1)
    for step in range(2000):
        monitor.log(step, r=rng.normal())
    assert monitor.status.metrics["r"]["converged"] and not monitor.should_stop


def _watch(*args, timeout=60):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "swarmstats.cli", "watch", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


def _start_watch(path, *args):
    """A `watch` process, returned once it says it is watching (its readiness line): no test
    waits on a timer, so a loaded machine only makes them slower, never wrong."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    process = subprocess.Popen([sys.executable, "-m", "swarmstats.cli", "watch", str(path), "--interval", "0.05",
                                "--format", "json", *map(str, args)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    ready = process.stderr.readline()
    assert "watching" in ready, ready + process.stderr.read()
    return process


def _events_until(process, kind):
    """The JSON events the watch prints, up to and including the first of ``kind``."""
    events = []
    while True:
        line = process.stdout.readline()
        assert line, f"the watch ended before a {kind!r} event: {events}"
        if line.startswith('{"event"'):
            events.append(json.loads(line))
            if events[-1]["event"] == kind:
                return events


def _stop(process, sig=None):
    """Stop with ``sig`` (default SIGTERM); the rest of stdout's events and the final report."""
    import signal

    process.send_signal(sig or signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    events = [json.loads(line) for line in out.splitlines() if line.startswith('{"event"')]
    return events, json.loads(out[out.index('{\n'):])


def _rows(start, stop, rng, level=0.5):
    return "".join(json.dumps({"step": step, "reward/mean": level + rng.normal(0, 0.02)}) + "\n"
                   for step in range(start, stop))


def test_watch_follows_a_growing_file_and_reports_verdict_changes(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rng = np.random.default_rng(2)
    rows = [json.dumps({"step": step, "time": step,
                        "reward/mean": 0.2 + 0.5 * min(step, 150) / 150 + rng.normal(0, 0.02)}) + "\n"
            for step in range(600)]
    path.write_text("".join(rows[:100]))  # the rise: the first verdict is not "converged"
    process = _start_watch(path, "--check-every", "50")
    first = _events_until(process, "verdict")  # it has read the file: no sleeping
    with open(path, "a") as handle:  # then the plateau arrives while it watches
        handle.writelines(rows[100:])
    events, final = _stop(process)  # the stop reads what is left before the summary
    verdicts = [event["verdict"] for event in first + events if event["event"] == "verdict"]
    assert len(verdicts) >= 2 and verdicts[-1] == "converged"  # it changed while we watched
    assert final["report"]["metrics"]["reward/mean"]["n"] == 600


def test_watch_survives_rotation_deletion_and_recreation(tmp_path):
    """logrotate's rename + new file, then deletion and a new file: every line of every file
    is read once, each new file from its first line (not from the old file's offset)."""
    path, rng = tmp_path / "metrics.jsonl", np.random.default_rng(3)
    path.write_text(_rows(0, 100, rng))
    process = _start_watch(path)
    _events_until(process, "verdict")
    with open(path, "a") as handle:  # the last lines the old file gets
        handle.write(_rows(100, 105, rng))
    os.rename(path, tmp_path / "metrics.jsonl.1")
    fresh = tmp_path / "fresh.jsonl"
    fresh.write_text(_rows(105, 305, rng))
    os.rename(fresh, path)  # a new file (a new inode), longer than the old one's offset
    _events_until(process, "rotated")
    os.remove(path)
    _events_until(process, "removed")
    fresh.write_text(_rows(305, 355, rng))
    os.rename(fresh, path)
    events, final = _stop(process)
    assert final["report"]["metrics"]["reward/mean"]["n"] == 355
    assert final["report"]["metrics"]["reward/mean"]["last_step"] == 354
    assert (tmp_path / "metrics.jsonl.1").read_text().count("\n") == 105  # inputs are only read


def test_watch_skips_bad_lines_with_their_numbers_and_goes_on(tmp_path):
    path, rng = tmp_path / "metrics.jsonl", np.random.default_rng(4)
    lines = _rows(0, 100, rng).splitlines(keepends=True)
    lines[40] = "{oops\n"  # two writers interleaved
    data = "".join(lines).encode()
    data = data.replace(lines[59].encode(), b'{"step": 59, "reward/mean": "\xff\xfe"}\n')  # not UTF-8
    path.write_bytes(data + b'{"step": 100, "reward/mean": ' + b"7" * 2_000_000 + b"}\n")  # a 2 MB line
    result = _watch(path, "--once")
    assert result.returncode == 0, result.stderr
    for number, why in ((41, "not valid JSON"), (60, "not UTF-8"), (101, "longer than")):
        assert f"line {number}: {why}" in result.stdout
    assert "reward/mean: n 98" in result.stdout and "3 bad line(s) skipped" in result.stdout


def test_watch_once_refuses_garbage_with_exit_2(tmp_path):
    garbage = tmp_path / "image.jsonl"
    garbage.write_bytes(bytes(range(256)) * 8)
    result = _watch(garbage, "--once")
    assert result.returncode == 2 and "no numeric metric values were read" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = _watch(fifo, "--once")
    assert result.returncode == 2 and "not a regular file" in result.stderr
    from swarmstats.cli import main

    for option in (("--interval", "nan"), ("--interval", "0"), ("--max-idle", "-1"), ("--check-every", "0")):
        assert main(["watch", str(garbage), *option]) == 2  # in this process: no interpreter start each


def test_watch_reads_csv_ignores_a_half_written_line_and_restarts_on_rewrite(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("time/total_timesteps,rollout/ep_rew_mean\n" +
                    "".join(f"{i * 2048},{0.5 + 0.001 * (i % 3)}\n" for i in range(80)) + "8000,0.")
    result = _watch(path, "--once")
    assert result.returncode == 0, result.stderr
    assert "rollout/ep_rew_mean: n 80" in result.stdout


def test_watch_judges_every_value_at_the_stop_and_says_when_a_verdict_was_made():
    # a real DQN Acrobot monitor file read with --once: the status held the check made at 761
    # values, printed as "insufficient data (n 1011)", where all 1,011 show it flat near -87
    from pathlib import Path
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3" / "dqn-Acrobot-v1.monitor.csv"
    result = _watch(real, "--once", "-m", "r")
    assert result.returncode == 0, result.stderr
    assert "step 1010: r is insufficient data (checked at 761 of 1,011 values" in result.stdout
    assert "step 1010: r is converged at the stop, on all 1,011 values - flat within" in result.stdout
    # the level is the verdict's, as check-convergence reports it: the running mean of every
    # value (-97.88, the climb from -500 counted in) stood there before
    assert "  r: n 1011, mean -85.11 [-86.46, -82.77] after 505 warm-up values, converged\n    flat within" in result.stdout
    # and the stop rule is judged on those verdicts: "stop on r: not yet" stood above "converged"
    assert "1011 log call(s); stop on r: yes\n" in result.stdout
    # its bounds are wider than check-convergence's on the same values, and it says why
    assert "the checks are anytime-valid (each spends part of alpha)" in result.stdout.splitlines()[-1]


def test_a_watch_that_checked_nothing_says_nothing_of_anytime_checks(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("step,reward\n0,1\n1,2\n2,1.5\n3,1.7\n")  # too few values to test
    result = _watch(path, "--once")
    assert result.returncode == 0 and "reward: n 4" in result.stdout and "anytime" not in result.stdout


def test_the_stop_rule_at_the_stop_holds_for_every_run_on_the_verdicts_judged_there():
    from swarmstats.cli.watch import RunMonitors
    monitors = RunMonitors(lambda: Monitor(metrics=["reward"], min_steps=100))
    rng = np.random.default_rng(0)
    for step in range(120):
        for seed in (1, 2):
            monitors.log(f"seed={seed}", step, {"reward": rng.normal()})
    entries = {name: {"verdict": "converged", "n": 120} for name in ("reward [seed=1]", "reward [seed=2]")}
    assert monitors.stop_rule_holds(entries)
    assert not monitors.stop_rule_holds({**entries, "reward [seed=2]": {"verdict": "insufficient_data", "n": 120}})
    assert not monitors.stop_rule_holds({**entries, "reward [seed=2]": {"verdict": "converged", "n": 99}})
    assert not monitors.stop_rule_holds({"reward [seed=1]": entries["reward [seed=1]"]})  # a run not judged
    diverged = {"verdict": "converged", "n": 120, "diverged": {}}
    assert not monitors.stop_rule_holds({**entries, "reward [seed=1]": diverged})
    single = RunMonitors(lambda: Monitor(metrics=["reward"], min_steps=100))
    for step in range(120):
        single.log(None, step, {"reward": rng.normal()})
    assert single.stop_rule_holds({"reward": {"verdict": "converged", "n": 120}})


def test_watch_tells_the_level_check_convergence_tells_and_the_running_mean_only_before_a_check(tmp_path):
    """The status line of a metric is the latest verdict's mean after its warm-up, with its
    interval - the same numbers ``check-convergence`` prints for the same file (a real pymarl
    run whose return spread rose 0 -> ~4: its running mean 2.78 is no level it held).  Before
    any check the running mean is all there is, and it is named so."""
    from pathlib import Path
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "pymarl" / "sacred"
    watched = _watch(real, "--once", "-m", "return_std", "--format", "json")
    assert watched.returncode == 0, watched.stderr
    report = json.loads(watched.stdout[watched.stdout.index("{\n"):])["report"]["metrics"]
    checked = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence", str(real), "-m",
                              "return_std", "--format", "json"], capture_output=True, text=True)
    runs = {run["name"]: run for result in json.loads(checked.stdout)["results"]
            for run in result.get("runs", [result])}
    # (check-convergence names the one run on 3s5z by its configuration)
    for watched_name, checked_name in (("return_std [run=1]",) * 2, ("return_std [run=1_MMM2]",) * 2,
                                       ("return_std [run=3_3s5z]", "return_std [env_args.map_name=3s5z]")):
        entry, result = report[watched_name], runs[checked_name]
        assert entry["level"] == pytest.approx(result["mean"], rel=1e-12), watched_name
        assert entry["level_ci"] == pytest.approx(result["ci"], rel=1e-12), watched_name
        assert entry["warmup"] == result["warmup"], watched_name
    assert report["return_std [run=1]"]["mean"] == pytest.approx(2.779, abs=5e-4)  # the running mean, kept
    text = _watch(real, "--once", "-m", "return_std").stdout
    assert "  return_std [run=1]: n 205, mean 3.697 [3.451, 3.942] after 102 warm-up values, insufficient_data" in text
    # (an interval on fewer than 9 effective values is not cut to their range: 4.832, not the 4.47 seen)
    assert "is not converged (checked at 150 of 205 values, mean 3.286 [2.257, 4.832] after 75 warm-up values)" in text
    # not checked yet (the first check comes at 100 values): the running mean, named
    path = tmp_path / "short.csv"
    path.write_text("step,reward\n" + "".join(f"{i},{0.5 + 0.01 * (i % 5)}\n" for i in range(30)))
    assert "step 29: reward is insufficient data (not checked yet at 30 values, running mean 0.52)" in _watch(
        path, "--once").stdout


def test_watch_follows_each_run_a_log_names_on_its_own(tmp_path):
    # two seeds written side by side were one series: runs at 0.3 and 0.8 read "converged,
    # mean 0.548" (and the seed column was followed as a metric)
    rng = np.random.default_rng(4)
    path = tmp_path / "seeds.jsonl"
    path.write_text("".join(json.dumps({"step": step, "seed": seed, "reward": level + rng.normal(0, 0.05)}) + "\n"
                            for step in range(200) for seed, level in ((1, 0.3), (2, 0.8))))
    result = _watch(path, "--once", "--format", "json", "-m", "reward")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout[result.stdout.index("{\n"):])["report"]
    assert list(report["metrics"]) == ["reward [seed=1]", "reward [seed=2]"]
    assert [round(entry["mean"], 1) for entry in report["metrics"].values()] == [0.3, 0.8]
    # the stop rule at the stop is the rule on the verdicts judged there (here one seed shows
    # a late change by chance, p = 0.0014: no stop)
    assert report["should_stop"] == all(entry["verdict"] == "converged" for entry in report["metrics"].values())
    assert all(entry["n"] == 200 for entry in report["metrics"].values())
    assert report["stop_metrics"] == ["reward [seed=1]", "reward [seed=2]"]
    # one run with its seed on every line keeps the plain name, and the seed is no metric
    path.write_text("".join(json.dumps({"step": step, "seed": 7, "reward": 0.5 + rng.normal(0, 0.05)}) + "\n"
                            for step in range(200)))
    text = _watch(path, "--once")
    assert text.returncode == 0 and "  reward: n 200" in text.stdout and "seed" not in text.stdout


def test_watch_bad_input(tmp_path):
    result = _watch(tmp_path / "missing.jsonl", "--once")
    assert result.returncode == 2 and "no such file" in result.stderr


def test_watch_stops_cleanly_on_ctrl_c_and_on_sigterm(tmp_path):
    import signal

    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps({"step": i, "reward": 0.5 + 0.01 * (i % 3)}) + "\n" for i in range(30)))
    for sig in (signal.SIGINT, signal.SIGTERM):
        process = _start_watch(path)  # waits for its readiness line, never a timer
        _, final = _stop(process, sig)
        assert final["report"]["metrics"]["reward"]["n"] == 30


def test_forget_from_keeps_the_values_before_a_resume_and_goes_on_from_them():
    rng = np.random.default_rng(12)
    monitor = Monitor(checks=("convergence", "window"), check_every=50, budget=1000)
    values = 0.5 + rng.normal(0, 0.05, 300)
    for step, value in enumerate(values):
        monitor.log(step, reward=value, loss=float("nan") if step >= 250 else 1.0)
    assert monitor.forget_from(200) == 100 + 50  # reward's 100 values and loss's 50 finite ones
    status = monitor.status.metrics
    assert status["reward"]["n"] == 200 and status["reward"]["last_step"] == 199
    assert "diverged" not in status["loss"]  # its NaN came after the checkpoint: forgotten too
    assert status["reward"]["mean"] == pytest.approx(values[:200].mean())
    assert "window_status" in status["reward"]
    monitor.log(200, reward=0.5, loss=1.0)
    assert monitor.status.metrics["reward"]["n"] == 201
    assert monitor.forget_from(10_000) == 0


def test_a_stop_asked_during_a_wait_ends_it_without_taking_a_lock(monkeypatch):
    """The watch's signal handler only sets a flag: it used to set a threading.Event, whose
    wait holds the lock set takes, and a signal that came at that moment hung a CI run's watch
    for good (Python runs a handler in the main thread, between two of its bytecodes)."""
    import swarmstats.cli.watch as watch

    stop = watch._StopOnSignal()
    naps = []

    def nap(seconds):  # a signal arrives during the second nap
        naps.append(seconds)
        if len(naps) == 2:
            stop._ask(2, None)

    monkeypatch.setattr(watch.time, "sleep", nap)
    stop.wait(3600.0)
    assert stop.requested and len(naps) == 2 and max(naps) <= watch._StopOnSignal.TICK
    stop.wait(3600.0)  # once asked, no more waiting
    assert len(naps) == 2


def test_watch_judges_a_monitor_files_success_flag_as_check_convergence_does(tmp_path):
    """SB3's Monitor writes ``is_success`` as True/False: watch judged the episodes' reward and
    length but never the success rate.  It is 1/0 now, as in every other command; a flag that
    names no outcome (``TimeLimit.truncated``) is not tracked by default."""
    rng = np.random.default_rng(5)
    path = tmp_path / "0.monitor.csv"
    success = rng.random(300) < 0.8
    path.write_text('#{"t_start": 1600000000.0, "env_id": "FetchReach-v1"}\nr,l,t,is_success,TimeLimit.truncated\n'
                    + "".join(f"{-5.0 if s else -50.0},50,{i + 1.0},{s},{not s}\n" for i, s in enumerate(success)))
    watched = _watch(path, "--once", "--format", "json")
    assert watched.returncode == 0, watched.stderr
    metrics = json.loads(watched.stdout[watched.stdout.index("{\n"):])["report"]["metrics"]
    assert "TimeLimit.truncated" not in metrics and metrics["is_success"]["n"] == 300
    checked = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence", str(path), "-m",
                              "is_success", "--format", "json"], capture_output=True, text=True)
    result = json.loads(checked.stdout)["results"][0]
    assert metrics["is_success"]["level"] == pytest.approx(result["mean"], rel=1e-12)
    assert result["mean"] == pytest.approx(success[result["warmup"]:].mean(), rel=1e-12)


def test_watch_follows_a_long_log_as_one_metric_per_name(tmp_path):
    """A log written a row per step and metric (``step,metric,value``) was followed as one
    metric 'value', a loss and a reward pooled."""
    path = tmp_path / "metrics.csv"
    path.write_text("step,metric,value\n" + "".join(f"{k},loss,{1 / (k + 1):.5f}\n{k},reward,{k % 5 * 0.1:.1f}\n"
                                                   for k in range(120)))
    watched = _watch(path, "--once", "--format", "json")
    assert watched.returncode == 0, watched.stderr
    metrics = json.loads(watched.stdout[watched.stdout.index("{\n"):])["report"]["metrics"]
    assert set(metrics) == {"loss", "reward"} and metrics["loss"]["n"] == metrics["reward"]["n"] == 120


def test_watch_refuses_a_compressed_log_in_one_line(tmp_path):
    import gzip

    path = tmp_path / "progress.csv.gz"
    path.write_bytes(gzip.compress(b"step,reward\n" + b"".join(b"%d,0.5\n" % k for k in range(50))))
    result = _watch(path, "--once")
    assert result.returncode == 2
    assert "is gzip-compressed: a compressed log is not followed as it grows" in result.stderr
    assert "not UTF-8" not in result.stderr + result.stdout  # (each line was refused so)
