"""ProxyVarianceTracker: streaming = batch, calibrated wrong-side probability, thrash,
calibration metrics, recalibration, drift, bad input."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import special

from swarmstats import InputError, ProxyVarianceTracker


def _loop(tracker, p, keys=None, outcomes=None, v_hat=None):
    for i in range(len(p)):
        tracker.update(p[i], key=None if keys is None else keys[i],
                       outcome=None if outcomes is None else outcomes[i],
                       v_hat=None if v_hat is None else v_hat[i])
    return tracker


def _same_state(a, b, rel=1e-12):
    assert a.keys == b.keys or set(a.keys) == set(b.keys)
    for key in a.keys:
        x, y = a[key], b[key]
        assert (x.n, x.above, x.uncertain, x.flips, x.last_high) == (y.n, y.above, y.uncertain, y.flips,
                                                                      y.last_high), key
        assert x.mean == pytest.approx(y.mean, rel=rel, abs=1e-300)
        assert x.m2 == pytest.approx(y.m2, rel=rel, abs=1e-300)
        if not math.isnan(x.ew_mean):
            assert x.ew_mean == pytest.approx(y.ew_mean, rel=rel)
            assert x.ew_var == pytest.approx(y.ew_var, rel=1e-10, abs=1e-300)
        if x.window is not None:
            assert list(x.window) == list(y.window)
        assert x.v_m2 == pytest.approx(y.v_m2, rel=rel, abs=1e-300)
        assert x.lagged == pytest.approx(y.lagged, rel=1e-9, abs=1e-12)
        assert x.m4 == pytest.approx(y.m4, rel=1e-9, abs=1e-12)


def test_a_list_of_keys_of_several_types_keeps_each_key_as_update_does():
    # numpy made the 7 of ["a", 7] a "7": update_many split agent 7 from what update(p, key=7) adds
    p = np.array([0.2, 0.4, 0.6, 0.8])
    batch = ProxyVarianceTracker()
    batch.update_many(p, keys=["a", 7, 7, "a"])
    assert batch.keys == ["a", 7]
    _same_state(_loop(ProxyVarianceTracker(), p, ["a", 7, 7, "a"]), batch)


def test_update_many_equals_a_loop_of_update_and_numpy():
    rng = np.random.default_rng(0)
    n = 5000
    keys = rng.choice(["a", "b", "c", 7, None], size=n).tolist()
    p = np.clip(0.5 + rng.normal(0, 0.2, n), 0.001, 0.999)
    outcomes = (rng.uniform(size=n) < p).astype(float)
    v_hat = special.logit(p) / 2
    options = dict(halflife=15, window=25)
    loop = _loop(ProxyVarianceTracker(**options), p, keys, outcomes, v_hat)
    batch = ProxyVarianceTracker(**options)
    for start in range(0, n, 1700):  # several batches, so state is merged across them
        part = slice(start, start + 1700)
        batch.update_many(p[part], keys=keys[part], outcomes=outcomes[part], v_hat=v_hat[part])
    _same_state(loop, batch)
    frame = pd.DataFrame({"key": pd.Series(keys, dtype=object), "p": p})
    expected = frame.groupby("key", dropna=False, sort=False)["p"].agg(["count", "mean", "var"])
    table = batch.result().table
    for key, row in expected.iterrows():
        key = None if (isinstance(key, float) and np.isnan(key)) else key
        assert table.loc[[key], "mean"].iloc[0] == pytest.approx(row["mean"], rel=1e-12)
        assert table.loc[[key], "sd"].iloc[0] ** 2 == pytest.approx(row["var"], rel=1e-12)
    # EWMA as pandas computes it (adjust=False starts at the first value), window SD as rolling
    one = frame[frame.key.astype(str) == "a"]["p"]
    ew = one.ewm(alpha=1 - 0.5 ** (1 / 15), adjust=False).mean().iloc[-1]
    assert table.loc[["a"], "ewma_mean"].iloc[0] == pytest.approx(ew, rel=1e-12)
    assert table.loc[["a"], "window_sd"].iloc[0] == pytest.approx(one.iloc[-25:].std(), rel=1e-12)
    # the lag-1 sum of deviations from the key's mean, as numpy computes it
    deviations = one.to_numpy() - one.mean()
    assert batch["a"].lagged == pytest.approx(float(deviations[1:] @ deviations[:-1]), rel=1e-9)
    # flips: consecutive hard decisions that differ, per key
    decisions = (one.to_numpy() >= 0.5)
    assert batch["a"].flips == int(np.sum(decisions[1:] != decisions[:-1]))
    # labelled observations come back in arrival order with their keys
    p_l, y_l, key_l, v_l = batch.labelled()
    assert np.array_equal(p_l, p) and np.array_equal(y_l, outcomes) and list(key_l) == keys


def test_a_million_updates_near_one_half_without_cancellation():
    rng = np.random.default_rng(1)
    p = 0.5 + rng.normal(0, 1e-4, 1_000_000)
    tracker = ProxyVarianceTracker()
    _loop(tracker, p)
    batch = ProxyVarianceTracker()
    assert batch.update_many(p) is batch[None] is batch.state  # the last key's state
    mean = math.fsum(p) / len(p)
    m2 = math.fsum((p - mean) ** 2)  # accurate reference: exact sums of the centred squares
    for state in (tracker[None], batch[None]):
        assert state.mean == pytest.approx(mean, rel=1e-12)
        assert state.m2 == pytest.approx(m2, rel=1e-9)
    # the naive one-pass formula would lose most of its digits here
    naive = math.fsum(p * p) - len(p) * mean * mean
    assert abs(naive - m2) / m2 > abs(tracker[None].m2 - m2) / m2


def test_wrong_side_probability_is_calibrated():
    """Keys with true means spread evenly around the threshold; among keys given
    wrong-side probability ~ q, the share whose sample-mean decision is wrong is ~ q."""
    rng = np.random.default_rng(2)
    keys, obs = 20_000, 10
    truth = rng.uniform(0.3, 0.7, keys)
    p = np.clip(np.repeat(truth, obs) + rng.normal(0, 0.08, keys * obs), 0, 1)
    table = ProxyVarianceTracker().fit(p, keys=np.repeat(np.arange(keys), obs)).table.sort_index()
    q = table["wrong_side_probability"].to_numpy()
    wrong = (table["mean"].to_numpy() >= 0.5) != (truth >= 0.5)
    edges = [0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5]
    for low, high in zip(edges[:-1], edges[1:]):
        inside = (q >= low) & (q < high) if high < 0.5 else (q >= low)
        count = int(inside.sum())
        assert count > 200
        expected = q[inside].mean()
        tolerance = 3 * math.sqrt(expected * (1 - expected) / count)
        assert abs(wrong[inside].mean() - expected) <= tolerance, (low, high)


def _ar1_scores(phi, keys, obs, rng):
    """Each key's true mean uniform on (0.3, 0.7) under AR(phi) noise of SD 0.08, in time order."""
    truth = rng.uniform(0.3, 0.7, keys)
    noise = np.empty((keys, obs))
    noise[:, 0] = rng.normal(size=keys)
    for t in range(1, obs):
        noise[:, t] = phi * noise[:, t - 1] + math.sqrt(1 - phi * phi) * rng.normal(size=keys)
    return truth, np.clip(truth[:, None] + 0.08 * noise, 0, 1)


