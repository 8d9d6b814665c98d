"""Cross-check against SWARM's own code (PyPI swarm-safety, the reference implementation)."""

import numpy as np
import pytest

from swarmstats import PayoffConfig, quality_metrics, sigmoid, swarm_proxy

reporters = pytest.importorskip("swarm.metrics.reporters")
from swarm.core.payoff import PayoffConfig as SwarmPayoff  # noqa: E402
from swarm.core.proxy import ProxyComputer, ProxyObservables  # noqa: E402
from swarm.core.sigmoid import calibrated_sigmoid  # noqa: E402
from swarm.models.interaction import SoftInteraction  # noqa: E402

# (our name, SWARM summary section, SWARM name)
PAIRS = [
    ("toxicity", "soft_metrics", "toxicity"),
    ("conditional_loss_initiator", "soft_metrics", "conditional_loss_initiator"),
    ("conditional_loss_counterparty", "soft_metrics", "conditional_loss_counterparty"),
    ("spread", "soft_metrics", "spread"),
    ("quality_gap", "soft_metrics", "quality_gap"),
    ("average_quality", "soft_metrics", "average_quality"),
    ("uncertain_fraction", "soft_metrics", "uncertain_fraction"),
    ("hard_toxicity", "hard_metrics", "toxicity"),
    ("acceptance_rate", "hard_metrics", "acceptance_rate"),
    ("high_quality_acceptance", "hard_metrics", "high_quality_acceptance"),
    ("low_quality_acceptance", "hard_metrics", "low_quality_acceptance"),
    ("total_welfare", "welfare", "total_welfare"),
    ("net_social_welfare", "welfare", "total_social_surplus"),
    ("avg_payoff_initiator", "welfare", "avg_initiator_payoff"),
    ("avg_payoff_counterparty", "welfare", "avg_counterparty_payoff"),
]


def _ours(report, name):
    table = report.soft if name in report.soft else report.hard
    return table[name].value


@pytest.mark.parametrize("seed", range(12))
def test_batch_metrics_equal_swarm_with_swarm_conventions(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    p = rng.uniform(size=n).round(3)
    share = [0.0, 1.0, 0.5][seed % 3] if seed < 6 else rng.uniform()  # one-sided batches included
    accepted = rng.uniform(size=n) < share
    terms = {name: rng.normal(0, 0.3, n) for name in ("tau", "c_a", "c_b", "r_a", "r_b")}
    config = dict(s_plus=float(rng.uniform(1, 3)), s_minus=float(rng.uniform(0.5, 2)),
                  h=float(rng.uniform(0, 3)), theta=float(rng.uniform()), rho_a=float(rng.uniform()),
                  rho_b=float(rng.uniform()), w_rep=float(rng.uniform(0, 2)))
    interactions = [SoftInteraction(p=float(p[i]), accepted=bool(accepted[i]),
                                    **{k: float(v[i]) for k, v in terms.items()}) for i in range(n)]
    threshold, band = float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.05, 0.4))
    theirs = reporters.MetricsReporter(payoff_config=SwarmPayoff(**config), quality_threshold=threshold,
                                       uncertainty_band=band).summary(interactions).to_dict()
    ours = quality_metrics(p, accepted, payoff=PayoffConfig(**config), swarm_compatible=True,
                           threshold=threshold, band=band, n_boot=0, **terms)
    for name, section, their_name in PAIRS:
        assert _ours(ours, name) == pytest.approx(theirs[section][their_name], abs=1e-10), name
    assert ours.soft["quality_std"].value ** 2 == pytest.approx(theirs["variance"]["quality_variance"],
                                                               abs=1e-10)


def test_soft_hard_comparison_verdicts_agree_with_swarm():
    rng = np.random.default_rng(5)
    for _ in range(20):
        p = rng.uniform(size=30)
        accepted = rng.uniform(size=30) < rng.uniform()
        theirs = reporters.MetricsReporter().compare_soft_hard(
            [SoftInteraction(p=float(x), accepted=bool(a)) for x, a in zip(p, accepted)])
        ours = quality_metrics(p, accepted, swarm_compatible=True, n_boot=0).comparison
        assert ours["toxicity_difference"].value == pytest.approx(theirs["toxicity"]["difference"])
        assert ("captures" in ours["toxicity_verdict"]) == ("captures" in theirs["toxicity"]["interpretation"])
        assert ours["adverse_selection"] == theirs["quality_filtering"]["adverse_selection"]
        assert ours["labels_unreliable"] == ("High" in theirs["uncertainty"]["interpretation"])


