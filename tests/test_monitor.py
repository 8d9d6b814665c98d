"""ConvergenceMonitor: streaming equals batch, and the work is amortised."""

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.errors import InputError

from .conftest import ar1


def test_update_many_equals_a_loop_of_update():
    x = ar1(0.5, 6000, np.random.default_rng(1)) + np.r_[np.linspace(2, 0, 500), np.zeros(5500)]
    looped = ss.ConvergenceMonitor()
    for value in x:
        looped.update(value)
    batched = ss.ConvergenceMonitor()
    for chunk in np.array_split(x, 7):
        batched.update_many(chunk)
    assert looped.state == batched.state
    assert looped.history == batched.history


def test_running_moments_match_numpy_near_large_offsets():
    x = 1e9 + np.random.default_rng(2).normal(0, 1e-3, 100_000)
    monitor = ss.ConvergenceMonitor()
    state = monitor.update_many(x)
    exact = x.astype(np.longdouble)  # extended precision as the reference
    assert state.mean == pytest.approx(float(exact.mean()), rel=1e-15)
    assert state.sd == pytest.approx(float(exact.std(ddof=1)), rel=1e-12)


def test_result_matches_the_batch_verdict():
    x = ar1(0.3, 3000, np.random.default_rng(3))
    monitor = ss.ConvergenceMonitor(alpha=0.05)
    monitor.update_many(x)
    streamed = monitor.result()
    batch = ss.check_convergence(x, equivalence_alpha=monitor.test.equivalence_alpha)
    assert streamed.verdict == batch.verdict
    assert streamed.mean == batch.mean and streamed.warmup == batch.warmup
    assert streamed.ci == batch.ci


def test_number_of_full_checks_grows_logarithmically():
    monitor = ss.ConvergenceMonitor()
    monitor.update_many(np.random.default_rng(4).normal(size=100_000))
    # checkpoints at 100, 150, 225, ... x1.5 each: log(100000/100)/log(1.5) ~ 17
    assert len(monitor.history) <= 18


def test_alpha_is_spent_over_the_looks():
    monitor = ss.ConvergenceMonitor(alpha=0.05)
    levels = [monitor.look_alpha(k) for k in range(1, 100_001)]
    assert sum(levels) < 0.05  # however many looks, the flatness claims spend at most alpha
    assert levels[0] == pytest.approx(0.05 / 2.6123753486854883)
    assert ss.ConvergenceMonitor(anytime=False).look_alpha(50) == 0.05
    monitor.update_many(np.random.default_rng(6).normal(size=1000))
    # the last scheduled check ran its flatness bound at the level of its look (and the
    # monitor's own test keeps the level it was configured with)
    length = monitor.history[-1][0]
    at_its_level = ss.ConvergenceTest(alpha=0.05, equivalence_alpha=monitor.look_alpha(len(monitor.history)))
    expected = at_its_level.fit(monitor.values[:length].copy())
    assert monitor.last_result.change_bound == pytest.approx(expected.change_bound)
    assert monitor.last_result.change_bound != pytest.approx(
        ss.ConvergenceTest(alpha=0.05).fit(monitor.values[:length].copy()).change_bound)
    assert monitor.test.equivalence_alpha is None


def test_fixed_cadence_and_bad_input():
    monitor = ss.ConvergenceMonitor(check_every=100, first_check=20)
    monitor.update_many(np.zeros(450) + np.random.default_rng(5).normal(size=450))
    assert [n for n, _ in monitor.history] == [20, 120, 220, 320, 420]
    default = ss.ConvergenceMonitor(check_every=100)
    default.update_many(np.zeros(450))
    assert [n for n, _ in default.history] == [100, 200, 300, 400]  # no look before 100 points
    with pytest.raises(InputError):
        monitor.update(float("nan"))
    with pytest.raises(InputError):
        ss.ConvergenceMonitor(growth=0)


# --- several metrics, one decision (issue 20, item 10) -------------------------------------------

def _feed(monitor, series: dict, steps: int):
    for step in range(steps):
        monitor.log(step, **{name: values[step] for name, values in series.items()})
    return monitor


