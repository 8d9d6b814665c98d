"""`swarmstats compare`: sets of runs (seeds) compared by their final scores, the claim that
the first is better shown or not (exit 0 / 1), and --plan's runs per set."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats.compare import seeds_needed
from tests.test_cli import run


def _sets(root, levels, seeds=8, steps=200, seed=0):
    """runs/<set>/seed=<i>/progress.csv: reward settling at the set's level, a loss falling to it."""
    rng = np.random.default_rng(seed)
    for name, level in levels.items():
        for i in range(seeds):
            folder = root / name / f"seed={i}"
            folder.mkdir(parents=True)
            t = np.arange(steps)
            own = level + 0.05 * rng.normal()  # seeds differ
            reward = own * (1 - np.exp(-t / 20)) + 0.05 * rng.normal(size=steps)
            loss = 1.0 / (1 + own) + 0.02 * rng.normal(size=steps)
            pd.DataFrame({"step": t, "reward": reward, "loss": loss}).to_csv(folder / "progress.csv", index=False)
    return {name: str(root / name / "*" / "progress.csv") for name in levels}


def test_a_clearly_better_set_is_shown_and_the_reverse_claim_is_not(tmp_path):
    sets = _sets(tmp_path, {"new": 1.0, "old": 0.7})
    done = run("compare", sets["new"], sets["old"], "-m", "reward", "--names", "new", "old")
    assert done.returncode == 0, done.stderr
    assert "new better than old" in done.stdout and "- shown" in done.stdout
    done = run("compare", sets["old"], sets["new"], "-m", "reward", "--names", "old", "new")
    assert done.returncode == 1 and "not shown" in done.stdout
    # lower is better for a loss: the new set's lower loss makes it the better one
    done = run("compare", sets["new"], sets["old"], "-m", "loss", "--names", "new", "old", "--format", "json")
    payload = json.loads(done.stdout)
    assert done.returncode == 0 and payload["better"] == "lower" and payload["claims"][0]["shown"]


def test_equal_sets_are_not_called_different(tmp_path):
    sets = _sets(tmp_path, {"a": 0.8, "b": 0.8}, seed=3)
    done = run("compare", sets["a"], sets["b"], "-m", "reward", "--format", "json")
    payload = json.loads(done.stdout)
    assert done.returncode == 1 and not payload["shown"]
    claim = payload["claims"][0]
    assert claim["low"] < 0.5 < claim["high"]  # the interval holds "no difference"


def test_plan_gives_the_runs_per_set_of_a_two_sample_t_test(tmp_path):
    sets = _sets(tmp_path, {"a": 0.8, "b": 0.75}, seed=5)
    done = run("compare", sets["a"], sets["b"], "-m", "reward", "--plan", "0.05", "--format", "json")
    plan = json.loads(done.stdout)["plan"]
    scores = []
    for pattern in sets.values():  # the same scores: the mean of each run's last tenth
        import glob
        scores.append([pd.read_csv(f)["reward"].to_numpy()[-20:].mean() for f in sorted(glob.glob(pattern))])
    sd = np.sqrt(np.mean([np.var(s, ddof=1) for s in scores]))
    assert plan["sd"] == pytest.approx(sd)
    assert plan["runs_per_set"] == seeds_needed(0.05, sd) and plan["runs_now"] == {sets["a"]: 8, sets["b"]: 8}
    # and with more evaluation points per run: never more runs, never fewer than the seeds' spread allows
    runs = [row["runs_per_set"] for row in plan["rows"]]
    assert runs[0] == plan["runs_per_set"] and runs == sorted(runs, reverse=True)
    assert [row["points"] for row in plan["rows"]] == [20, 40, 80, 160, 320]
    assert plan["floor"] == seeds_needed(0.05, plan["between_sd"]) <= runs[-1]
    text = run("compare", sets["a"], sets["b"], "-m", "reward", "--plan", "0.05").stdout
    assert "20 points: " in text and "never fewer than" in text


def test_seeds_needed_agrees_with_statsmodels_power_solver():
    power = pytest.importorskip("statsmodels.stats.power")
    for delta, sd in ((1.0, 1.0), (0.5, 1.0), (0.2, 1.0), (3.0, 1.0), (0.1, 0.35)):
        exact = power.TTestIndPower().solve_power(effect_size=delta / sd, alpha=0.05, power=0.8)
        assert seeds_needed(delta, sd) == int(np.ceil(exact))


