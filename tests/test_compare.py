"""compare_runs(): rliable's published values, cross-checks and bad input."""

import numpy as np
import pytest

from swarmstats import InputError, compare_runs

A = [[1, 2], [2, 2], [1, 1], [2, 1]]
B = [[1, 1], [2, 2], [3, 3]]


def test_rliable_published_example_values():
    # convergence-methods.md section 12: IQM = mean = median = 1.5; P(A > B) = 1/3
    result = compare_runs(A, B, n_boot=200, random_state=0)
    row = result.table.iloc[0]
    assert row["iqm"] == 1.5 and row["mean"] == 1.5 and row["median"] == 1.5
    assert result.improvement.loc[0, "probability"] == pytest.approx(1 / 3)


def test_matches_rliable_metrics_on_random_scores():
    metrics = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(0)
    for runs_x, runs_y, tasks in ((5, 7, 3), (10, 10, 1), (3, 4, 6)):
        x = rng.normal(size=(runs_x, tasks)).round(1)  # rounding makes ties
        y = rng.normal(0.3, size=(runs_y, tasks)).round(1)
        result = compare_runs(x, y, n_boot=10, random_state=0)
        row = result.table.iloc[0]
        assert row["iqm"] == pytest.approx(metrics.aggregate_iqm(x))
        assert row["mean"] == pytest.approx(metrics.aggregate_mean(x))
        # rliable's median is over tasks of the task means: with one task, the mean itself; ours
        # is then the median across the runs
        assert row["median"] == pytest.approx(metrics.aggregate_median(x) if tasks > 1 else np.median(x))
        assert result.improvement.loc[0, "probability"] == pytest.approx(
            metrics.probability_of_improvement(x, y))


def test_one_tasks_median_is_across_runs_with_an_order_statistics_interval():
    # scores 1, 2 and 10 read "median 4.33" (rliable's median over one task: the mean)
    result = compare_runs([1.0, 2.0, 10.0], [3.0, 4.0, 5.0, 6.0, 7.0, 8.0], n_boot=200, random_state=0)
    first, second = result.table.to_dict("records")
    assert (first["median"], first["median_low"], first["median_high"]) == (2.0, 1.0, 10.0)
    assert (second["median"], second["median_low"], second["median_high"]) == (5.5, 3.0, 8.0)  # 96.9%
    assert any("3 runs even their range holds the median only 75.00%" in note for note in result.notes)
    assert not any("6 runs even their range" in note for note in result.notes)


@pytest.mark.parametrize("runs", [5, 7, 12])
def test_one_tasks_median_interval_holds_the_median_as_often_as_the_binomial_says(runs):
    """Log-normal scores (median 1): the percentile bootstrap of 5 runs' median held it 62.5% of
    the time; the order statistics hold it 1 - 2 P(Bin(n, 1/2) < j): 93.75%, 98.4%, 96.1%."""
    from scipy import stats

    rng = np.random.default_rng(runs)
    reps = 400
    held = 0
    for _ in range(reps):
        row = compare_runs(rng.lognormal(size=runs), n_boot=20, random_state=0).table.iloc[0]
        held += row["median_low"] <= 1.0 <= row["median_high"]
    j = max(int(stats.binom.ppf(0.025, runs, 0.5)), 1)
    expected = 1 - 2 * stats.binom.cdf(j - 1, runs, 0.5)
    assert abs(held / reps - expected) <= 3 * np.sqrt(expected * (1 - expected) / reps), (held / reps, expected)


def test_identical_sets_are_a_coin_flip_and_intervals_bracket_estimates():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 2))
    result = compare_runs(x, x.copy(), n_boot=500, random_state=0)
    assert result.improvement.loc[0, "probability"] == pytest.approx(0.5)
    for row in result.table.to_dict("records"):
        for name in ("mean", "median", "iqm"):
            assert row[f"{name}_low"] <= row[name] <= row[f"{name}_high"]


