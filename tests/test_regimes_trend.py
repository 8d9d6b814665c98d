"""The default "trend" model (issue 15): trends are one regime, heavy tails, volatility
clustering and persistence give no spurious changes, jumps and bends are placed where they
are, and the pieces (level-or-line cost, broken line, seasonal cycle) match closed forms."""

import itertools

import numpy as np
import pytest

from swarmstats.errors import InputError
from swarmstats.regimes import detect_regimes, regime_path
from swarmstats.regimes.costs import LevelOrTrendCost
from swarmstats.regimes.pelt import pelt
from swarmstats.regimes.scoring import f1_score
from swarmstats.regimes.whitened import broken_stick, seasonal_cycle

from .conftest import ar1


def garch(n, rng, omega=0.1, a=0.1, b=0.8, burn=500):
    z = rng.normal(size=n + burn)
    x = np.empty_like(z)
    h, previous = omega / (1 - a - b), 0.0
    for t in range(n + burn):
        h = omega + a * previous**2 + b * h
        x[t] = previous = np.sqrt(h) * z[t]
    return x[burn:]


def test_awkward_stationary_noise_gets_no_spurious_changes():
    # target <= 0.1 spurious changes per series; 60 series, so <= 6 in all (measured 0-3 per
    # 100 series of each kind in benchmarks/calibration_regimes.py)
    rng = np.random.default_rng(150)
    series = ([rng.standard_t(3, 500) for _ in range(20)] + [garch(500, rng) for _ in range(20)]
              + list(ar1(0.9, 200, rng, 20)))
    spurious = [len(detect_regimes(y).changepoints) for y in series]
    assert sum(spurious) <= 6, spurious


def _falls_or_full(n, fall_rate, rng):
    """Episodes that either fail early (~30) or run to the end (~990), as a walker's reward."""
    return np.where(rng.random(n) < fall_rate, rng.normal(30, 20, n), rng.normal(990, 10, n))


def test_changes_within_the_wander_of_long_memory_noise_are_named_so():
    # stationary ARFIMA d = 0.3: the search cuts its slow wander into "regimes" (23 of these 30
    # series show changes); the noise around them still reads long memory, and each change is
    # within what that noise's model gives a difference of regime means
    from .conftest import fractional_noise

    results = [detect_regimes(row) for row in fractional_noise(0.3, 2000, np.random.default_rng(7), 30)]
    changed = [r for r in results if r.changepoints]
    told = [r for r in changed if r.wander_changes == r.changepoints]
    assert len(told) >= len(changed) // 2, [(r.changepoints, r.wander_changes) for r in changed]
    for result in told:
        assert "possibly the wander of long-memory noise" in result.summary().splitlines()[0]
        assert any("so may be no regime change" in note for note in result.notes)
        assert set(result.wander_changes) <= set(result.changepoints)
        flagged = result.segments.loc[result.segments["after_wander"], "start"].tolist()
        assert flagged == result.wander_changes
    # read in the series' own units: the same at 1e-300 and 1e+50 (a periodogram of 1e-300-sized
    # values underflowed to 0)
    values = fractional_noise(0.3, 2000, np.random.default_rng(7), 1)[0]
    assert detect_regimes(values).wander_changes == [211]
    # drawn dotted and grey, not as a change
    import matplotlib

    matplotlib.use("Agg")
    ax = detect_regimes(values).plot()
    marks = [line for line in ax.lines if len(set(line.get_xdata())) == 1]
    assert [(line.get_linestyle(), line.get_color()) for line in marks] == [(":", "0.5")]
    for scale in (1e-300, 1e50):
        assert detect_regimes(values * scale).wander_changes == [211]


