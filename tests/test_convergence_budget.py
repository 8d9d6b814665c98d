"""``budget``: "converged" claimed up to the step a run is planned to end at.

A slow climb is flat over the next stretch as long as the part kept and still rises well past
the tolerance by the end of the run; with the run's budget known, the flatness claim covers
the rest of the run, so a stop never leaves more than the tolerance on the table (at alpha).
"""

import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.errors import InputError

from .conftest import ar1, binomial_upper
from .test_cli import run

#: AR(0.5) noise of unit marginal SD with a climb of 0.5 SD per 1,000 steps: over the next
#: 1,000 steps it rises 0.5 SD (inside the default tolerance, 0.75 SD); to step 4,000, 1.5 SD.
SLOPE = 0.0005


def _climb(n, rng, reps, slope=SLOPE):
    return ar1(0.5, n, rng, reps) * np.sqrt(0.75) + slope * np.arange(n)


def test_the_horizon_runs_to_the_budget_when_that_is_further():
    y = ar1(0.3, 1000, np.random.default_rng(0))
    far = ss.ConvergenceTest(budget=5000).fit(y)
    assert far.horizon == 5000 - 999  # the rest of the run, from the last step
    assert "to the budget's end at 5,000" in far.reasons[0]
    near = ss.ConvergenceTest(budget=1100).fit(y)
    plain = ss.ConvergenceTest().fit(y)
    assert near.horizon == plain.horizon == plain.n_kept - 1  # never shorter than the kept span
    assert near.reasons == plain.reasons
    stepped = ss.ConvergenceTest(budget=50_000).fit(pd.Series(y, index=np.arange(1000) * 10))
    assert stepped.horizon == 50_000 - 9990  # on the step axis


@pytest.mark.parametrize("options", [dict(budget=4000, horizon=100), dict(budget=float("nan")),
                                     dict(budget="end")])
def test_a_bad_budget_is_an_input_error(options):
    with pytest.raises(InputError, match="budget"):
        ss.ConvergenceTest(**options)


def test_a_slow_climb_is_not_converged_to_the_budget_and_a_flat_run_still_is():
    reps = 150
    climbs = _climb(1000, np.random.default_rng(11), reps)
    with_budget = np.mean([ss.ConvergenceTest(budget=3999).fit(y).converged for y in climbs])
    without = np.mean([ss.ConvergenceTest().fit(y).converged for y in climbs])
    # the claim "flat within 0.75 SD to step 3,999" is false (the mean rises 1.5 SD): alpha
    assert with_budget <= binomial_upper(0.05, reps)
    assert without >= 0.2  # true over its own horizon (0.5 SD over the next ~1,000): ~40%
    flat = ar1(0.5, 2000, np.random.default_rng(12), reps) * np.sqrt(0.75)
    shown = np.mean([ss.ConvergenceTest(budget=3999).fit(y).converged for y in flat])
    assert shown >= 0.85  # a run at half its budget can still be shown flat to the end (~95%)


def test_a_live_monitor_with_a_budget_still_stops_a_flat_run_with_a_claim_to_the_end():
    reps, n = 40, 3000
    stops = 0
    for y in ar1(0.5, n, np.random.default_rng(14), reps) * np.sqrt(0.75):
        monitor = ss.ConvergenceMonitor(budget=n - 1)
        for length in range(100, n + 1, 50):  # reading the verdict as it goes
            if monitor.update_many(y[monitor.n:length]).converged:
                claim = monitor.last_result
                assert claim.horizon >= n - length  # flat claimed to the end of the run
                stops += 1
                break
    assert stops >= 0.8 * reps  # ~98%, at a median of ~1,700 steps (no budget: ~1,100)


def test_a_monitor_claims_flatness_to_a_step_budget_on_each_metric_s_step_axis():
    monitor = ss.Monitor(metrics=["reward", "eval"], budget=20_000)
    rng = np.random.default_rng(5)
    for step in range(0, 10_000, 10):  # reward every 10 steps, eval every 100
        values = {"reward": rng.normal()}
        if step % 100 == 0:
            values["eval"] = rng.normal()
        monitor.log(step, **values)
    reward, evals = monitor._streams["reward"], monitor._streams["eval"]
    assert reward.test.budget == evals.test.budget == 20_000  # both judged on their steps
    result = monitor.result("reward")
    assert result.horizon == 20_000 - 9_990  # from its last step to the budget's end
    assert "to the budget's end at 20,000" in result.reasons[0]
    assert monitor.result("eval").horizon == 20_000 - 9_900
    assert "stop on reward (flat up to step 20,000)" in monitor.status.summary()
    assert ss.Monitor(budget=10).get_params()["budget"] == 10


def test_a_monitor_without_a_step_axis_turns_the_budget_into_values():
    monitor = ss.Monitor(metrics=["reward"], budget=20_000)
    rng = np.random.default_rng(5)
    for step in range(0, 10_000, 10):
        monitor.log(step, reward=rng.normal())
    monitor.log(5_000, reward=rng.normal())  # a step going back: judged on positions from here
    assert monitor._streams["reward"].n == 1001
    # value 1,000 at step 5,000, spacing 5 steps a value on average: 3,000 values to go
    assert monitor._streams["reward"].test.budget == pytest.approx(1000 + 15_000 / 5)


def test_a_monitor_refuses_a_budget_with_a_horizon():
    with pytest.raises(InputError, match="not both"):
        ss.Monitor(budget=1000, horizon=50)
    with pytest.raises(InputError, match="budget"):
        ss.Monitor(budget=float("inf"))


def test_the_cli_claims_flatness_to_the_budget(tmp_path):
    path = tmp_path / "flat.csv"
    y = ar1(0.3, 800, np.random.default_rng(6))
    pd.DataFrame({"step": np.arange(800) * 5, "reward": y}).to_csv(path, index=False)
    done = run("check-convergence", path, "--budget", 12_000, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert "to the budget's end at 12,000" in done.stdout
    clash = run("check-convergence", path, "--budget", 12_000, "--horizon", 10)
    assert clash.returncode == 2 and "not both" in clash.stderr
    watched = run("watch", path, "--once", "--budget", 12_000)
    assert watched.returncode == 0, watched.stderr


def test_a_budget_on_a_step_axis_read_as_row_order_is_not_used_and_said():
    """A step axis that goes back (two runs appended) is read in row order; a budget in steps
    has no row there.  It was taken as one: 5,000 - row 399 gave "the next 4,601 steps"."""
    y = pd.Series(np.random.default_rng(0).normal(size=400), index=np.r_[np.arange(200), np.arange(200)] * 10)
    result = ss.check_convergence(y, budget=5000)
    plain = ss.check_convergence(y)
    assert result.horizon == plain.horizon == 399
    assert "the budget (step 5,000) has no place on row order and was not used" in result.reasons[-1]


def test_a_budget_holds_on_a_step_axis_with_two_values_at_each_step():
    """Two values at each step are spread over it, on the steps: the budget is the rest of the
    run up to step 5,000 from the last (spread) step, 1,995."""
    y = pd.Series(np.random.default_rng(0).normal(size=400), index=np.repeat(np.arange(200) * 10, 2))
    result = ss.check_convergence(y, budget=5000)
    assert result.horizon == 5000 - 1995
    assert "200 value(s) were logged at a step already holding one" in result.reasons[-1]