@pytest.mark.parametrize("phi", [0.5, 0.8])
def test_wrong_side_probability_is_calibrated_for_persistent_scores(phi):
    """Scores that follow each other within a key (an agent's rounds): as if independent, keys
    given ~7% were wrong 17-25% of the time at AR(0.5) and 26-40% at AR(0.8); with the keys'
    pooled AR(1) coefficient their means count as fewer scores."""
    rng = np.random.default_rng(21)
    keys, obs = 4000, 30
    truth, scores = _ar1_scores(phi, keys, obs, rng)
    result = ProxyVarianceTracker().fit(scores.ravel(), keys=np.repeat(np.arange(keys), obs))
    table = result.table.sort_index()
    q = table["wrong_side_probability"].to_numpy()
    wrong = (table["mean"].to_numpy() >= 0.5) != (truth >= 0.5)
    for low, high in [(0.0, 0.05), (0.05, 0.1), (0.1, 0.3), (0.3, 0.51)]:
        inside = (q >= low) & (q < high)
        count = int(inside.sum())
        assert count > 100, (low, count)
        expected = q[inside].mean()
        assert abs(wrong[inside].mean() - expected) <= 3 * math.sqrt(expected * (1 - expected) / count), (low, high)
    clear = q < result.max_wrong_side
    assert wrong[clear].mean() <= result.max_wrong_side / 2
    assert abs(result.persistence["rho"] - phi) < 4 * result.persistence["se"]
    assert any("persistent" in note for note in result.notes)
    assert (table["n_effective"] < obs / 2).all()


