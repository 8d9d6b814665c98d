"""Two modes in a sample's density (`swarmstats._kernels.modes`), told apart from a long tail:
calibrated on unimodal shapes Sarle's coefficient mistakes for two modes, and on real logs."""

from pathlib import Path

import numpy as np
import pytest

from swarmstats import describe, read_log
from swarmstats._kernels.modes import two_modes
from swarmstats.description import bimodality_coefficient
from tests.conftest import ar1, binomial_upper

REAL = Path(__file__).resolve().parent / "fixtures" / "real"


def claimed(rows) -> int:
    return sum(two_modes(row) is not None for row in rows)


def test_a_long_tail_is_not_a_second_mode_where_sarles_coefficient_says_it_is():
    """Log-normal, exponential, Student t(1.5), normal and rounded samples of 200: Sarle's
    coefficient is above 5/9 for most log-normal and exponential ones; the density claims two
    modes in about 1% (measured over 200 per shape: at most 1%).  100 per shape, all 500
    within 3 binomial SE of 1%."""
    rng = np.random.default_rng(11)
    reps, n = 100, 200
    shapes = {"lognormal": rng.lognormal(size=(reps, n)), "exponential": rng.exponential(size=(reps, n)),
              "t(1.5)": rng.standard_t(1.5, size=(reps, n)), "normal": rng.normal(size=(reps, n)),
              "rounded": np.round(rng.normal(0, 2, size=(reps, n)))}
    skewed = np.r_[shapes["lognormal"], shapes["exponential"]]
    assert np.mean([bimodality_coefficient(row) > 5 / 9 for row in skewed]) > 0.7  # Sarle's says two
    total = sum(claimed(rows) for rows in shapes.values())
    assert total <= binomial_upper(0.01, 5 * reps) * 5 * reps


def test_two_separated_groups_are_found_where_they_are():
    """A tenth of the values 6 SD away (measured: 99.5% at 200 points); an AR(0.9) series is
    one mode (0.5%).  Each of 100; the found modes lie at the two groups."""
    rng = np.random.default_rng(12)
    reps, n = 100, 200
    mixed = rng.normal(size=(reps, n)) + 6 * (rng.random((reps, n)) < 0.1)
    assert claimed(mixed) >= 90
    found = [modes for modes in map(two_modes, mixed) if modes is not None]
    low, high, low_share, _ = np.array(found).T
    assert abs(np.median(low)) < 0.3 and abs(np.median(high) - 6) < 0.5
    assert abs(np.median(low_share) - 0.9) < 0.02  # the tenth 6 SD away is on the valley's far side
    assert claimed(ar1(0.9, n, rng, reps)) <= binomial_upper(0.005, reps) * reps


@pytest.mark.parametrize("values", [np.zeros(50), np.arange(15.0), (np.arange(300) % 2).astype(float)])
def test_constant_short_and_two_valued_samples_claim_nothing(values):
    """Too few values for two groups of MODE_POINTS, no spread, or a 0/1 score (one lattice
    step apart: every 0/1 series is two-valued, which is no finding)."""
    assert two_modes(values) is None


def test_real_rewards_two_outcomes_are_two_modes_a_long_tail_is_not():
    """A2C on Walker2DBullet: each episode a fall (15-150) or the full 1,000 steps (~990) -
    two modes; TRPO on Acrobot evaluated: steps-to-goal near -83 with rare long episodes -
    Sarle's coefficient 0.644 read "suggests two modes"."""
    walker = describe(read_log(REAL / "sb3/a2c-Walker2DBulletEnv-v0.monitor.csv", wide=True)["r"], n_boot=0)
    assert walker.bimodal and walker.modes[0] < 150 and 950 < walker.modes[1] < 1010
    assert "(two modes, near " in walker.summary()
    assert 0.25 <= walker.mode_shares[0] <= 0.5  # a quarter to a half of the episodes fall
    acrobot = describe(read_log(REAL / "sb3-eval/trpo-Acrobot-v1.monitor.csv", wide=True)["r"], n_boot=0)
    assert acrobot.bimodality_coefficient > 5 / 9 and not acrobot.bimodal and acrobot.modes is None
    assert "(above 5/9, but the density shows no second mode: skewness raises it too)" in acrobot.summary()


def test_values_apart_only_in_their_last_digits_or_two_values_are_no_modes():
    """A metric that repeats one value up to rounding (45 and 45 + 1e-13: no grid of 512 bins
    fits between them - it stopped a sweep with a ValueError) and a 0/1 score."""
    rounded = np.r_[np.full(50, 45.0), np.full(50, 45.0 + 1e-13)]
    assert two_modes(rounded) is None and not describe(rounded, n_boot=0).bimodal
    success = (np.random.default_rng(3).random(300) < 0.2).astype(float)
    assert describe(success, n_boot=0).summary().splitlines()[5].endswith("(two values only)")


def test_the_plot_marks_the_two_modes_with_their_shares():
    import matplotlib
    matplotlib.use("Agg")
    walker = describe(read_log(REAL / "sb3/a2c-Walker2DBulletEnv-v0.monitor.csv", wide=True)["r"], n_boot=0)
    labels = [text.get_text() for text in walker.plot().get_legend().get_texts()]
    assert labels[-1] == "two modes: 48.8 (45%), 985 (55%)"
    acrobot = describe(read_log(REAL / "sb3-eval/trpo-Acrobot-v1.monitor.csv", wide=True)["r"], n_boot=0)
    assert not [label for label in (t.get_text() for t in acrobot.plot().get_legend().get_texts())
                if label.startswith("two modes")]