@pytest.mark.parametrize("extra, match", [
    (["--names", "only-one"], "one per set"),
    (["--last", "0"], "--last"),
    (["--plan", "0.1", "--last", "0.01"], "--plan: a run's score averages only 2 value"),
])
def test_bad_options_are_one_clear_error(tmp_path, extra, match):
    sets = _sets(tmp_path, {"a": 0.8, "b": 0.7}, seeds=3)
    done = run("compare", sets["a"], sets["b"], "-m", "reward", *extra)
    assert done.returncode == 2 and match in done.stderr and "Traceback" not in done.stderr


def test_one_set_or_a_missing_one_is_refused(tmp_path):
    sets = _sets(tmp_path, {"a": 0.8}, seeds=3)
    done = run("compare", sets["a"], "-m", "reward")
    assert done.returncode == 2 and "two or more sets" in done.stderr
    done = run("compare", sets["a"], str(tmp_path / "nothing" / "*.csv"), "-m", "reward")
    assert done.returncode == 2 and "no file matches" in done.stderr


def test_two_single_runs_are_pointed_to_best_of(tmp_path):
    # two checkpoints' evaluations, one file each: nothing about seeds, but best-of picks the
    # better run by its own (autocorrelation-aware) values, and the refusal says so
    _sets(tmp_path, {"a": 0.8, "b": 0.7}, seeds=1)
    a, b = (tmp_path / name / "seed=0" / "progress.csv" for name in ("a", "b"))
    done = run("compare", a, b, "-m", "reward")
    assert done.returncode == 2 and "a set needs at least two" in done.stderr
    assert "swarmstats best-of PATH PATH -m reward --last 1" in done.stderr
    best = run("best-of", a, b, "-m", "reward", "--last", "1")
    assert best.returncode == 0 and best.stdout.startswith("best of 2:")


def _paired_sets(root, seeds_a, seeds_b, edge=0.02, seed=11):
    """Both sets share a large per-seed effect (the seed decides most of the score): set a is
    `edge` better on every seed it shares with b."""
    rng = np.random.default_rng(seed)
    effect = {s: rng.normal() for s in set(seeds_a) | set(seeds_b)}
    for name, seeds, shift in (("a", seeds_a, edge), ("b", seeds_b, 0.0)):
        for s in seeds:
            folder = root / name / f"seed={s}"
            folder.mkdir(parents=True)
            reward = effect[s] + shift + 0.001 * rng.normal(size=100)
            pd.DataFrame({"step": np.arange(100), "reward": reward}).to_csv(folder / "progress.csv", index=False)
    return str(root / "a" / "*" / "progress.csv"), str(root / "b" / "*" / "progress.csv")


def test_runs_that_share_seeds_are_compared_seed_by_seed(tmp_path):
    a, b = _paired_sets(tmp_path, range(8), range(8))
    done = run("compare", a, b, "-m", "reward", "--format", "json")
    claim = json.loads(done.stdout)["claims"][0]
    # a wins on all 8 seeds: the Wilson interval of 8/8 lies above 1/2 - while the sets as
    # independent samples overlap almost completely (the seed effect is 50x the edge)
    assert claim["paired"] and claim["pairs"] == 8 and claim["probability"] == 1.0
    assert claim["shown"] and done.returncode == 0
    assert "wins on 8 of 8 shared seeds = 1" in run("compare", a, b, "-m", "reward").stdout


def test_runs_with_other_seeds_are_compared_as_independent_samples(tmp_path):
    a, b = _paired_sets(tmp_path, range(8), range(10, 18))
    done = run("compare", a, b, "-m", "reward", "--format", "json")
    claim = json.loads(done.stdout)["claims"][0]
    assert not claim["paired"] and claim["pairs"] is None
    assert not claim["shown"] and done.returncode == 1  # a 0.02 edge under a 1-SD seed effect