def _curves(steps=3000, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(steps)
    # "flat" and "also_flat" learned (a climb over their first 200 steps), then hold a level
    learned = np.minimum(t / 200, 1.0)
    return {"flat": 0.5 * learned + 0.05 * rng.normal(size=steps),
            "also_flat": 1.0 * learned + 0.05 * rng.normal(size=steps),
            "rising": 0.001 * t + 0.05 * rng.normal(size=steps)}


def test_stop_when_all_waits_for_every_metric_and_any_for_one():
    curves = _curves()
    both = _feed(ss.Monitor(metrics=["flat", "also_flat"], stop_on=["flat", "also_flat"], check_every=200),
                 curves, 3000)
    assert both.should_stop
    assert "stop when all of flat, also_flat converged: yes" in both.status.summary()
    waiting = _feed(ss.Monitor(metrics=["flat", "rising"], stop_on=["flat", "rising"], check_every=200),
                    curves, 3000)
    assert not waiting.should_stop  # one metric is still rising
    first = _feed(ss.Monitor(metrics=["flat", "rising"], stop_on=["flat", "rising"], stop_when="any",
                          check_every=200), curves, 3000)
    assert first.should_stop  # the flat one is enough
    assert first.status.to_dict()["stop_metrics"] == ["flat", "rising"]


def test_a_level_held_from_the_start_is_no_reason_to_stop_unless_asked():
    """A reward flat from its first value (a sparse task before its take-off, a run that never
    learned) is converged, but stopping there ends the run before it learned anything: by
    default the stop also needs an improvement shown, and the status says why it waits."""
    rng = np.random.default_rng(2)
    never = {"reward": 0.05 * rng.normal(size=1500)}
    waiting = _feed(ss.Monitor(metrics=["reward"], check_every=200), never, 1500)
    entry = waiting.status.metrics["reward"]
    assert entry["verdict"] == "converged" and entry["improvement_shown"] is False
    assert not waiting.should_stop and not waiting.stop_rule_holds(waiting.status.metrics)
    assert ("stop on reward: not yet (reward converged, but no improvement shown: a level held from the "
            "start is no reason to stop; require_improvement=False stops on it)") in waiting.status.summary()
    asked = _feed(ss.Monitor(metrics=["reward"], check_every=200, require_improvement=False), never, 1500)
    assert asked.should_stop and asked.stop_rule_holds(asked.status.metrics)
    assert asked.get_params()["require_improvement"] is False
    learned = _feed(ss.Monitor(metrics=["flat"], check_every=200), _curves(1500), 1500)
    assert learned.should_stop and learned.status.metrics["flat"]["improvement_shown"] is True
    with pytest.raises(ss.InputError, match="require_improvement must be True or False"):
        ss.Monitor(require_improvement="yes")


def test_stop_when_any_makes_each_flatness_claim_at_alpha_over_k():
    names = ["a", "b", "c", "d"]
    any_ = ss.Monitor(metrics=[*names, "other"], stop_on=names, stop_when="any", alpha=0.05)
    all_ = ss.Monitor(metrics=[*names, "other"], stop_on=names, alpha=0.05)
    for monitor in (any_, all_):
        monitor.log(0, a=1.0, b=1.0, c=1.0, d=1.0, other=1.0)
    assert all(any_._streams[n].test.equivalence_alpha == pytest.approx(0.0125) for n in names)
    assert any_._streams["other"].test.equivalence_alpha is None  # not a stop metric: alpha
    assert all(all_._streams[n].test.equivalence_alpha is None for n in names)  # all: no correction


@pytest.mark.parametrize("kwargs, match", [
    ({"stop_on": ["a"], "stop_when": "most"}, "stop_when"),
    ({"metrics": ["a"], "stop_on": ["a", "b"]}, "not among the tracked"),
    ({"stop_on": []}, "at least one metric"),
])
def test_bad_stop_rules_are_refused_where_written(kwargs, match):
    with pytest.raises(InputError, match=match):
        ss.Monitor(**kwargs)


def test_a_monitor_judges_a_metric_on_the_steps_it_was_logged_at():
    """Logged every 2,048 steps, a climb of 1e-5 per step is +0.001 per 100 steps - what
    check_convergence says of the same log - not +2.05 "per 100 steps" of log calls."""
    rng = np.random.default_rng(8)
    steps = 2048 * np.arange(1, 301)
    values = 0.3 + 1e-5 * steps + rng.normal(0, 0.05, len(steps))
    monitor = ss.Monitor(metrics=["reward"], check_every=300)
    for step, value in zip(steps, values):
        monitor.log(int(step), reward=float(value))
    streamed = monitor.result("reward")
    batch = ss.check_convergence(values, steps=steps, equivalence_alpha=ss.ConvergenceMonitor().look_alpha(1))
    assert streamed.verdict == batch.verdict == "not_converged"
    assert streamed.trend_slope == pytest.approx(batch.trend_slope, rel=1e-12)
    assert streamed.trend_slope == pytest.approx(1e-5, rel=0.3)
    assert streamed.reasons == batch.reasons
    assert "+0.00" in streamed.reasons[0] and "per 100 steps" in streamed.reasons[0]


def test_a_step_unit_names_the_axis_in_every_reason_and_a_bad_one_is_refused():
    rng = np.random.default_rng(10)
    epochs = np.arange(1, 301)
    values = 0.3 + 1e-3 * epochs + rng.normal(0, 0.05, len(epochs))
    monitor = ss.Monitor(metrics=["accuracy"], check_every=300, step_unit="epoch")
    for epoch, value in zip(epochs, values):
        monitor.log(int(epoch), accuracy=float(value))
    streamed = monitor.result("accuracy")
    batch = ss.check_convergence(pd.Series(values, index=pd.Index(epochs, name="epoch")),
                                 equivalence_alpha=ss.ConvergenceMonitor().look_alpha(1))
    assert streamed.reasons == batch.reasons and "per 100 epochs" in streamed.reasons[0]
    for bad in ("", "  ", 3):
        with pytest.raises(InputError, match="step_unit"):
            ss.ConvergenceMonitor(step_unit=bad)
        with pytest.raises(InputError, match="step_unit"):
            ss.Monitor(step_unit=bad)


def test_a_step_that_goes_back_turns_a_metric_to_positions_and_keeps_its_values():
    monitor = ss.Monitor(metrics=["reward"], check_every=50)
    for step in range(200):
        monitor.log(10 * step, reward=0.5 + 0.01 * (step % 3))
    monitor.log(3, reward=0.51)  # not after the last step: the axis is lost, not the values
    monitor.log("late", reward=0.52)
    assert monitor.status.metrics["reward"]["n"] == 202
    result = monitor.result("reward")
    assert result.n == 202 and not monitor._on_axis["reward"]
    # the numbers are per value now, and say so
    assert all("steps" not in reason for reason in result.reasons)
    assert "logged values" in " ".join(result.reasons)


def test_convergence_monitor_steps_one_by_one_or_in_bulk_give_the_same_state():
    x = ar1(0.3, 600, np.random.default_rng(9))
    steps = 5.0 * np.arange(600)
    one = ss.ConvergenceMonitor(check_every=150)
    for value, step in zip(x, steps):
        one.update(value, step=step)
    bulk = ss.ConvergenceMonitor(check_every=150)
    bulk.update_many(x[:250], steps=steps[:250])
    bulk.update_many(x[250:], steps=steps[250:])
    assert one.history == bulk.history
    look = len(one.history) + (one.history[-1][0] != one.n)  # result() at 600: one look more
    assert one.result().reasons == bulk.result().reasons == ss.ConvergenceTest(
        equivalence_alpha=one.look_alpha(look)).fit(x, steps=steps).reasons
    with pytest.raises(InputError, match="must come after the last"):
        one.update(0.5, step=steps[-1])  # a second value at the same step is no axis


@pytest.mark.parametrize("feed, match", [
    (lambda m: (m.update(1.0, step=10), m.update(2.0, step=5)), "must come after the last"),
    (lambda m: (m.update(1.0), m.update(2.0, step=5)), "every value or with none"),
    (lambda m: (m.update(1.0, step=1), m.update(2.0)), "give one with each value"),
    (lambda m: m.update(1.0, step=float("nan")), "step"),
    (lambda m: m.update_many([1.0, 2.0], steps=[3.0]), "1 steps for 2 values"),
    (lambda m: m.update_many([1.0, 2.0, 3.0], steps=[1.0, 5.0, 4.0]), "must come after the last"),
    (lambda m: m.update_many([1.0, 2.0], steps=[1.0, float("inf")]), "not a finite number"),
])
def test_convergence_monitor_steps_bad_input(feed, match):
    monitor = ss.ConvergenceMonitor()
    with pytest.raises(InputError, match=match):
        feed(monitor)


def test_a_metrics_name_sets_which_way_is_better_as_in_the_batch_verdict():
    """Monitor's streams were nameless, so every metric was higher-is-better: `watch` said a
    falling loss was "still worsening" where check-convergence said "still improving"."""
    rng = np.random.default_rng(1)
    loss = 1.0 - 0.01 * np.arange(120) + rng.normal(0, 0.01, 120)
    monitor = ss.Monitor(check_every=60)
    for step, value in enumerate(loss):
        monitor.log(step, loss=value, reward=value)  # a falling reward: worsening
    report = monitor.status
    assert report.metrics["loss"]["reason"].startswith("still improving")
    assert report.metrics["reward"]["reason"].startswith("still worsening")
    batch = ss.check_convergence(pd.Series(loss, name="loss"))
    assert batch.reasons[0].startswith("still improving")
    single = ss.ConvergenceMonitor(name="loss", check_every=60)
    single.update_many(loss)
    assert single.result().reasons[0].startswith("still improving")


def test_without_metrics_bookkeeping_is_not_tracked_but_said():
    """A Trainer's log dict carries epoch, learning_rate and train_runtime beside the loss; with
    every metric tracked, the schedule read "not converged" beside it.  As the commands and
    `watch` do, they are left out by name and listed; named, they are tracked."""
    rng = np.random.default_rng(0)
    logs = [dict(loss=1 + rng.normal(0, 0.1), grad_norm=abs(rng.normal()), learning_rate=1e-3 * (1 - s / 300),
                 epoch=s / 100, train_runtime=None) for s in range(300)]
    everything = ss.Monitor()
    for step, entry in enumerate(logs):
        everything.log(step, **entry)
    status = everything.status
    assert list(status.metrics) == ["loss", "grad_norm"]
    assert status.left_out == {"learning_rate": "a schedule: learning rate or exploration",
                               "epoch": "a step axis", "train_runtime": "a clock"}
    assert ("not tracked, as bookkeeping (name one in metrics=, or with -m, to track it): learning_rate "
            "(a schedule: learning rate or exploration); epoch (a step axis); train_runtime (a clock)") \
        in status.summary()
    named = ss.Monitor(metrics=["loss", "learning_rate"])
    stop_on = ss.Monitor(stop_on="epoch")
    for step, entry in enumerate(logs):
        named.log(step, **entry)
        stop_on.log(step, **entry)
    assert set(named.status.metrics) == {"loss", "learning_rate"} and not named.status.left_out
    assert "epoch" in stop_on.status.metrics and "epoch" not in stop_on.status.left_out


def test_a_counter_no_name_gives_away_is_left_out_by_its_values_while_they_rise():
    """BenchMARL logs epoch_n = 1, 2, ... beside its rewards; no name rule knows it, and `watch`
    read it "not converged: still improving +100 per 100 steps", failing its gate, where
    check_convergence leaves such a column out of the table as a counter by its shape."""
    rng = np.random.default_rng(1)
    monitor = ss.Monitor(check_every=10)
    for step in range(40):
        monitor.log(step * 5, reward=rng.normal(), epoch_n=step + 1, episodes_seen=3 * step)
    status = monitor.status
    assert list(status.metrics) == ["reward"]
    assert status.left_out == {"epoch_n": "a counter: integers rising at nearly every step so far",
                               "episodes_seen": "a counter: integers rising at nearly every step so far"}
    # judged again at every status: once it stops rising at nearly every step it is tracked
    for step in range(40, 60):
        monitor.log(step * 5, reward=rng.normal(), epoch_n=40, episodes_seen=3 * step)
    assert "epoch_n" in monitor.status.metrics and "episodes_seen" in monitor.status.left_out
    # named, or the stop metric, it is tracked from the start
    named = ss.Monitor(metrics=["reward", "epoch_n"], check_every=10)
    for step in range(40):
        named.log(step * 5, reward=rng.normal(), epoch_n=step + 1)
    assert set(named.status.metrics) == {"reward", "epoch_n"} and not named.status.left_out
    # an integer score rising at only some steps is a metric
    scores = ss.Monitor(check_every=10)
    for step in range(40):
        scores.log(step, score=float(step // 3 + rng.integers(0, 2)))
    assert "score" in scores.status.metrics


def test_watch_leaves_out_a_real_benchmarl_exports_epoch_counter_as_check_convergence_does():
    from swarmstats.cli import main
    path = Path(__file__).parent / "fixtures" / "real" / "wandb" / "benchmarl-mappo-history.csv"
    with contextlib.redirect_stdout(io.StringIO()) as printed, contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["watch", str(path), "--once", "--format", "json"])
        except SystemExit:
            pass
    text = printed.getvalue()
    report = json.loads(text[text.index('{\n  "schema_version"'):])["report"]
    assert "epoch_n" not in report["metrics"] and "collection/reward/episode_reward_mean" in report["metrics"]
    assert report["left_out"]["epoch_n"].startswith("a counter")