def test_stratified_bootstrap_interval_of_the_mean_has_its_coverage():
    # one task, 20 runs of N(0, 1): the interval of the mean should cover 0 in about 95% of
    # replicates (allow 4 binomial SE below 0.95)
    rng = np.random.default_rng(2)
    reps = 300
    covered = 0
    for _ in range(reps):
        row = compare_runs(rng.normal(size=20), n_boot=1000, random_state=rng).table.iloc[0]
        covered += row["mean_low"] <= 0 <= row["mean_high"]
    assert covered / reps >= 0.95 - 4 * np.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize("runs, tasks", [(3, 1), (5, 1), (3, 4), (4, 2)])
def test_the_mean_interval_covers_with_a_handful_of_runs(runs, tasks):
    # the percentile bootstrap of 3 runs' mean covered 74%, of 5 runs 80%, where it read as 95%;
    # Student's t, stratified by task (Welch-Satterthwaite), holds 95% within 3 binomial SE,
    # tasks on different scales and spreads included
    from swarmstats.compare import mean_interval
    rng = np.random.default_rng(runs * 10 + tasks)
    reps = 1000
    scale = np.linspace(1, 3, tasks)
    centres = np.arange(tasks) * 10.0
    truth = centres.mean()
    covered = sum(low <= truth <= high for low, high in
                  (mean_interval(centres + scale * rng.normal(size=(runs, tasks))) for _ in range(reps)))
    assert abs(covered / reps - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps), covered / reps
    # compare_runs reports it
    x = rng.normal(size=(runs, tasks))
    row = compare_runs(x, n_boot=20, random_state=0).table.iloc[0]
    assert (row["mean_low"], row["mean_high"]) == pytest.approx(mean_interval(x))


@pytest.mark.parametrize("runs, tasks, tails", [(3, 1, "normal"), (5, 1, "t3"), (10, 1, "normal"),
                                                (3, 4, "t3"), (5, 4, "normal")])
def test_the_iqm_and_median_intervals_cover_with_a_handful_of_runs(runs, tasks, tails):
    # rliable's percentile interval of the IQM held 74% (3 runs, one task), 86-90% (5) and 90-94%
    # (10) where it read as 95%, the median over 4 tasks' means 82-89% with 3 runs; stretched for
    # few runs both hold 95% within 3 binomial SE (a little above it, measured 94-98%), tasks on
    # different scales and spreads, normal and t(3) scores
    rng = np.random.default_rng(100 * runs + 10 * tasks + len(tails))
    reps = 600
    centres, scales = np.arange(tasks) * 1.0, np.linspace(1, 2.5, tasks)

    def draw(size):
        return rng.normal(size=size) if tails == "normal" else rng.standard_t(3, size=size)

    pooled = np.sort((centres + scales * draw((250_000, tasks))).ravel())  # the population's IQM
    cut = len(pooled) // 4
    truth = {"iqm": pooled[cut:len(pooled) - cut].mean(), "median": np.median(centres)}
    held = {"iqm": 0, "median": 0}
    for _ in range(reps):
        row = compare_runs(centres + scales * draw((runs, tasks)), n_boot=1000, thresholds=[0.0],
                           random_state=rng).table.iloc[0]
        for name in held:
            held[name] += row[f"{name}_low"] <= truth[name] <= row[f"{name}_high"]
    se = np.sqrt(0.95 * 0.05 / reps)
    for name in held if tasks > 1 else ["iqm"]:  # one task: the median's is the order statistics'
        assert 0.95 - 3 * se <= held[name] / reps <= 0.985, (name, held[name] / reps)


def test_one_run_has_no_interval_rather_than_a_zero_width_one():
    # resampling one run gives it back every time: the percentile "interval" was (x, x)
    result = compare_runs([1.0], [2.0, 3.0, 4.0], n_boot=100, random_state=0)
    one = result.table.iloc[0]
    assert all(np.isnan(one[f"{name}_{end}"]) for name in ("mean", "median", "iqm") for end in ("low", "high"))
    assert "a: only 1 run; no interval" in result.notes[0]
    assert np.isfinite(result.table.iloc[1]["iqm_low"])


