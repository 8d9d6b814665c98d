"""Infinities and NaN between finite values are skipped steps, not a broken log.

fp16/AMP training logs ``grad_norm`` as inf or NaN at a step whose gradients overflowed, skips
the update and goes on (public training logs: ``"grad_norm": Infinity`` with
``"optimizer_applied": false``; "fp16 skipped steps log NaN").  One such value anywhere in a
Hugging Face ``trainer_state.json`` stopped every command with "column 'grad_norm' has an
infinite value at data row 4, with finite values after it; drop or fix it" (exit 2): no verdict
on the loss either, and no CI gate on fp16 runs at all.  They are now left out and said; a
metric that ends in them diverged only if its end is longer than any run of skipped steps before.
"""

import json

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.convergence.reasons import skipped_text
from swarmstats.io import select_metric
from swarmstats.io.written_nan import WRITTEN_NAN
from tests.test_cli import run


def _frame(values):
    return pd.DataFrame({"step": np.arange(len(values)) * 10, "grad_norm": values})


def _trainer_state(folder, overflow_at=(3, 57, 120), nan_at=(88,), end=None):
    """An fp16 run's trainer_state.json: a loss that settles, grad_norm inf/NaN at skipped steps."""
    rng = np.random.default_rng(1)
    history = []
    for i in range(1, 201):
        history.append({"epoch": i / 200 * 3, "grad_norm": 1.0 + rng.normal(0, 0.1), "learning_rate": 5e-5,
                        "loss": 0.3 + 2.0 * np.exp(-i / 40) + rng.normal(0, 0.02), "step": i * 10})
    for i in overflow_at:
        history[i]["grad_norm"] = float("inf")
    for i in nan_at:
        history[i]["grad_norm"] = float("nan")
    if end is not None:
        history[-1]["grad_norm"] = end
    folder.mkdir()
    # Python's json writes Infinity and NaN, as the Trainer's state does
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": 2000, "log_history": history}))
    return folder / "trainer_state.json"


def test_an_infinity_or_written_nan_between_finite_values_is_left_out_and_recorded():
    values = np.r_[np.ones(5), np.inf, np.ones(5), WRITTEN_NAN, -np.inf, np.ones(5)]
    series = select_metric(_frame(values), "grad_norm", step="step", diverged=True)
    assert len(series) == 15 and np.isfinite(series).all() and "diverged" not in series.attrs
    assert series.attrs["skipped"] == {"values": 3, "kind": "NaN or infinite", "steps": [50, 110, 120],
                                       "at_end": False, "at_start": False}
    # the same without diverged=True (the API's reading)
    assert select_metric(_frame(values), "grad_norm", step="step").attrs["skipped"]["values"] == 3


@pytest.mark.parametrize("end, diverged", [
    (1, False),  # one inf at the end after single skipped steps: one more skipped step
    (2, True),   # two in a row at the end, never more than one before: the run diverged
])
def test_an_end_no_longer_than_the_skipped_runs_before_is_one_more_skipped_step(end, diverged):
    values = np.r_[np.ones(5), np.inf, np.ones(5), np.inf, np.ones(5), np.full(end, np.inf)]
    series = select_metric(_frame(values), "grad_norm", step="step", diverged=True)
    assert ("diverged" in series.attrs) is diverged
    skipped = series.attrs["skipped"]
    assert skipped["values"] == (2 if diverged else 3) and skipped["at_end"] is not diverged
    assert len(series) == 15


def test_without_skipped_steps_before_an_infinite_end_is_still_a_divergence():
    values = np.r_[np.ones(20), np.inf]
    series = select_metric(_frame(values), "grad_norm", step="step", diverged=True)
    assert series.attrs["diverged"]["values"] == 1 and "skipped" not in series.attrs
    with pytest.raises(InputError, match="infinite from data row 21 on"):
        select_metric(_frame(values), "grad_norm", step="step")  # not asked: an error, as before


def test_an_fp16_trainer_state_is_judged_and_its_skipped_steps_said(tmp_path):
    path = _trainer_state(tmp_path / "run")
    result = run("check-convergence", path, "--format", "json")
    assert result.returncode in (0, 1), result.stderr  # a verdict, not "drop or fix it" (exit 2)
    rows = {row["name"]: row for row in json.loads(result.stdout)["results"]}
    assert rows["loss"]["verdict"] != "insufficient_data"
    assert not any("skipped" in reason for reason in rows["loss"]["reasons"])
    note = rows["grad_norm"]["reasons"][-1]
    assert note.startswith("4 NaN or infinite values among finite ones left out (steps 40, 580, 890, ...)")
    assert rows["grad_norm"]["n"] == 196
    text = run("check-convergence", path, "-m", "grad_norm")
    assert "grad_norm: 4 NaN or infinite values among finite ones left out" in text.stderr


