"""Quality-gap metrics: SWARM's worked example, identities, conventions and bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstats import (
    InputError,
    PayoffConfig,
    inverse_sigmoid,
    quality_by,
    quality_metrics,
    sigmoid,
    swarm_proxy,
)
from swarmstats.quality import adverse_selection_test, early_warning

P = [0.9, 0.8, 0.3, 0.6, 0.2]
A = [1, 1, 0, 1, 0]

# swarm-metrics.md section 8, every number of the table
WORKED = {
    "accepted_quality": 0.766667, "rejected_quality": 0.25, "average_quality": 0.56,
    "quality_gap": 0.516667, "toxicity": 0.233333, "baseline_harm": 0.44,
    "selection_credit": 0.206667, "quality_std": 0.272764, "quality_correlation": 0.927961,
    "selection_saturation": 0.927961, "spread": -0.62, "toxicity_all": 0.44,
    "total_welfare": 3.9, "net_social_welfare": 2.5, "avg_payoff_initiator": 0.65,
    "avg_payoff_counterparty": 0.65, "conditional_loss_initiator": 0.31,
    "conditional_loss_counterparty": 0.31, "uncertain_fraction": 0.2,
}


@pytest.fixture(scope="module")
def worked():
    return quality_metrics(P, A, random_state=0)


@pytest.mark.parametrize("name,expected", sorted(WORKED.items()))
def test_swarm_worked_batch_to_4_decimals(worked, name, expected):
    assert round(worked.soft[name].value, 4) == round(expected, 4)


def test_worked_batch_hard_side_and_verdicts(worked):
    hard = worked.hard
    assert hard["hard_toxicity"].value == 0.0
    assert hard["acceptance_rate"].value == pytest.approx(0.6)
    assert hard["high_quality_acceptance"].value == 1.0
    assert hard["low_quality_acceptance"].value == 0.0
    assert worked.soft["quality_std"].value ** 2 == pytest.approx(0.0744)
    c = worked.comparison
    assert c["toxicity_difference"].value == pytest.approx(0.233333, abs=1e-6)
    assert "soft" in c["toxicity_verdict"] and "captures" in c["toxicity_verdict"]
    assert c["labels_unreliable"] is False
    assert c["adverse_selection"] is False
    assert abs(c["decomposition_error"]) < 1e-12


def test_to_dict_groups_soft_and_hard(worked):
    d = worked.to_dict()
    assert set(d["soft"]) >= {"toxicity", "quality_gap", "spread", "selection_saturation"}
    assert set(d["hard"]) >= {"hard_toxicity", "hard_quality_gap", "acceptance_rate"}
    assert set(d["soft"]["toxicity"]) == {"value", "ci_low", "ci_high"}
    assert "_p" not in d and "_accepted" not in d
    import json
    json.dumps(d, allow_nan=False)  # JSON-safe


def test_every_interval_contains_its_estimate():
    rng = np.random.default_rng(1)
    p = rng.beta(2, 3, 300)
    report = quality_metrics(p, rng.uniform(size=300) < p, random_state=2)
    for table in (report.soft, report.hard):
        for name, e in table.items():
            assert e.ci_low - 1e-12 <= e.value <= e.ci_high + 1e-12, name


def test_binary_twin_equals_soft_metrics_on_hard_labels():
    # SWARM's "binary twin": replace p by 1{p >= 0.5}; the soft metrics then equal the hard ones
    rng = np.random.default_rng(3)
    p = rng.uniform(size=200)
    a = rng.uniform(size=200) < p
    report = quality_metrics(p, a, n_boot=0)
    twin = quality_metrics((p >= 0.5).astype(float), a, n_boot=0)
    pairs = {"hard_toxicity": "toxicity", "hard_quality_gap": "quality_gap", "hard_spread": "spread",
             "hard_conditional_loss_initiator": "conditional_loss_initiator",
             "hard_conditional_loss_counterparty": "conditional_loss_counterparty",
             "hard_quality_correlation": "quality_correlation", "hard_total_welfare": "total_welfare",
             "hard_net_social_welfare": "net_social_welfare"}
    for hard, soft in pairs.items():
        assert report.hard[hard].value == pytest.approx(twin.soft[soft].value, abs=1e-12), hard


def test_payoff_terms_enter_welfare_but_transfers_cancel():
    base = quality_metrics(P, A, n_boot=0)
    tau = quality_metrics(P, A, n_boot=0, tau=[0.3] * 5)
    assert tau.soft["total_welfare"].value == pytest.approx(base.soft["total_welfare"].value)
    assert tau.soft["avg_payoff_initiator"].value == pytest.approx(0.65 - 0.3)
    costs = quality_metrics(P, A, n_boot=0, c_a=[0.1] * 5, c_b=[0.2] * 5)
    assert costs.soft["total_welfare"].value == pytest.approx(3.9 - 3 * 0.3)


def test_payoff_config_closed_forms():
    config = PayoffConfig()
    assert config.break_even_private == pytest.approx(1 / 3)
    assert config.break_even_social == pytest.approx(0.6)
    assert float(config.surplus(0.723122)) == pytest.approx(1.1693, abs=1e-4)
    assert float(config.harm(0.723122)) == pytest.approx(0.5538, abs=1e-4)
    with pytest.raises(InputError, match="theta"):
        PayoffConfig(theta=1.5)
    with pytest.raises(InputError, match="s_plus"):
        PayoffConfig(s_plus=-1)


probabilities = st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=60)


@settings(max_examples=150, deadline=None)
@given(probabilities, st.data())
def test_identities_hold_on_random_batches(p, data):
    flags = data.draw(st.lists(st.booleans(), min_size=len(p), max_size=len(p)))
    report = quality_metrics(p, flags, n_boot=0)
    s = report.soft
    n_acc = sum(flags)
    beta = 1 - n_acc / len(p)
    if n_acc > 0:
        # toxicity decomposition T = (1 - E[p]) - beta Q (exact; beta Q = 0 when nothing is rejected)
        assert s["toxicity"].value == pytest.approx(
            s["baseline_harm"].value - s["selection_credit"].value, abs=1e-9)
    if 0 < n_acc < len(p):
        q = s["quality_gap"].value
        # spread identity and the conditional-loss identity at tau = c = r = 0
        assert s["spread"].value == pytest.approx(-3 * beta * q, abs=1e-9)
        assert s["conditional_loss_initiator"].value == pytest.approx(1.5 * beta * q, abs=1e-9)
        sigma = s["quality_std"].value
        if sigma > 1e-6:
            # |rho| = saturation and the Cauchy-Schwarz bound |Q| <= sigma / sqrt(alpha beta)
            assert s["selection_saturation"].value == pytest.approx(abs(s["quality_correlation"].value))
            assert abs(q) <= sigma / np.sqrt(beta * (1 - beta)) + 1e-9
            assert s["selection_saturation"].value <= 1 + 1e-9
    else:
        assert np.isnan(s["quality_gap"].value)


def test_empty_sides_are_undefined_not_zero():
    everything = quality_metrics([0.2, 0.7, 0.9], [1, 1, 1], random_state=0)
    assert np.isnan(everything.quality_gap)
    assert everything.soft["selection_credit"].value == 0.0
    assert everything.toxicity == pytest.approx(1 - np.mean([0.2, 0.7, 0.9]))
    assert any("everything was accepted" in note for note in everything.notes)
    assert everything.to_dict()["soft"]["quality_gap"]["value"] is None
    nothing = quality_metrics([0.2, 0.7, 0.9], [0, 0, 0], random_state=0)
    assert np.isnan(nothing.toxicity) and np.isnan(nothing.soft["spread"].value)
    assert np.isnan(nothing.hard["hard_toxicity"].value)
    assert np.isnan(nothing.comparison["adverse_selection_pvalue"])


def test_swarm_compatible_reproduces_zero_conventions():
    everything = quality_metrics([0.2, 0.7, 0.9], [1, 1, 1], swarm_compatible=True, n_boot=0)
    assert everything.quality_gap == 0.0
    assert everything.soft["quality_correlation"].value == 0.0
    nothing = quality_metrics([0.2, 0.7, 0.9], [0, 0, 0], swarm_compatible=True, n_boot=0)
    for name in ("toxicity", "quality_gap", "spread", "conditional_loss_initiator",
                 "avg_payoff_initiator"):
        assert nothing.soft[name].value == 0.0, name
    assert nothing.hard["hard_toxicity"].value == 0.0
    # SWARM's T = 0 on an empty accepted set breaks the decomposition - as documented
    assert nothing.comparison["decomposition_error"] != 0


def test_proportions_get_wilson_intervals_that_do_not_collapse_at_zero(worked):
    hard = worked.hard["hard_toxicity"]  # 0 of 3 accepted are low quality
    assert hard.value == 0.0 and hard.ci_low == 0.0
    assert hard.ci_high == pytest.approx(0.5615, abs=1e-4)  # Wilson, z = 1.96


def test_bootstrap_is_reproducible_and_seed_sensitive():
    rng = np.random.default_rng(4)
    p = rng.uniform(size=100)
    a = rng.uniform(size=100) < 0.5
    one, two = quality_metrics(p, a, random_state=7), quality_metrics(p, a, random_state=7)
    assert one.soft["quality_correlation"] == two.soft["quality_correlation"]
    other = quality_metrics(p, a, random_state=8)
    assert one.soft["quality_correlation"].ci_low != other.soft["quality_correlation"].ci_low
    # the gap's interval is Student's t given each side's size: no resampling, no seed
    assert one.soft["quality_gap"] == other.soft["quality_gap"]


def test_band_and_threshold_edges_are_strict_like_swarm():
    # uncertain: 0.3 < p < 0.7 (strict); high quality: p >= 0.5
    report = quality_metrics([0.3, 0.7, 0.5, 0.31], [1, 1, 0, 0], n_boot=0)
    assert report.soft["uncertain_fraction"].value == 0.5
    assert report.hard["high_quality_acceptance"].value == pytest.approx(0.5)  # 0.7 yes, 0.5 no


@pytest.mark.parametrize("p,accepted,message", [
    ([0.2, 1.2], [1, 0], "p must lie in"),
    ([0.2, -0.1], [1, 0], "p must lie in"),
    ([0.2, 0.3], [1, 2], "booleans or 0/1, found 2 "),  # a plain number, not np.float64(2.0)
    ([0.2, 0.3], ["yes", "maybe"], "booleans"),
    ([0.2, 0.3, 0.4], [1, 0], "same length"),
    ([0.2, float("nan")], [1, 0], "nan_policy='omit'"),
    ([], [], "empty"),
    (["a", "b"], [1, 0], "'a' .position 0. is not a number"),
    ([0.2, 0.3], [[1, 0], [1]], "accepted: expected one flag per interaction"),  # a ValueError before
])
def test_bad_input_is_one_clear_error(p, accepted, message):
    with pytest.raises(InputError, match=message):
        quality_metrics(p, accepted)


@pytest.mark.parametrize("call", [lambda: sigmoid(["a", "b"]), lambda: inverse_sigmoid([[0.2, 0.3], [0.4]]),
                                  lambda: swarm_proxy(["0.5", "x"])])
def test_the_proxy_helpers_name_words_and_ragged_lists(call):
    with pytest.raises(InputError, match="expected numbers|could not read it"):  # ValueErrors before
        call()


def test_bad_options_are_clear_errors():
    for kwargs, message in (({"threshold": 1.0}, "threshold"), ({"band": 0.7}, "band"),
                            ({"ci": 95}, "ci"), ({"n_boot": -1}, "n_boot"),
                            ({"payoff": {"h": 1}}, "PayoffConfig"), ({"random_state": "x"}, "random_state")):
        with pytest.raises(InputError, match=message):
            quality_metrics(P, A, **kwargs)


def test_nan_policy_omit_drops_incomplete_rows():
    report = quality_metrics([0.9, np.nan, 0.8, 0.3, 0.6, 0.2], [1, 1, 1, 0, 1, None],
                             nan_policy="omit", n_boot=0)
    assert report.n == 4


def test_accept_flags_from_strings_and_booleans():
    report = quality_metrics(P, ["True", "true", "False", "yes", "no"], n_boot=0)
    assert report.quality_gap == pytest.approx(0.516667, abs=1e-6)


# --- adverse selection ---------------------------------------------------------------------------

def test_permutation_test_size_and_power():
    """Size: under independence P(p-value <= 0.05) <= 0.05 (+ 3 binomial SE); power on a real
    adverse selection of modest size."""
    rng = np.random.default_rng(11)
    reps = 400
    rejections = 0
    for _ in range(reps):
        p = rng.beta(2, 2, 100)
        a = rng.uniform(size=100) < 0.5
        rejections += adverse_selection_test(p, a, n_perm=199, random_state=rng).pvalue <= 0.05
    assert rejections / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    detected = 0
    for _ in range(100):
        p = rng.beta(2, 2, 200)
        a = rng.uniform(size=200) < 0.9 - 0.8 * p  # low p accepted more often: gap ~ -0.16, ~5 SE
        detected += adverse_selection_test(p, a, n_perm=199, random_state=rng).pvalue < 0.05
    assert detected >= 95


def test_stratified_test_is_not_fooled_by_epoch_differences():
    # epoch 0: high p and everything-ish accepted; epoch 1: low p, mostly rejected.  Pooled, the
    # gap looks positive; within epochs acceptance ignores p - the stratified test must not reject
    # "no selection" in favour of positive selection.
    rng = np.random.default_rng(12)
    p = np.r_[rng.uniform(0.6, 1.0, 200), rng.uniform(0.0, 0.4, 200)]
    a = np.r_[rng.uniform(size=200) < 0.9, rng.uniform(size=200) < 0.1]
    groups = np.repeat([0, 1], 200)
    pooled = adverse_selection_test(p, a, alternative="greater", n_perm=999, blocks=None, random_state=0)
    within = adverse_selection_test(p, a, groups=groups, alternative="greater", n_perm=999, random_state=0)
    assert pooled.pvalue < 0.01
    assert within.pvalue > 0.05
    assert within.n_groups_used == 2
    # inside each epoch nothing drifts: single flags are shuffled there
    assert within.block_length == 0
    # pooled in file order, the two epochs read as one drift, and blocks of it are shuffled
    assert adverse_selection_test(p, a, alternative="greater", n_perm=999, random_state=0).block_length > 1


def test_one_sided_groups_are_skipped_and_all_one_sided_is_undefined():
    result = adverse_selection_test([0.2, 0.4, 0.6], [1, 1, 1], random_state=0)
    assert np.isnan(result.pvalue) and result.n_groups_used == 0


# --- per-epoch table and the early-warning rule --------------------------------------------------

@pytest.fixture(scope="module")
def epochs():
    rng = np.random.default_rng(13)
    rows = []
    for epoch in range(12):
        p = rng.beta(2, 2, 80)
        a = rng.uniform(size=80) < p
        rows.append(pd.DataFrame({"epoch": epoch, "p": p, "accepted": a}))
    return pd.concat(rows, ignore_index=True)


def test_quality_by_matches_per_group_calls(epochs):
    table = quality_by(epochs, "epoch", random_state=0, n_boot=200)
    assert table["epoch"].tolist() == list(range(12))
    assert {"toxicity", "toxicity_low", "toxicity_high", "quality_gap", "hard_toxicity",
            "adverse_selection_pvalue"} <= set(table.columns)
    part = epochs[epochs.epoch == 5]
    alone = quality_metrics(part.p, part.accepted, n_boot=0)
    assert table.loc[5, "quality_gap"] == pytest.approx(alone.quality_gap)
    assert table.loc[5, "hard_toxicity"] == pytest.approx(alone.hard_toxicity)
    assert table.attrs["by"] == "epoch"


def test_quality_by_bad_input(epochs):
    with pytest.raises(InputError, match="no column 'round'"):
        quality_by(epochs, "round")
    with pytest.raises(InputError, match="DataFrame"):
        quality_by(epochs.to_numpy(), "epoch")
    broken = epochs.assign(p=epochs.p.where(epochs.index != 7))
    with pytest.raises(InputError, match="row 7"):
        quality_by(broken, "epoch")
    assert len(quality_by(broken, "epoch", nan_policy="omit", n_boot=0)) == 12


def test_swarm_early_warning_rule_exactly():
    gaps = [0.2, 0.16, 0.1, 0.2, 0.3, 0.18, 0.4, 0.05]
    result = early_warning(gaps, level=0.15, consecutive=3)
    assert result.fired and result.first_alarm == 5 and result.streak_start == 3
    assert early_warning(gaps, level=0.15, consecutive=5).fired is False
    # a one-sided epoch: SWARM's 0.0 breaks the streak; treated as missing (NaN) it is skipped
    broken = [0.2, 0.2, 0.0, 0.2]
    assert early_warning(broken, consecutive=3).fired is False
    assert early_warning([0.2, 0.2, np.nan, 0.2], consecutive=3).first_alarm == 3
    assert early_warning([0.2, 0.2, np.nan, 0.2], consecutive=3, missing="break").fired is False
    assert early_warning([-0.3, -0.2, -0.4], level=-0.1, direction="below").fired


def test_interval_rule_does_not_fire_on_noisy_epochs():
    """Epochs whose true gap sits just below the level: the point rule with k = 1 fires on noise
    in most runs, the interval-aware rule hardly ever."""
    rng = np.random.default_rng(14)
    point_fired = interval_fired = 0
    runs = 20
    for _ in range(runs):
        rows = []
        for epoch in range(10):
            p = rng.beta(2, 2, 40)
            a = rng.uniform(size=40) < 0.25 + 0.6 * p   # true gap ~0.12, just under 0.15
            rows.append(pd.DataFrame({"epoch": epoch, "p": p, "accepted": a}))
        table = quality_by(pd.concat(rows), "epoch", n_boot=200, random_state=rng)
        point_fired += early_warning(table, level=0.15, consecutive=1).fired
        interval_fired += early_warning(table, level=0.15, consecutive=1, rule="interval").fired
    assert point_fired >= 0.8 * runs
    assert interval_fired <= 0.2 * runs


def test_early_warning_reads_quality_by_tables_and_rejects_bad_input(epochs):
    table = quality_by(epochs, "epoch", random_state=0, n_boot=200)
    result = early_warning(table, metric="toxicity", level=0.2, rule="interval")
    assert result.metric == "toxicity" and isinstance(result.fired, bool)
    with pytest.raises(InputError, match="needs the lower bound"):
        early_warning([0.2, 0.3], rule="interval")
    with pytest.raises(InputError, match="consecutive"):
        early_warning([0.2], consecutive=0)
    with pytest.raises(InputError, match="rule must be one of"):
        early_warning([0.2], rule="cusum")
    with pytest.raises(InputError, match="no column"):
        early_warning(table, metric="gap")


# --- large batches: the normal limits of the bootstrap and of the shuffles -----------------------

def test_permutation_sd_is_the_exact_sd_of_the_shuffled_gap():
    from swarmstats._kernels.permutation import permutation_sd, permuted_gaps
    rng = np.random.default_rng(21)
    p = rng.uniform(size=40)
    accepted = np.arange(40) < 15
    null = permuted_gaps(p, accepted, 100_000, rng)
    # the SD of 100,000 draws has a relative standard error of about 1/sqrt(2 * 1e5) = 0.2%
    assert null.std() == pytest.approx(permutation_sd(p, 15), rel=0.01)
    assert abs(null.mean()) < 4 * permutation_sd(p, 15) / np.sqrt(100_000)


def test_normal_limit_intervals_agree_with_exact_resampling(monkeypatch):
    from swarmstats._kernels import bootstrap
    rng = np.random.default_rng(22)
    p = rng.beta(2, 2, 6000)
    accepted = rng.uniform(size=6000) < p
    exact = quality_metrics(p, accepted, n_boot=1000, random_state=0)
    monkeypatch.setattr(bootstrap, "EXACT_LIMIT", 0)
    limit = quality_metrics(p, accepted, n_boot=1000, random_state=0)
    assert any("normal limits" in note for note in limit.notes)
    for name in ("quality_gap", "toxicity", "spread", "selection_saturation", "total_welfare"):
        e, l = exact.soft[name], limit.soft[name]
        width = e.ci_high - e.ci_low
        # interval ends from 1,000 resamples wobble by a few percent of the width
        assert l.ci_low == pytest.approx(e.ci_low, abs=0.1 * width), name
        assert l.ci_high == pytest.approx(e.ci_high, abs=0.1 * width), name


def test_a_side_of_fewer_than_three_gives_the_gap_no_interval_and_says_why():
    # one rejected interaction has no spread to read; with two, Welch's covered 85-90%
    report = quality_metrics([0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 1, 1, 0])
    gap = report.soft["quality_gap"]
    assert gap.value == pytest.approx(-0.25) and np.isnan(gap.ci_low) and np.isnan(gap.ci_high)
    assert np.isnan(report.soft["rejected_quality"].ci_low) and np.isfinite(report.soft["toxicity"].ci_low)
    assert any("1 rejected interaction(s), where an interval needs at least 3" in note for note in report.notes)
    few_accepted = quality_metrics([0.1, 0.2, 0.3, 0.4, 0.5], [0, 0, 0, 1, 1])
    assert np.isnan(few_accepted.soft["toxicity"].ci_low)
    assert any("mean quality and toxicity: 2 accepted" in note for note in few_accepted.notes)
    # three on the smaller side: an interval, called rough
    rough = quality_metrics(np.linspace(0.1, 0.9, 11), [1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    assert np.isfinite(rough.soft["quality_gap"].ci_low)
    assert any("only 3 rejected interactions" in note and "rough" in note for note in rough.notes)


def test_the_side_intervals_are_score_intervals_combined_as_newcombe_does():
    """Each side's mean: the means mu whose quasi-binomial variance phi mu (1 - mu) / n (phi =
    s^2 / (m (1 - m))) puts the sample mean m exactly Student's t away, at both ends; the gap:
    the two sides' intervals combined as Newcombe's method 10 combines Wilson's."""
    from scipy import stats

    rng = np.random.default_rng(12)
    p = rng.beta(2, 2, 60)
    accepted = rng.random(60) < p
    report = quality_metrics(p, accepted, n_boot=0, blocks=None)
    ends = {}
    for name, values in (("accepted_quality", p[accepted]), ("rejected_quality", p[~accepted])):
        estimate, n = report.soft[name], len(values)
        mean, phi = values.mean(), values.var(ddof=1) / (values.mean() * (1 - values.mean()))
        t = stats.t.ppf(0.975, n - 1)
        for end in (estimate.ci_low, estimate.ci_high):
            assert (mean - end) ** 2 == pytest.approx(t * t * phi * end * (1 - end) / n, rel=1e-9)
        assert estimate.ci_low < mean < estimate.ci_high
        ends[name] = (mean, estimate.ci_low, estimate.ci_high)
    (m1, l1, u1), (m2, l2, u2) = ends["accepted_quality"], ends["rejected_quality"]
    gap = report.soft["quality_gap"]
    assert gap.ci_low == pytest.approx(m1 - m2 - np.hypot(m1 - l1, u2 - m2), rel=1e-12)
    assert gap.ci_high == pytest.approx(m1 - m2 + np.hypot(u1 - m1, m2 - l2), rel=1e-12)
    toxicity = report.soft["toxicity"]
    assert (toxicity.ci_low, toxicity.ci_high) == pytest.approx((1 - u1, 1 - l1), rel=1e-12)
    # shares of 0 and 1: the score interval with phi = n / (n - 1) is Wilson's on n - 1 trials
    # with t for z
    ones = np.array([1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    from swarmstats.quality.side_means import side_mean_interval

    t = stats.t.ppf(0.975, len(ones) - 1)
    low, high = side_mean_interval(ones, 0.95)
    share, trials = ones.mean(), (len(ones) - 1) / (t / stats.norm.ppf(0.975)) ** 2
    from statsmodels.stats.proportion import proportion_confint

    assert (low, high) == pytest.approx(proportion_confint(share * trials, trials, method="wilson"), rel=1e-9)
    # every value at a bound: Wilson's own interval (phi at its largest, 1, so z), not a point
    assert side_mean_interval(np.ones(5), 0.95) == pytest.approx(proportion_confint(5, 5, method="wilson"))
    assert side_mean_interval(np.zeros(3), 0.95) == pytest.approx(proportion_confint(0, 3, method="wilson"))
    assert side_mean_interval(np.full(4, 0.3), 0.95) == (pytest.approx(0.3), pytest.approx(0.3))