def _task_sets(root, tasks, seeds, edge, seeded=True):
    """runs/<set>/env=<task>/[seed=<i> | run<i>]/progress.csv: each task on its own scale, each seed
    its own luck (shared by both sets), the first set better by ``edge`` of the task's scale."""
    rng = np.random.default_rng(11)
    luck = {(task, s): rng.normal() for task in tasks for s in range(seeds)}
    for name, shift in (("new", edge), ("old", 0.0)):
        for k, task in enumerate(tasks):
            scale = 10.0 ** (k % 3)
            for s in range(seeds):
                folder = root / name / f"env={task}" / (f"seed={s}" if seeded else f"run{s}")
                folder.mkdir(parents=True)
                level = scale * (1.0 + shift + 0.2 * luck[(task, s)])
                reward = level + 0.001 * scale * rng.normal(size=50)
                pd.DataFrame({"step": np.arange(50), "reward": reward}).to_csv(folder / "progress.csv", index=False)
    return str(root / "new" / "*" / "*" / "progress.csv"), str(root / "old" / "*" / "*" / "progress.csv")


def test_runs_on_several_tasks_pair_by_task_and_seed(tmp_path):
    new, old = _task_sets(tmp_path, ["Hopper", "Walker", "Ant"], seeds=4, edge=0.02)
    done = run("compare", new, old, "-m", "reward", "--task", "env", "--names", "new", "old", "--format", "json")
    payload = json.loads(done.stdout)
    claim = payload["claims"][0]
    assert claim["paired"] and claim["paired_on"] == "(task, seed) pairs" and claim["pairs"] == 12
    assert claim["probability"] == 1.0 and claim["shown"] and done.returncode == 0
    assert {row["n_tasks"] for row in payload["table"]} == {3} and {row["n_runs"] for row in payload["table"]} == {4}
    text = run("compare", new, old, "-m", "reward", "--task", "env", "--names", "new", "old").stdout
    assert "it wins on 12 of 12 shared (task, seed) pairs = 1" in text


def test_runs_without_seeds_pair_by_task(tmp_path):
    new, old = _task_sets(tmp_path, [f"task{k}" for k in range(8)], seeds=3, edge=0.05, seeded=False)
    done = run("compare", new, old, "-m", "reward", "--task", "env", "--names", "new", "old")
    assert done.returncode == 0, done.stderr
    assert "it wins on 8 of 8 shared tasks = 1" in done.stdout


@pytest.mark.parametrize("layout, message", [
    ("unequal", "different numbers of runs"),
    ("other tasks", "compare the same tasks"),
    ("no task", "no 'algo' parameter"),
])
def test_task_pairing_refuses_what_does_not_line_up(tmp_path, layout, message):
    new, old = _task_sets(tmp_path, ["A", "B"], seeds=3, edge=0.02)
    if layout == "unequal":
        import shutil
        shutil.rmtree(tmp_path / "new" / "env=A" / "seed=0")
    elif layout == "other tasks":
        (tmp_path / "old" / "env=B").rename(tmp_path / "old" / "env=C")
    done = run("compare", new, old, "-m", "reward", "--task", "algo" if layout == "no task" else "env")
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_seed_paired_claim_needs_the_sign_test_to_agree():
    # Wilson's interval for 5 wins in 5 seeds lies above 1/2 (0.566), but chance gives 5 of 5
    # one time in 32 - more than the one-sided 2.5% - so 5 seeds cannot show it; 6 can (1/64)
    from swarmstats.cli.compare import _paired_claim

    def found(scores):
        return {"scores": np.asarray(scores, dtype=float), "seeds": list(range(len(scores))), "tasks": None}

    for seeds, shown in ((5, False), (6, True)):
        read = {"a": found(np.arange(seeds) + 1.0), "b": found(np.arange(seeds) + 0.5)}
        claim = _paired_claim("a", "b", read, "higher", 0.95)
        assert claim["probability"] == 1.0 and claim["low"] > 0.5
        assert claim["pvalue"] == pytest.approx(0.5 ** seeds) and claim["shown"] is shown
        assert claim["runs_needed"] == (None if shown else 6)


