"""Sweeps: the same answers on every backend, failures isolated, aggregation, SWARM's regime
and critical-value rules, the logistic transition's coverage, and the command line."""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.sweeps import (
    RegimeRules,
    classify_regime,
    critical_value,
    midpoint_rule,
)
from swarmstats.sweeps.runs import discover, path_params

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from make_example_sweep import make_run, write_sweep  # noqa: E402

FRACTIONS = [0.0, 0.2, 0.3, 0.4, 0.5]


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    write_sweep(str(folder), FRACTIONS, 3)
    broken = folder / "adv=0.2" / "seed=9" / "epochs.csv"
    broken.parent.mkdir(parents=True)
    broken.write_text("epoch,toxicity_rate,quality_gap\n0,0.2,0.1\n1,high,0.1\n")  # a malformed run
    return folder


def _json(result) -> str:
    return json.dumps(result.to_dict(), sort_keys=True)


def test_same_answers_on_one_and_two_workers_and_dask(sweep_dir):
    pattern = str(sweep_dir / "adv=*" / "seed=*" / "epochs.csv")
    options = dict(by=["adv"], phase="adv", metrics=["toxicity_rate"], progress=False)
    one = ss.sweep(pattern, workers=1, **options)
    two = ss.sweep(pattern, workers=2, **options)
    assert _json(one) == _json(two)
    pytest.importorskip("dask.distributed")
    on_dask = ss.sweep(pattern, backend="dask", workers=2, **options)
    assert _json(on_dask) == _json(one)


def test_a_malformed_run_is_reported_and_the_rest_analysed(sweep_dir):
    result = ss.sweep(str(sweep_dir / "adv=*" / "seed=*" / "epochs.csv"), by=["adv"],
                      metrics=["toxicity_rate"], workers=1, progress=False)
    assert result.n_runs == 16 and result.n_failed == 1
    failed = [r for r in result.runs if r["status"] == "error"]
    assert "seed=9" in failed[0]["name"] and "mixes numbers and text" in failed[0]["error"]
    row = result.table[result.table["adv"] == 0.2].iloc[0]
    assert row["runs"] == 4 and row["failed"] == 1 and row["n"] == 3
    assert "FAILED" in result.summary()


def test_aggregation_by_setting(sweep_dir):
    result = ss.sweep(str(sweep_dir / "adv=*" / "seed=*" / "epochs.csv"), by=["adv"], phase="adv",
                      metrics=["toxicity_rate"], workers=1, progress=False)
    table = result.table.set_index("adv")
    assert table.loc[0.0, "share_cooperative"] == 1.0 and table.loc[0.5, "share_collapse"] == 1.0
    assert table.loc[0.0, "mean_low"] <= table.loc[0.0, "mean"] <= table.loc[0.0, "mean_high"]
    assert table.loc[0.5, "mean"] > table.loc[0.0, "mean"]  # toxicity rises with the fraction
    # 30 noisy epochs cannot show a run flat: no run is called converged on that little data
    assert table.loc[0.0, "share_converged"] == 0.0
    phase = result.phase
    assert phase["parameter"] == "adv" and phase["ci"][0] < phase["logistic"] < phase["ci"][1]
    assert 0.2 < phase["logistic"] < 0.45


def test_the_across_seed_mean_interval_covers_with_three_runs():
    # three runs per setting: a percentile bootstrap of their means is their range, which holds
    # the true mean far less often than 95%; Student's t on 2 degrees of freedom does
    from swarmstats.sweeps.aggregate import by_setting
    rng = np.random.default_rng(7)
    reps = 400
    covered = 0
    for _ in range(reps):
        results = [{"status": "ok", "params": {}, "regime": None,
                    "metrics": {"r": {"mean": float(m), "converged": True}}} for m in rng.normal(size=3)]
        row = by_setting(results, [], n_boot=20).iloc[0]
        covered += row["mean_low"] <= 0.0 <= row["mean_high"]
    assert abs(covered / reps - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps), covered / reps


def test_one_long_file_split_by_group(tmp_path):
    frames = [make_run(f, s).assign(run=f"adv{f}-s{s}", adv=f) for f in (0.0, 0.5) for s in range(3)]
    path = tmp_path / "long.csv"
    pd.concat(frames).to_csv(path, index=False)
    result = ss.sweep(str(path), group="run", by=["adv"], metrics=["toxicity_rate"], workers=1,
                      progress=False)
    assert result.n_runs == 6 and set(result.table["adv"]) == {0.0, 0.5}