def test_independent_scores_are_judged_as_before():
    # no persistence to find: the coefficient used (rho less one SE, at least 0) is 0 or
    # within noise of it, and each key counts (nearly) all its scores
    for seed in (22, 23):
        truth, scores = _ar1_scores(0.0, 2000, 10, np.random.default_rng(seed))
        result = ProxyVarianceTracker().fit(scores.ravel(), keys=np.repeat(np.arange(2000), 10))
        persistence = result.persistence
        assert abs(persistence["rho"]) < 3 * persistence["se"] and persistence["used"] < 2 * persistence["se"]
        assert (result.table["n_effective"] >= 0.95 * result.table["n"]).all()
        assert not any("are persistent" in note for note in result.notes)


def test_the_pooled_persistence_estimate_is_unbiased_for_short_keys_of_mixed_lengths():
    """The lag-1 ratio of keys centred on their own means expects 0.28 for AR(0.5) at n = 10;
    the moment equation undoes that.  Over 200 trackers of 40 keys of 5-40 scores each, the
    estimate's z against the truth has mean ~0 and SD ~1."""
    from swarmstats._kernels.key_persistence import pooled_rho

    rng = np.random.default_rng(23)
    zs = []
    for _ in range(200):
        lengths = rng.integers(5, 41, 40)
        lagged, squares = [], []
        for length in lengths:
            _, x = _ar1_scores(0.5, 1, int(length), rng)
            d = x[0] - x[0].mean()
            lagged.append(d[1:] @ d[:-1])
            squares.append(d @ d)
        rho, se = pooled_rho(np.array(lagged), np.array(squares), lengths)
        zs.append((rho - 0.5) / se)
    zs = np.array(zs)
    assert abs(zs.mean()) < 3 / math.sqrt(len(zs)) * 1.3 and 0.8 < zs.std() < 1.25


def test_the_empirical_bayes_note_stays_when_outcomes_are_given():
    # the note was read from the key table's attrs after a join that drops them
    rng = np.random.default_rng(24)
    p = rng.uniform(0.2, 0.8, 400)
    result = ProxyVarianceTracker().fit(p, keys=np.repeat(np.arange(20), 20), outcomes=rng.random(400) < p)
    assert any("empirical Bayes" in note for note in result.notes)


def test_thrash_near_the_threshold_is_flagged_and_a_clear_agent_is_not():
    rng = np.random.default_rng(3)
    tracker = ProxyVarianceTracker(threshold=0.5)
    tracker.update_many(np.clip(0.52 + rng.normal(0, 0.15, 400), 0, 1), keys=["close"] * 400)
    tracker.update_many(np.clip(0.80 + rng.normal(0, 0.15, 400), 0, 1), keys=["clear"] * 400)
    table = tracker.result().table
    close, clear = table.loc["close"], table.loc["clear"]
    assert close["too_noisy"] and not clear["too_noisy"]
    assert close["thrash_rate"] > 0.4 and clear["thrash_rate"] < 0.1
    # observed flips match the rate noise alone predicts for independent scores
    assert close["thrash_rate"] == pytest.approx(close["expected_thrash_rate"], abs=0.08)
    assert "minority side" in close["reason"]
    assert table.index[0] == "close"  # worst first
    assert tracker.result().verdict == "too_noisy"


def test_observations_needed_settles_the_mean_decision():
    rng = np.random.default_rng(4)
    tracker = ProxyVarianceTracker(max_wrong_side=0.1)
    tracker.update_many(0.53 + rng.normal(0, 0.15, 20), keys=["k"] * 20)
    row = tracker.result().table.loc["k"]
    needed = row["n"] + row["observations_needed"]
    # z_{0.9} sd / |mean - t| squared, the n at which the mean's wrong-side probability ~ alpha
    assert needed == math.ceil((1.2815515655446004 * row["sd"] / abs(row["mean"] - 0.5)) ** 2)