def test_runs_of_several_environments_are_flagged_and_compared_by_task_when_asked(tmp_path):
    """SB3 monitor files name their environment: pooling CartPole's 500 with Pong's 21 compares
    reward scales, not algorithms, so the command says so; --task env_id compares per
    environment (the header's env_id is a run parameter) and then says nothing."""
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3"
    for name, files in {"a": ("a2c-CartPole-v1", "a2c-Pong-v4"), "b": ("dqn-CartPole-v1", "ppo-Pong-v4")}.items():
        (tmp_path / name).mkdir()
        for file in files:
            (tmp_path / name / f"{file}.monitor.csv").write_bytes((real / f"{file}.monitor.csv").read_bytes())
    sets = [str(tmp_path / name / "*.monitor.csv") for name in ("a", "b")]
    pooled = run("compare", *sets, "-m", "r", "--last", "0.5")
    assert pooled.returncode in (0, 1), pooled.stderr
    assert "2 environments (CartPole-v1, PongNoFrameskip-v4" in pooled.stderr
    assert "--task env_id" in pooled.stderr
    by_task = run("compare", *sets, "-m", "r", "--last", "0.5", "--task", "env_id", "--format", "json")
    assert by_task.returncode in (0, 1), by_task.stderr
    assert "environments" not in by_task.stderr
    assert json.loads(by_task.stdout)["claims"][0]["paired_on"] is not None


def test_a_set_whose_runs_are_named_as_other_settings_is_flagged(tmp_path):
    # a set is pooled as seeds: A2C and DQN on CartPole in one set make its spread a spread
    # between algorithms
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3"
    mixed = run("compare", real / "*-CartPole-v1.monitor.csv", real / "*Pong*.monitor.csv", "-m", "r",
                "--names", "cartpole", "pong")
    assert mixed.returncode in (0, 1), mixed.stderr
    assert "the runs of set cartpole are of 2 settings by their names (a2c-CartPole-v1, dqn-CartPole-v1" in mixed.stderr
    assert "set pong are of 2 settings" in mixed.stderr and "not a spread" not in mixed.stderr
    # numbered runs of one setting per set: nothing said
    rng = np.random.default_rng(1)
    for algo in ("ppo", "sac"):
        for seed in (1, 2, 3):
            pd.DataFrame({"step": range(20), "r": rng.normal(size=20)}).to_csv(tmp_path / f"{algo}_seed{seed}.csv",
                                                                             index=False)
    seeds = run("compare", tmp_path / "ppo_*.csv", tmp_path / "sac_*.csv", "-m", "r")
    assert seeds.returncode in (0, 1), seeds.stderr
    assert "settings" not in seeds.stderr


def test_worker_files_split_into_two_sets_are_named_as_workers():
    pendulum = Path(__file__).resolve().parent / "fixtures" / "real" / "sb3" / "ppo-Pendulum-v1"
    done = run("compare", pendulum / "[01].monitor.csv", pendulum / "[23].monitor.csv", "-m", "r")
    assert done.returncode == 1  # not shown, as before
    assert "workers of one vectorised run" in done.stderr and "not seeds" in done.stderr



def _runs_table(path, rewards: dict, failed: bool = True):
    """What ``mlflow.search_runs().to_csv(index=False)`` writes for a sweep: a row per run,
    ``rewards`` {lr: final rewards, one per seed}; and a failed run, which has no score."""
    header = ("run_id,experiment_id,status,start_time,metrics.reward,metrics.loss,params.lr,params.seed,"
              "tags.mlflow.runName\n")
    rows, i = [], 0
    for lr, values in rewards.items():
        for seed, value in enumerate(values):
            rows.append(f"{i:032x},1,FINISHED,2024-05-01 10:{i:02d}:00+00:00,{value},{1 / value},{lr},{seed},"
                        f"ppo-{lr}-{seed}\n")
            i += 1
    if failed:  # a run that crashed early: its last reward is no final value
        rows.append(f"{i:032x},1,FAILED,2024-05-01 10:{i:02d}:00+00:00,3.0,9.0,0.01,0,ppo-crashed\n")
    path.write_text(header + "".join(rows))
    return str(path)


