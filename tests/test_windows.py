"""AdaptiveWindow: streaming = batch, the comparison with a fixed window and with ADWIN,
the precision, trend and change rules, edge cases and bad input."""

import json

import numpy as np
import pytest

from swarmstats import AdaptiveWindow, InputError, WindowState
from tests.conftest import ar1


def oscillating(n, rng):
    """The seeds' shape: an upward trend made of climbs and runs of 5-10 declining steps."""
    level, value = [], 0.4
    while len(level) < n:
        for _ in range(rng.integers(8, 16)):
            value += 0.012
            level.append(value)
        for _ in range(rng.integers(5, 11)):
            value -= 0.010
            level.append(value)
    return np.array(level[:n]) + rng.normal(0, 0.02, n)


def fixed_window_status(x, width=10):
    """The simple controller's rule: OLS slope over the last 10 points, |t| > 2."""
    t = np.arange(width) - (width - 1) / 2
    sxx = t @ t
    out = []
    for i in range(len(x)):
        if i < width - 1:
            out.append("uncertain")
            continue
        y = x[i - width + 1:i + 1]
        slope = t @ (y - y.mean()) / sxx
        residuals = y - y.mean() - slope * t
        t_stat = slope / np.sqrt(residuals @ residuals / (width - 2) / sxx)
        out.append("degrading" if t_stat < -2 else "improving" if t_stat > 2 else "stable")
    return np.array(out)


def alarm_onsets(status, kinds=("degrading", "improving")):
    flagged = np.isin(status, kinds)
    return np.flatnonzero(flagged & ~np.r_[False, flagged[:-1]])


def _same(a, b) -> bool:
    """Dataclass equality with NaN equal to NaN (the first points have no interval)."""
    import dataclasses
    import math
    for field in dataclasses.fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if not (x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y))):
            return False
    return True


def test_streaming_equals_batch():
    rng = np.random.default_rng(0)
    y = np.r_[rng.normal(0, 1, 400), rng.normal(-1.2, 1, 200), np.linspace(-1.2, 2, 200) + rng.normal(0, 1, 200)]
    table = AdaptiveWindow(max_length=200).fit(y).table
    loop = AdaptiveWindow(max_length=200)
    states = [loop.update(value) for value in y]
    batched = AdaptiveWindow(max_length=200)
    last = batched.update_many(y)
    assert _same(last, states[-1]) and batched.state is last
    many = batched.result().table
    assert len(states) == len(many) == len(table)
    for row, state, other in zip(table.to_dict("records"), states, many.to_dict("records")):
        assert _same(state, WindowState(**{k: v for k, v in other.items() if k != "value"}))
        for field in ("length", "status", "reason", "change", "start"):
            assert row[field] == getattr(state, field), field
        for field in ("mean", "ci_low", "ci_high", "slope", "slope_t"):
            assert row[field] == pytest.approx(getattr(state, field), nan_ok=True), field


def test_the_table_is_compact_and_a_stream_grows_on_after_a_result():
    # one row per step: 12 numbers (8 bytes each), a flag, and the status and reason as codes
    # into their few distinct values; a column of reason strings cost ~100 bytes per step.
    # (~2,200 of them here: a stable level's "known to +-x" follows its own points' SD, so x
    # takes more values than when the window's pooled scale was refreshed every ~10% of it)
    y = np.random.default_rng(3).normal(size=20_000)
    result = AdaptiveWindow().fit(y)
    table = result.table
    assert table["status"].dtype == "category"
    assert list(table["status"].cat.categories) == ["improving", "degrading", "rising", "falling", "stable",
                                                    "uncertain"]
    assert table["reason"].dtype == "category" and table["reason"].nunique() < 3_000
    assert table.memory_usage(deep=True).sum() < 14 * y.nbytes
    assert result.status_counts == {status: int((table["status"] == status).sum())
                                    for status in set(table["status"])}
    assert sum(result.status_counts.values()) == len(y)
    # a result in mid-stream copies: the window keeps growing, and the first table stays as it was
    window = AdaptiveWindow()
    window.update_many(y[:300])
    early = window.result().table
    before = early.copy()
    window.update_many(y[300:600])
    later = window.result().table
    assert len(later) == 600
    assert early.equals(before) and later.iloc[:300].astype(str).equals(early.astype(str))
    assert later.astype(str).equals(AdaptiveWindow().fit(y[:600]).table.astype(str))


def test_calls_an_oscillating_climb_degrading_far_less_than_a_fixed_window():
    rng = np.random.default_rng(1)
    fixed = adaptive = 0
    for _ in range(20):
        x = oscillating(300, rng)
        fixed += int((fixed_window_status(x) == "degrading").sum())
        adaptive += int((AdaptiveWindow().fit(x).table["status"] == "degrading").sum())
    assert fixed > 0.1 * 20 * 300  # the fixed window does call dips "degrading" (~17% of steps)
    assert adaptive <= fixed / 5