def test_proxy_and_sigmoid_equal_swarm():
    rng = np.random.default_rng(6)
    computer = ProxyComputer()
    for _ in range(200):
        obs = dict(task_progress_delta=float(rng.uniform(-1.5, 1.5)), rework_count=int(rng.integers(0, 5)),
                   verifier_rejections=int(rng.integers(0, 5)), tool_misuse_flags=int(rng.integers(0, 5)),
                   counterparty_engagement_delta=float(rng.uniform(-1.5, 1.5)))
        v_hat, p = computer.compute_labels(ProxyObservables(**obs))
        ours_p, ours_v = swarm_proxy(obs["task_progress_delta"], obs["rework_count"],
                                     obs["verifier_rejections"], obs["tool_misuse_flags"],
                                     obs["counterparty_engagement_delta"], return_v_hat=True)
        assert ours_v == pytest.approx(v_hat, abs=1e-12) and ours_p == pytest.approx(p, abs=1e-12)
    for v in np.linspace(-1, 1, 41):
        for k in (0.5, 2.0, 5.0):
            assert sigmoid(v, k) == pytest.approx(calibrated_sigmoid(float(v), k), abs=1e-12)


def test_calibration_metrics_equal_swarm():
    from swarm.metrics.soft_metrics import SoftMetrics

    from swarmstats import ProxyVarianceTracker

    metrics = SoftMetrics()
    rng = np.random.default_rng(8)
    for _ in range(10):
        n = int(rng.integers(5, 200))
        # ties, 0 and 1, and values on the bin edges that SWARM's b * 0.1 places exactly
        p = rng.choice([0.0, 0.05, 0.1, 0.2, 0.25, 0.4, 0.45, 0.5, 0.55, 0.8, 0.85, 0.9, 0.95, 1.0,
                        *rng.uniform(size=20)], size=n)
        y = (rng.uniform(size=n) < p).astype(int)
        interactions = [SoftInteraction(p=float(a), ground_truth=int(2 * b - 1)) for a, b in zip(p, y)]
        ours = ProxyVarianceTracker().fit(p, outcomes=y)
        c = ours.calibration
        assert c["brier"] == pytest.approx(metrics.brier_score(interactions), abs=1e-12)
        assert c["log_loss"] == pytest.approx(metrics.log_loss(interactions), abs=1e-12)
        assert c["ece"] == pytest.approx(metrics.expected_calibration_error(interactions), abs=1e-12)
        assert c["calibration_error"] == pytest.approx(metrics.calibration_error(interactions), abs=1e-12)
        their_auc = metrics.discrimination_auc(interactions)
        if their_auc is None:
            assert np.isnan(c["auc"])
        else:
            assert c["auc"] == pytest.approx(their_auc, abs=1e-12)
        curve = metrics.calibration_curve(interactions)
        table = ours.reliability
        assert len(curve) == len(table)
        for row, theirs in zip(table.to_dict("records"), curve):
            values = list(theirs.values()) if isinstance(theirs, dict) else list(theirs)
            assert row["count"] == values[-1]


def test_calibration_bin_edges_differ_from_swarm_only_where_its_rounding_moves_them():
    from swarm.metrics.soft_metrics import SoftMetrics

    from swarmstats._kernels.calibration import reliability_bins

    # SWARM compares p with b * 0.1: 3 * 0.1 = 0.30000000000000004 > 0.3, so p = 0.3 lands in
    # [0.2, 0.3); we compare with b / 10 and keep it in [0.3, 0.4), as the definition says
    curve = SoftMetrics().calibration_curve([SoftInteraction(p=0.3, ground_truth=1)])
    assert [c[2] for c in curve].index(1) == 2
    _, _, count, _, _ = reliability_bins(np.array([0.3]), np.array([1.0]))
    assert int(np.flatnonzero(count)[0]) == 3
