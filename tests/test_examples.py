"""The example scripts run (they are documentation, so they must not rot)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("script", ["convergence_quickstart.py", "streaming_monitor.py",
                                    "regimes_quickstart.py", "quality_quickstart.py",
                                    "describe_quickstart.py", "proxy_governance.py",
                                    "windows_quickstart.py", "sweep_quickstart.py", "marl_quickstart.py"])
def test_example_script_runs(script, tmp_path):
    args = [sys.executable, str(EXAMPLES / script)]
    if script != "streaming_monitor.py":
        args += ["--plot", str(tmp_path / "q.png")]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "MPLBACKEND": "Agg"}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_bundled_log_is_what_the_generator_writes():
    sys.path.insert(0, str(EXAMPLES))
    try:
        from make_example_log import make_log
    finally:
        sys.path.pop(0)
    bundled = pd.read_csv(EXAMPLES / "data" / "reward_log.csv", comment="#")
    pd.testing.assert_frame_equal(bundled, make_log(), check_dtype=False)


def test_bundled_interactions_are_what_the_generator_writes():
    sys.path.insert(0, str(EXAMPLES))
    try:
        from make_example_interactions import make_interactions
    finally:
        sys.path.pop(0)
    bundled = pd.read_csv(EXAMPLES / "data" / "interactions.csv")
    pd.testing.assert_frame_equal(bundled, make_interactions(), check_dtype=False)


@pytest.mark.parametrize("script,needs", [
    ("hf_trainer.py", ("torch", "transformers", "accelerate")),
    ("lightning_trainer.py", ("torch", "lightning")),
    ("keras_model.py", ("torch", "keras")),
    ("sb3_agent.py", ("torch", "stable_baselines3")),
    ("ray_tune.py", ("ray",)),
    ("optuna_study.py", ("optuna",)),
    ("mlflow_server.py", ("mlflow",)),
])
def test_integration_examples_run(script, needs, tmp_path):
    for module in needs:
        # looked up, not imported: importing keras here would fix its backend (TensorFlow by
        # default) in this process; the script sets its own
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")
    result = subprocess.run([sys.executable, str(EXAMPLES / "integrations" / script)], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path,
                            env={**os.environ, "MPLBACKEND": "Agg", "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert "stop" in result.stdout