def test_a_folder_of_monitor_files_from_other_runs_is_a_run_each():
    # four unrelated SB3 runs side by side were one run of 30,071 episodes with mean 505.1
    folder = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3-long"
    specs = discover(str(folder))
    assert sorted(Path(spec.name).name for spec in specs) == [
        "ddpg-HopperBulletEnv-v0", "ppo-Hopper-v3", "qrdqn-Breakout-v4", "td3-Humanoid-v3"]
    result = ss.sweep(str(folder), metrics=["r"], workers=1, progress=False)
    assert result.n_runs == 4 and result.n_failed == 0
    # a folder of one run's workers stays one run
    assert len(discover(str(folder.parent / "sb3" / "ppo-Pendulum-v1"))) == 1


def test_runs_of_different_environments_are_never_summarised_together():
    """Ten SB3 monitor files of eight environments read "r mean 67.69 [-195.6, 301.1] over 10
    runs": CartPole's 500 averaged with Pendulum's -888.  Each monitor header names its
    environment; it is a run parameter (env_id), and a sweep always groups by it."""
    real = Path(__file__).resolve().parent / "fixtures" / "real"
    specs = discover(str(real / "sb3" / "*.monitor.csv"))
    assert {Path(s.name).name: s.params["env_id"] for s in specs}["dqn-MountainCar-v0.monitor.csv"] == "MountainCar-v0"
    result = ss.sweep(specs, metrics=["r"], checks=("describe",), workers=1, progress=False)
    assert result.by == ["env_id", "setting"]  # each file is a setting of its own: see the next test
    assert set(result.table["env_id"]) == {s.params["env_id"] for s in specs} and len(result.table) == 10
    cartpole = result.table[result.table["env_id"] == "CartPole-v1"]
    assert sorted(cartpole["setting"]) == ["a2c-CartPole-v1", "dqn-CartPole-v1"] and (cartpole["n"] == 1).all()
    assert any("8 environments" in note and "env_id" in note for note in result.notes)
    # the runs of a folder of several runs carry their own environments; a worker folder its one
    split = discover(str(real / "sb3-long"))
    assert sorted(s.params["env_id"] for s in split) == sorted(["BreakoutNoFrameskip-v4", "HopperBulletEnv-v0",
                                                                "Hopper-v3", "Humanoid-v3"])
    assert discover(str(real / "sb3" / "ppo-Pendulum-v1"))[0].params == {"env_id": "Pendulum-v0"}
    # one environment: nothing added for it
    one = ss.sweep(str(real / "sb3" / "*CartPole*.monitor.csv"), metrics=["r"], checks=("describe",),
                   workers=1, progress=False)
    assert one.by == ["setting"] and not any("environment" in note for note in one.notes)


