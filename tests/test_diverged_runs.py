"""A run whose metric ends in infinite values diverged: check-convergence calls it not converged
(exit 1) with the reason, judging the finite values before; an infinite value was an input
error (exit 2), so a CI gate read a diverged run as a broken log."""

import json

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.convergence.verdict import check_convergence, with_divergence
from swarmstats.io import select_metric
from tests.test_cli import run


def _log(tmp_path, values, name="log.csv", **columns):
    path = tmp_path / name
    pd.DataFrame({"step": np.arange(len(values)) * 10, "reward": values, **columns}).to_csv(path, index=False)
    return path


def test_select_metric_cuts_a_diverged_end_and_says_where(tmp_path):
    values = np.r_[0.5 + np.zeros(40), np.inf, np.nan, np.inf]
    frame = pd.read_csv(_log(tmp_path, values))
    series = select_metric(frame, "reward", step="step", diverged=True)
    assert len(series) == 40 and series.attrs["diverged"] == {"row": 41, "step": 400, "values": 2,
                                                                  "kind": "infinite"}
    with pytest.raises(InputError, match="infinite from data row 41 on: the run diverged there"):
        select_metric(frame, "reward", step="step")  # not asked: still an error, that says so
    middle = frame.assign(reward=np.r_[0.5 + np.zeros(20), np.inf, 0.5 + np.zeros(22)])
    series = select_metric(middle, "reward", step="step", diverged=True)  # finite again: a skipped step
    assert len(series) == 42 and "diverged" not in series.attrs
    assert series.attrs["skipped"] == {"values": 1, "kind": "infinite", "steps": [200], "at_end": False,
                                      "at_start": False}
    with pytest.raises(InputError, match="infinite from its first value"):
        select_metric(frame.assign(reward=np.inf), "reward", step="step", diverged=True)


def test_check_convergence_calls_a_diverged_run_not_converged_with_exit_1(tmp_path):
    rng = np.random.default_rng(0)
    values = np.r_[0.5 + rng.normal(0, 0.05, 450), np.full(150, np.inf)]  # flat, then diverged
    result = run("check-convergence", _log(tmp_path, values), "--format", "json")
    assert result.returncode == 1, result.stderr
    (reward,) = json.loads(result.stdout)["results"]
    assert reward["verdict"] == "not_converged" and reward["n"] == 450 and reward["steps_needed"] is None
    assert reward["reasons"][0].startswith("diverged: from step 4500 on every value is infinite (150 of them)")
    assert "diverged" in reward["failed_tests"] and abs(reward["mean"] - 0.5) < 0.01
    # the same finite values without the divergence converge: the verdict is the divergence's
    assert run("check-convergence", _log(tmp_path, values[:450], "flat.csv")).returncode == 0


def test_one_diverged_seed_fails_its_setting_and_is_named(tmp_path):
    rng = np.random.default_rng(1)
    one, two = 0.5 + rng.normal(0, 0.05, 400), 0.5 + rng.normal(0, 0.05, 400)
    two[300:] = np.inf
    path = tmp_path / "seeds.csv"
    pd.concat([pd.DataFrame({"seed": seed, "step": range(400), "reward": values})
               for seed, values in ((1, one), (2, two))]).to_csv(path, index=False)
    result = run("check-convergence", path, "--format", "json")
    assert result.returncode == 1, result.stderr
    (summary,) = json.loads(result.stdout)["results"]
    assert summary["verdict"] == "not_converged"
    assert summary["reasons"][0] == "1 of 2 runs diverged (reward [seed=2])"
    assert summary["reasons"][1].startswith("1 of 2 runs have not converged (reward [seed=2]); each run tested at "
                                            "alpha / 2 = 0.025")
    assert [r["verdict"] for r in summary["runs"]] == ["converged", "not_converged"]


def test_with_divergence_leaves_other_results_alone():
    result = check_convergence(np.tile([0.5, 0.6, 0.4, 0.55], 20), name="reward")
    assert with_divergence(result, {}) is result and with_divergence(result, {"loss": {"step": 1, "values": 1}}) is result


def test_a_loss_that_turns_nan_while_the_log_goes_on_is_said_not_hidden(tmp_path):
    # a loss that became NaN is read as missing: judged on the values before, with nothing said,
    # a flat loss followed by 150 NaN rows read as plainly converged
    rng = np.random.default_rng(2)
    loss = 0.5 + rng.normal(0, 0.05, 600)
    loss[450:] = np.nan
    path = tmp_path / "log.csv"
    pd.DataFrame({"step": range(600), "loss": loss, "lr": 1e-3}).to_csv(path, index=False)
    result = run("check-convergence", path, "-m", "loss", "--format", "json")
    (entry,) = json.loads(result.stdout)["results"]
    assert entry["verdict"] == "converged" and entry["n"] == 450  # its values still say so
    assert entry["reasons"][0].startswith("no value after step 449 while the log goes on for 150 more rows "
                                          "(to step 599): it stopped being logged (empty cells")
    # an evaluation logged every 50 rows, the log ending 40 rows after the last: nothing said
    evaluation = np.full(600, np.nan)
    evaluation[9:560:50] = 0.7 + rng.normal(0, 0.01, 12)
    path.write_text(pd.DataFrame({"step": range(600), "eval": evaluation, "loss": 0.5 + rng.normal(0, 0.05, 600)})
                    .to_csv(index=False))
    sparse = json.loads(run("check-convergence", path, "-m", "eval", "--format", "json").stdout)["results"][0]
    assert not any("no value after" in reason for reason in sparse["reasons"])


def test_a_sweep_counts_a_diverged_run_as_not_converged_not_as_failed(tmp_path):
    import swarmstats as ss
    rng = np.random.default_rng(3)
    for seed in (1, 2, 3):
        values = 0.5 + rng.normal(0, 0.05, 300)
        if seed == 3:
            values[200:] = np.inf
        (tmp_path / f"seed={seed}").mkdir()
        pd.DataFrame({"step": range(300), "reward": values}).to_csv(tmp_path / f"seed={seed}" / "log.csv",
                                                                     index=False)
    result = ss.sweep(str(tmp_path), metrics=["reward"], checks=("convergence",), workers=1, progress=False)
    assert result.n_failed == 0
    diverged = next(run for run in result.runs if "seed=3" in run["name"])["metrics"]["reward"]
    assert diverged["verdict"] == "not_converged" and diverged["diverged_at"] == 200 and diverged["n"] == 200


def test_a_report_shows_a_diverged_run_up_to_where_it_diverged(tmp_path):
    # "column 'reward' has an infinite value at data row 301; drop or fix it":
    # no report at all, where a practitioner wants to see the run and where it went
    rng = np.random.default_rng(5)
    values = np.r_[0.5 + rng.normal(0, 0.05, 300), np.full(50, np.inf)]
    out = tmp_path / "report.html"
    result = run("report", _log(tmp_path, values), "-o", out)
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert "reward: from step 3000 on every value is infinite (50 of them): the run diverged there" in page
    assert "diverged: from step 3000 on every value is infinite" in page
