"""`swarmstats curves`: runs behind a glob drawn as across-seed learning curves."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.test_cli import run


def _runs(root, seeds=5):
    rng = np.random.default_rng(0)
    for i in range(seeds):
        steps = np.arange(0, 300 + 40 * i, 10)  # each seed ran a little longer
        reward = 1 - np.exp(-steps / 80) + 0.05 * rng.normal(size=len(steps))
        folder = root / f"seed={i}"
        folder.mkdir(parents=True)
        pd.DataFrame({"step": steps, "reward": reward}).to_csv(folder / "progress.csv", index=False)
    return str(root / "*" / "progress.csv")


def test_curves_are_drawn_and_summarised(tmp_path):
    pattern = _runs(tmp_path / "runs")
    image = tmp_path / "curves.png"
    done = run("curves", pattern, "-m", "reward", "-o", image)
    assert done.returncode == 0, done.stderr
    assert image.stat().st_size > 5000 and image.read_bytes()[:4] == b"\x89PNG"
    assert "reward: 5 runs on 200 steps" in done.stdout and "end at different steps" in done.stdout
    payload = json.loads(run("curves", pattern, "-m", "reward", "--points", "50", "--format", "json").stdout)
    table = pd.DataFrame(payload["results"][0]["table"])
    assert len(table) == 50 and table["n_runs"].iloc[0] == 5 and table["n_runs"].iloc[-1] == 1


def test_one_run_or_a_missing_metric_is_one_clear_error(tmp_path):
    pattern = _runs(tmp_path / "runs", seeds=1)
    done = run("curves", pattern, "-m", "reward")
    assert done.returncode == 2 and "at least two" in done.stderr
    pattern = _runs(tmp_path / "more", seeds=2)
    done = run("curves", pattern, "-m", "loss")
    assert done.returncode == 2 and "seed=0" in done.stderr and "Traceback" not in done.stderr


def test_curves_over_several_environments_say_so():
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3"
    done = run("curves", real / "dqn-CartPole-v1.monitor.csv", real / "ppo-Pong-v4.monitor.csv", "-m", "r")
    assert done.returncode == 0, done.stderr
    assert "2 environments" in done.stderr and "mix their reward scales" in done.stderr
    same = run("curves", real / "dqn-CartPole-v1.monitor.csv", real / "a2c-CartPole-v1.monitor.csv", "-m", "r")
    assert same.returncode == 0 and "environments" not in same.stderr
    # ... but two algorithms: their band is not a band across seeds
    assert "2 settings by their names (dqn-CartPole-v1, a2c-CartPole-v1" in same.stderr
    assert "not a band across seeds" in same.stderr


def test_curves_of_numbered_runs_are_seeds_and_not_flagged(tmp_path):
    rng = np.random.default_rng(0)
    for seed in (1, 2, 3):
        pd.DataFrame({"step": range(30), "reward": rng.normal(size=30)}).to_csv(tmp_path / f"ppo_seed{seed}.csv",
                                                                              index=False)
    done = run("curves", tmp_path / "*.csv", "-m", "reward")
    assert done.returncode == 0, done.stderr
    assert "settings" not in done.stderr
    (tmp_path / "sac_seed1.csv").write_bytes((tmp_path / "ppo_seed1.csv").read_bytes())
    mixed = run("curves", tmp_path / "*.csv", "-m", "reward")
    assert mixed.returncode == 0 and "2 settings by their names (ppo, sac)" in mixed.stderr
    # ppo's three seeds get their band; sac's one run has none, and is said to be left out
    assert "reward [ppo]: 3 runs" in mixed.stdout and "[sac]" not in mixed.stdout
    assert "sac: one run, no band across seeds: left out" in mixed.stderr


def test_curves_of_several_settings_give_a_band_across_the_seeds_of_each(tmp_path):
    """A Spinning Up data folder (data/ppo/ppo_s0 ...): one band per algorithm, drawn in one
    panel to compare them, where pooling them drew one band across two algorithms."""
    rng = np.random.default_rng(1)
    header = "Epoch\tAverageEpRet\tTotalEnvInteracts\n"
    for algorithm, level in (("ppo", 1.0), ("sac", 5.0)):
        for seed in range(3):
            folder = tmp_path / "data" / algorithm / f"{algorithm}_s{seed}"
            folder.mkdir(parents=True)
            rows = [f"{epoch}\t{level * (1 - np.exp(-epoch / 10)) + 0.1 * rng.normal()}\t{4000 * (epoch + 1)}\n"
                    for epoch in range(40)]
            (folder / "progress.txt").write_text(header + "".join(rows))
    image = tmp_path / "settings.png"
    done = run("curves", tmp_path / "data", "-m", "AverageEpRet", "-o", image, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "2 settings by their names (ppo, sac): a band across the seeds of each" in done.stderr
    results = {r["name"]: pd.DataFrame(r["table"]) for r in json.loads(done.stdout)["results"]}
    assert sorted(results) == ["AverageEpRet [ppo]", "AverageEpRet [sac]"]
    ppo, sac = (results[f"AverageEpRet [{name}]"].iloc[-1] for name in ("ppo", "sac"))
    assert ppo["n_runs"] == sac["n_runs"] == 3
    assert ppo["mean_high"] < 1.5 and sac["mean_low"] > 4.5  # each band around its own level
    assert image.stat().st_size > 5000 and image.read_bytes()[:4] == b"\x89PNG"