def test_calibration_metrics_on_swarms_worked_batch():
    tracker = ProxyVarianceTracker()
    tracker.update_many([0.9, 0.8, 0.3, 0.6, 0.2], outcomes=[1, 0, 0, 1, 0])
    c = tracker.result().calibration
    assert c["brier"] == pytest.approx(0.188)
    assert c["log_loss"] == pytest.approx(0.561089, abs=1e-6)
    assert c["ece"] == pytest.approx(0.36)
    assert c["auc"] == pytest.approx(5 / 6)
    assert c["calibration_error"] == pytest.approx(0.16)


def test_auc_matches_the_pair_count_with_ties():
    from swarmstats._kernels.calibration import auc
    rng = np.random.default_rng(5)
    p = rng.integers(0, 5, 200) / 4  # many ties
    y = (rng.uniform(size=200) < 0.4).astype(float)
    pos, neg = p[y == 1], p[y == 0]
    pairs = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert auc(p, y) == pytest.approx(pairs, rel=1e-12)
    assert np.isnan(auc(p, np.zeros(200)))


def test_delong_variance_matches_the_pair_loop_with_ties():
    from swarmstats._kernels.calibration import delong_variance

    rng = np.random.default_rng(6)
    p = rng.integers(0, 7, 150) / 6
    y = (rng.uniform(size=150) < 0.3).astype(float)
    pos, neg = p[y == 1], p[y == 0]
    kernel = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    expected = kernel.mean(axis=1).var(ddof=1) / len(pos) + kernel.mean(axis=0).var(ddof=1) / len(neg)
    assert delong_variance(p, y) == pytest.approx(expected, rel=1e-12)
    assert np.isnan(delong_variance(p[:3], np.array([1.0, 0.0, 0.0])))


def test_the_calibration_intervals_are_the_documented_combinations():
    """E[p] - E[y]: the mean p's score interval and the outcome rate's Wilson interval combined
    for paired data by their correlation; AUC: the Mann-Whitney score interval, its variance
    scaled up to DeLong's where that is larger."""
    from statsmodels.stats.proportion import proportion_confint

    from swarmstats._kernels.bounded_mean import bounded_mean_interval
    from swarmstats._kernels.calibration import delong_variance
    from swarmstats._kernels.mann_whitney import mann_whitney_interval, pair_variance

    rng = np.random.default_rng(7)
    p = rng.beta(2, 2, 120)
    y = (rng.uniform(size=120) < p ** 2).astype(float)
    tracker = ProxyVarianceTracker()
    tracker.update_many(p, outcomes=y)
    c = tracker.result().calibration
    rate_low, rate_high = proportion_confint(y.sum(), len(y), method="wilson")
    mean_low, mean_high = bounded_mean_interval(p, 0.95)
    r = np.corrcoef(p, y)[0, 1]
    a, b = p.mean(), y.mean()
    low = a - b - np.sqrt((a - mean_low) ** 2 + (rate_high - b) ** 2 - 2 * r * (a - mean_low) * (rate_high - b))
    high = a - b + np.sqrt((mean_high - a) ** 2 + (b - rate_low) ** 2 - 2 * r * (mean_high - a) * (b - rate_low))
    assert (c["calibration_error_low"], c["calibration_error_high"]) == pytest.approx((low, high), rel=1e-9)
    assert c["calibration_error_low"] < c["calibration_error"] < c["calibration_error_high"]
    k = int(y.sum())
    ratio = max(delong_variance(p, y) / pair_variance(c["auc"], k, 120 - k), 1.0)
    expected = mann_whitney_interval(c["auc"], k, 120 - k, 0.95, variance_ratio=ratio)
    assert (c["auc_low"], c["auc_high"]) == pytest.approx(expected, rel=1e-9)
    assert "AUC" in tracker.result().summary() and f"[{c['auc_low']:.3g}" in tracker.result().summary()


