"""describe(): closed forms, steps, edge cases, bad input."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from swarmstats import InputError, describe
from swarmstats.description import (
    bimodality_coefficient,
    interquartile_mean,
    lower_cvar,
)
from tests.conftest import ar1, fractional_noise


def test_matches_numpy_and_scipy_on_a_plain_sample():
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, 1.0, 501)
    r = describe(x, random_state=0)
    assert r.n == 501 and r.mean == pytest.approx(x.mean()) and r.sd == pytest.approx(x.std(ddof=1))
    assert r.median == pytest.approx(np.median(x))
    assert r.iqm == pytest.approx(stats.trim_mean(x, 0.25))
    assert list(r.quantiles.values()) == pytest.approx(np.quantile(x, [0.05, 0.25, 0.75, 0.95]).tolist())
    assert r.minimum == x.min() and r.maximum == x.max()
    assert r.minimum_step == int(np.argmin(x)) and r.maximum_step == int(np.argmax(x))
    assert r.median_ci[0] <= r.median <= r.median_ci[1]
    assert r.ci[0] < r.mean < r.ci[1]


def test_seeds_peak_versus_average():
    # the seeds' example: peak 0.70, average 0.53 - the peak overstates by 32%
    x = np.r_[np.full(99, (0.53 * 100 - 0.70) / 99), 0.70]
    r = describe(x, n_boot=0)
    assert r.mean == pytest.approx(0.53)
    assert round(r.peak_gap_relative, 2) == 0.32
    assert r.peak_gap == pytest.approx(0.17)


def test_steps_come_from_a_series_index():
    y = pd.Series([0.3, 0.9, 0.1, 0.5], index=[100, 200, 300, 400])
    r = describe(y, n_boot=0)
    assert r.maximum_step == 200 and r.minimum_step == 300


def test_cvar_iqm_and_bimodality_closed_forms():
    assert lower_cvar(np.arange(1.0, 101.0), 0.1) == pytest.approx(5.5)
    assert lower_cvar(np.array([3.0, 1.0, 2.0]), 0.01) == 1.0  # at least one value
    assert float(interquartile_mean(np.array([[1.0, 2], [2, 2], [1, 1], [2, 1]]).ravel())) == 1.5
    uniform = np.linspace(0, 1, 100_001)
    assert bimodality_coefficient(uniform) == pytest.approx(5 / 9, abs=1e-3)
    rng = np.random.default_rng(1)
    assert describe(np.r_[rng.normal(-3, 1, 400), rng.normal(3, 1, 400)], n_boot=0).bimodal
    assert not describe(rng.normal(size=800), n_boot=0).bimodal


def test_autocorrelation_widens_the_interval_of_the_mean():
    from tests.conftest import ar1
    x = ar1(0.9, 2000, np.random.default_rng(2))
    r = describe(x, n_boot=200, random_state=0)
    width, width_iid = r.ci[1] - r.ci[0], r.ci_iid[1] - r.ci_iid[0]
    assert 10 < r.autocorr_time < 30 and r.ess == pytest.approx(2000 / r.autocorr_time)
    assert 3 < width / width_iid < 6  # sqrt(19) ~ 4.4


def test_constant_and_short_series_have_defined_answers():
    const = describe([0.5] * 20)
    assert const.sd == 0 and const.ci == (0.5, 0.5) and any("constant" in n for n in const.notes)
    # 20 identical values rule out other values in more than 1 - 0.025^(1/20) = 16.8% of points
    assert any("more than 16.8% of points" in n for n in const.notes)
    short = describe([0.1, 0.2, 0.4])
    assert np.isnan(short.ci[0]) and any("at least 4" in n for n in short.notes)
    one = describe([0.7])
    assert one.mean == 0.7 and np.isnan(one.sd)
    zero_mean = describe([0.0, 0.0, 1.0, -1.0], n_boot=0)
    assert zero_mean.peak_gap == 1.0 and np.isnan(zero_mean.peak_gap_relative)  # no relative gap to 0


def test_json_is_safe_and_plain():
    import json
    d = describe([0.1, 0.2, 0.4]).to_dict()
    json.dumps(d, allow_nan=False)
    assert "_values" not in d


def test_reproducible_with_random_state():
    x = np.random.default_rng(3).normal(size=300)
    assert describe(x, random_state=5).median_ci == describe(x, random_state=5).median_ci


@pytest.mark.parametrize("kwargs,message", [
    ({"y": []}, "at least 1"), ({"y": [1.0, np.nan]}, "nan_policy"),
    ({"y": [[1, 2], [3, 4]]}, "1-D"), ({"y": [1, 2], "ci": 1.5}, "ci"),
    ({"y": [1, 2], "tail": 0}, "tail"), ({"y": ["a", "b"]}, "y"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(InputError, match=message):
        describe(**kwargs)


def test_long_memory_is_named_and_widens_the_interval_of_the_mean():
    """ARFIMA(0, 0.3, 0), n = 1,000: Geyer's ESS interval covered the mean ~60% of the time,
    and the batch-variance ladder (which needs ~100 autocorrelation times) named long memory
    in 1% of series.  The spectrum names it in ~90% (a fractionally integrated model beats
    every short-memory one by BIC), the standard error is then the one that model implies,
    and 90.5-94.5% of intervals cover (200 draws, two seeds).  AR(0.9) noise is not called
    long memory."""
    rng = np.random.default_rng(31)
    reps = 60
    results = [describe(x, median_method="order-statistics") for x in fractional_noise(0.3, 1_000, rng, reps)]
    covered = np.mean([r.ci[0] <= 0 <= r.ci[1] for r in results])
    named = [note for r in results for note in r.notes if note.startswith("long memory")]
    assert covered >= 0.925 - 3 * np.sqrt(0.925 * 0.075 / reps)
    assert len(named) >= 0.75 * reps
    assert "fractionally integrated model (d = 0." in named[0]
    short = [describe(x, median_method="order-statistics") for x in ar1(0.9, 5_000, rng, reps=30)]
    assert sum(any(note.startswith("long memory") for note in r.notes) for r in short) <= 2


def test_a_slow_component_under_the_noise_is_named_and_widens_the_interval():
    """0.5 * AR(0.995) under unit white noise, n = 1,000: the ESS interval covered 74.5% (its
    small, lasting autocorrelations hide in the noise and Geyer's sum stops early); with
    ARMA(1,1)'s variance of the mean, where that model fits the spectrum best, 90.5% (200
    draws), and a note says why it is wider."""
    rng = np.random.default_rng(3)
    reps = 120
    series = 0.5 * ar1(0.995, 1000, rng, reps) + rng.normal(size=(reps, 1000))
    results = [describe(x, median_method="order-statistics") for x in series]
    covered = np.mean([r.ci[0] <= 0 <= r.ci[1] for r in results])
    named = np.mean([any(note.startswith("a slow component") for note in r.notes) for r in results])
    assert covered >= 0.905 - 3 * np.sqrt(0.905 * 0.095 / reps)
    assert named >= 0.7


def test_the_extremes_of_clustered_values_name_their_cluster():
    """A pooled evaluation's steps restart in every example: 'min 1.303 (step 0), max 1.493
    (step 0)' named no rollout.  The cluster goes with the step."""
    result = describe([1.0, 2.0, 3.0, 4.0, 0.5, 6.0], clusters=["a", "a", "b", "b", "c", "c"])
    assert (result.minimum_cluster, result.maximum_cluster) == ("c", "c")
    assert "min 0.5 (cluster c, step 4), max 6 (cluster c, step 5)" in result.summary()
    assert result.to_row()["min_cluster"] == "c"
    assert describe([1.0, 2.0, 3.0, 4.0]).minimum_cluster is None


