"""A live MLflow tracking server as a log (issue 20, item 5), tested against a real ``mlflow
server`` that this module starts on a local SQLite store (the [test] extra installs MLflow; the
tests skip without it).  Runs are logged through the server's REST API, one through MLflow's own
client; what swarmstats reads back must be exactly what was logged."""

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

from swarmstats import read_log
from swarmstats.cli import main
from swarmstats.errors import InputError
from swarmstats.io import mlflow_server

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mlflow") is None or shutil.which("mlflow") is None,
                                reason="mlflow is not installed (the [test] extra installs it)")

#: the longest a loaded 2-core machine may take to migrate the store and start answering
STARTUP_LIMIT = 180.0
STEPS = 300
START_MS = 1_700_000_000_000


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mlflow")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(folder / "server.log", "w")
    process = subprocess.Popen(
        ["mlflow", "server", "--backend-store-uri", f"sqlite:///{folder / 'store.db'}",
         "--default-artifact-root", str(folder / "artifacts"), "--host", "127.0.0.1",
         "--port", str(port), "--workers", "1"],
        stdout=log, stderr=subprocess.STDOUT, cwd=folder, start_new_session=True)
    try:
        # ready when it answers /health: polled, never a fixed sleep
        deadline = time.monotonic() + STARTUP_LIMIT
        while not _answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(f"mlflow server did not start: {(folder / 'server.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


def rest(url: str, endpoint: str, body: dict) -> dict:
    request = urllib.request.Request(f"{url}/api/2.0/mlflow/{endpoint}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def log_run(url: str, experiment_id: str, name: str, metrics: dict, params: dict) -> str:
    """A run with ``metrics`` ({key: (steps, values)}), logged in batches as a trainer would."""
    run_id = rest(url, "runs/create", {"experiment_id": experiment_id, "run_name": name,
                                       "start_time": START_MS})["run"]["info"]["run_id"]
    points = [{"key": key, "value": value if np.isfinite(value) else "NaN", "timestamp": START_MS + 1000 * int(step),
               "step": int(step)} for key, (steps, values) in metrics.items() for step, value in zip(steps, values)]
    for start in range(0, len(points), 500):
        rest(url, "runs/log-batch", {"run_id": run_id, "metrics": points[start:start + 500],
                                     "params": [{"key": k, "value": str(v)} for k, v in params.items()]
                                     if start == 0 else []})
    rest(url, "runs/update", {"run_id": run_id, "status": "FINISHED", "end_time": START_MS + 1000 * STEPS})
    return run_id


@pytest.fixture(scope="module")
def logged(server):
    """Two experiments of three seeds each: ``plateau`` (settled) and ``rising`` (still climbing);
    a reward every step, a loss every other step (one NaN)."""
    runs = {}
    steps = np.arange(STEPS)
    for experiment, slope in (("plateau", 0.0), ("rising", 0.002)):
        experiment_id = rest(server, "experiments/create", {"name": experiment})["experiment_id"]
        for seed in range(3):
            rng = np.random.default_rng([seed, int(slope * 1000)])
            reward = 0.5 + slope * steps + 0.05 * rng.normal(size=STEPS)
            loss = 1.0 / (1 + steps[::2]) + 0.01 * rng.normal(size=len(steps[::2]))
            loss[5] = np.nan
            metrics = {"reward": (steps, reward), "train/loss": (steps[::2], loss)}
            run_id = log_run(server, experiment_id, f"seed-{seed}", metrics, {"seed": seed, "lr": 3e-4})
            runs[(experiment, seed)] = (run_id, metrics)
    return runs


def test_an_experiment_reads_as_its_runs_with_every_logged_value(server, logged):
    tidy = read_log(f"mlflow://{server[7:]}/experiments/plateau")
    assert sorted(tidy["run"].unique()) == ["seed-0", "seed-1", "seed-2"]
    for seed in range(3):
        _, metrics = logged[("plateau", seed)]
        for key, (steps, values) in metrics.items():
            mine = tidy[(tidy["run"] == f"seed-{seed}") & (tidy["metric"] == key)].sort_values("step")
            kept = np.isfinite(values)
            np.testing.assert_array_equal(mine["step"].to_numpy(), steps[kept])
            np.testing.assert_allclose(mine["value"].to_numpy(), values[kept], rtol=0, atol=0)
            np.testing.assert_allclose(mine["wall_time"].to_numpy(), (START_MS + 1000 * steps[kept]) / 1000)
    wide = read_log(f"mlflow://{server[7:]}/experiments/plateau", wide=True)
    assert wide.attrs["run_params"]["seed-1"] == {"seed": 1.0, "lr": 3e-4}
    assert wide.attrs["format"] == "mlflow" and "3 run(s) of experiment 'plateau'" in wide.attrs["notes"][0]


def test_one_run_by_id_and_the_tracking_uri_given_apart_read_the_same(server, logged):
    run_id, metrics = logged[("rising", 2)]
    one = read_log(f"mlflow://{server[7:]}/runs/{run_id}", wide=True)
    assert "run" not in one.columns and len(one) == STEPS
    np.testing.assert_allclose(one.sort_values("step")["reward"].to_numpy(), metrics["reward"][1])
    apart = read_log(f"runs/{run_id}", mlflow_uri=server, wide=True)
    assert apart.equals(one)
    by_id = read_log("experiments/2", mlflow_uri=server)  # an experiment's number works as its name
    assert set(by_id["run"]) == {"seed-0", "seed-1", "seed-2"}


def test_long_histories_and_many_runs_are_read_page_by_page(server, logged, monkeypatch):
    whole = read_log(f"mlflow://{server[7:]}/experiments/rising", wide=True)
    monkeypatch.setattr(mlflow_server, "HISTORY_PAGE", 37)
    monkeypatch.setattr(mlflow_server, "RUNS_PAGE", 2)
    paged = read_log(f"mlflow://{server[7:]}/experiments/rising", wide=True)
    assert paged.equals(whole)


def test_mlflows_own_client_logs_what_we_read(server):
    from mlflow import MlflowClient
    from mlflow.entities import Metric

    client = MlflowClient(server)
    experiment_id = client.create_experiment("client")
    run = client.create_run(experiment_id, run_name="sac")
    values = np.linspace(0.0, 1.0, 50) ** 2
    client.log_batch(run.info.run_id, metrics=[Metric("eval/return", float(v), START_MS + i, i)
                                               for i, v in enumerate(values)])
    client.set_terminated(run.info.run_id)
    frame = read_log(f"mlflow://{server[7:]}/runs/{run.info.run_id}", wide=True)
    np.testing.assert_allclose(frame["eval/return"].to_numpy(), values)


def test_every_log_reading_command_takes_a_server_either_way(server, logged, capsys, tmp_path):
    source = f"mlflow://{server[7:]}/experiments/rising"
    assert main(["check-convergence", source, "-m", "reward", "--format", "json"]) == 1
    direct = json.loads(capsys.readouterr().out)
    assert main(["check-convergence", "--mlflow-uri", server, "experiments/rising", "-m", "reward",
                 "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == direct
    assert all(row["verdict"] == "not_converged" for row in direct["results"] if row.get("run"))
    assert main(["describe", "--mlflow-uri", server, "experiments/plateau", "-m", "reward"]) == 0
    assert "reward [run=seed-0]" in capsys.readouterr().out
    # the runs' MLflow parameters are their settings: a sweep groups by them, compare pairs seeds
    assert main(["sweep", "--mlflow-uri", server, "experiments/plateau", "experiments/rising", "--by", "lr"]) in (0, 1)
    assert "6 runs, 0 failed; by lr" in capsys.readouterr().out
    band = tmp_path / "band.png"
    assert main(["curves", "--mlflow-uri", server, "experiments/rising", "-m", "reward", "-o", str(band)]) == 0
    assert band.stat().st_size > 0 and "3 runs" in capsys.readouterr().out
    # three seeds cannot show an improvement at 95% (a Wilson interval of 3 wins in 3 reaches 0.44)
    assert main(["compare", "--mlflow-uri", server, "experiments/rising", "experiments/plateau",
                 "-m", "reward"]) == 1
    compared = capsys.readouterr().out
    assert "it wins on 3 of 3 shared seeds = 1 [0.439, 1], sign test p = 0.12 - not shown" in compared
    assert "the sign test needs at least 6 seeds that differ" in compared


@pytest.mark.parametrize("argv, message", [
    (["check-convergence", "mlflow://{host}/experiments/missing"], "no experiment named 'missing'"),
    (["check-convergence", "mlflow://{host}/runs/0123456789abcdef"], "no run '0123456789abcdef'"),
    (["check-convergence", "mlflow://127.0.0.1:{dead}/experiments/plateau"], "could not reach the MLflow server"),
    (["check-convergence", "--mlflow-uri", "ftp://{host}", "experiments/plateau"], "http:// or https://"),
    (["check-convergence", "--mlflow-uri", "http://{host}", "plateau"], "experiments/NAME_OR_ID or runs/RUN_ID"),
    (["check-convergence", "mlflow://{host}/plateau"], "experiments/NAME_OR_ID"),
    (["watch", "--once", "mlflow://{host}/experiments/plateau"], "a watch follows one run"),
    (["quality-gap", "--mlflow-uri", "http://{host}", "experiments/plateau"], "does not hold"),
    (["proxy", "mlflow://{host}/experiments/plateau"], "does not hold"),
])
def test_a_bad_server_source_is_one_line_and_exit_2(server, logged, capsys, argv, message):
    host = server[7:]
    argv = [word.format(host=host, dead=_free_port()) for word in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_watch_follows_a_run_as_it_is_logged_and_survives_the_server_going_away(server, logged):
    from swarmstats.io.follow import ServerFollower

    run_id, metrics = logged[("plateau", 0)]
    follower = ServerFollower(f"mlflow://{server[7:]}/runs/{run_id}")
    first = follower.records()
    assert len(first) == STEPS + len(metrics["train/loss"][0]) - 1  # the NaN is not a value
    assert follower.records() == []
    rest(server, "runs/log-batch", {"run_id": run_id, "metrics": [
        {"key": "reward", "value": 0.5, "timestamp": START_MS + 10**6 + i, "step": STEPS + i} for i in range(7)]})
    fresh = follower.records()
    assert fresh == [{"step": STEPS + i, "reward": 0.5} for i in range(7)]
    alive = follower._poller._client.base
    follower._poller._client.base = f"http://127.0.0.1:{_free_port()}/api/2.0/mlflow/"
    assert follower.records() == [] and follower.records() == []
    events = follower.take_events()
    assert len(events) == 1 and events[0][0] == "unreadable" and "waiting" in events[0][1]
    follower._poller._client.base = alive
    assert follower.records() == []  # nothing new was logged meanwhile, nothing is read twice


def test_watch_once_on_a_server_run_reports_its_verdict(server, logged):
    run_id, _ = logged[("plateau", 1)]
    out = subprocess.run([sys.executable, "-m", "swarmstats.cli", "watch", "--once", "-m", "reward",
                          f"mlflow://{server[7:]}/runs/{run_id}"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "reward: n 300" in out.stdout


def test_a_server_source_names_its_parts():
    where = mlflow_server.parse_source("mlflows://mlflow.example.org/tracking/runs/abc%20d")
    assert where == mlflow_server.ServerSource("https://mlflow.example.org/tracking", "runs", "abc d")
    with pytest.raises(InputError, match="no server address"):
        mlflow_server.parse_source("mlflow:///experiments/x")
    with pytest.raises(InputError, match="no experiment named after"):
        mlflow_server.parse_source("mlflow://host/experiments/")