@pytest.mark.parametrize("design", ["rare event, 50 outcomes", "common event, 200 outcomes"])
def test_the_calibration_intervals_cover(design):
    """E[p] - E[y] of a 5% event from 50 outcomes: Student's t of p - y covered 90% (62% from
    20, where a third of batches see no positive and the error reads E[p] alone); AUC of an
    underconfident p of a common event from 200 outcomes: Hanley & McNeil's variance alone
    covered 91%.  Both within 3 binomial SE of 95% now (1,000 batches), two-sided for the
    calibration error."""
    from swarmstats._kernels.calibration import auc_interval, calibration_error_interval

    rng = np.random.default_rng(21)
    if design.startswith("rare"):
        draw, chance, n = (lambda size: rng.beta(1, 20, size)), (lambda q: q), 50
    else:
        draw, chance, n = (lambda size: rng.beta(6, 1, size)), np.sqrt, 200
    big = draw(2_000_000)
    hit = rng.random(big.size) < chance(big)
    truth_error = float(np.mean(big - hit))
    pos, neg = rng.choice(big[hit], 2_000_000), rng.choice(big[~hit], 2_000_000)
    truth_auc = float(np.mean(pos > neg))
    batches, covered_error, covered_auc, with_auc = 1000, 0, 0, 0
    for _ in range(batches):
        p = draw(n)
        y = (rng.random(n) < chance(p)).astype(float)
        low, high = calibration_error_interval(p, y)
        covered_error += low <= truth_error <= high
        if 0 < y.sum() < n:
            low, high = auc_interval(p, y)
            covered_auc += low <= truth_auc <= high
            with_auc += 1
    se = np.sqrt(0.95 * 0.05 / batches)
    assert 0.95 - 3 * se <= covered_error / batches <= 0.95 + 3 * se
    if design.startswith("common"):
        assert covered_auc / with_auc >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / with_auc)


def _agents_with_own_bias(rng, agents, each):
    """Agents' outcomes: agent a's true rate q_a ~ Beta(2, 2), its p biased by its own b_a ~
    N(0, 0.5) on the logit scale (mean 0 over agents), each p and each outcome's chance
    jittered by N(0, 0.5): a proxy calibrated over the population of agents, not for each."""
    q = special.logit(rng.beta(2, 2, agents))[:, None]
    bias = rng.normal(0, 0.5, agents)[:, None]
    p = special.expit(q + bias + rng.normal(0, 0.5, (agents, each))).ravel()
    y = (rng.random((agents, each)) < special.expit(q + rng.normal(0, 0.5, (agents, each)))).ravel()
    return p, y.astype(float), np.repeat(np.arange(agents), each)


def test_clustered_calibration_intervals_cover_the_agents_population():
    """20 agents x 50 outcomes, each agent's p off by its own bias: taken as independent the
    intervals held the population's E[p] - E[y] 73% and its AUC 55% of the time (1,000
    batches); with the agents as clusters 95.5% and 92.8%.  600 batches, within 3 binomial
    SE of 95% (two-sided for the calibration error; the AUC's at most 99%), and the old
    intervals far below."""
    from swarmstats._kernels.calibration import (
        auc,
        auc_interval,
        calibration_error_interval,
    )

    rng = np.random.default_rng(12345)
    p, y, _ = _agents_with_own_bias(rng, 200_000, 10)
    truth_error = float(p.mean() - y.mean())
    sample = rng.choice(len(p), 400_000, replace=False)
    truth_auc = auc(p[sample], y[sample])
    batches = 600
    covered = np.zeros((2, 2))
    rng = np.random.default_rng(11)
    for _ in range(batches):
        p, y, agents = _agents_with_own_bias(rng, 20, 50)
        for row, clusters in enumerate((None, agents)):
            low, high = calibration_error_interval(p, y, 0.95, clusters)
            covered[row, 0] += low <= truth_error <= high
            low, high = auc_interval(p, y, 0.95, clusters)
            covered[row, 1] += low <= truth_auc <= high
    share = covered / batches
    se = np.sqrt(0.95 * 0.05 / batches)
    assert 0.95 - 3 * se <= share[1, 0] <= 0.95 + 3 * se, share
    assert 0.95 - 3 * se <= share[1, 1] <= 0.99, share
    assert share[0, 0] < 0.85 and share[0, 1] < 0.7, share  # independent: far below