def test_against_adwin_delay_and_false_alarms():
    drift = pytest.importorskip("river.drift")
    rng = np.random.default_rng(2)
    reps, n, onset = 30, 1000, 500  # ADWIN's delay ~43, ours ~48: far inside 1.5x at 30 draws

    def adwin_alarms(x):
        detector, alarms = drift.ADWIN(), []
        for i, value in enumerate(x):
            detector.update(value)
            if detector.drift_detected:
                alarms.append(i)
        return alarms

    ours_false = adwin_false = 0
    for _ in range(reps):
        x = rng.normal(size=n)
        ours_false += len(alarm_onsets(AdaptiveWindow().fit(x).table["status"].to_numpy()))
        adwin_false += len(adwin_alarms(x))
    assert ours_false <= adwin_false

    ours_delay, adwin_delay = [], []
    for _ in range(reps):
        x = rng.normal(size=n)
        x[onset:] -= 1.0  # a genuine drop of one noise SD
        status = AdaptiveWindow().fit(x).table["status"].to_numpy()
        ours = [i for i in alarm_onsets(status, ("degrading",)) if i >= onset]
        theirs = [i for i in adwin_alarms(x) if i >= onset]
        ours_delay.append(ours[0] - onset if ours else np.inf)
        adwin_delay.append(theirs[0] - onset if theirs else np.inf)
    assert np.median(ours_delay) <= 1.5 * np.median(adwin_delay)


def test_precision_sets_the_length_with_autocorrelation():
    rng = np.random.default_rng(3)
    iid = AdaptiveWindow(precision=0.2).fit(rng.normal(size=600))
    expected = (1.959964 / 0.2) ** 2  # g = 1: n = (z sigma / precision)^2 ~ 96
    assert iid.final_status == "stable"
    assert 0.7 * expected < iid.table["length"].iloc[-1] < 1.4 * expected
    # AR(1), phi = 0.5: sigma = 1/sqrt(0.75) and g = 3, so a precision of 0.2 sigma needs
    # 3 (z / 0.2)^2 ~ 288 points: three times the independent case
    correlated = AdaptiveWindow(precision=0.2 / np.sqrt(0.75), max_length=1000).fit(ar1(0.5, 2000, rng))
    assert 0.6 * 3 * expected < correlated.table["length"].iloc[-1] < 1.5 * 3 * expected
    noisy = AdaptiveWindow(precision=0.01, max_length=100).fit(rng.normal(size=300))
    assert noisy.final_status == "uncertain" and "even 100 points" in noisy.final_reason


def test_trend_keeps_the_window_to_its_span_and_better_lower_flips_the_call():
    rng = np.random.default_rng(4)
    y = np.r_[rng.normal(0, 1, 300), np.linspace(0, 6, 100) + rng.normal(0, 1, 100)]
    result = AdaptiveWindow().fit(y)
    assert result.final_status == "improving"
    assert 20 <= result.table["length"].iloc[-1] <= 160  # the rise, not the 300 flat points before
    loss = AdaptiveWindow(better="lower").fit(-y)
    assert loss.final_status == "improving" and (loss.table["status"] == "degrading").sum() == 0


def test_a_change_cuts_the_window_and_is_recorded():
    rng = np.random.default_rng(5)
    y = np.r_[rng.normal(0, 1, 300), rng.normal(-1.5, 1, 200)]
    result = AdaptiveWindow().fit(y)
    change = result.changes[0]
    assert change["direction"] == "down" and 290 <= change["start"] <= 320 and change["step"] < 340
    assert change["shift_sds"] == pytest.approx(-1.5, abs=0.5)
    row = result.table.iloc[change["step"]]
    assert row["change"] and row["status"] == "degrading" and row["start"] == change["start"]
    # after the change the window only holds post-change points
    assert (result.table["start"].iloc[-1]) >= change["start"]


def test_a_rise_that_levels_off_ends_stable_not_improving():
    rng = np.random.default_rng(6)
    t = np.arange(800)
    y = 0.3 + 0.4 * (1 - np.exp(-t / 80)) + rng.normal(0, 0.03, 800)
    result = AdaptiveWindow().fit(y)
    assert result.final_status == "stable"
    assert (result.table["status"].iloc[:250] == "improving").mean() > 0.5
    assert (result.table["status"] == "degrading").sum() == 0


