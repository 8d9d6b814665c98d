"""Monte-Carlo coverage of the reported intervals (fixed seeds; tolerances in the issue)."""

import numpy as np
import pytest

from swarmstats import describe, quality_metrics
from tests.conftest import ar1


def test_quality_gap_interval_covers_in_93_to_97_percent_of_iid_replicates():
    # p ~ Beta(2, 2), accepted ~ Bernoulli(p): E[p|A] = E[p^2]/E[p] = 0.6 and
    # E[p|R] = E[p(1-p)]/E[1-p] = 0.4, so the true gap is exactly 0.2.
    rng = np.random.default_rng(2026)
    reps, n = 1000, 200
    covered = 0
    for _ in range(reps):
        p = rng.beta(2, 2, n)
        accepted = rng.uniform(size=n) < p
        gap = quality_metrics(p, accepted, n_boot=1000, random_state=rng).soft["quality_gap"]
        covered += gap.ci_low <= 0.2 <= gap.ci_high
    assert 0.93 <= covered / reps <= 0.97


def test_describe_mean_interval_covers_ar1_where_the_iid_interval_fails():
    # AR(1), phi = 0.9, n = 1000: g = 19, about 53 effectively independent points; on ESS - 1
    # degrees of freedom it covered 93.7-93.9%, on the long-run variance's (ESS - 1) / 4 95.2%
    rng = np.random.default_rng(2027)
    series = ar1(0.9, 1000, rng, reps=1000)
    aware = naive = 0
    for x in series:
        result = describe(x, n_boot=0)
        aware += result.ci[0] <= 0.0 <= result.ci[1]
        naive += result.ci_iid[0] <= 0.0 <= result.ci_iid[1]
    se = np.sqrt(0.95 * 0.05 / len(series))
    assert 0.95 - 3 * se <= aware / len(series) <= 0.95 + 3 * se
    assert naive / len(series) <= 0.5  # the i.i.d. interval is ~sqrt(19) times too narrow


@pytest.mark.parametrize("method", ["order-statistics", "bootstrap"])
def test_describe_median_interval_on_independent_values(method):
    rng = np.random.default_rng(2028)
    reps = 300
    covered = sum(
        (lambda r: r.median_ci[0] <= 0.0 <= r.median_ci[1])(
            describe(rng.normal(size=200), n_boot=500, random_state=rng, median_method=method))
        for _ in range(reps))
    # nominal 95%; allow 3 binomial standard errors below
    assert covered / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_median_interval_of_a_handful_of_skewed_values():
    # 6-7 values: too few for the ESS of the indicator; the binomial order-statistics interval
    # covers >= 95% whatever the distribution (the block bootstrap covered 63% at n = 6); from
    # 30 the ESS-based order statistics do (measured 95.2% on skewed values)
    rng = np.random.default_rng(2030)
    reps = 1000
    for n in (6, 7, 30):
        draws = rng.exponential(size=(reps, n)) - np.log(2)  # skewed, median 0
        covered = np.mean([(lambda r: r.median_ci[0] <= 0.0 <= r.median_ci[1])(describe(x)) for x in draws])
        assert covered >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_order_statistics_median_interval_covers_under_autocorrelation():
    rng = np.random.default_rng(2029)
    series = ar1(0.9, 1000, rng, reps=600)
    covered = sum(
        (lambda r: r.median_ci[0] <= 0.0 <= r.median_ci[1])(describe(x, median_method="order-statistics"))
        for x in series)
    # nominal 95%; 3 binomial standard errors below it
    assert covered / len(series) >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / len(series))
