"""divergence (issue 21, item 2): the proxy-outcome Goodhart check.

The kernel against closed forms and a direct refit, its critical values against a fresh
simulation, the false-alarm rate on pairs that keep moving together (Gaussian, heavy-tailed),
the detection delay and the gap-trend interval's coverage on simulated divergences, two real
logs, and the command line.  The full table is ``python benchmarks/calibration_divergence.py``
(docs/health.md).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError, divergence
from swarmstats._kernels.drift_critical import ALPHAS, COUNTS, critical_value
from swarmstats._kernels.drift_scan import (
    drift_scan,
    max_drift_null,
    recursive_residuals,
)
from tests.test_cli import run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from scenarios import proxy_outcome_pair  # noqa: E402

REAL = Path(__file__).resolve().parent / "fixtures" / "real"


def _binomial_upper(rate, reps, z=3.0):
    return rate + z * np.sqrt(rate * (1 - rate) / reps)


# --- the kernel ----------------------------------------------------------------------------------

def test_recursive_residuals_match_a_refit_at_every_point():
    rng = np.random.default_rng(0)
    x = np.cumsum(rng.normal(size=40))
    y = 0.5 + 2.0 * x + rng.normal(size=40)
    w = recursive_residuals(x, y)
    for r in range(3, 40):
        design = np.column_stack([np.ones(r), x[:r]])
        coef = np.linalg.lstsq(design, y[:r], rcond=None)[0]
        leverage = 1 + np.array([1, x[r]]) @ np.linalg.inv(design.T @ design) @ np.array([1, x[r]])
        assert w[r] == pytest.approx((y[r] - coef[0] - coef[1] * x[r]) / np.sqrt(leverage), rel=1e-9, abs=1e-12)
    assert np.isnan(w[:3]).all()


def test_recursive_residuals_are_independent_unit_noise_whatever_the_regressor():
    # Brown, Durbin & Evans: under a stable Gaussian regression they are i.i.d. N(0, sigma^2),
    # even for a trending, wandering regressor
    rng = np.random.default_rng(1)
    x = np.cumsum(rng.normal(size=60)) + np.linspace(0, 10, 60)
    w = np.array([recursive_residuals(x, 1.0 + 0.3 * x + 2.0 * rng.normal(size=60))[3:] for _ in range(2000)])
    assert abs(w.mean()) < 3 * 2.0 / np.sqrt(w.size)
    assert w.var() == pytest.approx(4.0, rel=0.02)
    lag1 = np.mean(w[:, 1:] * w[:, :-1]) / w.var()
    assert abs(lag1) < 3 / np.sqrt(w[:, 1:].size)


def test_the_scan_finds_a_drift_and_its_onset():
    rng = np.random.default_rng(2)
    w = np.r_[rng.normal(size=50), rng.normal(size=30) - 0.25 * np.arange(1, 31)]
    stat, onset = drift_scan(w)
    assert stat[:50].max() < critical_value(80, 0.05)
    first = int(np.argmax(stat > critical_value(80, 0.05)))
    assert 50 < first <= 62
    assert abs(onset[-1] - 50) <= 5


@pytest.mark.parametrize("n", [20, 97])
def test_the_tabulated_critical_values_give_their_size(n):
    # a fresh simulation (other seeds than the table's): the size at the interpolated critical
    # value is alpha within three binomial standard errors
    reps = 8000
    null = max_drift_null(n, reps, np.random.default_rng(1000 + n))
    for alpha in (0.01, 0.05):
        rate = np.mean(null > critical_value(n, alpha))
        assert abs(rate - alpha) <= 3 * np.sqrt(alpha * (1 - alpha) / reps) + 0.003, (n, alpha, rate)


def test_the_table_covers_what_the_check_asks_of_it():
    assert COUNTS[0] <= 11 and COUNTS[-1] >= 400
    assert ALPHAS[0] <= 0.01 * 0.8 and ALPHAS[-1] >= 0.2 * 0.8
    with pytest.raises(ValueError):
        critical_value(5, 0.05)


# --- calibration ---------------------------------------------------------------------------------

@pytest.mark.parametrize("design", [{}, {"outcome_noise": "t3"}, {"time_constant": 300.0}, {"every": 50}],
                         ids=["normal", "student-t3", "saturating", "20-evaluations"])
def test_pairs_that_keep_moving_together_are_flagged_at_most_alpha_of_the_time(design):
    # measured at 400 runs (docs/health.md): 1.5%, 2.8%, 4.0%, 4.3% at alpha = 5%
    reps = 300
    rng = np.random.default_rng(7)
    alarms = [divergence(*proxy_outcome_pair(rng, shape="none", **design)[:2]).diverged for _ in range(reps)]
    assert np.mean(alarms) <= _binomial_upper(0.05, reps)


@pytest.mark.parametrize("shape", ["flat", "falls"])
def test_a_divergence_of_twenty_noise_sds_is_flagged_within_a_fifth_of_its_span(shape):
    # issue 21's target, met from a final gap of about 20 SDs of the outcome's prediction (95.8%
    # and 93.8% of 400 in the benchmark; 65% and 53% at 15 SDs - the docs give the whole table).
    # The gap-trend interval covers the true trend (a straight proxy makes it constant)
    reps = 300
    rng = np.random.default_rng(11 if shape == "flat" else 12)
    in_time, covered, onsets = 0, [], []
    for _ in range(reps):
        proxy, outcome, start = proxy_outcome_pair(rng, shape=shape, gap=20.0, time_constant=np.inf)
        result = divergence(proxy, outcome)
        end = outcome.index[-1]
        if result.diverged:
            in_time += 0 < result.alarm_step - start <= 0.2 * (end - start)
            truth = -(2.0 if shape == "falls" else 1.0) / 1000
            covered.append(result.gap_trend_ci[0] <= truth <= result.gap_trend_ci[1])
            onsets.append(result.onset_step)
    assert in_time / reps >= 0.9
    assert np.mean(covered) >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / len(covered))
    assert abs(np.median(onsets) - start) <= 20          # two evaluations


def test_the_gap_trend_is_unbiased_when_the_proxy_is_noisy():
    # least squares of the outcome on a noisy proxy shrinks the slope and invents a gap trend;
    # time as the instrument does not (proxy noise 90% of the prediction's)
    rng = np.random.default_rng(13)
    estimates = []
    for _ in range(100):
        proxy, outcome, _ = proxy_outcome_pair(rng, shape="flat", gap=25.0, proxy_share=0.9, time_constant=np.inf)
        result = divergence(proxy, outcome)
        if result.diverged:
            estimates.append(result.gap_trend)
    se = np.std(estimates) / np.sqrt(len(estimates))
    assert abs(np.mean(estimates) - (-1 / 1000)) < 3 * se + 2e-5


# --- verdicts ------------------------------------------------------------------------------------

def _pair(outcome_of, seed=3, noise=0.01):
    rng = np.random.default_rng(seed)
    steps = np.arange(1, 1001)
    proxy = pd.Series(steps / 1000 + 0.05 * rng.normal(size=1000), index=steps, name="reward")
    at = steps[9::10]
    return proxy, pd.Series(outcome_of(at) + noise * rng.normal(size=len(at)), index=at, name="accuracy")


def test_the_three_verdicts_and_what_they_say():
    tracking = divergence(*_pair(lambda at: at / 1000))
    assert tracking.verdict == "tracking" and not tracking.diverged
    assert tracking.slope_ci[0] > 0 and np.isfinite(tracking.detectable_gap) and tracking.detectable_gap > 0
    assert "would have been flagged nine times in ten" in tracking.reason

    diverging = divergence(*_pair(lambda at: np.minimum(at, 600) / 1000))
    assert diverging.verdict == "diverging" and diverging.diverged
    assert 580 <= diverging.onset_step <= 620 and diverging.alarm_step <= 700
    assert diverging.gap_trend_ci[1] < 0 < diverging.proxy_change_ci[0]
    assert "fell behind the proxy after step" in diverging.reason

    unrelated = divergence(*_pair(lambda at: np.full(len(at), 0.4)))
    assert unrelated.verdict == "insufficient_data" and not unrelated.diverged
    assert "not shown to follow the proxy" in unrelated.reason and "would settle it" in unrelated.reason


def test_a_pair_that_never_agreed_is_flagged_from_the_start():
    # the proxy rises while the outcome falls from the first evaluation: there is no agreement
    # to fall from, and the opposite trends say so
    result = divergence(*_pair(lambda at: 0.5 - at / 4000))
    assert result.verdict == "diverging" and result.onset_step == 10.0
    assert "moved apart from the start" in result.reason
    assert np.isnan(result.gap_trend)


def test_lower_is_better_is_read_from_the_names_or_given():
    proxy, outcome = _pair(lambda at: np.minimum(at, 600) / 1000)
    loss_proxy, loss_outcome = (-proxy).rename("train/loss"), (-outcome).rename("eval/loss")
    by_name = divergence(loss_proxy, loss_outcome)
    assert by_name.verdict == "diverging" and by_name.onset_step == divergence(proxy, outcome).onset_step
    assert any("lower-is-better" in note for note in by_name.notes)
    # told the opposite, the same pair is an outcome doing *better* than predicted: no alarm
    assert not divergence(loss_proxy, loss_outcome, better="higher", proxy_better="higher").diverged
    # a reward proxy with an error-rate outcome: agreement means they move in opposite ways
    error = (1 - outcome).rename("eval/error")
    assert divergence(proxy, error).verdict == "diverging"
    assert divergence(proxy, (1 - _pair(lambda at: at / 1000)[1]).rename("eval/error")).verdict == "tracking"


def test_arrays_with_their_steps_and_paired_arrays():
    proxy, outcome = _pair(lambda at: np.minimum(at, 600) / 1000)
    from_arrays = divergence(proxy.to_numpy(), outcome.to_numpy(), proxy_steps=proxy.index, outcome_steps=outcome.index)
    assert from_arrays.onset_step == divergence(proxy, outcome).onset_step
    aligned = proxy.rolling(10).mean().loc[outcome.index]
    paired = divergence(aligned.to_numpy(), outcome.to_numpy())
    assert paired.verdict == "diverging" and paired.n_outcomes == 100


def test_sparse_columns_of_one_log_and_evaluations_before_the_proxy():
    proxy, outcome = _pair(lambda at: at / 1000)
    log = pd.concat([proxy, outcome], axis=1)                 # outcome NaN on most rows
    early = pd.Series([0.0], index=[0], name="accuracy")
    result = divergence(log["reward"], pd.concat([early, log["accuracy"]]))
    assert result.n_outcomes == 100
    assert any("before the first proxy value" in note for note in result.notes)


def test_more_evaluations_than_the_table_are_averaged_in_blocks():
    rng = np.random.default_rng(5)
    steps = np.arange(1, 9001)
    proxy = pd.Series(steps / 9000 + 0.02 * rng.normal(size=9000), index=steps)
    at = steps[9::10]                                          # 900 evaluations
    outcome = pd.Series(at / 9000 + 0.01 * rng.normal(size=len(at)), index=at)
    result = divergence(proxy, outcome)
    assert result.n_outcomes == 300 and result.verdict == "tracking"
    assert any("900 evaluations averaged in consecutive blocks of 3" in note for note in result.notes)


def test_result_protocol():
    result = divergence(*_pair(lambda at: np.minimum(at, 600) / 1000))
    payload = result.to_dict()
    json.dumps(payload)
    assert "_steps" not in payload and payload["verdict"] == "diverging"
    frame = result.to_frame()
    assert list(frame.columns) == ["step", "outcome", "proxy", "predicted_outcome", "gap"]
    assert len(frame) == 100
    assert result.summary().startswith("proxy-outcome divergence: diverging")
    assert "gap trend" in result.summary()


# --- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("proxy, outcome, kwargs, message", [
    (np.arange(20.0), np.arange(10.0), {}, "give outcome_steps"),
    (np.arange(10.0), np.arange(10.0) + np.random.default_rng(0).normal(size=10), {}, "at least 14"),
    (np.arange(30.0), np.full(30, 0.5), {}, "outcome is constant"),
    (np.full(30, 0.5), np.arange(30.0), {}, "proxy is constant"),
    (np.arange(30.0), np.arange(30.0), {"alpha": 0.5}, "alpha must be between"),
    (np.arange(30.0), np.arange(30.0), {"alpha": 0.001}, "alpha must be between"),
    (np.arange(30.0), np.arange(30.0), {"better": "up"}, "better"),
    (np.arange(30.0), np.r_[np.arange(29.0), np.nan] * np.nan, {}, "outcome"),
    (np.r_[np.arange(29.0), np.inf], np.arange(30.0), {}, "proxy: 1 infinite value"),
])
def test_bad_input_is_one_clear_error(proxy, outcome, kwargs, message):
    with pytest.raises(InputError, match=message):
        divergence(proxy, outcome, **kwargs)


def test_one_column_frames_are_read_by_position_like_arrays():
    # a one-column frame with a plain index had no step axis, and np.isfinite(None) raised
    rng = np.random.default_rng(3)
    proxy = np.linspace(0, 1, 60) + rng.normal(0, 0.05, 60)
    outcome = np.linspace(0, 1, 60) + rng.normal(0, 0.05, 60)
    framed = divergence(pd.DataFrame({"proxy": proxy}), pd.DataFrame({"outcome": outcome}))
    assert framed.to_dict() == divergence(proxy, outcome).to_dict()


def test_a_missing_value_in_paired_arrays_keeps_the_pairs():
    # positions are fixed before missing values are skipped: dropping the proxy's first value
    # must not shift every later proxy value onto the wrong evaluation
    rng = np.random.default_rng(0)                 # a seed whose pair is not one of the 4% false alarms
    outcome = np.arange(40.0) + 0.3 * rng.normal(size=40)
    proxy = np.r_[np.nan, np.arange(1.0, 40.0)]
    result = divergence(proxy, outcome)
    assert result.n_outcomes == 39
    assert result.slope_ci[0] < 1.0 < result.slope_ci[1]       # shifted pairs would not give 1
    assert result.to_frame()["proxy"].iloc[0] == 1.0 and result.to_frame()["step"].iloc[0] == 1.0


def test_an_outcome_evaluated_twice_at_one_step_is_refused():
    proxy = pd.Series(np.arange(100.0), index=np.arange(100))
    outcome = pd.Series(np.arange(20.0), index=np.r_[np.arange(0, 95, 5), 90])
    with pytest.raises(InputError, match="evaluated twice"):
        divergence(proxy, outcome)


# --- real logs -----------------------------------------------------------------------------------

def test_real_overfitting_is_a_divergence_from_the_start():
    # Hugging Face trainer_state.json (tests/fixtures/real/README.md): the training loss falls
    # 1.11 -> 0.055 over 30 epochs while the held-out loss rises 1.11 -> 2.75 and the held-out
    # accuracy falls 0.68 -> 0.59.  A practitioner: "overfitting from the first epoch".
    from swarmstats import read_log

    log = read_log(REAL / "hf" / "trainer_state.json", wide=True).set_index("step")
    for outcome in ("eval_g0_loss", "eval_g0_accuracy"):
        result = divergence(log["loss"], log[outcome])
        assert result.verdict == "diverging", outcome
        assert "moved apart from the start" in result.reason
        assert result.onset_step == 401.0                    # the first evaluation after training began


def test_real_gail_discriminator_reward_does_not_follow_the_true_return():
    # baselines GAIL + PPO on CartPole: the discriminator's reward wanders around 0.4 while the
    # true return rises 25 -> ~193.  A practitioner: "that reward says nothing about progress" -
    # there is no agreement to diverge from, and the check must not call it either way.
    from swarmstats import read_log

    log = read_log(REAL / "baselines" / "gail-ppo-progress.csv", wide=True).set_index("step")
    result = divergence(log["reward signal mean"], log["mean 100 episode reward"])
    assert result.verdict == "insufficient_data" and not result.diverged
    assert result.slope_ci[0] < 0 < result.slope_ci[1]


# --- command line --------------------------------------------------------------------------------

def test_cli_exit_codes_json_and_plot(tmp_path):
    proxy, outcome = _pair(lambda at: np.minimum(at, 600) / 1000)
    pd.concat([proxy, outcome], axis=1).rename_axis("step").reset_index().to_csv(tmp_path / "log.csv", index=False)
    done = run("divergence", tmp_path / "log.csv", "--proxy", "reward", "--outcome", "accuracy", "--format", "json",
               "--plot", tmp_path / "d.png")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["results"][0]["verdict"] == "diverging"
    assert (tmp_path / "d.png").stat().st_size > 0

    proxy, outcome = _pair(lambda at: at / 1000)
    proxy.rename_axis("step").reset_index().to_csv(tmp_path / "train.csv", index=False)
    outcome.rename_axis("step").reset_index().to_csv(tmp_path / "eval.csv", index=False)
    done = run("divergence", tmp_path / "train.csv", "--proxy", "reward", "--outcome", "accuracy",
               "--outcome-file", tmp_path / "eval.csv")
    assert done.returncode == 0, done.stderr
    assert "tracking" in done.stdout


def test_cli_bad_column_and_bad_alpha_exit_2(tmp_path):
    pd.DataFrame({"step": range(30), "reward": range(30), "accuracy": range(30)}).to_csv(tmp_path / "l.csv", index=False)
    done = run("divergence", tmp_path / "l.csv", "--proxy", "reward", "--outcome", "nope")
    assert done.returncode == 2 and "no column 'nope'" in done.stderr and "Traceback" not in done.stderr
    done = run("divergence", tmp_path / "l.csv", "--proxy", "reward", "--outcome", "accuracy", "--alpha", "0.9")
    assert done.returncode == 2 and "alpha must be between" in done.stderr
