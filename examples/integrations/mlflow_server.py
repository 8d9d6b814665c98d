"""MLflow: check the runs of an experiment on a live tracking server, grouped by seed.

    pip install mlflow swarmstats
    python examples/integrations/mlflow_server.py [http://HOST:PORT]

With a tracking URI, the runs are logged there; without one, a server is started on a local
SQLite store in a temporary folder (and stopped at the end).  Four seeds of a reward curve are
logged through MLflow's own client; swarmstats then reads them back from the server - no files -
and gives each run its verdict and the seeds' spread of final levels.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np

import swarmstats


@contextlib.contextmanager
def local_server():
    """An `mlflow server` on a free port, ready when it answers /health."""
    with tempfile.TemporaryDirectory() as folder, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        process = subprocess.Popen(
            ["mlflow", "server", "--backend-store-uri", f"sqlite:///{folder}/mlflow.db",
             "--default-artifact-root", f"{folder}/artifacts", "--host", "127.0.0.1", "--port", str(port),
             "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while True:
                try:
                    with urllib.request.urlopen(url + "/health", timeout=2):
                        break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("mlflow server did not start") from None
                    time.sleep(0.2)
            yield url
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
            print("local mlflow server stopped")


def log_seeds(uri: str) -> str:
    from mlflow import MlflowClient
    from mlflow.entities import Metric, Param

    client = MlflowClient(uri)
    name = f"ppo-{int(time.time())}"
    experiment = client.create_experiment(name)
    steps = np.arange(400)
    for seed in range(4):
        rng = np.random.default_rng(seed)
        reward = 200 * (1 - np.exp(-steps / 60)) + 15 * rng.normal(size=400)   # rises, then settles
        run = client.create_run(experiment, run_name=f"seed-{seed}")
        client.log_batch(run.info.run_id,
                         metrics=[Metric("reward", float(r), 1_700_000_000_000 + 1000 * int(s), int(s))
                                  for s, r in zip(steps, reward)],
                         params=[Param("seed", str(seed)), Param("lr", "3e-4")])
        client.set_terminated(run.info.run_id)
    return name


def analyse(uri: str, experiment: str) -> None:
    runs = swarmstats.read_log(f"experiments/{experiment}", mlflow_uri=uri, wide=True)
    print(f"{runs['run'].nunique()} runs read from {uri} (parameters: {runs.attrs['run_params']['seed-0']})")
    for name, run in runs.groupby("run"):
        print(" ", swarmstats.check_convergence(run["reward"], name=name).summary().splitlines()[0])


with contextlib.nullcontext(sys.argv[1]) if len(sys.argv) > 1 else local_server() as uri:
    analyse(uri, log_seeds(uri))