def test_a_short_persistent_series_gets_the_batch_means_interval():
    """Geyer's g is biased low when n / g is small: the ESS interval covered AR(0.9) means 85%
    at n = 100 and 89% at n = 300 (200 draws each).  Below 50 effective values of an
    autocorrelated series the batch-means interval is used: 95.5% / 96%.  Independent values
    keep the t interval on about ESS - 1 degrees of freedom (g ~ 1: geyer_dof)."""
    rng = np.random.default_rng(41)
    series = list(ar1(0.9, 100, rng, reps=100)) + list(ar1(0.9, 300, rng, reps=100))
    covered = np.mean([(lambda r: r.ci[0] <= 0 <= r.ci[1])(describe(x, median_method="order-statistics"))
                       for x in series])
    assert covered >= 0.957 - 3 * np.sqrt(0.957 * 0.043 / len(series))
    x = rng.normal(size=30)
    r = describe(x)
    dof = (r.ess - 1) / (1 + 3 * min(r.autocorr_time - 1, 1))
    assert r.ess - 1 >= dof > (r.ess - 1) / 1.5   # Geyer's g of 30 independent values: ~1
    half = stats.t.ppf(0.975, dof) * x.std(ddof=1) / np.sqrt(r.ess)
    assert r.ci == pytest.approx((x.mean() - half, x.mean() + half))