def test_one_runs_table_compares_the_settings_named(tmp_path):
    """A sweep's final values in one MLflow runs table were refused ("two or more sets"): the
    settings --names picks are the sets, each finished run's final value its score."""
    rng = np.random.default_rng(4)
    rewards = {"0.001": 480 + 5 * rng.normal(size=6), "0.0003": 400 + 5 * rng.normal(size=6),
               "0.01": 470 + 5 * rng.normal(size=6)}
    path = _runs_table(tmp_path / "runs.csv", rewards)
    done = run("compare", path, "-m", "reward", "--names", "lr=0.001", "lr=0.0003", "--format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    table = {row["name"]: row for row in payload["table"]}
    assert table["lr=0.001"]["n_runs"] == 6  # the failed run is no replicate
    assert table["lr=0.001"]["mean"] == pytest.approx(rewards["0.001"].mean(), rel=1e-12)
    assert table["lr=0.0003"]["mean"] == pytest.approx(rewards["0.0003"].mean(), rel=1e-12)
    assert payload["shown"] and "left out 1 run(s) not finished (1 failed)" in done.stderr
    # the other way round, and against a setting it does not beat by much with 6 seeds each
    assert run("compare", path, "-m", "reward", "--names", "lr=0.0003", "lr=0.001").returncode == 1
    done = run("compare", path, "-m", "loss", "--names", "lr=0.001", "lr=0.0003", "lr=0.01")
    assert "lower loss is better" in done.stdout and "lr=0.001 better than lr=0.0003" in done.stdout


def test_one_runs_table_pairs_the_settings_on_their_seeds(tmp_path):
    """The runs of one MLflow table were compared as independent samples, their params.seed
    dropped: with a seed effect 50 times the real edge nothing could be shown.  Now they pair
    on the seeds they share, as sets of run folders do; without a seed column, or with a seed
    repeated within a setting, they stay independent."""
    rng = np.random.default_rng(9)
    seed_effect = 100 * rng.normal(size=8)
    rewards = {"0.001": 400 + seed_effect + 2, "0.0003": 400 + seed_effect + 0.1 * rng.normal(size=8)}
    path = _runs_table(tmp_path / "runs.csv", rewards)
    done = run("compare", path, "-m", "reward", "--names", "lr=0.001", "lr=0.0003", "--format", "json")
    assert done.returncode == 0, done.stderr
    claim = json.loads(done.stdout)["claims"][0]
    assert claim["paired"] and claim["paired_on"] == "seeds" and claim["pairs"] == 8 and claim["probability"] == 1
    # the same scores with no seed column: independent samples, and the edge is not shown
    text = Path(path).read_text().replace(",params.seed", "")
    unseeded = tmp_path / "unseeded.csv"
    unseeded.write_text("\n".join(",".join(cell for i, cell in enumerate(line.split(",")) if i != 7)
                                  if line and not line.startswith("run_id") else line
                                  for line in text.split("\n")))
    done = run("compare", str(unseeded), "-m", "reward", "--names", "lr=0.001", "lr=0.0003", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert not json.loads(done.stdout)["claims"][0]["paired"]


@pytest.mark.parametrize("extra, message", [
    ((), "holds runs' final values in 3 settings (lr=0.001, lr=0.0003, lr=0.01): say which to compare, "
         "the first with the others: --names lr=0.001 lr=0.0003"),
    (("--names", "lr=0.001", "lr=0.1"), "--names: no setting 'lr=0.1'"),
    (("--names", "lr=0.001"), "--names: give two or more different settings"),
    (("--names", "lr=0.001", "lr=0.01", "--plan", "5"), "--plan: "),
    (("--names", "lr=0.001", "lr=0.01", "--task", "env"), "--task: "),
    (("--names", "lr=0.001", "lr=0.01", "-m", "nope"), "no metric 'nope'"),
])
def test_one_runs_table_without_a_clear_choice_is_refused(tmp_path, extra, message):
    path = _runs_table(tmp_path / "runs.csv", {"0.001": [480, 470, 490], "0.0003": [400, 410, 405],
                                               "0.01": [450, 460, 470]})
    metric = () if "-m" in extra else ("-m", "reward")
    done = run("compare", path, *metric, *extra)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_one_file_that_is_not_a_table_of_settings_is_refused(tmp_path):
    done = run("compare", "examples/data/reward_log.csv", "-m", "reward")
    assert done.returncode == 2 and "two or more sets of runs" in done.stderr and "is one set" in done.stderr
    # a setting with a single finished run: no spread between seeds to compare
    path = _runs_table(tmp_path / "runs.csv", {"0.001": [480, 470], "0.0003": [400]}, failed=False)
    done = run("compare", path, "-m", "reward", "--names", "lr=0.001", "lr=0.0003")
    assert done.returncode == 2 and "1 run(s) of lr=0.0003" in done.stderr, done.stderr
