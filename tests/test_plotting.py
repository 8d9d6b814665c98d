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
])
def test_plot_returns_axes_with_content(make):
    import matplotlib.pyplot as plt

    y = np.r_[np.linspace(2, 0, 50), np.zeros(250)] + np.random.default_rng(0).normal(size=300)
    ax = make(y).plot()
    assert ax.lines or ax.texts or ax.collections
    plt.close(ax.figure)


def test_plot_draws_on_a_given_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert ss.check_convergence(np.random.default_rng(1).normal(size=200)).plot(ax=ax) is ax
    plt.close(fig)