def test_bimodality_coefficient_equals_scipys_bias_corrected_moments():
    from scipy import stats

    from swarmstats.description import bimodality_coefficient
    rng = np.random.default_rng(31)
    for x in (rng.normal(size=1000), rng.exponential(size=12), rng.standard_t(3, size=300_000) + 1e6):
        n = len(x)
        skew, kurt = stats.skew(x, bias=False), stats.kurtosis(x, bias=False)
        expected = (skew**2 + 1) / (kurt + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
        assert bimodality_coefficient(x) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("phi", [0.0, 0.9])
def test_long_series_median_ess_from_block_shares_agrees_with_split_chains(phi):
    from swarmstats._kernels.chains import ess_quantile
    from swarmstats.description import _median_ess
    x = ar1(phi, 300_000, np.random.default_rng(32), reps=1)[0]
    # two estimators of one quantity on one series: within a few percent of each other
    assert _median_ess(x) == pytest.approx(ess_quantile(x[None, :], 0.5), rel=0.06)


@pytest.mark.parametrize("n, share", [(4, "87.50%"), (5, "93.75%")])
def test_a_median_interval_that_cannot_reach_its_level_says_so(n, share):
    result = describe(np.arange(float(n)) ** 1.5)
    assert result.median_ci == (0.0, (n - 1) ** 1.5)  # the range: the widest there is
    assert any(f"only {share} of the time" in note for note in result.notes)
    assert not any("holds the median only" in note for note in describe(np.arange(6.0)).notes)


# -- clustered values: several rollouts per prompt, several scores per agent --------------------

def _random_effects(rng, groups, size, icc):
    labels = np.repeat(np.arange(groups), size)
    values = rng.normal(0, np.sqrt(icc), groups)[labels] + rng.normal(0, np.sqrt(1 - icc), groups * size)
    return values, labels


def _pass_fail(rng, groups=50, size=3):
    # an evaluation: each prompt has its own chance of a correct answer, Beta(2, 1) (mean 2/3)
    labels = np.repeat(np.arange(groups), size)
    return (rng.random(groups * size) < rng.beta(2, 1, groups)[labels]).astype(float), labels


def _unequal_heavy(rng, groups=40):
    sizes = rng.integers(1, 9, groups)
    labels = np.repeat(np.arange(groups), sizes)
    return rng.standard_t(3, groups)[labels] + rng.standard_t(3, len(labels)), labels


def test_clustered_interval_of_equal_clusters_is_students_t_on_the_cluster_means():
    rng = np.random.default_rng(1)
    values, labels = _random_effects(rng, 12, 5, 0.5)
    result = describe(values, clusters=labels)
    means = values.reshape(12, 5).mean(axis=1)
    half = stats.t.ppf(0.975, 11) * means.std(ddof=1) / np.sqrt(12)
    assert result.ci == pytest.approx((values.mean() - half, values.mean() + half), rel=1e-9)
    assert result.clusters == 12 and np.isnan(result.autocorr_time)
    assert result.design_effect == pytest.approx(60 * means.var(ddof=1) / 12 / values.var(ddof=1), rel=1e-9)
    assert result.ess == pytest.approx(60 / result.design_effect)
    assert "12 clusters" in result.summary() and "design effect" in result.notes[-1]


@pytest.mark.parametrize("make,truth", [(lambda rng: _random_effects(rng, 30, 4, 0.5), 0.0),
                                        (_pass_fail, 2 / 3), (_unequal_heavy, 0.0)])
def test_clustered_interval_covers_at_its_level(make, truth):
    # 400 draws: 95% coverage has a binomial SE of 1.1%; 3 SE either way
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(400):
        values, labels = make(rng)
        low, high = describe(values, clusters=labels).ci
        hits += low <= truth <= high
    assert 0.917 <= hits / 400 <= 0.983


def test_without_clusters_shuffled_clustered_values_get_too_narrow_an_interval():
    # the reason for clusters=: rollouts of one prompt logged in any order are alike, and no
    # autocorrelation shows it (measured: ~80% coverage at ICC 0.5, four per prompt)
    rng = np.random.default_rng(8)
    plain = clustered = 0
    for _ in range(300):
        values, labels = _random_effects(rng, 30, 4, 0.5)
        order = rng.permutation(len(values))
        low, high = describe(values[order]).ci
        plain += low <= 0 <= high
        low, high = describe(values[order], clusters=labels[order]).ci
        clustered += low <= 0 <= high
    assert plain / 300 < 0.88 and clustered / 300 > 0.91


def test_clusters_say_what_narrows_the_interval_and_when_there_are_too_few():
    rng = np.random.default_rng(9)
    values, labels = _random_effects(rng, 40, 4, 0.9)
    note = describe(values, clusters=labels).notes[-1]
    assert "twice the clusters by 29%" in note and "values per cluster would narrow the interval by about" in note
    few = describe(*_random_effects(rng, 6, 4, 0.3)[:1], clusters=np.repeat(np.arange(6), 4))
    assert "with 6 clusters the interval is rough" in few.notes[-1]
    one = describe([1.0, 2.0, 3.0, 5.0], clusters=["a"] * 4)
    assert np.isnan(one.ci[0]) and "a single cluster" in one.notes[-1] and "1 cluster," in one.summary()
    same = describe(np.ones(6), clusters=[1, 1, 2, 2, 3, 3])
    assert same.ci == (1.0, 1.0) and same.clusters == 3


def test_clusters_of_one_mean_give_a_point_interval_and_say_why():
    # a Boltzmann economy's agents: each run's wealth sums to its agents' count, so every run's
    # mean is 1; the design effect is 0 and its note divided by it (ZeroDivisionError)
    wealth = np.array([0.0, 2.0, 1.0, 1.0, 2.0, 0.0, 0.0, 2.0, 1.0, 1.0, 2.0, 0.0])
    result = describe(wealth, clusters=np.repeat([0, 1, 2], 4))
    assert result.ci == (1.0, 1.0) and np.isnan(result.ess) and result.design_effect == 0
    assert "every one of the 3 clusters has the same mean (1)" in result.notes[-1]
    assert "ESS n/a" in result.summary()


def test_clustered_notes_never_contradict_the_interval_given():
    # the clustered description filtered the unclustered one's notes by their first words, and
    # kept "only 3 value(s): no interval is estimated" beside the interval it did estimate
    few = describe([1.0, 2.0, 3.5], clusters=["a", "b", "c"])
    assert np.isfinite(few.ci).all() and not any("no interval" in note for note in few.notes)
    assert "3 clusters of 1 value on average" in few.notes[-1]
    two = describe([1.0, 2.0, 3.5, 4.0, 5.0, 6.0], clusters=["a", "a", "a", "b", "b", "b"])
    assert "Student's t on 1 degree of freedom" in two.notes[-1]
    assert not any(note.startswith(("only about", "long memory")) for note in two.notes)


def test_cluster_labels_are_checked_and_follow_the_values_they_label():
    with pytest.raises(InputError, match="expected 4 labels"):
        describe([1.0, 2.0, 3.0, 4.0], clusters=[1, 2])
    with pytest.raises(InputError, match="no cluster label for the value at position 1"):
        describe([1.0, 2.0, 3.0, 4.0], clusters=[1, None, 2, 2])
    kept = describe([1.0, np.nan, 3.0, 4.0, 6.0, 7.0], clusters=["a", "a", "b", "b", "c", "c"], nan_policy="omit")
    direct = describe([1.0, 3.0, 4.0, 6.0, 7.0], clusters=["a", "b", "b", "c", "c"])
    assert kept.ci == direct.ci and kept.n == 5


def test_a_loss_reports_its_lowest_value_as_its_best():
    # the peak of a loss is its worst value: "reporting the peak alone would overstate" read
    # the highest training loss as an achievement
    loss = pd.Series([0.9, 0.5, 0.7, 0.6, 0.8, 0.4, 0.7, 0.6], name="train/loss")
    result = describe(loss)
    assert result.better == "lower"
    assert result.peak_gap == pytest.approx(loss.mean() - 0.4)
    assert result.peak_gap_sd == pytest.approx((loss.mean() - 0.4) / loss.std())
    assert "mean - best (lowest)" in result.summary() and "below the mean" in result.summary()
    # and its worst values are its highest: the CVaR averages the upper tail
    ramp = describe(pd.Series(np.arange(100.0), name="val_loss"))
    assert ramp.cvar == pytest.approx(97.0) and "upper-tail CVaR" in ramp.summary()
    told = describe(loss, better="higher")
    assert told.peak_gap == pytest.approx(0.9 - loss.mean()) and "peak - mean" in told.summary()
    # a diagnostic has no best value: its maximum is only the maximum
    norm = describe(loss.rename("grad_norm"))
    assert norm.better is None and "max - mean" in norm.summary() and "overstate" not in norm.summary()
    with pytest.raises(InputError, match="better"):
        describe(loss, better="up")


def _moving(result) -> list:
    return [note for note in result.notes if "sit apart from the rest" in note or note.startswith("the values trend")]


def test_a_learning_curve_is_described_as_a_moving_series():
    """describe() of a learning curve gave its mean and interval with no word that the values
    were not one distribution.  A warm-up that sits apart (the verdict's rule and rank test,
    cuts up to 80%) or a trend (its batch-means slope test) is now noted."""
    rng = np.random.default_rng(41)
    t = np.arange(1_000)
    curves = [3 * (1 - np.exp(-t / 200)) + x for x in ar1(0.5, 1_000, rng, 20)]
    assert all(any("sit apart from the rest" in note for note in describe(y, n_boot=0).notes) for y in curves)
    climb = 0.002 * t + rng.normal(size=t.size)  # a steady climb: no early part sits apart
    notes = _moving(describe(climb, n_boot=0))
    assert notes and notes[0].startswith("the values trend: rising +")
    assert 0.15 < float(notes[0].split("+")[1].split()[0]) < 0.25  # 0.2 per 100 steps


def test_stationary_series_rarely_get_the_moving_note():
    """At the notes' levels, ~1% of stationary series get one (measured 500 each: white 0.2%,
    AR(0.5) n = 300 0.6%, t(3) 0.4%, GARCH 0.4%; strongly persistent short series more:
    AR(0.9) n = 300 2.8%, AR(0.97) n = 1,000 2.4%)."""
    rng = np.random.default_rng(42)
    reps = 200
    for series in (ar1(0.5, 300, rng, reps), rng.standard_t(3, size=(reps, 1_000))):
        rate = np.mean([bool(_moving(describe(x, n_boot=0))) for x in series])
        assert rate <= 0.01 + 3 * np.sqrt(0.01 * 0.99 / reps), rate


def test_real_learning_curves_are_noted_and_real_evaluations_are_not():
    import swarmstats as ss

    real = "tests/fixtures/real/"
    for name in ("sb3/dqn-MountainCar-v0", "sb3-long/td3-Humanoid-v3", "sb3/a2c-Pong-v4"):
        rewards = ss.read_log(real + name + ".monitor.csv", wide=True)["r"].to_numpy()
        assert _moving(describe(rewards, n_boot=0)), name
    for name in ("sb3/zoo-benchmark-ppo-LunarLander-v2", "sb3-eval/trpo-Acrobot-v1",
                 "sb3-eval/her-FetchReach-v1", "sb3-eval/tqc-PandaStack-v1"):
        rewards = ss.read_log(real + name + ".monitor.csv", wide=True)["r"].to_numpy()
        assert not _moving(describe(rewards, n_boot=0)), name


def test_tiny_values_are_described_like_unit_sized_ones():
    # 1e-300-sized values: the squares of their deviations underflow, and describe raised
    # "cannot convert float NaN to integer" (SD 0, a NaN autocorrelation time)
    rng = np.random.default_rng(43)
    t = np.arange(400)
    for y in (rng.normal(size=300), t / 100 + ar1(0.5, 400, rng, 1)[0]):
        unit, tiny = describe(y, n_boot=0), describe(y * 1e-300, n_boot=0)
        assert tiny.sd / 1e-300 == pytest.approx(unit.sd, rel=1e-9)
        assert tiny.ess == pytest.approx(unit.ess, rel=1e-9)
        assert np.allclose(np.array(tiny.ci) / 1e-300, unit.ci, rtol=1e-9)
        assert tiny.bimodality_coefficient == pytest.approx(unit.bimodality_coefficient, rel=1e-9)
        assert [note[:24] for note in tiny.notes] == [note[:24] for note in unit.notes]
        assert len(unit.notes) >= 2 or y.size == 300  # the climb is noted (trend, slow component)


def test_a_step_axis_that_never_moves_is_read_as_positions():
    # every step 5 (a log whose step column holds one value): the trend note divided by the
    # steps' spread and stopped with ZeroDivisionError
    y = np.random.default_rng(0).normal(size=300) + np.linspace(0, 2, 300)
    result = describe(pd.Series(y, index=np.full(300, 5.0)))
    assert any("rising" in note and "per 100 steps" in note for note in result.notes)


@pytest.mark.parametrize("n,clustered", [(3, True), (4, False)])
def test_few_values_keep_their_coverage_where_the_range_would_cut_it(n, clustered):
    """The mean's interval was cut to the values' range, which the mean lies beyond with chance
    2^(1 - n): a setting's 3 seeds (final values, one per cluster) got a "95%" interval that
    covered 75%, 4 independent values one that covered 87.5%.  The cut now waits for 9 or more
    effective values.  800 draws: 3 binomial SE below 95% is 92.7%."""
    rng = np.random.default_rng(20261202 + n)
    draws = 800
    covered = 0
    for _ in range(draws):
        x = rng.normal(size=n)
        low, high = describe(x, clusters=np.arange(n) if clustered else None).ci
        covered += low < 0.0 < high
    assert covered / draws >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / draws)


