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
    assert monitor.report().metrics["reward"]["verdict"] == reference.state().verdict
    assert "loss" not in monitor.report().metrics  # only the chosen metrics are tracked
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
    report = monitor.report()
    assert report.metrics["loss"]["n"] == 60 and "kl" not in report.metrics
    assert report.skipped == {"bad": 60}
    assert report.metrics["reward"]["window_status"] in ("stable", "uncertain")
    assert "reward" in report.summary()
    with pytest.raises(InputError, match="no values of 'nope'"):
        monitor.result("nope")
    with pytest.raises(InputError, match="checks must be one of"):
        Monitor(checks=("magic",))


def test_min_steps_holds_the_stop():
    monitor = Monitor(metrics=["r"], min_steps=10_000, check_every=100)
    rng = np.random.default_rng(1)
    for step in range(2000):
        monitor.log(step, r=rng.normal())
    assert monitor.report().metrics["r"]["converged"] and not monitor.should_stop


def _watch(*args, timeout=60):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "swarmstats.cli", "watch", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_watch_follows_a_growing_file_and_reports_verdict_changes(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rng = np.random.default_rng(2)
    rows = [json.dumps({"step": step, "time": step,
                        "reward/mean": 0.2 + 0.5 * min(step, 150) / 150 + rng.normal(0, 0.02)}) + "\n"
            for step in range(600)]
    path.write_text("".join(rows[:100]))  # the rise: the first verdict is not "converged"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    process = subprocess.Popen(
        [sys.executable, "-m", "swarmstats.cli", "watch", str(path), "--interval", "0.1",
         "--max-idle", "5", "--check-every", "50", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = process.stdout.readline()  # wait until it has read the file (its first verdict): no sleeping
    assert '"event": "verdict"' in first, first
    with open(path, "a") as handle:  # then the plateau arrives while it watches
        for row in rows[100:]:
            handle.write(row)
            handle.flush()
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    out = first + out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith('{"event"')]
    verdicts = [event["verdict"] for event in lines if event["event"] == "verdict"]
    assert len(verdicts) >= 2 and verdicts[-1] == "converged"  # it changed while we watched
    final = json.loads(out[out.index('{\n'):])
    assert final["report"]["metrics"]["reward/mean"]["n"] == 600


def test_watch_reads_csv_ignores_a_half_written_line_and_restarts_on_rewrite(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("time/total_timesteps,rollout/ep_rew_mean\n" +
                    "".join(f"{i * 2048},{0.5 + 0.001 * (i % 3)}\n" for i in range(80)) + "8000,0.")
    result = _watch(path, "--once")
    assert result.returncode == 0, result.stderr
    assert "rollout/ep_rew_mean: n 80" in result.stdout


def test_watch_bad_input(tmp_path):
    result = _watch(tmp_path / "missing.jsonl", "--once")
    assert result.returncode == 2 and "no such file" in result.stderr


def test_watch_stops_cleanly_on_ctrl_c(tmp_path):
    import signal
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps({"step": i, "reward": 0.5}) + "\n" for i in range(30)))
    process = subprocess.Popen([sys.executable, "-m", "swarmstats.cli", "watch", str(path), "--interval", "0.1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline()  # wait until it is watching (its first verdict), never sleep
    assert "reward" in first, first
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err and "reward: n 30" in out