def test_real_changes_are_never_taken_for_long_memory_wander():
    # short-memory noise around real steps, levels and a learning curve: the noise around the
    # regimes reads short memory (BIC evidence -4.4 or lower in 60 such series)
    t = np.arange(2000)
    series = ([np.where(t < 1000, 0.0, 1.0) + ar1(0.5, 2000, np.random.default_rng(s)) for s in range(8)]
              + [np.repeat(np.random.default_rng(s).normal(0, 1.5, 5), 400)
                 + np.random.default_rng(100 + s).normal(size=2000) for s in range(8)]
              + [3 * (1 - np.exp(-t / 300)) + ar1(0.5, 2000, np.random.default_rng(s)) for s in range(8)])
    for values in series:
        result = detect_regimes(values)
        assert result.wander_changes == [], result.summary()
    # a 3-SD step inside long-memory noise itself stands out of its wander (z 8-22)
    from .conftest import fractional_noise

    for row in fractional_noise(0.3, 2000, np.random.default_rng(11), 8):
        result = detect_regimes(row + np.where(t >= 1000, 3.0, 0.0))
        step = min(result.changepoints, key=lambda c: abs(c - 1000))
        assert abs(step - 1000) <= 50 and step not in result.wander_changes


def test_a_reward_with_two_modes_is_not_cut_where_its_median_jumps():
    # falls in 30% of episodes: a second mode, not a tail.  Clipped at 3 robust SDs of the
    # main mode, toward a running median that jumps to the falls wherever they bunch, this
    # gave 4.6 "changes" per 200-point series (98% of series); now 0 in 60 (15% falls: 0.02)
    rng = np.random.default_rng(153)
    counts = [len(detect_regimes(_falls_or_full(200, 0.3, rng)).changepoints) for _ in range(30)]
    assert sum(c > 0 for c in counts) <= 3, counts  # P(> 3 of 30) < 2% at a 3% rate
    # ... while a real change of the fall rate is found where it is: 10% -> 50% at 200 of 400
    # (found within 25 steps in 36 of 40 series measured, with 0.9 changes per series)
    found = 0
    for _ in range(30):
        y = np.r_[_falls_or_full(200, 0.1, rng), _falls_or_full(200, 0.5, rng)]
        found += any(abs(c - 200) <= 25 for c in detect_regimes(y).changepoints)
    assert found >= 22, found  # P(< 22 of 30) < 1% at a 90% rate


def test_a_learning_curve_is_one_or_two_regimes_not_a_staircase():
    rng = np.random.default_rng(151)
    t = np.arange(1000)
    curves = 3 * (1 - np.exp(-t / 200)) + ar1(0.5, 1000, rng, 20)
    counts = [len(detect_regimes(y).changepoints) for y in curves]
    assert sum(c <= 1 for c in counts) >= 16, counts  # target 90%; measured 98%
    # the climb is reported as a trend with an interval that holds the true early slope
    result = detect_regimes(curves[0])
    first = result.segments.iloc[0]
    assert first["sloped"] and first["slope_ci_low"] < first["slope"] < first["slope_ci_high"]


def test_a_level_shift_in_autocorrelated_noise_is_found_where_it_is():
    rng = np.random.default_rng(152)
    t = np.arange(2000)
    shifted = np.where(t >= 1000, 1.0, 0.0) + ar1(0.5, 2000, rng, 20)
    scores = [f1_score([1000], detect_regimes(y).changepoints, margin=10).f1 for y in shifted]
    assert np.mean(scores) >= 0.45  # target 0.6; measured 0.65 (SE of a 20-series mean ~0.09)


def test_a_slope_change_is_placed_by_the_broken_line():
    rng = np.random.default_rng(153)
    t = np.arange(2000)
    bent = np.where(t >= 1000, (t - 1000) * 0.01, 0.0) + ar1(0.5, 2000, rng, 20)
    near = [any(abs(c - 1000) <= 20 for c in detect_regimes(y).changepoints) for y in bent]
    # an efficient estimator gets 80% within 20 steps (the bend's Fisher information); measured 83%
    assert sum(near) >= 12, near


def test_a_seasonal_cycle_is_removed_and_named_and_the_shift_still_found():
    rng = np.random.default_rng(154)
    t = np.arange(240)
    y = 3 * np.sin(2 * np.pi * t / 12) + np.where(t >= 150, 2.0, 0.0) + rng.normal(0, 0.5, 240)
    result = detect_regimes(y)
    assert result.period == 12 and any("period 12" in note for note in result.notes)
    assert [abs(c - 150) <= 3 for c in result.changepoints] == [True]
    _, period = seasonal_cycle(np.cumsum(rng.normal(size=300)))
    assert period is None  # a random walk's differences have no cycle


