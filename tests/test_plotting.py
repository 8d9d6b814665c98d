"""Every result can draw its evidence (Agg backend, no display needed)."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

import swarmstats as ss
from swarmstats.compare import EvaluationPlan, evaluation_plan
from swarmstats.winners import BestOfResult, best_of

matplotlib.use("Agg")


def _series():
    return np.r_[np.linspace(2, 0, 50), np.zeros(250)] + np.random.default_rng(0).normal(size=300)


def _shifted():
    rng = np.random.default_rng(1)
    return np.r_[rng.normal(0, 1, 200), rng.normal(3, 1, 100)]


def _monitor_report():
    monitor = ss.Monitor(check_every=100)
    for step, value in enumerate(_series()):
        monitor.log(step, reward=value, loss=-value)
    return monitor.status


def _sweep(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    from make_example_sweep import write_sweep

    write_sweep(str(tmp_path), [0.0, 0.3, 0.5], 2)
    return ss.sweep(str(tmp_path / "adv=*" / "seed=*" / "epochs.csv"), by=["adv"], phase="adv",
                    metrics=["toxicity_rate"], workers=1, progress=False)


def _p(y):
    return 1 / (1 + np.exp(-y))


#: one way to make every result type; the test below fails when a type is missing here
EXAMPLES = {
    ss.ConvergenceResult: lambda tmp: ss.check_convergence(_series()),
    ss.MultiRunConvergenceResult: lambda tmp: ss.check_convergence(np.vstack([_series(), _series()[::-1]])),
    ss.WarmupResult: lambda tmp: ss.detect_warmup(_series()),
    ss.TrendResult: lambda tmp: ss.trend_test(_series()),
    ss.GewekeResult: lambda tmp: ss.geweke(_series()),
    ss.HeidelbergerWelchResult: lambda tmp: ss.heidelberger_welch(_series()),
    ss.VarianceStabilityResult: lambda tmp: ss.variance_stability(_series()),
    ss.DescribeResult: lambda tmp: ss.describe(_series(), random_state=0),
    ss.CompareResult: lambda tmp: ss.compare_runs(_series()[:20], _series()[20:45], random_state=0),
    EvaluationPlan: lambda tmp: evaluation_plan(0.1, list(_series()[:240].reshape(12, 20))),
    ss.LearningSignalResult: lambda tmp: ss.learning_signal(
        pd.DataFrame({"step": np.arange(60), "frac_reward_zero_std": np.r_[np.zeros(30), np.full(30, 0.9)]})),
    ss.ContagionResult: lambda tmp: ss.contagion({"a": _series()[:60], "b": _series()[1:61], "c": _series()[2:62]},
                                                 n_perm=99),
    ss.EquilibriaResult: lambda tmp: ss.equilibria({"a": _series()[:100], "b": _series()[100:200] + 3,
                                                     "c": _series()[200:300]}),
    ss.SynergyResult: lambda tmp: ss.synergy_gap(pd.DataFrame(
        {"unit": np.repeat(np.arange(20), 2), "team_size": np.tile([1, 2], 20), "outcome": _series()[:40]})),
    ss.AgreementResult: lambda tmp: ss.agreement((_series()[:120].reshape(30, 4) > 0.5).astype(int)),
    ss.DivergenceResult: lambda tmp: ss.divergence(_series()[:60].cumsum(), _series()[:60].cumsum()),
    ss.SequentialResult: lambda tmp: ss.SequentialComparison().fit(_series() - 0.3),
    ss.SequentialState: lambda tmp: ss.SequentialComparison().update_many(_series() - 0.3),
    BestOfResult: lambda tmp: best_of(_series()[:240].reshape(12, 20), n_draws=500, random_state=0),
    ss.QualityResult: lambda tmp: ss.quality_metrics(_p(_series()), _series() > 0.5, random_state=0),
    ss.EarlyWarningResult: lambda tmp: ss.early_warning(_series()[:30], level=0.5, consecutive=2),
    ss.SelectionTestResult: lambda tmp: ss.adverse_selection_test(_p(_series()), _series() > 0.5, n_perm=199,
                                                                  random_state=0),
    ss.RegimeResult: lambda tmp: ss.detect_regimes(_shifted()),
    ss.RegimePath: lambda tmp: ss.regime_path(_shifted()),
    ss.CusumResult: lambda tmp: ss.CusumDetector().fit(_shifted()),
    ss.CusumState: lambda tmp: ss.CusumDetector().update_many(_shifted()),
    ss.OnlineRegimeResult: lambda tmp: ss.OnlineRegimeDetector().fit(_shifted()),
    ss.OnlineRegimeState: lambda tmp: ss.OnlineRegimeDetector().update_many(_shifted()),
    ss.WindowResult: lambda tmp: ss.AdaptiveWindow().fit(_shifted()),
    ss.ProxyResult: lambda tmp: ss.ProxyVarianceTracker().fit(_p(_series()), keys=np.arange(300) % 4),
    ss.MonitorState: lambda tmp: ss.ConvergenceMonitor().update_many(_series()),
    ss.MonitorStatus: lambda tmp: _monitor_report(),
    ss.SweepResult: _sweep,
    ss.CurvesResult: lambda tmp: ss.learning_curves([_series(), _series()[::-1], _series() * 1.1], random_state=0),
}


def _all_result_types():
    import importlib
    import pkgutil

    for module in pkgutil.walk_packages(ss.__path__, "swarmstats."):
        if ".integrations." not in module.name and not module.name.endswith("__main__"):
            importlib.import_module(module.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    return set(subclasses(ss._result.Result))


def test_every_result_type_has_an_example_and_a_plotter():
    from swarmstats.plots import plotter_for

    types = _all_result_types()
    assert types <= set(EXAMPLES), f"no example for {sorted(t.__name__ for t in types - set(EXAMPLES))}"
    assert all(plotter_for(cls) is not None for cls in types)


@pytest.mark.parametrize("cls", list(EXAMPLES), ids=[cls.__name__ for cls in EXAMPLES])
def test_plot_draws_the_evidence_not_the_summary_text(cls, tmp_path):
    import matplotlib.pyplot as plt

    result = EXAMPLES[cls](tmp_path)
    assert type(result) is cls
    ax = result.plot()
    assert ax.lines or ax.collections or ax.patches  # marks, not only words on a blank Axes
    plt.close(ax.figure)


def test_online_detectors_draw_their_traces_against_the_threshold():
    import matplotlib.pyplot as plt

    result = ss.CusumDetector().fit(_shifted())
    ax = result.plot()
    upper = ax.lines[0].get_ydata()
    assert len(result.alarms) >= 1 and upper.max() > result.threshold  # the sum crossed h
    assert sorted(line.get_ydata()[0] for line in ax.lines[2:4]) == pytest.approx(
        [-result.threshold, result.threshold])
    plt.close(ax.figure)
    bocpd = ss.OnlineRegimeDetector().fit(_shifted())
    ax = bocpd.plot()
    assert bocpd.alarms and abs(bocpd.alarms[0]["start"] - 200) <= 5
    run_length = bocpd._run_length
    assert run_length[195] > 90 and run_length[bocpd.alarms[0]["index"]] < 15  # the sawtooth drops
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
    # a test over agents has no permutation null: the plot says which test it was instead
    agents = ss.adverse_selection_test(np.clip(y / 4 + 0.5, 0, 1), y > 0.2, clusters=np.arange(len(y)) % 12)
    ax = agents.plot()
    assert agents.null == () and "cluster jackknife t over 12 agents" in ax.texts[0].get_text()
    plt.close(ax.figure)


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


def test_a_moving_run_is_drawn_with_what_moved_not_a_mean_band():
    """A climbing run's 'CI of the mean' spanned the whole plot (DQN MountainCar): a run that is
    not converged now shows its slope, or the level before and during a late change; a
    converged run keeps the mean and its band."""
    import matplotlib.pyplot as plt

    from tests.conftest import ar1

    rng = np.random.default_rng(1)
    cases = {"level before and during the last": np.r_[ar1(0.5, 900, rng), ar1(0.5, 100, rng) - 1.2],
             "slope after the warm-up": ar1(0.5, 2000, rng) + np.linspace(0, 1.5, 2000),
             "CI of the mean": ar1(0.5, 5000, rng)}
    steps = np.arange(300)
    cases["slope of the last regime"] = (np.where(steps < 230, steps / 40, 230 / 40 - (steps - 230) / 60)
                                         + 0.3 * ar1(0.3, 300, np.random.default_rng(0), reps=2)[1])
    failed = {"level before and during the last": "late_change", "slope after the warm-up": "trend",
              "CI of the mean": None, "slope of the last regime": "recent_trend"}
    for expected, y in cases.items():
        result = ss.check_convergence(y)
        assert (result.failed_tests[0] if result.failed_tests else None) == failed[expected], result.reasons
        fig, ax = plt.subplots()
        result.plot(ax=ax)
        labels = ax.get_legend_handles_labels()[1]
        assert any(label.startswith(expected) or label.endswith(expected) for label in labels), (result.verdict, labels)
        assert (result.verdict == "not_converged") != any("CI of the mean" in label for label in labels)
        plt.close(fig)


def test_names_are_drawn_literally_and_a_log_axis_keeps_its_powers():
    """Names (a title, a legend, ticks named after arms) are drawn as written, never as
    mathtext; the tick labels of numbers are the formatter's, which on a log axis are mathtext
    on purpose - made literal, the evaluation plan's axis read '$\\mathdefault{2^{5}}$'."""
    import matplotlib.pyplot as plt

    plan = EXAMPLES[EvaluationPlan](None)
    ax = plan.plot()
    ax.get_figure().canvas.draw()
    powers = [label for label in ax.get_xticklabels() if label.get_text()]
    assert powers and all(label.get_text().startswith("$\\mathdefault{2^{") for label in powers)
    assert all(label.get_parse_math() for label in powers)
    assert not ax.title.get_parse_math() and not ax.xaxis.label.get_parse_math()
    assert not any(text.get_parse_math() for text in ax.get_legend().get_texts())
    plt.close(ax.get_figure())
    fig, ax = plt.subplots()
    ax.bar(["$a", "b $c$"], [1.0, 2.0])  # a categorical axis: its ticks are names
    ax.set_yticks([0.5, 1.5], ["$\\undefinedcmd{x}^$", "y"])
    from swarmstats.plots import literal_text

    literal_text(fig)
    fig.canvas.draw()  # a name parsed as mathtext would raise here
    assert not any(label.get_parse_math() for label in ax.get_xticklabels() + ax.get_yticklabels())
    plt.close(fig)