def test_performance_profile_bands_are_wilsons_and_cover_as_it_says():
    # rliable's percentile bootstrap band collapsed to a point where no run or every run was
    # above, and held the true share 26-75% with 3 runs, 39-91% with 5 (400 simulated sets)
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    scores = np.array([[0.1, 1.0], [0.4, 2.0], [0.5, 3.0], [0.9, 4.0], [0.7, 0.2]])
    profile = compare_runs(scores, thresholds=[0.0, 0.45, 5.0], n_boot=10, random_state=0).profile
    above = (scores.ravel()[:, None] > np.array([0.0, 0.45, 5.0])).sum(axis=0)
    low, high = proportion_confint(above, scores.size, alpha=0.05, method="wilson")
    np.testing.assert_allclose(profile["low"], low, atol=1e-12)
    np.testing.assert_allclose(profile["high"], high, atol=1e-12)
    assert profile["low"].iloc[-1] == 0 and profile["high"].iloc[-1] > 0.2  # none above: not [0, 0]
    # its exact coverage with 5 runs of one task, k ~ Binomial(5, p): at least 90% across p
    for p in (0.1, 0.3, 0.5, 0.7, 0.9):
        k = np.arange(6)
        ends = proportion_confint(k, 5, alpha=0.05, method="wilson")
        assert stats.binom.pmf(k, 5, p)[(ends[0] <= p) & (p <= ends[1])].sum() >= 0.90, p


def test_performance_profile_is_the_share_above_each_threshold():
    result = compare_runs([0.1, 0.4, 0.5, 0.9], thresholds=[0.0, 0.45, 1.0], n_boot=100, random_state=0)
    profile = result.profile
    assert profile["fraction"].tolist() == [1.0, 0.5, 0.0]
    assert (profile["low"] <= profile["fraction"]).all() and (profile["fraction"] <= profile["high"]).all()


def test_reproducible_and_several_named_sets():
    sets = {"ppo": np.arange(10.0), "sac": np.arange(10.0) + 1, "dqn": np.arange(10.0) - 1}
    one = compare_runs(sets, n_boot=300, random_state=3)
    two = compare_runs(sets, n_boot=300, random_state=3)
    assert one.table.equals(two.table) and one.improvement.equals(two.improvement)
    assert len(one.improvement) == 3 and one.table["name"].tolist() == ["ppo", "sac", "dqn"]


@pytest.mark.parametrize("args,kwargs,message", [
    (([1.0, np.nan],), {}, "non-finite"),
    (([[1, 2]], [[1, 2, 3]]), {}, "same number of tasks"),
    (([1, 2], [1, 2]), {"names": ("x", "x")}, "two different labels"),
    (({"a": [1, 2]}, [1, 2]), {}, "not both"),
    (([],), {}, "runs x tasks"),
    (([1, 2],), {"n_boot": 0}, "n_boot"),
    ((["a", "b"],), {}, "numbers"),
])
def test_bad_input(args, kwargs, message):
    with pytest.raises(InputError, match=message):
        compare_runs(*args, **kwargs)


# -- evaluation_plan: seeds and evaluation points -------------------------------------------------

from scipy.signal import lfilter  # noqa: E402

from swarmstats.compare import evaluation_plan, seeds_needed  # noqa: E402


def _runs(rng, runs, length, phi=0.0, between=0.05, noise=0.2):
    """Each run: its own level (SD ``between``) plus AR(``phi``) noise of marginal SD ``noise``."""
    burn = 200
    e = lfilter([1.0], [1.0, -phi], rng.normal(size=(runs, length + burn)), axis=1)[:, burn:]
    return between * rng.normal(size=(runs, 1)) + noise * np.sqrt(1 - phi ** 2) * e