def test_design_effect_is_the_cluster_robust_variance_over_the_independent_one():
    """The robust variance of a mean is statsmodels' cluster-robust variance of an intercept;
    the AUC's is Obuchowski's, here from pair counts; both read on t with G - 1 degrees of
    freedom, never below 1."""
    import statsmodels.api as sm
    from scipy import stats

    from swarmstats._kernels.calibration import _placement_influence, _placements, auc
    from swarmstats._kernels.cluster_variance import design_effect

    rng = np.random.default_rng(4)
    codes = rng.integers(0, 12, 150)
    values = rng.normal(size=150) + rng.normal(size=12)[codes]
    fit = sm.OLS(values, np.ones(150)).fit(cov_type="cluster", cov_kwds={"groups": codes})
    deviations = values - values.mean()
    independent = np.sum(deviations ** 2) / 150 ** 2
    widening = (stats.t.ppf(0.975, 11) / stats.norm.ppf(0.975)) ** 2
    assert design_effect(deviations, codes, 0.95) == pytest.approx(
        fit.cov_params()[0, 0] / independent * widening, rel=1e-9)
    assert design_effect(deviations, np.zeros(150, dtype=int), 0.95) == 1.0  # one cluster
    assert design_effect(np.tile([1.0, -1.0], 75), np.repeat(np.arange(15), 10), 0.95) == 1.0

    p = rng.beta(2, 2, 60)
    y = (rng.random(60) < p).astype(float)
    groups = rng.integers(0, 10, 60)
    estimate = auc(p, y)
    positives, negatives = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    wins = (p[positives][:, None] > p[negatives][None, :]) + 0.5 * (p[positives][:, None] == p[negatives][None, :])
    beaten, beating = wins.mean(axis=1), wins.mean(axis=0)
    m, n = len(positives), len(negatives)
    sums_10 = np.bincount(groups[positives], weights=beaten - estimate, minlength=10)
    sums_01 = np.bincount(groups[negatives], weights=beating - estimate, minlength=10)
    obuchowski = 10 / 9 * (np.sum(sums_10 ** 2) / m ** 2 + np.sum(sums_01 ** 2) / n ** 2
                           + 2 * np.sum(sums_10 * sums_01) / (m * n))
    delong = np.sum((beaten - estimate) ** 2) / m ** 2 + np.sum((beating - estimate) ** 2) / n ** 2
    expected = max(1.0, obuchowski / delong * (stats.t.ppf(0.975, 9) / stats.norm.ppf(0.975)) ** 2)
    influence = _placement_influence(y == 1, _placements(p, y == 1), estimate)
    assert design_effect(influence, groups, 0.95) == pytest.approx(expected, rel=1e-9)


def test_the_tracker_takes_its_keys_as_clusters_of_the_outcomes():
    """Ten keys or more with repeated outcomes: the calibration's intervals are the clustered
    ones and say so; fewer keys: the independent ones, with a note on what they hold for."""
    from swarmstats._kernels.calibration import auc_interval, calibration_error_interval

    p, y, agents = _agents_with_own_bias(np.random.default_rng(2), 20, 30)
    keys = np.array([f"agent-{a}" for a in agents], dtype=object)
    result = ProxyVarianceTracker().fit(p, keys=keys, outcomes=y)
    c = result.calibration
    assert c["clusters"] == 20
    assert (c["calibration_error_low"], c["calibration_error_high"]) == pytest.approx(
        calibration_error_interval(p, y, 0.95, agents), rel=1e-9)
    assert (c["auc_low"], c["auc_high"]) == pytest.approx(auc_interval(p, y, 0.95, agents), rel=1e-9)
    assert c["calibration_error_high"] - c["calibration_error_low"] > np.subtract(
        *calibration_error_interval(p, y, 0.95)[::-1])
    assert "each of 20 keys' outcomes a cluster" in result.summary()
    few = ProxyVarianceTracker().fit(p[:150], keys=keys[:150], outcomes=y[:150])
    assert few.calibration["clusters"] == 0
    assert (few.calibration["auc_low"], few.calibration["auc_high"]) == pytest.approx(
        auc_interval(p[:150], y[:150], 0.95), rel=1e-9)
    assert any("come from 5 keys" in note and "not for others like them" in note for note in few.notes)
    assert ProxyVarianceTracker().fit(p, outcomes=y).calibration["clusters"] == 0  # one stream


def test_reliability_table_keeps_empty_bins_like_swarm():
    tracker = ProxyVarianceTracker()
    tracker.update_many([0.05, 0.95, 1.0], outcomes=[0, 1, 1])
    table = tracker.result().reliability
    assert len(table) == 10 and table["count"].sum() == 3
    empty = table[table["count"] == 0].iloc[0]
    assert empty["mean_p"] == pytest.approx((empty["bin_low"] + empty["bin_high"]) / 2)
    assert empty["share_positive"] == 0
    assert table.iloc[-1]["count"] == 2  # the last bin includes 1.0