def test_edge_cases():
    short = AdaptiveWindow().fit([0.1, 0.2, 0.3])
    assert set(short.table["status"]) == {"uncertain"} and short.notes
    # too few points for a level: the summary gives the last value and the span, not the mean
    # (six evaluations of a loss falling 15.4 -> 0.30 read "level now 3.183")
    assert ("level now not judged (3 of the 20 points needed); the last value is 0.3, the values "
            "so far lie in [0.1, 0.3] (higher is better)") in short.summary()
    constant = AdaptiveWindow().fit(np.full(100, 0.5))
    assert constant.final_status == "stable" and "same" in constant.final_reason
    result = AdaptiveWindow().fit(np.random.default_rng(7).normal(size=120))
    json.dumps(result.to_dict(), allow_nan=False)
    assert "table" not in result.to_dict() and result.to_frame() is result.table
    import matplotlib
    matplotlib.use("Agg")
    ax = result.plot()
    assert ax.lines
    import matplotlib.pyplot as plt
    plt.close(ax.figure)


def test_steps_come_from_a_series_index():
    import pandas as pd
    y = pd.Series(np.random.default_rng(8).normal(size=60), index=np.arange(60) * 10)
    table = AdaptiveWindow().fit(y).table
    assert table["step"].iloc[-1] == 590 and table["start"].iloc[-1] % 10 == 0


@pytest.mark.parametrize("kwargs,message", [
    ({"min_length": 5}, "at least 10"), ({"min_length": 50, "max_length": 60}, "twice"),
    ({"precision": 0}, "precision"), ({"alpha": 1.5}, "alpha"), ({"max_length": 2.5}, "integer"),
    ({"better": "up"}, "better"), ({"alpha": 1e-300}, "between 1e-12"),  # 28 "changes" in 600 points before
])
def test_bad_options(kwargs, message):
    with pytest.raises(InputError, match=message):
        AdaptiveWindow(**kwargs)


def test_a_precision_out_of_reach_keeps_the_longest_window():
    # a precision of 1e-300 asked for ~1e600 points, whose square overflowed
    y = np.random.default_rng(2).normal(size=300)
    table = AdaptiveWindow(precision=1e-300, max_length=120).fit(y).table
    assert table["length"].iloc[-1] == 120


def test_bad_values():
    window = AdaptiveWindow()
    with pytest.raises(InputError, match="finite"):
        window.update(float("nan"))
    with pytest.raises(InputError, match="number"):
        window.update("x")
    with pytest.raises(InputError, match="nan_policy"):
        window.fit([0.1, float("nan"), 0.3])


def test_values_too_small_to_square_are_refused_not_read_as_noiseless():
    # 1e-300-sized values: the long-memory note's autocorrelation time was NaN and fit() raised
    # "cannot convert float NaN to integer"; then every state read "the values lie exactly on a
    # curve: no noise to judge" (the squares underflow, so the noise scale was 0) and a level
    # shift of 3 SDs went unseen.  Every state now says why they cannot be judged (a report
    # of such a run still gives its convergence verdict, which standardises first).
    rng = np.random.default_rng(44)
    y = np.r_[rng.normal(size=200), 3 + rng.normal(size=200)]
    for scale in (1e-300, 1e-200, 1e-150):
        result = AdaptiveWindow().fit(y * scale)
        assert result.final_status == "uncertain" and not result.changes
        assert "cannot be judged in float64: their squares underflow; rescale" in result.final_reason
        assert not result.table["reason"].astype(str).str.contains("exactly on a curve").any()
    window = AdaptiveWindow()
    states = [window.update(v) for v in y * 1e-200]
    assert all(s.status == "uncertain" for s in states)
    assert "squares underflow" in states[-1].reason and "multiply it by 1e200" in states[-1].reason
    assert len(window.result().table) == 400  # nothing lost
    # a constant run of tiny values, and zeros, are still read as they are
    assert AdaptiveWindow().fit(np.full(50, 1e-200)).final_status == "stable"
    assert AdaptiveWindow().fit(np.zeros(50)).final_status == "stable"


@pytest.mark.parametrize("scale", [1e-20, 1e-100, 1e-140, 1e20, 1e60])
def test_the_window_reads_a_series_the_same_at_any_scale(scale):
    """A noise floor of 1e-12 in absolute units called every window of 1e-20-sized values
    "the values lie exactly on a curve: no noise to judge": a 2-SD level shift went unseen
    (0 changes against 1).  Rounding is now judged relative to the values' size, so down to
    ~1e-150 (where squares underflow) every state is the unit series' own, scaled."""
    rng = np.random.default_rng(45)
    y = np.r_[rng.normal(size=300), 2 + rng.normal(size=300)]
    unit, scaled = AdaptiveWindow().fit(y).table, AdaptiveWindow().fit(y * scale).table
    assert (scaled["status"].astype(str) == unit["status"].astype(str)).all()
    assert (scaled["length"] == unit["length"]).all() and scaled["change"].sum() == unit["change"].sum() == 1
    assert np.allclose(scaled["mean"] / scale, unit["mean"], rtol=1e-9)