def test_the_plan_at_todays_points_is_the_two_sample_t_test_on_the_observed_spread():
    rng = np.random.default_rng(0)
    a, b = _runs(rng, 12, 40), _runs(rng, 12, 40) + 0.03
    plan = evaluation_plan(0.05, {"a": list(a), "b": list(b)})
    pooled = np.sqrt((np.var(a.mean(axis=1), ddof=1) + np.var(b.mean(axis=1), ddof=1)) / 2)
    assert plan.sd == pytest.approx(pooled)
    assert plan.table.loc[0, "runs_per_set"] == seeds_needed(0.05, pooled) and plan.points == 40
    assert plan.table["runs_per_set"].is_monotonic_decreasing
    assert plan.floor == seeds_needed(0.05, plan.between_sd) <= plan.table["runs_per_set"].min()
    assert "never fewer than" in plan.summary()


def test_the_spread_is_split_into_the_seeds_and_each_scores_noise():
    # 200 experiments of 30 runs, 40 white-noise values per score: the noise variance of a score
    # is 0.2^2 / 40 = 0.001 and the seeds' 0.0025; the mean estimates land within 5% and 8%
    own, seeds = [], []
    for rep in range(200):
        plan = evaluation_plan(0.1, list(_runs(np.random.default_rng(rep), 30, 40)))
        own.append(plan.noise_sd ** 2)
        seeds.append(plan.between_sd ** 2)
    assert np.mean(own) == pytest.approx(0.001, rel=0.05)
    assert np.mean(seeds) == pytest.approx(0.0025, rel=0.08)


def test_longer_stretches_put_autocorrelated_noise_nearer_the_truth():
    # AR(0.5) noise, scores over the last 40 of 200 values: the truth of a score's noise variance
    # is 0.04 * 3 / 40 = 0.003 (0.0029 exactly at 40 values); the tails alone say ~0.0018, the runs'
    # second halves ~0.0024 - both low, which only makes the gain from more points look smaller
    alone, longer = [], []
    for rep in range(100):
        runs = _runs(np.random.default_rng(rep), 30, 200, phi=0.5)
        alone.append(evaluation_plan(0.1, list(runs[:, -40:])).noise_sd ** 2)
        longer.append(evaluation_plan(0.1, list(runs[:, -40:]), noise_runs=list(runs[:, -100:])).noise_sd ** 2)
    assert np.mean(alone) < np.mean(longer) < 0.0029
    assert np.mean(longer) > 0.75 * 0.0029


def test_seeds_that_agree_leave_only_evaluation_length_to_pay_for():
    # no spread across seeds (for these draws the estimate of it lands at zero, as it does in
    # about half of such draws): 16x the points cut the runs needed from 9 to 2
    plan = evaluation_plan(0.05, list(_runs(np.random.default_rng(0), 20, 40, between=0.0)))
    assert plan.floor is None and "spread is put at zero" in plan.notes[0]
    assert plan.table["runs_per_set"].tolist() == [9, 5, 4, 3, 2]
    assert "longer evaluation alone lowers it" in plan.summary()


@pytest.mark.parametrize("tails, kwargs, message", [
    ([np.ones(10)], {}, "two or more runs"),
    ([np.ones(10), np.ones(3)], {}, "four or more"),
    ([np.ones(10), np.r_[np.ones(9), np.nan]], {}, "finite"),
    ([np.arange(10.0), np.arange(10.0)], {"noise_runs": [np.arange(20.0)]}, "noise_runs"),
])
def test_a_plan_refuses_what_it_cannot_split(tails, kwargs, message):
    with pytest.raises(InputError, match=message):
        evaluation_plan(0.1, tails, **kwargs)