def test_persistent_and_short_series_say_what_they_cannot_tell():
    rng = np.random.default_rng(155)
    walk = np.cumsum(rng.normal(size=400))
    result = detect_regimes(walk)
    assert result.persistence >= 0.98 and any("random walk" in note for note in result.notes)
    short = detect_regimes(ar1(0.9, 60, rng))
    assert short.changepoints == [] or any("too short" in note for note in short.notes)


def test_the_level_or_trend_cost_is_exact_under_pelt_with_its_pruning_constant():
    # brute force over every segmentation of short series: PELT with K = the slope penalty
    # finds the same optimum (K = 0 would prune a start that later wins)
    rng = np.random.default_rng(156)
    for _ in range(8):
        n = 24
        y = np.cumsum(rng.normal(size=n)) * rng.uniform(0.2, 2) + np.repeat(rng.normal(0, 3, 3), 8)
        cost = LevelOrTrendCost(y, slope_penalty=2.0)
        penalty, size = 4.0, 3
        best = np.inf
        for k in range(0, 7):
            for points in itertools.combinations(range(size, n - size + 1), k):
                bounds = [0, *points, n]
                if min(np.diff(bounds)) < size:
                    continue
                best = min(best, cost.total(list(points)) + penalty * k)
        found, value = pelt(cost, penalty, size)
        assert value == pytest.approx(best, rel=1e-9, abs=1e-9)


def test_broken_stick_matches_least_squares_at_every_bend():
    rng = np.random.default_rng(157)
    y = np.where(np.arange(60) >= 35, (np.arange(60) - 35) * 0.3, 0.0) + rng.normal(0, 0.2, 60)
    bend, rss = broken_stick(y, 5)
    t = np.arange(60.0)
    fits = {k: np.linalg.lstsq(np.c_[np.ones(60), t, np.maximum(t - k, 0)], y, rcond=None)[1][0]
            for k in range(5, 56)}
    assert bend == min(fits, key=fits.get) and rss == pytest.approx(fits[bend], rel=1e-8)
    assert abs(bend - 35) <= 3


def test_adjusted_p_values_and_options_that_do_not_apply():
    rng = np.random.default_rng(158)
    y = np.repeat([0.0, 2.0], 150) + rng.normal(size=300)
    strengths = detect_regimes(y).strengths
    assert (strengths["pvalue_adjusted"] >= strengths["pvalue"]).all()
    assert strengths["pvalue_adjusted"].iloc[0] < 1e-6
    with pytest.raises(InputError, match="trend"):
        detect_regimes(y, penalty=10.0)
    with pytest.raises(InputError, match="trend"):
        regime_path(y, model="trend")
    assert detect_regimes(y, model="mean", penalty=10.0).changepoints  # explicit fixed-scale model


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e50])
def test_the_trend_model_is_scale_free(scale):
    # squared costs of 1e-300-sized data underflow; the fit and its tables run in the range's units
    rng = np.random.default_rng(159)
    y = np.repeat([0.0, 2.0], 150) + rng.normal(size=300)
    reference, scaled = detect_regimes(y), detect_regimes(y * scale)
    assert scaled.changepoints == reference.changepoints
    assert scaled.noise_sd / scale == pytest.approx(reference.noise_sd, rel=1e-9)
    for column in ("mean", "ci_low", "ci_high"):
        assert np.allclose(scaled.segments[column] / scale, reference.segments[column], rtol=1e-9)
    assert np.allclose(scaled.strengths["z"], reference.strengths["z"], rtol=1e-9)


def test_broken_stick_equals_least_squares_at_every_bend():
    from swarmstats.regimes.whitened import broken_stick
    rng = np.random.default_rng(41)
    for n in (12, 40, 97):
        y = 5e3 + np.cumsum(rng.normal(size=n))  # an offset and a wandering curve
        t = np.arange(n, dtype=float)
        rss = {}
        for k in range(4, n - 4 + 1):
            design = np.c_[np.ones(n), t, np.maximum(t - k, 0.0)]
            residual = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
            rss[k] = float(residual @ residual)
        best = min(rss, key=rss.get)
        k, value = broken_stick(y, 4)
        assert k == best
        assert value == pytest.approx(rss[best], rel=1e-8, abs=1e-9)


