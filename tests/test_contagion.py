"""contagion (issue 22, item 3): lead-lag between agents with a rotation null.

The kernel against a direct computation, the rotation test's size on independent agents that
are autocorrelated three ways (switching work/idle, AR(0.9) levels, random walks), no lead
called for agents that change in the same step, power for a transfer at lags 1 to 5, the
population test, and bad input.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError, contagion
from swarmstats._kernels.lead_lag import (
    circular_cross_correlations,
    lead_asymmetry,
    rotation_pvalues,
    standardised_changes,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from calibration_agents import contagion_power  # noqa: E402
from scenarios import agent_behaviour  # noqa: E402


def _binomial_upper(rate, reps, z=3.0):
    return rate + z * np.sqrt(rate * (1 - rate) / reps)


def test_the_asymmetry_matches_a_direct_computation():
    rng = np.random.default_rng(0)
    z = standardised_changes(np.cumsum(rng.normal(size=(2, 60)), axis=1))
    r = circular_cross_correlations(z)
    n = z.shape[1]
    for s in (0, 3, 40):
        direct = sum(np.mean(z[0] * np.roll(z[1], -(s + k))) - np.mean(z[0] * np.roll(z[1], -(s - k)))
                     for k in range(1, 4))
        assert lead_asymmetry(r, 3)[0, 1, s] == pytest.approx(direct, abs=1e-12)
    # b's lead over a is a's over b with the sign turned
    assert np.allclose(lead_asymmetry(r, 3)[1, 0, 0], -lead_asymmetry(r, 3)[0, 1, 0])
    assert r.shape == (2, 2, n)


@pytest.mark.parametrize("kind", ["switching", "ar", "walk"])
@pytest.mark.parametrize("steps", [200, 400])
def test_independent_autocorrelated_agents_are_linked_at_most_alpha_of_the_time(kind, steps):
    # the pairs' rotation test (vectorised here: the kernel the estimator calls); measured at
    # 3,000 pairs each: 4.6-4.9% at 5%, 0.5-1.0% at 1%
    reps = 1500
    rng = np.random.default_rng(11)
    pvalues = []
    for _ in range(reps):
        values = np.array(list(agent_behaviour(rng, kind=kind, steps=steps).values()))
        correlations = circular_cross_correlations(standardised_changes(values, 5))
        pvalues.append(rotation_pvalues(lead_asymmetry(correlations, 5))[0, 1])
    pvalues = np.array(pvalues)
    for alpha in (0.05, 0.01):
        assert np.mean(pvalues <= alpha) <= _binomial_upper(alpha, reps)
    assert np.mean(pvalues <= 0.05) >= 0.05 - 3 * np.sqrt(0.05 * 0.95 / reps)     # not trivially conservative


@pytest.mark.parametrize("agents", [2, 6])
def test_the_population_test_and_the_verdict_keep_their_size(agents):
    reps = 200
    rng = np.random.default_rng(12)
    results = [contagion(agent_behaviour(rng, agents=agents, steps=200), n_perm=199, random_state=rng)
               for _ in range(reps)]
    assert np.mean([r.population_p <= 0.05 for r in results]) <= _binomial_upper(0.05, reps)
    assert np.mean([r.verdict != "none_shown" for r in results]) <= _binomial_upper(0.05, reps)


def test_agents_that_change_in_the_same_step_have_no_leader():
    # a common shock: both follow one switching state, each with its own noise
    rng = np.random.default_rng(13)
    reps, called = 200, 0
    for _ in range(reps):
        state = agent_behaviour(rng, noise=0.0, steps=200)["agent_0"]
        called += contagion({"a": state + 0.2 * rng.normal(size=200), "b": state + 0.2 * rng.normal(size=200)},
                            n_perm=199, random_state=rng).verdict != "none_shown"
    assert called / reps <= _binomial_upper(0.05, reps)


@pytest.mark.parametrize("lag", [1, 3, 5])
def test_a_transfer_at_lags_one_to_five_is_found_with_its_leader_and_lag(lag):
    # issue 22's target (power >= 0.8): work/idle switching (probability 0.03 per step), 400
    # steps, noise SD 0.2; the follower copies the leader's state `lag` steps later.  Measured
    # at 200 runs: 0.96 / 1.0 / 0.98 with the right leader (docs/agents.md has the table)
    found, right_lag = contagion_power(100, lag, noise=0.2, steps=400, seed=20 + lag)
    assert found >= 0.8
    assert right_lag >= 0.8


def test_one_leader_among_several_agents_is_named():
    rng = np.random.default_rng(3)
    data = agent_behaviour(rng, agents=4, follow_lag=2, noise=0.1, steps=1200)
    result = contagion(data, random_state=0)
    assert result.verdict == "contagion"
    top = result.significant_pairs.iloc[0]
    assert (top.leader, top.follower, top.lag) == ("agent_0", "agent_1", 2)
    assert len(result.significant_pairs) == 1
    assert "agent_0 are followed by the same changes in agent_1" in result.reason


def test_inputs_wide_long_and_mapping_agree():
    rng = np.random.default_rng(4)
    data = agent_behaviour(rng, agents=3, follow_lag=2, noise=0.1, steps=300)
    wide = pd.DataFrame(data)
    long = wide.rename_axis("step").reset_index().melt(id_vars="step", var_name="agent", value_name="effort")
    results = [contagion(data), contagion(wide), contagion(long, value="effort")]
    for other in results[1:]:
        pd.testing.assert_frame_equal(other.pairs, results[0].pairs)
        assert other.population_p == results[0].population_p


def test_too_many_pairs_for_short_series_is_said():
    rng = np.random.default_rng(5)
    result = contagion(agent_behaviour(rng, agents=6, steps=200), n_perm=99)
    assert any("cannot go much below" in note for note in result.notes)


@pytest.mark.parametrize("data, kwargs, message", [
    ({"a": np.arange(30.0)}, {}, "at least two"),
    ({"a": np.arange(15.0), "b": np.arange(15.0) ** 2}, {}, "need at least"),
    ({"a": np.ones(50), "b": np.ones(50)}, {}, "whose behaviour changes"),
    ({"a": np.arange(50.0), "b": np.r_[np.arange(49.0), np.nan]}, {}, "missing value"),
    ({"a": np.arange(50.0), "b": np.arange(50.0)}, {"max_lag": 0}, "max_lag"),
    ({"a": np.arange(50.0), "b": np.arange(50.0)}, {"smooth": 0}, "smooth"),
    ({"a": np.arange(50.0), "b": np.arange(50.0)}, {"alpha": 2}, "alpha"),
    ({"a": np.arange(50.0), "b": np.arange(50.0)}, {"n_perm": 10}, "n_perm"),
    ([1, 2, 3], {}, "expected a frame"),
    ({"a": ["work"] * 50, "b": ["idle"] * 50}, {}, "not numbers .* use swarmstats.agreement"),
])
def test_bad_input_is_one_clear_error(data, kwargs, message):
    with pytest.raises(InputError, match=message):
        contagion(data, **kwargs)


def test_an_agent_that_never_changes_is_set_aside_with_a_note():
    rng = np.random.default_rng(6)
    data = agent_behaviour(rng, agents=3, steps=200)
    data["idle"] = np.zeros(200)
    result = contagion(data, n_perm=99)
    assert result.n_agents == 3 and any("idle never changed" in note for note in result.notes)
