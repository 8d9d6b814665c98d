"""A held-out score that settled worse than it had been is said so (swarmstats.convergence.
improvement.compare_best): "converged" means flat now, not at its best."""

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.convergence.improvement import BELOW_BEST, compare_best
from swarmstats.direction import is_held_out_score
from tests.conftest import ar1
from tests.test_real_logs import REAL


def _below_best(result):
    return [reason for reason in result.reasons if str(reason).startswith(BELOW_BEST)]


def test_a_real_fine_tunes_evaluation_loss_that_rose_after_its_first_epochs_is_worse_than_its_best():
    # eval loss 1.11 after one epoch, then a climb while the training loss kept falling, and a
    # plateau near 2.6 for the last 15 epochs: the warm-up cut sets the climb aside
    table = ss.read_log(REAL / "hf" / "trainer_state.json", wide=True)
    result = ss.check_convergence(table["eval_g0_loss"].dropna())
    note = _below_best(result)
    assert note, result.reasons
    assert "averaged 1.354" in note[0] and "is 2.582, 1.228 higher" in note[0]
    assert "a checkpoint from then would score better (lower is better" in note[0]
    # the training loss, which only fell, and the accuracy's direction are read the same way
    assert not _below_best(ss.check_convergence(table["loss"].dropna()))
    assert "lower" in _below_best(ss.check_convergence(table["eval_g0_accuracy"].dropna()))[0].split("(")[0]


def test_only_held_out_scores_or_a_given_side_are_judged_so():
    # a training loss or a diagnostic whose side is guessed from its name is not "worse" for
    # having risen (a GAN's generator loss, a PPO surrogate, a critic's gradient norm)
    assert is_held_out_score("eval/mean_reward") and is_held_out_score("val_acc") and is_held_out_score("TestEpRet")
    assert not is_held_out_score("train_gen_loss") and not is_held_out_score("Surrogate loss")
    assert not is_held_out_score("test/mean_Q") and not is_held_out_score("eval/grad_norm")
    rng = np.random.default_rng(40)
    t = np.arange(300)
    peak = np.where(t < 60, 3 * t / 60, np.where(t < 100, 3 - 2 * (t - 60) / 40, 1.0))
    y = peak + 0.3 * rng.normal(size=300)
    assert not _below_best(ss.check_convergence(pd.Series(y, name="train/reward")))
    assert _below_best(ss.check_convergence(pd.Series(y, name="train/reward"), better="higher"))
    assert _below_best(ss.check_convergence(pd.Series(y, name="eval/mean_reward")))


def test_compare_best_needs_a_held_stretch_a_large_loss_and_evidence():
    level = np.tile([0.1, -0.1], 20)
    before = np.r_[np.zeros(3), np.full(7, 3.0)]  # 7 points at 3, the level 0 after them
    values = np.r_[before, level]
    best = compare_best(values, 10, 1.0, 0.1, "higher", 0.05, 0.075)
    assert best is not None and best.first == 3 and best.length == 5 and best.mean == pytest.approx(3.0)
    assert compare_best(values, 10, 1.0, 0.1, "lower", 0.05, 0.075) is None  # lower: the level is the best
    assert compare_best(values, 10, 1.0, 0.1, "higher", 0.05, 2.0) is None  # a loss of 3 within 2 tolerances
    assert compare_best(values, 10, 1.0, 3.0, "higher", 0.05, 0.075) is None  # within the noise
    assert compare_best(values, 10, 6.0, 0.1, "higher", 0.05, 0.075) is None  # a stretch of 2 g = 12: too few before
    assert compare_best(values, 0, 1.0, 0.1, "higher", 0.05, 0.075) is None  # nothing set aside


@pytest.mark.parametrize("phi, n", [(0.0, 300), (0.5, 300), (0.9, 300)])
def test_a_stationary_held_out_score_is_rarely_called_worse_than_its_best(phi, n):
    # the warm-up cut sets apart a start that looks unlike the rest, so its best stretch is
    # often better than the level by a tolerance; two tolerances and the Bonferroni count keep
    # the note to 0.5%, 0.3% and 2.2% of 400 series (white, AR(0.5), AR(0.9)); 8 or more of
    # 150 would have P < 1% at 2.2%
    rng = np.random.default_rng(41)
    series = ar1(phi, n, rng, reps=150, sd=np.sqrt(1 - phi * phi))
    hits = sum(bool(_below_best(ss.check_convergence(pd.Series(y, name="eval/mean_reward")))) for y in series)
    assert hits <= 7, hits


def test_a_score_that_peaked_and_fell_two_noise_sds_is_called_worse_often_enough():
    # 0 -> 3 by step 60, back to 1 by step 100, held there (AR(0.5) noise of SD 1): said in
    # 43% of 400 series; a fall of 1 SD is not (0%): the best stretch's own noise hides it
    rng = np.random.default_rng(42)
    t = np.arange(300)
    curve = np.where(t < 60, 3 * t / 60, np.where(t < 100, 3 - 2 * (t - 60) / 40, 1.0))
    series = ar1(0.5, 300, rng, reps=80, sd=np.sqrt(0.75))
    hits = sum(bool(_below_best(ss.check_convergence(pd.Series(curve + y, name="eval/mean_reward"))))
               for y in series)
    assert 21 <= hits, hits  # P(< 21 of 80) ~ 1% at 43%


