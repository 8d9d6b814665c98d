"""ConvergenceMonitor: streaming equals batch, and the work is amortised."""

import numpy as np
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
    return {"flat": 0.5 + 0.05 * rng.normal(size=steps),
            "also_flat": 1.0 + 0.05 * rng.normal(size=steps),
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