def test_the_permutation_p_values_are_the_exact_mann_whitney_ones():
    from scipy.stats import mannwhitneyu

    from swarmstats.compare import improvement_pvalues

    rng = np.random.default_rng(31)
    for nx, ny in ((2, 2), (3, 5), (6, 6)):
        x, y = rng.normal(size=nx) + 0.8, rng.normal(size=ny)
        greater, less = improvement_pvalues(x[:, None], y[:, None])
        assert greater == pytest.approx(mannwhitneyu(x, y, alternative="greater", method="exact").pvalue)
        assert less == pytest.approx(mannwhitneyu(x, y, alternative="less", method="exact").pvalue)
    # ties share their rank: four equal scores are a coin flip either way
    assert improvement_pvalues(np.ones((2, 1)), np.ones((2, 1))) == (1.0, 1.0)
    # several tasks: relabelled within each task; 2 + 2 runs on 2 tasks allow 36 relabellings,
    # of which only the observed one separates the sets on both
    x = np.array([[3.0, 30.0], [4.0, 40.0]])
    y = np.array([[1.0, 10.0], [2.0, 20.0]])
    assert improvement_pvalues(x, y)[0] == pytest.approx(1 / 36)
    # beyond the exact limit: drawn relabellings, close to the normal approximation
    big_x, big_y = rng.normal(size=40) + 0.3, rng.normal(size=40)
    sampled = improvement_pvalues(big_x[:, None], big_y[:, None], np.random.default_rng(0))[0]
    assert sampled == pytest.approx(mannwhitneyu(big_x, big_y, alternative="greater").pvalue, abs=0.01)


def test_the_claim_keeps_its_size_with_few_runs():
    """Two sets of runs from one distribution: the claim "the first is better" (the bootstrap
    interval of P(X > Y) above 1/2 at 95%, so one-sided 2.5%) was made for 18% of pairs of
    2-run sets and 10% of 3-run sets; the permutation test now has to agree (2 runs: never;
    measured 0-2.5% from 3 runs on)."""
    from swarmstats.cli.compare import _claim

    rng = np.random.default_rng(7)
    reps = 200
    for runs in (2, 3, 5):
        shown = 0
        for _ in range(reps):
            result = compare_runs(rng.normal(size=runs), rng.normal(size=runs), n_boot=500,
                                  random_state=rng)
            shown += _claim(result, "a", "b", "higher", 0.95)["shown"]
        assert shown / reps <= 0.025 + 3 * np.sqrt(0.025 * 0.975 / reps), (runs, shown)


@pytest.mark.parametrize("scores, runs_x, runs_y, shift", [
    ("normal", 3, 3, 1.5), ("t3", 4, 4, 1.5), ("lognormal", 5, 5, 1.0), ("normal", 10, 10, 2.5)])
def test_the_improvement_interval_covers_with_a_handful_of_runs(scores, runs_x, runs_y, shift):
    """P(X > Y)'s interval holds the true probability about 95% of the time from 3 runs a side
    (rliable's percentile bootstrap held it 84-92% with 3-5 runs); two-sided, so an interval
    made trivially wide fails too."""
    from swarmstats._kernels.mann_whitney import mann_whitney_interval
    from swarmstats.compare import probability_of_improvement

    rng = np.random.default_rng(11)
    draw = {"normal": rng.standard_normal, "lognormal": lambda size: rng.lognormal(0, 1, size),
            "t3": lambda size: rng.standard_t(3, size)}[scores]
    truth = float(np.mean(draw(400_000) + shift > draw(400_000)))
    sets = 1500
    estimates = probability_of_improvement(draw((sets, runs_x, 1)) + shift, draw((sets, runs_y, 1)))
    intervals = np.array([mann_whitney_interval(float(e), runs_x, runs_y, 0.95) for e in estimates])
    covered = np.sum((intervals[:, 0] <= truth) & (truth <= intervals[:, 1]))
    se = np.sqrt(0.95 * 0.05 / sets)
    assert 0.95 - 3 * se <= covered / sets <= 0.985, (covered / sets, truth)


def test_the_improvement_interval_does_not_collapse_when_one_set_wins_every_pair():
    """Every run of x above every run of y: rliable's bootstrap reads [1, 1]; three runs a side
    cannot show more than that 1/2 is not excluded (the exact test's smallest p is 1/20)."""
    result = compare_runs([10.0, 11.0, 12.0], [1.0, 2.0, 3.0], n_boot=200, random_state=0)
    row = result.improvement.iloc[0]
    assert row["probability"] == 1.0 and row["high"] == 1.0 and 0.4 < row["low"] < 0.5
    five = compare_runs(np.arange(10.0, 15.0), np.arange(5.0), n_boot=200, random_state=0).improvement.iloc[0]
    assert five["low"] > 0.5 and five["p_greater"] < 0.025