def test_a_regime_trend_is_stated_per_100_steps_of_the_series_axis():
    # on an SB3 log (steps in timesteps) the summary said "a trend of 0.00681 per step" beside
    # the verdict's "+0.755 per 100 timesteps": the same unit, named and scaled as the verdict's
    import pandas as pd

    rng = np.random.default_rng(12)
    epochs = pd.Index(5 * np.arange(300), name="epoch")
    result = detect_regimes(pd.Series(0.01 * np.arange(300) + rng.normal(size=300), index=epochs),
                            model="trend")
    row = result.segments.iloc[0]
    assert result.step_unit == "epochs" and row["slope"] == pytest.approx(0.002, rel=0.25)
    line = next(line for line in result.summary().splitlines() if "a trend of" in line)
    assert f"a trend of {100 * row['slope']:.3g} per 100 epochs [" in line
    assert "per 100 steps" in detect_regimes(np.arange(300.0) + rng.normal(size=300), model="trend").summary()


def test_a_start_far_from_the_first_regime_that_the_persistence_absorbs_is_said():
    # the shape of a real TD-MPC2 evaluation curve: 8.6 -> ~650 over five evaluations, then a
    # noisy plateau for 36 more; the trend model reads the climb as AR(1) relaxation from the
    # first value (free under whitening), finds one regime, and now says what it did
    rng = np.random.default_rng(3)
    said_or_found = []
    for _ in range(12):
        curve = np.r_[[8.6, 112.0, 285.7, 447.8, 497.6], 600 + 75 * rng.normal(size=36)]
        result = detect_regimes(curve)
        told = [note for note in result.notes if note.startswith("the series starts")]
        if result.changepoints:  # the climb found as a regime needs no note
            assert result.changepoints[0] <= 8 and not told, (result.changepoints, told)
            said_or_found.append("found")
        elif result.segments["sloped"].iloc[0]:  # nor one read as a line from the start
            assert not told, told
            said_or_found.append("line")
        else:
            assert result.persistence > 0 and len(told) == 1, result.notes
            assert "relaxing from where the series started, not as a regime" in told[0]
            said_or_found.append("said")
    assert "said" in said_or_found, said_or_found  # the case the note is for does occur
    # under stationary noise the note is rarely said (its docstring: 0-1% of white, AR(0.6)
    # and t(3) series); 3 binomial SEs over 1.5% of 150: 6
    noise = ([rng.normal(size=41) for _ in range(50)] + list(ar1(0.6, 41, rng, reps=50))
             + [rng.standard_t(3, 41) for _ in range(50)])
    said = sum(any(n.startswith("the series starts") for n in detect_regimes(y).notes) for y in noise)
    assert said <= 6, said


def test_a_smooth_curve_cut_into_lines_has_bends_and_says_so_where_a_step_has_jumps():
    """A loss falling as 1/t is cut where one line stops fitting (a real Whisper fine-tune's
    loss: 5 regimes, "-30 noise SDs" at p < 1e-51) though nothing happened there; levels that
    move at once are jumps.  Measured over 40 seeds each (docs/regimes.md): the note on 40 of 40
    1/t losses, none of 40 step series or two-stage climbs."""
    t = np.arange(1000.0)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        loss = detect_regimes(3 / (1 + t / 30) + ar1(0.5, 1000, rng, sd=0.03))
        assert len(loss.changepoints) >= 2 and set(loss.strengths["kind"]) == {"bend"}
        assert any(note.startswith("every change is a bend where one fall eases, none a jump") for note in loss.notes)
        assert "a bend, the slope " in loss.summary() and " per 100 steps (" in loss.summary()

        steps = detect_regimes(np.where(t < 300, 0.0, np.where(t < 700, 1.0, 0.3)) + ar1(0.5, 1000, rng, sd=0.3))
        assert steps.changepoints and set(steps.strengths["kind"]) == {"jump"}
        assert "a jump: " in steps.summary() and not any("every change is a bend" in n for n in steps.notes)

        # two climbs, each between plateaus: bends, but no one movement that eases
        two = detect_regimes(np.clip((t - 200) / 100, 0, 1) + np.clip((t - 600) / 100, 0, 1)
                             + ar1(0.5, 1000, rng, sd=0.2))
        assert not any("every change is a bend" in n for n in two.notes)
    # the level models' changes are not classed
    assert detect_regimes(np.r_[np.zeros(100), np.ones(100)], model="mean").strengths["kind"].isna().all()