def test_runs_whose_names_say_other_settings_are_summarised_apart(tmp_path):
    """The corpus's a2c-CartPole-v1 and dqn-CartPole-v1 read "r mean 300.1 [-2240, 2840] over 2
    runs": two algorithms' spread given as a spread between seeds.  A run number at the end of a
    name marks a seed; a name that differs in anything else is another setting."""
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3"
    pooled = ss.sweep(str(real / "*CartPole*.monitor.csv"), metrics=["r"], checks=("describe",), workers=1,
                      progress=False)
    assert pooled.by == ["setting"] and list(pooled.table["setting"]) == ["a2c-CartPole-v1", "dqn-CartPole-v1"]
    assert list(pooled.table["n"]) == [1, 1] and "mean_low" not in pooled.table  # no interval from one run
    assert any("2 settings (a2c-CartPole-v1, dqn-CartPole-v1)" in note for note in pooled.notes)
    # run folders named after their setting and seed: the seeds of each setting together
    rng = np.random.default_rng(3)
    for name, level in (("ppo_seed1", 1.0), ("ppo_seed2", 1.0), ("ppo_seed3", 1.0), ("sac_seed1", 5.0),
                        ("sac_seed2", 5.0)):
        (tmp_path / name).mkdir()
        pd.DataFrame({"step": range(80), "reward": level + rng.normal(size=80)}).to_csv(
            tmp_path / name / "progress.csv", index=False)
    result = ss.sweep(str(tmp_path), metrics=["reward"], checks=("convergence",), workers=1, progress=False)
    table = result.table.set_index("setting")
    assert result.by == ["setting"] and table["n"].to_dict() == {"ppo": 3, "sac": 2}
    assert table.loc["ppo", "mean_low"] < 1.0 < table.loc["ppo", "mean_high"] < 5.0 < table.loc["sac", "mean_high"]
    assert "setting=ppo: reward mean" in result.summary()
    # --by given: the user's grouping stands, and 'setting' is a parameter to name
    by_hand = ss.sweep(str(tmp_path), by="setting", metrics=["reward"], checks=("describe",), workers=1,
                       progress=False)
    assert by_hand.by == ["setting"] and not any("names say" in note for note in by_hand.notes)
    # seeds of one setting only (PPO_1, PPO_2; seed=0 ... seed=2): pooled, nothing added
    for folder in ("sac_seed1", "sac_seed2"):
        for file in (tmp_path / folder).iterdir():
            file.unlink()
        (tmp_path / folder).rmdir()
    seeds = ss.sweep(str(tmp_path), metrics=["reward"], checks=("describe",), workers=1, progress=False)
    assert seeds.by == [] and list(seeds.table["n"]) == [3] and "setting" not in seeds.runs[0]["params"]

def test_a_path_segment_naming_the_environment_wins_over_the_monitor_header(tmp_path):
    source = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3" / "dqn-CartPole-v1.monitor.csv"
    folder = tmp_path / "env_id=cartpole-tuned"
    folder.mkdir()
    (folder / "0.monitor.csv").write_bytes(source.read_bytes())
    assert discover(str(folder / "0.monitor.csv"))[0].params == {"env_id": "cartpole-tuned"}
    # a header that names no environment (or is not JSON) gives no parameter
    (tmp_path / "plain.monitor.csv").write_text('#{"t_start": 1.0}\nr,l,t\n1,1,1\n2,1,2\n')
    assert discover(str(tmp_path / "plain.monitor.csv"))[0].params == {}


def test_swarm_regime_rules_exactly():
    def frame(acceptance, toxicity, total=50):
        n = len(acceptance)
        return pd.DataFrame({"step": range(n), "total_interactions": total,
                             "accepted_interactions": np.round(np.array(acceptance) * total),
                             "toxicity_rate": toxicity})

    rules = RegimeRules()
    assert classify_regime(frame([0.9] * 9, [0.2] * 9), rules)["regime"] == "cooperative"
    assert classify_regime(frame([0.9] * 6 + [0.3] * 3, [0.2] * 9), rules)["regime"] == "collapse"
    assert classify_regime(frame([0.6] * 9, [0.5] * 9), rules)["regime"] == "collapse"  # toxicity >= 0.5
    assert classify_regime(frame([0.6] * 9, [0.3] * 9), rules)["regime"] == "contested"
    assert classify_regime(frame([0.9] * 9, [0.2] * 9, total=0), rules)["regime"] == "collapse"  # nothing at all
    # the tail is the last third: an early collapse that recovered is cooperative
    assert classify_regime(frame([0.1] * 6 + [0.9] * 3, [0.2] * 9), rules)["regime"] == "cooperative"
    strict = RegimeRules(cooperative_acceptance=0.95)
    assert classify_regime(frame([0.9] * 9, [0.2] * 9), strict)["regime"] == "contested"
    assert classify_regime(pd.DataFrame({"step": [0], "reward": [1.0]}), rules) is None


def test_midpoint_rule_like_swarm():
    assert midpoint_rule(np.array([0.1, 0.2, 0.3]), np.array([0, 0, 1])) == pytest.approx(0.25)
    # overlap: a collapse below a stable value -> the smallest collapsing value
    assert midpoint_rule(np.array([0.1, 0.2, 0.2, 0.3]), np.array([0, 1, 0, 0])) == pytest.approx(0.2)
    assert midpoint_rule(np.array([0.1, 0.2]), np.array([0, 0])) is None


