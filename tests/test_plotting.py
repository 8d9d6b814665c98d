"""Every result can draw its evidence (Agg backend, no display needed)."""

import matplotlib
import numpy as np
import pytest

import swarmstats as ss

matplotlib.use("Agg")


@pytest.mark.parametrize("make", [
    lambda y: ss.check_convergence(y),
    lambda y: ss.check_convergence(np.vstack([y, y[::-1]])),
    lambda y: ss.detect_warmup(y),
    lambda y: ss.trend_test(y),
    lambda y: ss.geweke(y),
    lambda y: ss.heidelberger_welch(y),
    lambda y: ss.variance_stability(y),
    lambda y: ss.describe(y, random_state=0),
    lambda y: ss.compare_runs(y[:20], y[20:45], random_state=0),
    lambda y: ss.quality_metrics(1 / (1 + np.exp(-y)), y > 0.5, random_state=0),
    lambda y: ss.early_warning(y[:30], level=0.5, consecutive=2),
    lambda y: ss.adverse_selection_test(1 / (1 + np.exp(-y)), y > 0.5, n_perm=199, random_state=0),
])
def test_plot_draws_the_evidence_not_the_summary_text(make):
    import matplotlib.pyplot as plt

    y = np.r_[np.linspace(2, 0, 50), np.zeros(250)] + np.random.default_rng(0).normal(size=300)
    ax = make(y).plot()
    assert ax.lines or ax.collections or ax.patches  # marks, not only words on a blank Axes
    plt.close(ax.figure)


def test_diagnostic_plots_show_the_statistic_against_its_reference():
    import matplotlib.pyplot as plt

    y = np.random.default_rng(3).normal(size=400)
    geweke = ss.geweke(y)
    ax = geweke.plot()
    assert len(geweke.segment_z) == 20 and geweke.segment_z[0] == pytest.approx(geweke.z)
    assert sorted(line.get_ydata()[0] for line in ax.lines[1:]) == [-1.96, 1.96]
    plt.close(ax.figure)
    hw = ss.heidelberger_welch(y)
    assert hw.critical == pytest.approx(0.4614, abs=5e-4)  # F(0.461) = 0.95 (coda)
    assert hw.statistics[0] == pytest.approx(hw.statistic) and "critical" not in hw.to_dict()
    plt.close(hw.plot().figure)
    test = ss.adverse_selection_test(y > 0, y > 0.2, n_perm=99, random_state=0)
    assert len(test.null) == 99 and "null" not in test.to_dict()


def test_plot_draws_on_a_given_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert ss.check_convergence(np.random.default_rng(1).normal(size=200)).plot(ax=ax) is ax
    plt.close(fig)


def test_distribution_plots_show_distributions_not_bars():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(2)
    p = rng.beta(2, 2, 300)
    ax = ss.quality_metrics(p, rng.uniform(size=300) < p, random_state=0).plot()
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert any(label.startswith("accepted") for label in labels)
    assert any(label.startswith("rejected") for label in labels)
    assert len(ax.patches) >= 2  # one filled density per decision
    plt.close(ax.figure)
    ax = ss.describe(rng.normal(size=400), random_state=0).plot()
    labels = " ".join(text.get_text() for text in ax.get_legend().get_texts())
    assert "median" in labels and "CVaR" in labels and "peak" in labels and "CI" in labels
    plt.close(ax.figure)