def test_delta_method_and_recalibration_recover_k():
    rng = np.random.default_rng(6)
    n = 20_000
    v = rng.uniform(-1, 1, n)
    p = special.expit(2.0 * v)                          # the proxy uses k = 2
    y = (rng.uniform(size=n) < special.expit(1.2 * v)).astype(float)   # truth: k = 1.2
    report = ProxyVarianceTracker().fit(p, keys=np.zeros(n), outcomes=y, v_hat=v)
    r = report.recalibration
    assert report.temperature == pytest.approx(2.0, rel=1e-9)  # read back from (v_hat, p)
    assert r["k_low"] < 1.2 < r["k_high"] and r["k_high"] < 2.0
    assert "overconfident" in r["message"]
    # delta method: small v_hat noise around a point, sd(p) ~ k p (1 - p) sd(v_hat)
    small = ProxyVarianceTracker(k=2.0)
    v_small = 0.3 + rng.normal(0, 0.01, 5000)
    small.update_many(special.expit(2.0 * v_small), v_hat=v_small)
    row = small.result().table.iloc[0]
    assert row["delta_sd"] == pytest.approx(row["sd"], rel=0.01)


def test_error_drift_is_detected_and_stable_outcomes_raise_no_alarm():
    rng = np.random.default_rng(7)
    p = rng.uniform(0.05, 0.95, 4000)
    calibrated = (rng.uniform(size=4000) < p).astype(float)
    stable = ProxyVarianceTracker().fit(p, outcomes=calibrated)
    assert stable.calibration["drift"]["checked"] and not stable.calibration["drift"]["alarm"]
    flipped = calibrated.copy()
    flipped[2000:] = (rng.uniform(size=2000) < 1 - p[2000:]).astype(float)  # the proxy breaks
    drifting = ProxyVarianceTracker().fit(p, outcomes=flipped)
    drift = drifting.calibration["drift"]
    assert drift["alarm"] and 2000 <= drift["first_alarm_outcome"] <= 2600


def test_report_is_json_safe_and_plots():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rng = np.random.default_rng(8)
    p = rng.uniform(size=300)
    tracker = ProxyVarianceTracker(halflife=10, window=20)
    tracker.update_many(p, keys=rng.choice(["a", "b"], 300), outcomes=(rng.uniform(size=300) < p))
    report = tracker.result()
    payload = report.to_dict()
    json.dumps(payload, allow_nan=False)
    assert {row["key"] for row in payload["table"]} == {"a", "b"}
    for kind in ("keys", "reliability"):
        ax = report.plot(kind=kind)
        assert ax.lines or ax.collections
        plt.close(ax.figure)


def test_one_observation_and_constant_keys_have_defined_answers():
    tracker = ProxyVarianceTracker()
    tracker.update(0.7, key="once")
    for _ in range(5):
        tracker.update(0.55, key="constant")
    report = tracker.result()
    assert report.table.loc["once", "too_noisy"] == False  # noqa: E712 - numpy bool
    assert "only one observation" in report.table.loc["once", "reason"]
    assert report.table.loc["constant", "wrong_side_probability"] == 0.0
    assert report.verdict == "ok"
    only = ProxyVarianceTracker()
    only.update(0.3)
    assert only.result().verdict == "insufficient_data"


@pytest.mark.parametrize("call,message", [
    (lambda t: t.update(1.2), "in \\[0, 1\\]"),
    (lambda t: t.update(float("nan")), "nan_policy='omit'"),
    (lambda t: t.update(float("inf")), "finite"),
    (lambda t: t.update("0.5"), "number"),
    (lambda t: t.update(0.5, outcome=2), "0 or 1"),
    (lambda t: t.update(0.5, outcome=-1), "ground_truth"),
    (lambda t: t.update(0.5, v_hat=float("nan")), "v_hat"),
    (lambda t: t.update_many([0.2, 1.5]), "\\[0, 1\\]"),
    (lambda t: t.update_many([0.2, 0.3], keys=["a"]), "same length"),
    (lambda t: t.update_many([0.2, 0.3], outcomes=[1, 3]), "0/1"),
    (lambda t: t.update_many([0.2, np.nan]), "nan_policy"),
    (lambda t: t.update_many([[0.2, 0.3], [0.1, 0.4]]), "1-D"),
])
def test_bad_input_is_one_clear_error(call, message):
    with pytest.raises(InputError, match=message):
        call(ProxyVarianceTracker())