@pytest.mark.parametrize("seeds, reps", [(8, 100), (3, 300)])
def test_logistic_transition_covers_the_true_critical_value(seeds, reps):
    """Simulated sweeps (13 values, P(collapse) logistic around 0.3): the 95% interval of the
    50% point covers 0.3 within 3 binomial SE of 95%.  The stratified bootstrap's percentile
    interval used before covered 90% with 8 seeds per value and 81% with 3 (300 sweeps each);
    Firth's profile likelihood interval 95% and 97%."""
    rng = np.random.default_rng(8 + seeds)
    x = np.repeat(np.arange(0, 0.61, 0.05), seeds)
    covered = 0
    for _ in range(reps):
        y = (rng.uniform(size=len(x)) < 1 / (1 + np.exp(-(x - 0.3) / 0.04))).astype(float)
        low, high = critical_value(x, y)["ci"]
        covered += (low is None or low <= 0.3) and (high is None or 0.3 <= high)
    assert 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps) <= covered / reps <= 0.99, covered / reps


def test_a_transition_the_sweep_does_not_bound_has_an_open_interval():
    # one collapse at the top value of seven: the fall could be anywhere past the sweep
    x = np.repeat([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6], 3)
    y = np.zeros(len(x))
    y[-1] = 1.0
    estimate = critical_value(x, y)
    assert estimate["ci_open"] == "high" and estimate["ci"][1] is None and estimate["ci"][0] > 0.3
    import matplotlib

    matplotlib.use("Agg")
    from swarmstats.plots import draw
    from swarmstats.sweeps import SweepResult

    phase = {"parameter": "adv", **estimate, "collapse_share": {str(v): float(y[x == v].mean()) for v in np.unique(x)}}
    ax = draw(SweepResult(n_runs=len(x), n_failed=0, by=[], runs=[], table=None, phase=phase, notes=[]))
    assert "50% point, CI (open past the sweep)" in [text.get_text() for text in ax.get_legend().get_texts()]


def test_discovery_and_parameters(sweep_dir, tmp_path):
    assert path_params("a/lr=0.001,bs=32/seed=3/log.csv") == {"lr": 0.001, "bs": 32.0, "seed": 3.0}
    runs = discover(str(sweep_dir / "adv=0.3"))  # a directory of run folders
    assert len(runs) == 3 and all(r.params["adv"] == 0.3 for r in runs)
    folders = ss.sweep(str(sweep_dir / "adv=0.3"), metrics=["toxicity_rate"], workers=1, progress=False)
    assert folders.n_failed == 0  # each run folder holds one log, read whole
    with pytest.raises(ss.InputError, match="no file matches"):
        discover(str(tmp_path / "nothing-*.csv"))
    with pytest.raises(ss.InputError, match="exactly one file"):
        discover([str(tmp_path), str(tmp_path)], group="run")
    with pytest.raises(ss.InputError, match="backend must be one of"):
        ss.sweep(str(sweep_dir / "adv=0.3"), backend="spark")


def test_command_line(sweep_dir, tmp_path):
    from tests.test_cli import run
    pattern = str(sweep_dir / "adv=*" / "seed=*" / "epochs.csv")
    text = run("sweep", pattern, "--by", "adv", "--phase", "adv", "-m", "toxicity_rate", "--workers", "1")
    assert text.returncode == 0, text.stderr
    assert "collapse begins at adv" in text.stdout and "FAILED" in text.stdout
    payload = json.loads(run("sweep", pattern, "--by", "adv", "-m", "toxicity_rate", "--workers", "2",
                             "--format", "json").stdout)
    assert payload["command"] == "sweep" and payload["n_failed"] == 1 and len(payload["runs"]) == 16
    assert "time" not in json.dumps(payload["runs"][0])  # no timings or host names: comparable
    table = pd.read_csv(pd.io.common.StringIO(run("sweep", pattern, "--by", "adv", "-m", "toxicity_rate",
                                                  "--format", "csv", "--workers", "1").stdout))
    assert sorted(table["adv"]) == FRACTIONS
    png = tmp_path / "sweep.png"
    assert run("sweep", pattern, "--by", "adv", "--phase", "adv", "--workers", "1",
               "--plot", png).returncode == 0 and png.stat().st_size > 2000
    bad = run("sweep", str(tmp_path / "none-*.csv"))
    assert bad.returncode == 2 and "no file matches" in bad.stderr