def test_a_rate_held_at_one_from_the_start_is_a_streak_not_a_point():
    """60 evaluations' success flags, every one a success: the level read [1, 1], which held
    p = 0.97 only when none failed (16% of the time it was so, 83% coverage in 300 fits); as a
    rate it can still fall to 0, so the streak's exact binomial bound: [0.025 ** (1/60), 1] =
    [0.940, 1]."""
    import pandas as pd

    table = AdaptiveWindow().fit(pd.Series(np.ones(60), name="eval/success_rate")).table
    last = table.iloc[-1]
    assert last["level_low"] == pytest.approx(0.025 ** (1 / 60)) and last["level_high"] == 1.0
    assert last["status"] == "stable" and "a rate" in last["reason"] and "as far as 0" in last["reason"]
    # the same values under another name: nothing says where else they could go
    other = AdaptiveWindow().fit(pd.Series(np.ones(60), name="reward")).table.iloc[-1]
    assert (other["level_low"], other["level_high"]) == (1.0, 1.0)
    rng = np.random.default_rng(17)
    covered = 0
    for _ in range(200):
        flags = pd.Series((rng.random(60) < 0.97).astype(float), name="eval/success_rate")
        final = AdaptiveWindow().fit(flags).table.iloc[-1]
        covered += final["level_low"] <= 0.97 <= final["level_high"]
    assert covered / 200 >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 200)


@pytest.mark.parametrize("before, after", [(1.0, 3.0), (3.0, 1.0)])
def test_the_level_interval_follows_a_change_of_the_noises_spread(before, after):
    """100 points after the noise SD tripled (500 points before it), the window's pooled noise
    scale was 1.6 of the level's 3 and its interval held the mean 68% of 400 fits; after the SD
    fell to a third the interval was three times too wide (100%).  The level's own points' SD:
    94-96% both ways.  Here 150 points before (the old interval: 82.5% and 100%), 200 fits each,
    within 3 binomial SE of 95%."""
    rng = np.random.default_rng(5)
    fits = 200
    covered = 0
    for _ in range(fits):
        y = np.r_[rng.normal(0, before, 150), rng.normal(0, after, 100)]
        last = AdaptiveWindow().fit(y).table.iloc[-1]
        covered += last["level_low"] <= 0.0 <= last["level_high"]
    se = np.sqrt(0.95 * 0.05 / fits)
    assert 0.95 - 3 * se <= covered / fits <= 0.95 + 3 * se, covered


def test_the_line_ends_interval_is_at_least_the_heteroscedasticity_consistent_one():
    """The end of a window's line: Var at least g times the HC2 variance of the fitted value at
    the last point (statsmodels), never less than the pooled scale's."""
    import statsmodels.api as sm

    from swarmstats.windows.window import line_end

    rng = np.random.default_rng(8)
    x = np.arange(80.0)
    y = 0.05 * x + np.r_[rng.normal(0, 1, 60), rng.normal(0, 4, 20)]
    fit = sm.OLS(y, sm.add_constant(x)).fit(cov_type="HC2")
    at_end = np.array([1.0, x[-1]])
    centred = x - x.mean()
    slope = float(centred @ (y - y.mean()) / (centred @ centred))
    level, half = line_end(y, float(y.mean()), slope, 1.0, 1.96, g=2.0)
    assert level == pytest.approx(fit.params @ at_end)
    assert half == pytest.approx(1.96 * np.sqrt(2.0 * at_end @ fit.cov_params() @ at_end), rel=1e-9)
    homoscedastic = line_end(y, float(y.mean()), slope, 50.0, 1.96)[1]
    assert line_end(y, float(y.mean()), slope, 50.0, 1.96, g=2.0)[1] == homoscedastic


def test_a_climbs_level_interval_follows_a_change_of_the_noises_spread():
    """A steady climb whose noise SD tripled 100 points before the end: the line's end, its
    interval from the window's pooled scale, held the curve 81.5% of 200 fits (400 points);
    with the residuals' own weight on the end (HC2) 95.5%.  Here 150 points before (the old
    interval: OLD), 200 fits, within 3 binomial SE of 95%."""
    rng = np.random.default_rng(9)
    fits, covered = 200, 0
    x = np.arange(250)
    for _ in range(fits):
        y = 0.05 * x + np.r_[rng.normal(0, 1, 150), rng.normal(0, 3, 100)]
        last = AdaptiveWindow().fit(y).table.iloc[-1]
        covered += last["level_low"] <= 0.05 * x[-1] <= last["level_high"]
    se = np.sqrt(0.95 * 0.05 / fits)
    assert 0.95 - 3 * se <= covered / fits <= 0.95 + 3 * se, covered
