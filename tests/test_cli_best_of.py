"""`swarmstats best-of`: the best of several runs, adjusted for being picked."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.test_cli import run


def _runs(root, levels, steps=200, seed=0):
    rng = np.random.default_rng(seed)
    for i, level in enumerate(levels):
        folder = root / f"seed={i}"
        folder.mkdir(parents=True)
        reward = level + 0.1 * rng.normal(size=steps)
        pd.DataFrame({"step": np.arange(steps), "reward": reward, "loss": -reward}).to_csv(
            folder / "progress.csv", index=False)
    return str(root / "*" / "progress.csv")


def test_the_winner_is_reported_measured_and_adjusted(tmp_path):
    runs = _runs(tmp_path, [0.5] * 12)
    done = run("best-of", runs, "-m", "reward", "--format", "json", "--plot", str(tmp_path / "best.png"))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["results"][0]
    assert result["n_arms"] == 12 and result["better"] == "higher"
    assert result["estimate"] < result["naive_estimate"] and result["ci"][0] < 0.5 < result["ci"][1]
    assert (tmp_path / "best.png").stat().st_size > 0
    text = run("best-of", runs, "-m", "reward").stdout
    assert text.startswith("best of 12: ") and "adjusted for picking the best" in text


def test_a_loss_picks_the_lowest(tmp_path):
    runs = _runs(tmp_path, [0.5, 0.5, 0.9, 0.5])  # seed 2 has the highest reward, so the lowest loss
    done = run("best-of", runs, "-m", "loss", "--format", "json")
    result = json.loads(done.stdout)["results"][0]
    assert result["better"] == "lower" and "seed=2" in result["best"] and result["p_best"] > 0.99


def test_too_few_values_in_the_tail_is_one_clear_error(tmp_path):
    runs = _runs(tmp_path, [0.5, 0.6], steps=20)
    done = run("best-of", runs, "-m", "reward", "--last", "0.1")
    assert done.returncode == 2 and "at least 4" in done.stderr and "Traceback" not in done.stderr


def test_the_best_of_runs_on_several_environments_is_flagged():
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3"
    done = run("best-of", real / "dqn-CartPole-v1.monitor.csv", real / "ppo-Pong-v4.monitor.csv", "-m", "r")
    assert done.returncode == 0, done.stderr
    assert "2 environments" in done.stderr and "largest rewards" in done.stderr