def test_worker_files_given_one_by_one_are_named_as_such():
    """The four worker files of one SB3 PPO Pendulum run, globbed one by one, were four runs
    with a between-seed interval; the monitor reader merges them when given their folder.  A
    note now says they are one run's workers; files of other folders or environments are not."""
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3"
    result = ss.sweep(str(real / "ppo-Pendulum-v1" / "*.monitor.csv"), metrics=["r"], checks=("describe",),
                      workers=1, progress=False)
    assert result.n_runs == 4
    assert any("0.monitor.csv, 1.monitor.csv, 2.monitor.csv, 3.monitor.csv" in note
               and "workers of one vectorised run" in note for note in result.notes)
    # dqn CartPole and dqn MountainCar started in the same second, on other environments
    others = ss.sweep(str(real / "dqn-*.monitor.csv"), metrics=["r"], checks=("describe",), workers=1,
                      progress=False)
    assert not any("workers" in note for note in others.notes)


def test_ray_trials_are_grouped_by_their_parameters_not_their_unique_names(tmp_path):
    # a Ray trial's folder name is unique to it (its index, its tag, its start time): read as
    # names, four trials of two learning rates were four settings of one run each
    rng = np.random.default_rng(4)
    for i, (lr, seed) in enumerate([(0.001, 1), (0.001, 2), (0.01, 1), (0.01, 2)]):
        trial = tmp_path / f"PPO_CartPole-v1_3b2f1_{i:05d}_{i}_lr={lr:.4f},seed={seed}_2024-01-05_14-32-0{i}"
        trial.mkdir()
        (trial / "params.json").write_text(json.dumps({"lr": lr, "seed": seed, "env": "CartPole-v1",
                                                       "model": {"fcnet_hiddens": [64, 64]}}))
        base = 200 if lr == 0.001 else 120
        (trial / "progress.csv").write_text("training_iteration,episode_reward_mean\n" + "".join(
            f"{it},{base + rng.normal(0, 5):.2f}\n" for it in range(1, 101)))
    result = ss.sweep(str(tmp_path), metrics=["episode_reward_mean"], checks=("convergence",), workers=1,
                   progress=False)
    assert result.by == ["setting"]
    assert sorted(result.table["setting"]) == ["lr=0.001", "lr=0.01"] and set(result.table["n"]) == {2}
    # the experiment folder is read whole (each trial a run of the configuration its params.json
    # holds), and each trial keeps its parameters, as when its folder is given alone
    assert any(note.startswith("the runs' recorded configurations say they are of 2 settings (lr=0.001, lr=0.01)")
               for note in result.notes)
    # ... also when only params.json knows the learning rate (trials named trial_0, trial_1 ...):
    # a grouping by it read one group of lr None before
    plain = tmp_path / "plain"
    for i, trial in enumerate(sorted(p for p in tmp_path.iterdir() if p.name.startswith("PPO"))):
        shutil.copytree(trial, plain / f"trial_{i}")
    by_lr = ss.sweep(str(plain), metrics=["episode_reward_mean"], checks=("convergence",), by=["lr"],
                     workers=1, progress=False)
    assert sorted(by_lr.table["lr"]) == [0.001, 0.01] and set(by_lr.table["n"]) == {2}


def test_a_setting_whose_every_run_failed_is_summarised_as_unknown(tmp_path):
    """Its row holds no number: the summary stopped with 'cannot convert float NaN to integer'
    (found when describe failed on every run of one setting), then read 'cooperative nan%'."""
    write_sweep(str(tmp_path), [0.1], 2)
    broken = tmp_path / "adv=0.9" / "seed=0" / "epochs.csv"
    broken.parent.mkdir(parents=True)
    broken.write_text("epoch,toxicity_rate,quality_gap\n0,0.2,0.1\n1,high,0.1\n")
    result = ss.sweep(str(tmp_path / "adv=*" / "seed=*" / "epochs.csv"), by=["adv"],
                      metrics=["toxicity_rate"], workers=1, progress=False)
    line = next(line for line in result.summary().splitlines() if line.startswith("  adv=0.9"))
    assert line == "  adv=0.9: toxicity_rate mean n/a over 0 runs; converged n/a"