def test_an_interval_stops_at_an_extreme_held_more_than_once_at_no_cost_in_coverage():
    """A value held more than once at an extreme marks a cap (Pong's 21, an episode limit); the
    cut there needs no effective count, and costs nothing where the extreme is no cap: 1,500
    Poisson(1) counts of 10 values, whose interval passed a held extreme about a fifth of the
    time, cover their mean as often as before (95.7%)."""
    rng = np.random.default_rng(13)
    draws, covered, at_held = 1500, 0, 0
    for _ in range(draws):
        y = rng.poisson(1.0, 10).astype(float)
        if y.min() == y.max():
            y[0] += 1
        low, high = describe(y).ci
        covered += low <= 1.0 <= high
        at_held += (high == y.max() and (y == y.max()).sum() > 1) or (low == y.min() and (y == y.min()).sum() > 1)
    assert covered / draws >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / draws)
    assert at_held / draws > 0.1  # the cut is made: the test is not vacuous
    # a capped, persistent score with few effective values stops at its cap
    capped = np.minimum(21.0, np.round(15 + 8 * ar1(0.95, 200, rng, 1)[0]))
    assert (capped == 21).sum() > 1 and describe(capped).ci[1] <= 21.0


def test_a_capped_score_still_stops_at_its_cap_given_enough_values():
    """The range cut, which keeps a success rate's interval at or below 1, stays where it costs
    nothing: 40 episodes of which 39 succeeded."""
    successes = np.r_[np.ones(39), 0.0]
    assert describe(successes).ci[1] == 1.0
    # 4 values: the cut would cost 12.5% coverage, so the interval is Student's t's
    assert describe(np.array([1.0, 1.0, 1.0, 0.9])).ci[1] > 1.0
