"""agreement (issue 22, item 4): pairwise agreement and strategy diversity over time, and the
agreement rate's trend - against a direct count, calibrated on stationary agreement, and able
to see a simulated escalation."""

import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError, agreement
from swarmstats.agents.agreement import _per_step

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from calibration_agents import agreement_calls  # noqa: E402
from scenarios import agent_actions  # noqa: E402


def test_per_step_agreement_and_entropy_match_a_direct_count():
    rng = np.random.default_rng(0)
    actions = pd.DataFrame(rng.choice(["up", "down", "hold"], size=(40, 6)).astype(object))
    actions.iloc[3, 2] = np.nan                                   # an agent that did not act
    rates, entropy, distinct, acting = _per_step(actions)
    for t in (0, 3, 17):
        acted = [a for a in actions.iloc[t] if isinstance(a, str)]
        pairs = list(combinations(acted, 2))
        assert rates[t] == pytest.approx(np.mean([a == b for a, b in pairs]))
        shares = pd.Series(acted).value_counts(normalize=True).to_numpy()
        assert entropy[t] == pytest.approx(-(shares * np.log2(shares)).sum())
        assert distinct[t] == len(set(acted)) and acting[t] == len(acted)


@pytest.mark.parametrize("design", [{}, {"conform": (0.5, 0.5)}, {"agents": 4}, {"persistence": 0.5}],
                         ids=["default", "conformist", "four-agents", "restless"])
def test_stationary_agreement_is_called_a_trend_at_most_alpha_of_the_time(design):
    # measured at 300 runs (docs/agents.md): 1.7-6.7% both ways at 5%; a series shorter than 25
    # autocorrelation times is insufficient_data, which is not a claim
    reps = 200
    up, down, _ = agreement_calls(reps, seed=1, **design)
    assert up + down <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


def test_an_escalation_is_found():
    # conformity rising from 0 to 0.6 over 1,000 steps: 81% of 300 runs in the benchmark
    found, _, _ = agreement_calls(80, seed=2, steps=1000, conform=(0.0, 0.6))
    assert found >= 0.7


def test_a_short_persistent_series_is_insufficient_data_with_what_would_settle_it():
    rng = np.random.default_rng(6)
    result = agreement(agent_actions(rng, steps=100, persistence=0.97))
    assert result.verdict == "insufficient_data" and "needs about" in result.reason


def test_windows_diversity_and_the_reason():
    rng = np.random.default_rng(3)
    result = agreement(agent_actions(rng, steps=1000, conform=(0.0, 0.9), persistence=0.8))
    assert result.verdict == "escalating" and "agree more and more" in result.reason
    table = result.windows
    assert len(table) == 5 and table["agreement"].iloc[-1] > table["agreement"].iloc[0]
    assert table["diversity"].iloc[-1] < table["diversity"].iloc[0]
    assert (table["low"] <= table["agreement"]).all() and (table["agreement"] <= table["high"]).all()
    assert result.to_frame() is table
    import json

    json.dumps(result.to_dict())


def test_long_wide_and_mapping_inputs_agree():
    rng = np.random.default_rng(4)
    wide = pd.DataFrame(agent_actions(rng, agents=5, steps=120), columns=list("abcde"))
    long = wide.rename_axis("step").reset_index().melt(id_vars="step", var_name="agent", value_name="vote")
    results = [agreement(wide), agreement(long, value="vote"), agreement({c: wide[c] for c in wide})]
    for other in results[1:]:
        pd.testing.assert_frame_equal(other.windows, results[0].windows)


def test_continuous_actions_are_said_to_need_bins():
    rng = np.random.default_rng(5)
    result = agreement(pd.DataFrame(rng.normal(size=(60, 4))))
    assert any("bin them first" in note for note in result.notes)


@pytest.mark.parametrize("actions, kwargs, message", [
    (pd.DataFrame({"a": range(30)}), {}, "at least two"),
    (pd.DataFrame({"a": range(10), "b": range(10)}), {}, "at least 20"),
    (pd.DataFrame({"a": range(30), "b": range(30)}), {"windows": 0}, "windows"),
    ("votes.csv", {}, "expected a frame"),
])
def test_bad_input_is_one_clear_error(actions, kwargs, message):
    with pytest.raises(InputError, match=message):
        agreement(actions, **kwargs)
