"""A NaN the log wrote is a run that diverged; a cell it left empty is a value not logged.

A loss flat at 0.3 for 450 steps and NaN for the last 150 read "converged, exit 0": NaN was
read as missing, the 450 values before judged alone.  Every reader now marks a NaN the file
wrote (``nan`` in a CSV, ``NaN`` in JSON, a NaN float in TensorBoard and MLflow), and
check-convergence, report and sweep judge a metric ending in them as diverged, as one ending
in infinities.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats.errors import DivergedAtStart
from swarmstats.io import read_log, select_metric
from swarmstats.io.written_nan import WRITTEN_NAN, is_written, logged, mark
from tests.test_cli import run

REAL = Path(__file__).resolve().parent / "fixtures" / "real"


def _rows(n=600, cut=450, seed=1):
    rng = np.random.default_rng(seed)
    return [(i, 0.3 + 0.02 * rng.standard_normal() if i < cut else None) for i in range(n)]


def _csv(path, rows, missing="nan"):
    lines = ["step,loss,lr"] + [f"{i},{missing if v is None else v},0.001" for i, v in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_mark_is_a_nan_that_survives_what_the_readers_and_runs_do_to_a_column():
    values = mark(np.array([0.3, np.nan, 0.2, np.nan]), [False, True, False, True])
    assert np.isnan(values).tolist() == [False, True, False, True]
    assert is_written(values).tolist() == [False, True, False, True]
    assert logged(values).tolist() == [True, True, True, True]
    assert np.isnan(WRITTEN_NAN) and is_written([WRITTEN_NAN, float("nan")]).tolist() == [True, False]
    frame = pd.DataFrame({"run": ["a", "a", "b", "b"], "loss": values})
    # the operations between a reader and select_metric: rows kept, runs split, tables joined
    assert is_written(frame.iloc[1:]["loss"]).sum() == 2
    assert is_written(pd.concat([frame, frame])["loss"]).sum() == 4
    assert [int(is_written(part["loss"]).sum()) for _, part in frame.groupby("run")] == [1, 1]
    assert is_written(frame["loss"].astype(float)).sum() == 2
    # a missing cell pandas creates is an ordinary NaN: not written
    assert not is_written(frame.reindex(range(6))["loss"].iloc[4:]).any()


@pytest.mark.parametrize("big", [False, True], ids=["small", "big"])
def test_a_csv_marks_the_nan_it_wrote_and_not_its_empty_cells(tmp_path, big):
    # (big: past the 64 KiB head, pandas reads the file from its path)
    n = 6000 if big else 600
    rows = _rows(n, cut=n - 150)
    written = read_log(_csv(tmp_path / "nan.csv", rows), wide=True)
    empty = read_log(_csv(tmp_path / "empty.csv", rows, missing=""), wide=True)
    assert is_written(written["loss"]).sum() == 150 and not is_written(empty["loss"]).any()
    assert written["loss"].isna().sum() == empty["loss"].isna().sum() == 150
    for spelling in ("NaN", "-nan", " NAN "):  # (padded, pandas keeps the column as text)
        path = _csv(tmp_path / "spelt.csv", rows[:40] + [(40, None)], missing=spelling)
        loss = select_metric(read_log(path, wide=True), "loss", step="step", diverged=True)
        assert loss.attrs["diverged"] == {"row": 41, "step": 40, "values": 1, "kind": "NaN"}, spelling


def test_json_lines_json_and_trainer_state_mark_nan_not_missing_keys(tmp_path):
    records = [{"step": i, "loss": 0.3} for i in range(30)] + [{"step": 30, "loss": float("nan")},
                                                              {"step": 31}]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "log.json").write_text(json.dumps(records))
    (tmp_path / "trainer_state.json").write_text(json.dumps({"log_history": records}))
    for name in ("log.jsonl", "log.json", "trainer_state.json"):
        loss = read_log(tmp_path / name, wide=True).set_index("step")["loss"]
        assert is_written(loss.loc[[30]]).all() and not is_written(loss.drop(30)).any(), name


def test_tensorboard_and_mlflow_store_a_nan_only_when_it_was_logged(tmp_path):
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(tmp_path / "tb"))
    for step in range(30):
        value = 0.3 if step < 25 else float("nan")
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=value)])
        writer.add_event(event_pb2.Event(step=step, wall_time=1.0 + step, summary=summary))
    writer.close()
    assert is_written(read_log(tmp_path / "tb", wide=True)["loss"]).sum() == 5
    metrics = tmp_path / "mlrun" / "metrics"
    metrics.mkdir(parents=True)
    (tmp_path / "mlrun" / "meta.yaml").write_text("run_id: x\n")
    (metrics / "loss").write_text("".join(f"{1700000000000 + i} {0.3 if i < 25 else 'nan'} {i}\n"
                                          for i in range(30)))
    assert is_written(read_log(tmp_path / "mlrun", wide=True)["loss"]).sum() == 5


def test_select_metric_cuts_a_written_nan_end_and_leaves_a_transient_one_as_missing():
    values = np.r_[0.5 + np.zeros(40), np.nan, np.nan]
    frame = pd.DataFrame({"step": np.arange(42) * 10, "loss": mark(values, np.r_[np.zeros(41, bool), True])})
    series = select_metric(frame, "loss", step="step", diverged=True)
    # the run ends in an empty cell, then a written NaN: it diverged at the written one
    assert len(series) == 40 and series.attrs["diverged"] == {"row": 42, "step": 410, "values": 1, "kind": "NaN"}
    assert "diverged" not in select_metric(frame, "loss", step="step").attrs  # only when asked
    # a NaN written in the middle, finite values after it: a skipped step, left out and recorded
    middle = frame.assign(loss=mark(np.r_[0.5, np.nan, 0.5 + np.zeros(40)], np.r_[False, True, np.zeros(40, bool)]))
    assert len(series := select_metric(middle, "loss", step="step", diverged=True)) == 41
    assert series.attrs == {"skipped": {"values": 1, "kind": "NaN", "steps": [10], "at_end": False,
                                          "at_start": False}}
    both = frame.assign(loss=np.r_[0.5 + np.zeros(40), np.inf, WRITTEN_NAN])
    assert select_metric(both, "loss", step="step", diverged=True).attrs["diverged"]["kind"] == "NaN or infinite"
    dead = frame.assign(loss=WRITTEN_NAN)
    with pytest.raises(DivergedAtStart, match="'loss' is NaN from its first value on") as caught:
        select_metric(dead, "loss", step="step", diverged=True)
    assert caught.value.divergence == {"row": 1, "step": 0, "values": 42, "kind": "NaN", "from_start": True}
    # the text "nan" in a column read as words is written too
    words = pd.DataFrame({"step": [0, 1, 2, 3], "loss": ["0.5", "0.4", "0.45", "nan"]})
    assert select_metric(words, "loss", step="step", diverged=True).attrs["diverged"]["kind"] == "NaN"


def test_check_convergence_calls_a_loss_that_turned_nan_diverged_not_converged(tmp_path):
    path = _csv(tmp_path / "log.csv", _rows())
    result = run("check-convergence", path, "--format", "json")
    assert result.returncode == 1, result.stderr
    (entry,) = json.loads(result.stdout)["results"]
    assert entry["verdict"] == "not_converged" and entry["n"] == 450 and "diverged" in entry["failed_tests"]
    assert entry["reasons"][0] == ("diverged: from step 450 on every value is NaN (150 of them); the numbers "
                                   "describe the 450 finite values before")
    # the same log with the cells left empty: a metric that stopped being logged, said first
    empty = run("check-convergence", _csv(tmp_path / "empty.csv", _rows(), missing=""), "--format", "json")
    (entry,) = json.loads(empty.stdout)["results"]
    assert empty.returncode == 0 and entry["reasons"][0].startswith("no value after step 449")


def test_a_seed_that_diverged_at_once_is_counted_not_dropped(tmp_path):
    rng = np.random.default_rng(4)
    lines = ["seed,step,reward"]
    for seed in (1, 2, 3):
        for step in range(300):
            value = "nan" if seed == 3 else f"{0.5 + rng.normal(0, 0.05):.4f}"
            lines.append(f"{seed},{step},{value}")
    path = tmp_path / "seeds.csv"
    path.write_text("\n".join(lines) + "\n")
    result = run("check-convergence", path, "--format", "json")
    (summary,) = json.loads(result.stdout)["results"]
    # two converged seeds and one that logged nothing but NaN: "converged over 2 runs" hid it
    assert result.returncode == 1 and summary["verdict"] == "not_converged"
    assert summary["reasons"][0] == "1 of 3 runs diverged (reward [seed=3])"
    assert [r["verdict"] for r in summary["runs"]] == ["converged", "converged"]
    report = run("report", path, "-o", tmp_path / "report.html")
    assert report.returncode == 0, report.stderr
    assert "reward: not_converged over 2 runs - 1 of 3 runs diverged" in (tmp_path / "report.html").read_text()
    # describe has no verdict to give it: the seed is skipped, and said
    described = run("describe", path, "--format", "json")
    assert len(json.loads(described.stdout)["results"]) == 2
    assert "reward [seed=3]: column 'reward' is NaN from its first value on" in described.stderr
    # every seed NaN from the start: nothing to judge, said so
    path.write_text("seed,step,reward\n" + "".join(f"{s},{i},nan\n" for s in (1, 2) for i in range(30)))
    failed = run("check-convergence", path, "-m", "reward")
    assert failed.returncode == 2
    assert "every run diverged before logging a finite value (reward [seed=1], reward [seed=2])" in failed.stderr
    unnamed = run("check-convergence", path)
    assert unnamed.returncode == 2 and "left out: reward (NaN in every row, as written" in unnamed.stderr


def test_a_sweep_counts_a_run_that_diverged_at_once_as_not_converged(tmp_path):
    import swarmstats as ss
    rng = np.random.default_rng(5)
    for seed in (1, 2, 3):
        values = ["nan"] * 200 if seed == 3 else [f"{v:.4f}" for v in 0.5 + rng.normal(0, 0.05, 200)]
        (tmp_path / f"run_{seed}.csv").write_text("step,reward\n" + "".join(
            f"{i},{v}\n" for i, v in enumerate(values)))
    sweep = ss.sweep(str(tmp_path), metrics=["reward"], checks=("convergence",), workers=1, progress=False)
    assert sweep.n_failed == 0
    dead = next(r for r in sweep.runs if "run_3" in r["name"])["metrics"]["reward"]
    assert dead == {"n": 0, "diverged_at": 0, "verdict": "not_converged", "converged": False, "mean": None}
    converged = sum(r["metrics"]["reward"]["converged"] for r in sweep.runs)
    assert converged <= 2 and sweep.table["share_converged"].iloc[0] == pytest.approx(converged / 3)


def test_the_real_lightning_gan_that_logged_1_6e24_then_nan_reads_diverged():
    # version_0 logs a discriminator loss of 1.6e24, then NaN for 319 steps; version_1 NaN
    # from its first step.  They read "insufficient_data: only 1 point(s)" and nothing.
    result = run("check-convergence", REAL / "lightning/lightning_logs", "-m", "train_disc_loss",
                 "--format", "json")
    (summary,) = json.loads(result.stdout)["results"]
    assert summary["reasons"][0] == ("2 of 4 runs diverged (train_disc_loss [run=version_0], "
                                     "train_disc_loss [run=version_1])")
    version_0 = next(r for r in summary["runs"] if r["name"].endswith("version_0]"))
    assert version_0["verdict"] == "not_converged"
    assert version_0["reasons"][0].startswith("diverged: from step 1 on every value is NaN (319 of them)")


@pytest.mark.parametrize("route", ["numpy", "pandas headless", "ordinary"])
def test_every_route_through_the_csv_reader_marks_the_same_cells(route, monkeypatch, tmp_path):
    # a table of plain numbers is parsed by numpy when small, by pandas told there is no
    # header when larger, else the ordinary way (plain_csv): the NaN written are the same
    from swarmstats.io import plain_csv

    if route != "numpy":
        monkeypatch.setattr(plain_csv, "NUMPY_TABLE_BYTES", -1)
    if route == "ordinary":
        monkeypatch.setattr(plain_csv, "PLAIN_TABLE_BYTES", -1)
    folder = REAL / "lightning/lightning_logs"
    wide = read_log(folder, wide=True)
    counts = {run: int(is_written(part["train_disc_loss"]).sum()) for run, part in wide.groupby("run")}
    assert counts == {"version_0": 319, "version_1": 320, "version_2": 0, "version_3": 0}
    # empty cells and NaN written in one table, at its edges too (a generic CSV marks the
    # columns that end in NaN: only there can a written NaN say a run diverged)
    path = tmp_path / "metrics.csv"
    path.write_text("step,a,b\n0,nan,1\n1,,NaN\n2,-nan,\n3,-NaN,nan\n")
    for format in ("csv", "lightning-csv"):
        frame = read_log(path, format=format, wide=True)
        assert is_written(frame[["a", "b"]].to_numpy()).tolist() == [[True, False], [False, True], [True, False],
                                                                      [True, True]], format


def test_a_metric_nan_in_every_row_is_left_out_of_the_default_with_the_reason(tmp_path):
    # an evaluation metric written as NaN throughout stopped the whole command (exit 2) once
    # it counted as a metric; before the mark it was left out without a word
    rng = np.random.default_rng(6)
    path = tmp_path / "log.csv"
    path.write_text("step,loss,acc\n" + "".join(f"{i},{0.3 + rng.normal(0, 0.02):.4f},nan\n" for i in range(200)))
    result = run("check-convergence", path, "--format", "json")
    assert [r["name"] for r in json.loads(result.stdout)["results"]] == ["loss"]
    assert "left out acc (NaN in every row, as written: a run that diverged before logging a value)" in result.stderr
    named = run("check-convergence", path, "-m", "acc")
    assert named.returncode == 2 and "column 'acc' is NaN from its first value on" in named.stderr
    described = run("describe", path, "-m", "acc")
    assert described.returncode == 2 and "column 'acc' is NaN from its first value on" in described.stderr


def test_a_monitor_calls_a_metric_whose_latest_values_are_nan_diverged_until_a_number_comes():
    from swarmstats.streaming.monitor import Monitor

    rng = np.random.default_rng(7)
    monitor = Monitor(metrics=["loss"], check_every=100, min_steps=100)
    for step in range(500):  # a fall to 0.3 over the first 50 steps, then a level
        monitor.log(step, loss=0.3 + 0.3 * max(0.0, 1 - step / 50) + rng.normal(0, 0.02))
    assert monitor.should_stop  # learned, then flat: shown converged
    for step in range(500, 520):
        monitor.log(step, loss=float("nan") if step % 2 else float("inf"))
    entry = monitor.status.metrics["loss"]
    # the last check said converged; the values since are not numbers: not converged, no stop
    assert entry["verdict"] == "not_converged" and not monitor.should_stop
    assert entry["diverged"] == {"step": 500, "values": 20, "kind": "NaN or infinite"}
    assert entry["reason"] == ("diverged: from step 500 on every value is NaN or infinite (20 of them); the "
                               "numbers describe the 500 finite values before")
    assert monitor.result("loss").verdict == "not_converged"
    monitor.log(520, loss=0.3)  # a number again: the NaN were a gap, not the end of the run
    assert "diverged" not in monitor.status.metrics["loss"] and monitor.should_stop


def test_watch_says_when_the_run_it_follows_diverged(tmp_path):
    path = _csv(tmp_path / "log.csv", _rows())
    result = run("watch", path, "--once")
    assert result.returncode == 0
    assert ("step 599: loss is not converged - diverged: from step 450 on every value is NaN (150 of them)"
            in result.stdout)


def test_an_explained_variance_of_nan_is_undefined_not_a_divergence(tmp_path):
    # SB3 and CleanRL write explained_variance = nan when the batch's returns did not vary
    # (0/0): a sparse-reward run before its first reward.  Read as written NaN, a healthy run
    # whose last rollout saw no reward read "diverged".
    rng = np.random.default_rng(8)
    rows = ["time/total_timesteps,train/explained_variance,train/value_loss"]
    for i in range(120):
        variance = "nan" if i >= 110 or i < 5 else f"{0.5 + rng.normal(0, 0.02):.4f}"
        rows.append(f"{(i + 1) * 2048},{variance},{0.1 + rng.normal(0, 0.01):.4f}")
    path = tmp_path / "progress.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = read_log(path, wide=True)
    assert not is_written(frame["train/explained_variance"]).any()  # left out as missing
    assert ("train/explained_variance: 15 of 120 values are NaN, what SB3 and CleanRL log when the returns "
            "did not vary (explained variance 0/0): left out as missing") in frame.attrs["notes"]
    result = run("check-convergence", path, "-m", "train/explained_variance", "--format", "json")
    (entry,) = json.loads(result.stdout)["results"]
    assert "diverged" not in entry["failed_tests"] and entry["n"] == 105
    # live, the same rule: skipped as undefined, not counted as non-finite
    from swarmstats.streaming.monitor import Monitor

    monitor = Monitor(check_every=50)
    for step in range(60):
        monitor.log(step, **{"train/explained_variance": 0.5 if step < 50 else float("nan"), "loss": float("nan")})
    status = monitor.status
    assert "diverged" not in status.metrics["train/explained_variance"]
    assert status.metrics["loss"]["verdict"] == "not_converged"


def test_compare_and_best_of_refuse_a_run_that_diverged_and_curves_say_it(tmp_path):
    # a seed whose reward turned NaN at step 240 of 300 was scored by its values before,
    # as if it had finished: the set looked as good as one whose seeds all ran
    rng = np.random.default_rng(9)
    for group, base in (("a", 0.5), ("b", 0.55)):
        (tmp_path / group).mkdir()
        for seed in (1, 2, 3):
            values = base + rng.normal(0, 0.05, 300)
            cells = ["nan" if group == "b" and seed == 2 and i >= 240 else f"{v:.4f}" for i, v in enumerate(values)]
            (tmp_path / group / f"seed={seed}.csv").write_text(
                "step,reward\n" + "".join(f"{i},{c}\n" for i, c in enumerate(cells)))
    compared = run("compare", f"{tmp_path}/a/*.csv", f"{tmp_path}/b/*.csv", "-m", "reward")
    assert compared.returncode == 2
    assert "1 of 3 runs diverged - reward of " in compared.stderr and "(from step 240 on, every value NaN)" in compared.stderr
    best = run("best-of", tmp_path / "b" / "seed=1.csv", tmp_path / "b" / "seed=2.csv", "-m", "reward")
    assert best.returncode == 2 and "1 of 2 runs diverged" in best.stderr
    curves = run("curves", f"{tmp_path}/b/*.csv", "-m", "reward")
    assert curves.returncode == 0 and "1 of 3 runs diverged - reward of" in curves.stderr


def test_a_sweep_leaves_a_diverged_run_out_of_its_settings_scores(tmp_path):
    import swarmstats as ss

    rng = np.random.default_rng(10)
    for seed in (1, 2, 3):
        values = 0.5 + rng.normal(0, 0.05, 300)
        if seed == 2:
            values[100:] = 5.0  # a run that shot up, then diverged: its finite part is not its score
        cells = ["nan" if seed == 2 and i >= 150 else f"{v:.4f}" for i, v in enumerate(values)]
        (tmp_path / f"run_{seed}.csv").write_text("step,reward\n" + "".join(f"{i},{c}\n" for i, c in enumerate(cells)))
    sweep = ss.sweep(str(tmp_path), metrics=["reward"], checks=("convergence",), workers=1, progress=False)
    row = sweep.table.iloc[0]
    assert row["n"] == 3 and row["diverged"] == 1 and abs(row["mean"] - 0.5) < 0.05
    assert "over 2 runs (1 more diverged, left out)" in sweep.summary()


def test_the_json_names_the_runs_that_diverged_before_a_finite_value(tmp_path):
    rng = np.random.default_rng(11)
    path = tmp_path / "seeds.csv"
    path.write_text("seed,step,reward\n" + "".join(
        f"{s},{i},{'nan' if s == 3 else f'{0.5 + rng.normal(0, 0.05):.4f}'}\n" for s in (1, 2, 3) for i in range(300)))
    (summary,) = json.loads(run("check-convergence", path, "--format", "json").stdout)["results"]
    assert summary["diverged_at_start"] == ["reward [seed=3]"]


def test_regimes_and_windows_skip_a_run_without_values_as_describe_does():
    # the real Lightning folder: version_1 logged only NaN, versions 0 and 1 no generator loss;
    # regimes and windows stopped at the first such run ("metric 'train_gen_loss' has no values")
    folder = REAL / "lightning/lightning_logs"
    for command in (["regimes"], ["windows", "--summary"]):
        result = run(*command, folder)
        assert result.returncode == 0, result.stderr
        assert "train_gen_loss [run=version_2]" in result.stdout and "train_gen_loss [run=version_0]" not in result.stdout
        assert "train_disc_loss [run=version_1]: column 'train_disc_loss' is NaN from its first value on" in result.stderr


def test_commands_without_a_verdict_analyse_the_values_before_a_divergence_and_say_so(tmp_path):
    # describe read a loss that turned NaN as its 450 values before without a word, and an
    # infinite end stopped it (exit 2) where check-convergence judged the values before
    path = _csv(tmp_path / "log.csv", _rows())
    described = run("describe", path, "-m", "loss", "--format", "json")
    assert json.loads(described.stdout)["results"][0]["n"] == 450
    assert ("loss: from step 450 on every value is NaN (150 of them): the run diverged there; the 450 values "
            "before are analysed") in described.stderr
    infinite = tmp_path / "inf.csv"
    infinite.write_text("step,reward\n" + "".join(f"{i},{0.5 + (i % 7) / 20}\n" for i in range(60)) + "60,inf\n61,inf\n")
    for command in (["describe"], ["regimes"], ["windows", "--summary"]):
        result = run(*command, infinite)
        assert result.returncode == 0, result.stderr
        assert "reward: from step 60 on every value is infinite (2 of them)" in result.stderr


@pytest.mark.parametrize("name, undefined", [
    ("completions/mean_terminated_length", True), ("min_terminated_length", True),
    ("train/explained_variance", True), ("explained_variance", True),
    ("completions/mean_length", False), ("terminated_length", False), ("unexplained_variance", False),
    ("train/explained_variance_ratio", False), ("reward", False),
])
def test_each_undefined_value_rule_is_found_by_its_names_ending_first(name, undefined):
    """The rules of values meaning "undefined" are looked up for every metric of every log, so
    each is tested on its names' ending first: the ending is the pattern's own, and what the
    pattern matches is what the lookup finds."""
    import re

    from swarmstats.sentinels import SENTINELS, has_sentinel

    for rule in SENTINELS:
        assert rule.ending and rule.pattern.pattern.endswith(re.escape(rule.ending) + "$")
    assert has_sentinel(name) is undefined
    assert undefined is any(rule.pattern.search(name) for rule in SENTINELS)