def test_nan_policy_omit_skips_missing_scores():
    tracker = ProxyVarianceTracker(nan_policy="omit")
    assert tracker.update(float("nan")) is None
    tracker.update_many([0.2, np.nan, 0.4], keys=["a", "b", "a"])
    assert tracker["a"].n == 2 and tracker.keys == ["a"]


@pytest.mark.parametrize("kwargs,message", [
    ({"threshold": 1.0}, "threshold"), ({"band": 0.6}, "band"), ({"max_wrong_side": 0.7}, "max_wrong_side"),
    ({"alpha": 0.7}, "max_wrong_side"), ({"beta": 0.1}, "no parameter 'beta'"),
    ({"halflife": 0}, "halflife"), ({"window": 1}, "window"), ({"k": -1}, "k must"),
    ({"nan_policy": "drop"}, "nan_policy"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(InputError, match=message):
        ProxyVarianceTracker(**kwargs)


def test_alpha_still_sets_the_tolerance_for_a_release():
    with pytest.warns(DeprecationWarning, match="renamed max_wrong_side"):
        old = ProxyVarianceTracker(alpha=0.2)
    assert old.max_wrong_side == 0.2 and old.clone().max_wrong_side == 0.2
    with pytest.warns(DeprecationWarning, match="renamed result"):
        old.update_many([0.3, 0.6, 0.7])
        assert old.report().max_wrong_side == 0.2


def test_integer_keys_keep_first_appearance_order_and_state():
    rng = np.random.default_rng(9)
    keys = rng.choice([5, 2, 900, 13], size=3000)
    p = rng.uniform(size=3000)
    batch = ProxyVarianceTracker(window=5)
    batch.update_many(p, keys=keys)
    loop = _loop(ProxyVarianceTracker(window=5), p, keys.tolist())
    assert batch.keys == loop.keys == list(dict.fromkeys(keys.tolist()))
    _same_state(loop, batch)
    # large or negative integers go through hashing and give the same state
    shifted = ProxyVarianceTracker(window=5)
    shifted.update_many(p, keys=keys - 10**12)
    assert [k + 10**12 for k in shifted.keys] == batch.keys


def test_keys_with_three_to_five_scores_are_calibrated_by_borrowing_from_all_keys():
    """Issue 16's design: true quality U(0.3, 0.7), 3-30 scores per key, noise SD U(0.05, 0.3),
    scores clipped to [0, 1].  Alone, a key with 3-5 scores was told 2.7% and was wrong 6.2% of
    the time (1-5% bin); with the noise and the means of all keys as its prior, every bin of
    the few-score keys is within 3 binomial SE of what it says."""
    rng = np.random.default_rng(21)
    keys = 20_000
    quality = rng.uniform(0.3, 0.7, keys)
    counts = rng.integers(3, 31, keys)
    noise = rng.uniform(0.05, 0.3, keys)
    owner = np.repeat(np.arange(keys), counts)
    scores = np.clip(quality[owner] + rng.normal(size=owner.size) * noise[owner], 0, 1)
    table = ProxyVarianceTracker().fit(scores, keys=owner).table.sort_index()
    predicted = table["wrong_side_probability"].to_numpy()
    wrong = (table["mean"].to_numpy() >= 0.5) != (quality >= 0.5)
    few = counts <= 5
    assert (table["sd_shrunk"][few] > 0).all()
    for low, high in [(0.01, 0.05), (0.05, 0.1), (0.1, 0.25), (0.25, 0.51)]:
        inside = few & (predicted >= low) & (predicted < high)
        assert inside.sum() > 250
        expected = predicted[inside].mean()
        tolerance = 3 * math.sqrt(expected * (1 - expected) / inside.sum())
        assert abs(wrong[inside].mean() - expected) <= tolerance, (low, high)


def test_constant_keys_say_nothing_about_persistence():
    # summed in a batch, a constant score's deviations are rounding errors whose lag-1 ratio
    # read as rho = -0.95
    result = ProxyVarianceTracker().fit(np.full(30, 0.6), keys=np.repeat([1, 2, 3], 10))
    assert math.isnan(result.persistence["rho"]) and result.persistence["used"] == 0.0
    assert (result.table["n_effective"] == 10).all()