def test_a_skipped_last_step_is_not_called_a_divergence(tmp_path):
    path = _trainer_state(tmp_path / "run", end=float("inf"))
    result = run("check-convergence", path, "-m", "grad_norm", "--format", "json")
    (row,) = json.loads(result.stdout)["results"]
    assert "diverged" not in row["failed_tests"] and row["n"] == 195
    assert "5 NaN or infinite values left out (steps 40, 580, 890, ..., the last one logged)" in row["reasons"][-1]


def test_every_command_reads_skipped_steps_and_says_so(tmp_path):
    path = _trainer_state(tmp_path / "run")
    said = "grad_norm: 4 NaN or infinite values among finite ones left out"
    for command in (["describe"], ["regimes"], ["windows"]):
        result = run(*command, path, "-m", "grad_norm")
        assert result.returncode == 0 and said in result.stderr, (command, result.stderr)
    report = run("report", path, "-o", tmp_path / "report.html")
    assert report.returncode == 0, report.stderr
    assert said in (tmp_path / "report.html").read_text()
    _trainer_state(tmp_path / "other", overflow_at=(10,), nan_at=())
    curves = run("curves", tmp_path / "run", tmp_path / "other", "-m", "grad_norm", "-o", tmp_path / "c.png")
    assert curves.returncode == 0 and "other]: 1 infinite value among finite ones left out" in curves.stderr


def test_a_sweep_counts_skipped_steps_in_its_entry(tmp_path):
    import swarmstats as ss

    _trainer_state(tmp_path / "run")
    result = ss.sweep(str(tmp_path), metrics=["grad_norm"], checks=("convergence",), workers=1, progress=False)
    assert result.n_failed == 0
    entry = result.runs[0]["metrics"]["grad_norm"]
    assert entry["skipped"] == 4 and entry["n"] == 196 and "diverged_at" not in entry


def test_the_live_monitor_calls_a_skipped_step_a_skipped_step_once_the_metric_has_gone_on_after_one():
    from swarmstats import Monitor

    monitor = Monitor(check_every=10)
    for step in range(50):
        monitor.log(step, grad_norm=1.0 + 0.01 * (step % 3))
    monitor.log(50, grad_norm=float("inf"))
    # the first: nothing shows yet that the run goes on
    assert monitor.status.metrics["grad_norm"]["verdict"] == "not_converged"
    assert "diverged" in monitor.status.metrics["grad_norm"]
    monitor.log(51, grad_norm=1.0)  # it went on: a skipped step
    monitor.log(52, grad_norm=float("nan"))
    assert "diverged" not in monitor.status.metrics["grad_norm"]  # one in a row, as before
    assert "diverged" not in monitor.result("grad_norm").failed_tests
    monitor.log(53, grad_norm=float("nan"))  # two in a row: more than it ever went on after
    assert monitor.status.metrics["grad_norm"]["diverged"]["values"] == 2
    assert monitor.result("grad_norm").verdict == "not_converged"


def test_the_overflows_of_a_loss_scaler_finding_its_scale_at_the_start_are_skipped_steps():
    # AMP starts its loss scale high and halves it at each overflow: the first steps' grad_norm
    # is inf until it fits - before the first finite value, not a run that diverged at once
    values = np.r_[np.inf, np.inf, np.inf, 1.0 + np.zeros(30)]
    series = select_metric(_frame(values), "grad_norm", step="step", diverged=True)
    assert len(series) == 30 and series.attrs["skipped"]["steps"] == [0, 10, 20]
    assert series.attrs["skipped"]["at_end"] is False


def test_an_infinity_before_the_first_finite_value_is_said_as_a_start_not_an_overflow():
    # a hand-written loop prints its best average so far, -inf until one is known (the real
    # log in tests/fixtures/real/angela): no fp16 step overflowed there
    best = pd.DataFrame({"step": np.arange(25) * 100, "BestAvg": np.r_[-np.inf, np.linspace(-100.0, 50.0, 24)]})
    series = select_metric(best, "BestAvg", step="step", diverged=True)
    assert len(series) == 24 and series.attrs["skipped"]["at_start"] is True
    text = skipped_text(series.attrs["skipped"])
    assert "before the first finite one: a running best starts at -inf" in text and "fp16" not in text
    # one between finite values is still a skipped step
    middle = select_metric(best.assign(BestAvg=np.r_[1.0, -np.inf, np.ones(23)]), "BestAvg", step="step", diverged=True)
    assert middle.attrs["skipped"]["at_start"] is False and "fp16" in skipped_text(middle.attrs["skipped"])