def test_a_converged_score_below_its_best_is_a_warning_on_github_actions(tmp_path):
    import os
    import subprocess
    import sys

    rng = np.random.default_rng(43)
    t = np.arange(600)
    curve = np.where(t < 60, 3 * t / 60, np.where(t < 100, 3 - 2 * (t - 60) / 40, 1.0))
    log = tmp_path / "eval.csv"
    pd.DataFrame({"step": t, "eval/mean_reward": curve + 0.3 * rng.normal(size=600)}).to_csv(log, index=False)
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    done = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence", str(log)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr  # flat now: the gate passes
    assert "title=eval/mean_reward%3A converged%2C worse than its best::" in done.stdout, done.stdout


@pytest.mark.parametrize("phi, n, measured", [(0.9, 100, 0.04), (0.7, 100, 0.02)])
def test_a_short_persistent_held_out_score_is_rarely_called_worse_than_its_best(phi, n, measured):
    # the kept part's noise is read from few effective points, so the p-value is on Student's
    # t with that many degrees of freedom (on the normal law: 5.7% of AR(0.9) runs of 100
    # points; now 4.0%, and 2.0% at AR(0.7): 300 series each)
    rng = np.random.default_rng(43)
    series = ar1(phi, n, rng, reps=200, sd=np.sqrt(1 - phi * phi))
    hits = sum(bool(_below_best(ss.check_convergence(pd.Series(y, name="eval/mean_reward")))) for y in series)
    assert hits / 200 <= measured + 3 * np.sqrt(measured * (1 - measured) / 200), hits


def test_best_alpha_sets_the_level_of_the_note():
    table = ss.read_log(REAL / "hf" / "trainer_state.json", wide=True)
    loss = table["eval_g0_loss"].dropna()
    assert _below_best(ss.ConvergenceTest().fit(loss))  # p = 2.5e-08
    assert not _below_best(ss.ConvergenceTest(best_alpha=1e-9).fit(loss))
    with pytest.raises(ss.InputError, match="best_alpha"):
        ss.ConvergenceTest(best_alpha=1.5)


def test_a_stream_says_worse_than_its_best_with_its_level_spent_over_the_looks():
    from swarmstats.streaming.convergence_monitor import ConvergenceMonitor, spent_alpha

    table = ss.read_log(REAL / "hf" / "trainer_state.json", wide=True)
    rows = table[["step", "eval_g0_loss"]].dropna()
    monitor = ConvergenceMonitor(name="eval_g0_loss", first_check=10)
    for step, value in zip(rows["step"], rows["eval_g0_loss"]):
        monitor.update(value, step=step)
    assert _below_best(monitor.result())
    # the k-th look's note is made at alpha spent as the flatness claim's
    looks = len(monitor.history) + 1
    assert monitor._look(len(rows), looks).reasons == ss.ConvergenceTest(
        equivalence_alpha=spent_alpha(0.05, looks), best_alpha=spent_alpha(0.05, looks)).fit(
        rows["eval_g0_loss"].to_numpy(), steps=rows["step"].to_numpy(), name="eval_g0_loss").reasons
    # the Monitor's status carries it, and its summary says it under the metric
    tracker = ss.Monitor(metrics=["eval_g0_loss"], first_check=10)
    for step, value in zip(rows["step"], rows["eval_g0_loss"]):
        tracker.log(int(step), eval_g0_loss=float(value))
    entry = tracker.status.metrics["eval_g0_loss"]
    assert entry["worse_than_best"].startswith(BELOW_BEST)
    assert "    worse than its best: " in tracker.status.summary()


def test_stationary_streams_are_rarely_called_worse_than_their_best():
    # every scheduled check of 150 streams of 600 AR(0.5) values (better given): the note at
    # any of them in 0-1% of streams (measured: AR(0.7) 1%, white 0%; AR(0.9) 5%, the short
    # persistent case above)
    from swarmstats.streaming.convergence_monitor import ConvergenceMonitor

    rng = np.random.default_rng(44)
    hits = 0
    for y in ar1(0.5, 600, rng, reps=150, sd=np.sqrt(0.75)):
        monitor = ConvergenceMonitor(better="lower")
        said = False
        for k, value in enumerate(y, start=1):
            monitor.update(value)
            said = said or (monitor._checked_at == k and bool(_below_best(monitor._last)))
        hits += said
    assert hits <= 5, hits  # P(> 5 of 150) < 1% at 1%


def test_watch_says_once_that_an_evaluation_is_worse_than_its_best(capsys):
    from swarmstats.cli import main

    code = main(["watch", str(REAL / "hf" / "trainer_state.json"), "--once", "-m", "eval_g0_loss"])
    out = capsys.readouterr().out
    assert code == 0
    said = [line for line in out.splitlines() if line.startswith("step 12030: eval_g0_loss is worse than its best")]
    assert len(said) == 1, out
    assert "averaged 1.354" in said[0]


def test_d3rlpys_evaluation_return_is_a_held_out_score():
    # d3rlpy logs its policy's return in the environment as `environment`: a real DiscreteBCQ
    # run on Breakout peaked at ~62 by epoch 5 and settled near 14; the two CQL seeds did not
    assert is_held_out_score("environment") and not is_held_out_score("environment_steps")
    folder = REAL / "d3rlpy" / "d3rlpy_logs"
    bcq = ss.read_log(folder / "DiscreteBCQ_breakout_5_20220509062757", wide=True)
    note = _below_best(ss.check_convergence(bcq.set_index("step")["environment"].dropna()))
    assert note and "14.29" in note[0] and "lower" in note[0], note
    for seed in ("CQL_hopper-medium-v0_1_20210617091227", "CQL_hopper-medium-v0_2_20210617132440"):
        cql = ss.read_log(folder / seed, wide=True)
        assert not _below_best(ss.check_convergence(cql.set_index("step")["environment"].dropna()))
