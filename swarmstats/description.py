"""Distribution reporting for one series: the whole distribution, with honest intervals.

A peak is not a result.  :func:`describe` reports where the values lie (mean,
median, interquartile mean, quantiles, extremes with their steps), how far
the peak sits from the typical value, the worst tail (CVaR) and a bimodality
indicator, and it puts intervals on the centre that respect autocorrelation:
successive points of a training curve are not independent samples, and the
i.i.d. interval (also reported, for comparison) is far too narrow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats

from ._input.random_state import resolve_rng
from ._input.series import Series, as_series
from ._kernels import bootstrap
from ._kernels.autocorr import (
    BLOCK_POINTS,
    block_means,
    blocked_integrated_time,
    integrated_time,
)
from ._kernels.bootstrap import (
    block_bootstrap_indices,
    chunk_sizes,
    cluster_totals,
    jackknife_variance,
)
from ._kernels.bounded_mean import bounded_score_interval
from ._kernels.chains import ess_quantile
from ._kernels.modes import two_modes
from ._kernels.order_statistics import median_binomial_interval, median_range_note
from ._kernels.precision import (
    SLOW_COMPONENT,
    departure_share,
    held_range,
    mean_precision,
    within_range,
)
from ._kernels.robust import square_safe_scale
from ._kernels.verdict_tests import (
    FEW_POINTS,
    continued_drift,
    cut_sets_apart,
    kept_trend,
)
from ._result import Result, fmt, fmt_interval, interval_digits
from .convergence.warmup import warmup_of_values
from .direction import DIRECTIONS, sense
from .errors import InputError, check_choice, check_level
from .proportions import proportion_bounds, within_bounds

QUANTILES = (0.05, 0.25, 0.75, 0.95)
MEDIAN_METHODS = ("bootstrap", "order-statistics")
#: block length of the median's bootstrap, in integrated autocorrelation times
BLOCK_TIMES = 3
#: Sarle's bimodality coefficient of a uniform distribution: above it, two modes or a skewed
#: one (the coefficient rises with skewness), which the density tells apart (:func:`two_modes`)
BIMODALITY_THRESHOLD = 5 / 9


#: A trend with a p-value below this (the convergence verdict's batch-means slope test), or a
#: warm-up that sits apart from the rest below the second (its rank test over every cut the
#: rule could choose), is noted.  The rank test reads persistent noise as a transient more
#: often than its level says (AR(0.97), 1,000 points, cuts up to 80%: 5.6% at 0.5%), while
#: real take-offs score p < 1e-12; at these levels both notes stay off ~99% of stationary
#: series, heavy-tailed, bursty and persistent ones included.
TREND_NOTE_LEVEL = 0.005
WARMUP_NOTE_LEVEL = 1e-4
#: ... judged from this many values on; a warm-up is looked for in the first 80% (a take-off
#: late in a run is a transient too, where the convergence verdict stops looking at 50%)
TREND_MIN_POINTS = 20
WARMUP_NOTE_FRACTION = 0.8
#: Longer series are judged on 25,000-50,000 block means (the describe of 10^7 values stays
#: within 2x their memory)
NOTE_POINTS = 50_000

#: Fewer effective values than this in an autocorrelated series (g > 2) and the mean's interval
#: is the batch-means one (see describe).
FEW_EFFECTIVE = 50


def geyer_dof(ess: float, tau: float) -> float:
    """Degrees of freedom of the mean's t interval from Geyer's g: (ESS - 1) / (1 + 3 min(g - 1, 1)),
    ESS - 1 for independent values (g ~ 1) and (ESS - 1) / 4 once g reaches 2.

    Geyer's sum of autocovariances is far noisier than a variance: the spread of its estimate
    of the long-run variance, 600 AR(1) series each, matches a chi-square's on ESS / 3.3-4.7
    degrees of freedom for phi = 0.9-0.97 (1,000-10,000 points), ESS / 4-7 for phi = 0.5.  On
    ESS - 1 the interval of AR(0.9) series covered 93.9% (1,000 points) and 93.6% (2,000) of
    2,000 at 95%, on these 95.2% and 94.7%.  Independent values keep about ESS - 1: there the
    floor at g = 1 and the sum's upward bias make up for its noise (94-97% at 30-1,000 points).

    >>> geyer_dof(101.0, 1.0), geyer_dof(101.0, 1.5), geyer_dof(101.0, 19.0)
    (100.0, 40.0, 25.0)
    """
    return (ess - 1.0) / (1.0 + 3.0 * min(max(tau - 1.0, 0.0), 1.0))


@dataclass(frozen=True, repr=False)
class DescribeResult(Result):
    """The distribution of one series (see :func:`describe`)."""

    name: str | None
    n: int
    mean: float
    sd: float
    median: float
    iqm: float
    quantiles: dict
    minimum: float
    minimum_step: float | int | None
    maximum: float
    maximum_step: float | int | None
    peak_gap: float  # how far the best value lies from the mean: max - mean (mean - min for a loss)
    peak_gap_relative: float
    peak_gap_sd: float  # peak_gap / SD: meaningful whatever the sign or size of the mean
    ci: tuple
    ci_iid: tuple
    ci_level: float
    autocorr_time: float
    ess: float
    median_ci: tuple
    cvar: float
    cvar_tail: float
    bimodality_coefficient: float
    #: the density shows two modes (:func:`~swarmstats._kernels.modes.two_modes`), at ``modes``
    bimodal: bool
    notes: list = field(default_factory=list)
    #: with ``clusters=``: how many, and the design effect (the variance of the mean over the
    #: i.i.d. one; ESS = n / design_effect)
    clusters: int | None = None
    design_effect: float = float("nan")
    #: with ``clusters=``: the cluster of the minimum and of the maximum
    minimum_cluster: str | None = None
    maximum_cluster: str | None = None
    #: which side is better: the peak is the maximum ("higher"), the minimum ("lower"), or -
    #: for a diagnostic with no better side (None) - just the maximum
    better: str | None = "higher"
    #: the two modes, lower first, where the density shows two (None otherwise) ...
    modes: tuple | None = None
    #: ... and the share of the values on each side of the valley between them
    mode_shares: tuple | None = None
    _values: np.ndarray | None = None
    _steps: np.ndarray | None = None

    def to_frame(self) -> pd.DataFrame:
        """The one-row table the CLI prints (:meth:`to_row`)."""
        return pd.DataFrame([self.to_row()])

    def to_row(self) -> dict:
        """A flat record for tables (one row per metric or group)."""
        row = {"metric": self.name, "n": self.n, "mean": self.mean, "ci_low": self.ci[0],
               "ci_high": self.ci[1], "sd": self.sd, "median": self.median,
               "median_ci_low": self.median_ci[0], "median_ci_high": self.median_ci[1],
               "iqm": self.iqm}
        row.update({f"q{round(q * 100):02d}": v for q, v in zip(QUANTILES, self.quantiles.values())})
        row.update({"min": self.minimum, "min_step": self.minimum_step, "max": self.maximum,
                    "max_step": self.maximum_step, "peak_gap_relative": self.peak_gap_relative,
                    "peak_gap_sd": self.peak_gap_sd, "cvar": self.cvar, "ess": self.ess,
                    "bimodality_coefficient": self.bimodality_coefficient, "bimodal": self.bimodal})
        if self.clusters is not None:
            row.update({"clusters": self.clusters, "design_effect": self.design_effect,
                        "min_cluster": self.minimum_cluster, "max_cluster": self.maximum_cluster})
        return row

    @staticmethod
    def _where(step, cluster) -> str:
        if cluster is None:
            return f"step {step}"
        if str(cluster) == f"run {step}":  # runs' final values: the step is the run's number
            return str(cluster)
        return f"cluster {cluster}, step {step}"

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        name = f"{self.name}: " if self.name else ""
        q = list(self.quantiles.values())
        d = interval_digits(*self.ci)
        basis = (f"{self.clusters} cluster{'s' if self.clusters != 1 else ''}, ESS {fmt(self.ess, 3)}"
                 if self.clusters is not None
                 else f"ESS {fmt(self.ess, 3)}")
        lines = [
            f"{name}n = {self.n}, mean {fmt(self.mean, d)} [{level} CI {fmt(self.ci[0], d)}, {fmt(self.ci[1], d)}]"
            f" ({basis}; i.i.d. CI {fmt(self.ci_iid[0])}, {fmt(self.ci_iid[1])})",
            f"  median {fmt_interval(self.median, *self.median_ci)}, "
            f"IQM {fmt(self.iqm)}, SD {fmt(self.sd)}",
            f"  5/25/75/95%: {fmt(q[0])} / {fmt(q[1])} / {fmt(q[2])} / {fmt(q[3])}",
            f"  min {fmt(self.minimum)} ({self._where(self.minimum_step, self.minimum_cluster)}), "
            f"max {fmt(self.maximum)} ({self._where(self.maximum_step, self.maximum_cluster)})",
            self._peak_line(),
            f"  {'upper' if self.better == 'lower' else 'lower'}-tail CVaR ({self.cvar_tail:.0%}): "
            f"{fmt(self.cvar)}; bimodality coefficient {fmt(self.bimodality_coefficient, 3)}"
            + self._modes_text(),
        ]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def _modes_text(self) -> str:
        """What the density says beside Sarle's coefficient, which rises with skewness as
        well as with a second mode: a long tail read "suggests two modes"."""
        above = self.bimodality_coefficient > BIMODALITY_THRESHOLD
        if self.bimodal:
            (low, high), (below, above) = self.modes, self.mode_shares
            where = f"two modes, near {fmt(low, 3)} ({below:.0%} of values) and {fmt(high, 3)} ({above:.0%})"
            return f" ({where})" if above else f" (below 5/9, yet the density shows {where})"
        if not above:
            return ""
        values = self._values
        if values is not None and np.all((values == values.min()) | (values == values.max())):
            return " (two values only)"  # a 0/1 score: its shares say more than any mode
        return " (above 5/9, but the density shows no second mode: skewness raises it too)"

    def _peak_line(self) -> str:
        """How far the best value lies from the mean (a loss's best is its lowest)."""
        if self.better == "lower":
            return (f"  mean - best (lowest) = {fmt(self.peak_gap)} ({_sds(self.peak_gap_sd, 'below')}): "
                    "reporting the best alone would overstate the typical value by that much")
        if self.better is None:  # a diagnostic: its highest value is no achievement
            return f"  max - mean = {fmt(self.peak_gap)} ({_sds(self.peak_gap_sd)})"
        return (f"  peak - mean = {fmt(self.peak_gap)} ({_sds(self.peak_gap_sd)}): "
                "reporting the peak alone would overstate the typical value by that much")


def _sds(value: float, side: str = "above") -> str:
    """"2.1 SDs above the mean": a percentage of a mean near or below zero means nothing."""
    return "n/a" if not math.isfinite(value) else f"{fmt(value, 3)} SDs {side} the mean"


def interquartile_mean(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean of the middle half: floor(n/4) values cut from each end (as scipy's
    ``trim_mean(x, 0.25)`` and rliable's IQM do).

    >>> float(interquartile_mean(np.array([1.0, 2, 2, 2, 1, 1, 2, 1])))
    1.5
    """
    values = np.sort(values, axis=axis)
    n = values.shape[axis]
    cut = int(0.25 * n)
    return np.take(values, np.arange(cut, n - cut), axis=axis).mean(axis=axis)


def lower_cvar(values: np.ndarray, tail: float) -> float:
    """Mean of the worst ``tail`` share of the values (at least one value).

    >>> lower_cvar(np.arange(100.0), 0.05)
    2.0
    """
    k = max(1, math.ceil(tail * len(values) - 1e-9))
    return float(np.partition(values, k - 1)[:k].mean())


def bimodality_coefficient(values: np.ndarray) -> float:
    """Sarle's coefficient (g1**2 + 1) / (g2 + 3 (n-1)**2 / ((n-2)(n-3))), bias-corrected
    skewness and excess kurtosis; 5/9 for a uniform, higher suggests bimodality.

    >>> rng = np.random.default_rng(0)
    >>> two = np.r_[rng.normal(-3, 1, 500), rng.normal(3, 1, 500)]
    >>> bimodality_coefficient(two) > 5 / 9 > bimodality_coefficient(rng.normal(size=1000))
    True
    """
    n = len(values)
    if n < 4 or np.ptp(values) == 0:
        return float("nan")
    m2, m3, m4 = _central_moments(values)
    g1, g2 = m3 / m2**1.5, m4 / m2**2 - 3
    # the bias-corrected G1 and G2 (scipy's skew and kurtosis with bias=False)
    skew = g1 * math.sqrt(n * (n - 1)) / (n - 2)
    kurt = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6)
    return float((skew ** 2 + 1) / (kurt + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


#: values per block when a long series is reduced block by block (bounded temporaries)
_BLOCK = 1 << 18


def _central_moments(values: np.ndarray) -> tuple:
    """(m2, m3, m4): mean squared, cubed and fourth-power deviations from the mean, block by
    block - scipy's skew and kurtosis each held three copies of a 10^7-point series."""
    mean = float(values.mean())
    totals = np.zeros(3)
    for start in range(0, len(values), _BLOCK):
        d = values[start:start + _BLOCK] - mean
        d2 = d * d
        totals += (d2.sum(), (d2 * d).sum(), (d2 * d2).sum())
    return tuple(totals / len(values))


def describe(y, *, ci: float = 0.95, tail: float = 0.05, n_boot: int = 2000,
             median_method: str = "order-statistics", random_state=0, nan_policy: str = "raise",
             name: str | None = None, clusters=None, better: str = "auto") -> DescribeResult:
    """The distribution of a score series, with autocorrelation-aware intervals.

    Parameters
    ----------
    y : array-like or pandas Series
        The values; a Series' numeric index is the step axis (for the steps of
        the minimum and maximum).
    ci : float
        Level of the intervals.  The mean's interval is mean +- t * SD /
        sqrt(ESS) with the ESS from the integrated autocorrelation time (Geyer);
        ``ci_iid`` is the textbook interval that assumes independence.  The
        median's interval: see ``median_method``.
    tail : float
        Share of the worst values averaged by the CVaR: the lowest, or the highest of a
        lower-is-better metric (see ``better``).
    median_method : {"order-statistics", "bootstrap"}
        ``"order-statistics"`` (default): the order statistics at the
        Beta(ESS/2 + 1, ESS/2 + 1) quantiles, with the ESS of the indicator
        1{x <= median} (as posterior's quantile MCSE) - no resampling, O(n log n)
        at any n, and better calibrated than the bootstrap under strong
        autocorrelation (measured: 94% vs 90% for AR(1), phi = 0.9; see
        docs/describe.md).  Where that ESS is undefined (a handful of values) the
        distribution-free binomial interval of order statistics is used.
        ``"bootstrap"``: a percentile bootstrap over circular blocks three
        autocorrelation times long (``n_boot`` resamples); long series (n x n_boot
        above 25 million) fall back to order statistics, with a note.
    clusters : array-like, optional
        A label per value (the example or prompt each rollout answered, the agent or seed
        each score came from): values that share a label are not independent, however they
        are ordered.  The mean's interval is then Student's t on G - 1 degrees of freedom
        (G clusters) with the delete-one-cluster jackknife variance - for an evaluation of
        many prompts with several samples each, the interval recommended by Miller (2024,
        "Adding error bars to evals", arXiv:2411.00640) - and the median's uses the ESS of
        the indicator from the same clustered variance.  No autocorrelation is assumed
        (``autocorr_time`` is NaN); ``design_effect`` and a note say how much the clustering
        costs and whether more clusters or more values per cluster would narrow the interval.
    better : {"auto", "higher", "lower"}
        Which side is better, for the peak: the best value is the maximum, or the minimum of a
        loss (``peak_gap`` = mean - min: reporting the lowest loss overstates the typical one).
        ``"auto"`` guesses from the name (:func:`swarmstats.direction.guessed_direction`); a
        diagnostic (a gradient norm) has no best value, and its maximum is only the maximum.

    >>> rng = np.random.default_rng(0)
    >>> result = describe(rng.normal(0.5, 0.1, size=400), random_state=0)
    >>> result.n, round(result.mean, 2), result.ci[0] < 0.5 < result.ci[1]
    (400, 0.5, True)
    """
    level = check_level(ci)
    tail = float(tail)
    if not 0 < tail < 1:
        raise InputError(f"tail must lie strictly between 0 and 1, got {tail}")
    if int(n_boot) < 0:
        raise InputError(f"n_boot must be >= 0 (0 skips the median's bootstrap interval), got {n_boot}")
    check_choice("median_method", median_method, MEDIAN_METHODS)
    check_choice("better", better, ("auto",) + DIRECTIONS)
    if clusters is not None:
        y, codes, names = _cluster_codes(y, clusters, nan_policy)
    series = as_series(y, nan_policy=nan_policy, min_length=1, name=name)
    if clusters is not None:
        result = _describe_clustered(series, codes, names, level, tail)
    else:
        result = _describe_series(series, level, tail, int(n_boot), median_method, resolve_rng(random_state))
    return _oriented(result, sense(better, series.name))


def _oriented(result: DescribeResult, better: str | None) -> DescribeResult:
    """The peak and the worst tail on their sides: a loss's best value is its minimum, and its
    worst values are its highest."""
    if better != "lower":
        return replace(result, better=better)
    gap = result.mean - result.minimum
    relative = gap / abs(result.mean) if result.mean != 0 else float("nan")
    sds = gap / result.sd if result.sd > 0 else (0.0 if gap == 0 else float("nan"))
    worst = -lower_cvar(-result._values, result.cvar_tail)
    return replace(result, better=better, peak_gap=gap, peak_gap_relative=relative, peak_gap_sd=sds,
                   cvar=worst)


def _shape(series: Series, tail: float) -> dict:
    """What :func:`describe` reports besides its intervals: the same with clusters or without."""
    x = series.values
    n = len(x)
    nan = float("nan")
    mean = float(x.mean())
    # spreads from values whose squares neither underflow nor overflow (1e-300-sized data
    # gave an SD of 0 and a NaN autocorrelation time)
    safe, scale = square_safe_scale(x)
    safe_sd = float(safe.std(ddof=1)) if n > 1 else nan
    sd = scale * safe_sd
    quantiles = dict(zip((f"q{round(q * 100):02d}" for q in QUANTILES), np.quantile(x, QUANTILES).tolist()))
    lo, hi = int(np.argmin(x)), int(np.argmax(x))
    peak_gap = float(x[hi]) - mean
    coefficient = bimodality_coefficient(safe)
    modes = two_modes(safe, safe_sd) if n > 1 else None
    return dict(
        name=series.name, n=n, mean=mean, sd=sd, median=float(np.median(x)),
        iqm=float(interquartile_mean(x)), quantiles=quantiles, minimum=float(x[lo]),
        minimum_step=series.step_of(lo), maximum=float(x[hi]), maximum_step=series.step_of(hi),
        peak_gap=peak_gap, peak_gap_relative=peak_gap / abs(mean) if mean != 0 else nan,
        peak_gap_sd=peak_gap / sd if sd > 0 else (0.0 if peak_gap == 0 else nan),
        cvar=lower_cvar(x, tail), cvar_tail=tail, bimodality_coefficient=coefficient,
        bimodal=modes is not None,
        modes=None if modes is None else (_unsafe(modes.low, mean, scale), _unsafe(modes.high, mean, scale)),
        mode_shares=None if modes is None else (modes.low_share, modes.high_share),
        _values=x, _steps=series.steps)


def _unsafe(value: float, mean: float, scale: float) -> float:
    """A location read on :func:`square_safe_scale`'s values (deviations from the ``mean``
    over ``scale``, or the values themselves when the scale is 1), back on their own scale."""
    return value if scale == 1.0 else mean + value * scale


def _trend_note(series: Series, tau: float) -> str | None:
    """A note when the values are not one distribution but a moving one, since the mean and
    interval of a learning curve depend on where the run was cut: the values (after a warm-up
    that sits apart from the rest, found as the convergence verdict finds it) still trend -
    its batch-means slope test - or they settled after such a warm-up."""
    x, scale = square_safe_scale(series.values)  # the tests are shift- and scale-free
    n = len(x)
    steps = series.steps
    if steps is None or np.ptp(steps) == 0:  # an axis that never moves has no slope along it
        steps = np.arange(n)
    steps = np.asarray(steps, dtype=float)
    size, skipped = 1, 0
    if n > NOTE_POINTS:  # judged on block means: the same movement, at a fixed cost and memory
        size = n // (NOTE_POINTS // 2)
        skipped = n % size  # block_means drops the remainder at the start
        x, steps = block_means(x, size), block_means(steps, size)
        tau = float(integrated_time(x))
    sd = float(x.std())
    z = (x - x.mean()) / sd
    n = len(z)
    cut, p = 0, 1.0
    found = warmup_of_values(z, max_fraction=WARMUP_NOTE_FRACTION).index
    if found > FEW_POINTS:  # (a wild first value or two is no transient to speak of)
        apart, p = cut_sets_apart(z, found, int(WARMUP_NOTE_FRACTION * n), level=WARMUP_NOTE_LEVEL)
        cut = found if apart else 0
    kept, outcome = z[cut:], None
    if len(kept) >= TREND_MIN_POINTS:
        outcome = kept_trend(kept, steps[cut:], max(tau, 1.0))
        if cut:
            # the whole run's slope, when the part after the cut goes on along it (a steady
            # climb, where the rule cuts wherever the variance is lowest)
            drift = continued_drift(z, steps, max(tau, 1.0), outcome, TREND_NOTE_LEVEL)
            if drift.applies and drift.pvalue < TREND_NOTE_LEVEL:
                outcome, cut = drift, 0
    if outcome is not None and outcome.pvalue < TREND_NOTE_LEVEL:
        slope = outcome.estimate * sd * scale * 100
        where = f"after the first {cut * size + skipped} values, " if cut else ""
        return (f"the values trend: {where}{'rising' if slope > 0 else 'falling'} {slope:+.3g} per "
                f"100 {series.step_unit} (p = {fmt(outcome.pvalue, 2)}, autocorrelation-aware): this "
                "is the distribution of a moving series, so the mean and its interval depend on "
                "where the run was cut (check-convergence says whether it settled)")
    if cut:
        return (f"the first {cut * size + skipped} values sit apart from the rest (a warm-up: rank test p = "
                f"{fmt(p, 2)}, over every cut the rule could choose): this distribution mixes a "
                "transient with what followed - describe the part after it, or let "
                "check-convergence find the cut")
    return None


def _constant_note(n: int, level: float) -> str:
    # no other value was seen, so nothing bounds how far one would go
    share = departure_share(n, level)
    return (f"the series is constant: every interval is a point ({n} identical values rule out "
            f"other values in more than {share:.1%} of points at {level:.0%}, not how far they would lie)")


def _iid_interval(shape: dict, level: float) -> tuple:
    """The textbook interval that assumes independent values, within their range."""
    nan = float("nan")
    if shape["n"] > 1 and shape["maximum"] == shape["minimum"]:
        return (shape["mean"], shape["mean"])
    if shape["n"] < 4:
        return (nan, nan)
    interval = _t_interval(shape["mean"], shape["sd"], float(shape["n"]), level)
    return within_range(interval, shape["minimum"], shape["maximum"], shape["n"], level)


def _describe_series(series: Series, level: float, tail: float, n_boot: int, median_method: str,
                     rng: np.random.Generator) -> DescribeResult:
    shape = _shape(series, tail)
    x, n, mean, sd = shape["_values"], shape["n"], shape["mean"], shape["sd"]
    nan = float("nan")
    notes = []
    # a rate of successes by its name (values that happen to be 0 or 1 may be a count)
    shares = proportion_bounds(series.name, x)
    if n > 1 and np.ptp(x) == 0 and shares is not None and mean in shares:
        # every evaluation a success (or every one a failure): 20 of 20 says the rate is at
        # least 0.84, not that it is 1
        tau, ess, median_ci = nan, nan, (mean, mean)
        ci = bounded_score_interval(mean, 0.0, n, level, shares)
        notes.append(f"every value is {mean:g}: the rate's interval is Wilson's for {n} of {n} "
                     "(taken as independent)")
    elif n > 1 and np.ptp(x) == 0:
        notes.append(_constant_note(n, level))
        tau, ess, ci, median_ci = nan, nan, (mean, mean), (mean, mean)
    elif n < 4:
        notes.append(f"only {n} value(s): no interval is estimated (at least 4 are needed)")
        tau, ess, ci, median_ci = nan, nan, (nan, nan), (nan, nan)
    else:
        tau = float(integrated_time(x))
        ess = n / tau
        ci = _t_interval(mean, sd, ess, level, geyer_dof(ess, tau))
        # The ESS interval covers 94-96.5% on independent and mildly autocorrelated noise, but
        # Geyer's g is biased low when n / g is small: AR(0.9) at n = 100 / 300 covered 85% /
        # 89%, AR(0.5) at n = 100 92.5%.  Below FEW_EFFECTIVE effective values of such a series
        # (g > 2: for independent values a t law on ESS - 1 df is right), under long memory
        # (the variance of batch means keeps growing with their length, or the spectrum rises
        # like a fractional power towards zero) and with a slow component under fast noise
        # (ARMA(1,1) fits the spectrum best), the convergence verdict's standard error replaces
        # it: the larger of Geyer's and batch means', widened to what a fitted model implies.
        precision = mean_precision(x, tau)
        if precision.long_memory or precision.slow_component or (tau > 2.0 and ess < FEW_EFFECTIVE):
            half = float(stats.t.ppf(0.5 + level / 2, precision.dof)) * precision.mcse
            ci = (mean - half, mean + half)
        trend = _trend_note(series, tau) if n >= TREND_MIN_POINTS else None
        # a trend raises the low end of the spectrum as long memory or a slow wander do
        maybe_trend = " (or the movement below, which looks the same to it)" if trend else ""
        if precision.long_memory:
            notes.append(f"long memory: {precision.memory_evidence()}{maybe_trend}, so the precision "
                         f"of the mean is uncertain; its interval is widened {fmt(precision.inflation, 3)}x, "
                         "and the ESS overstates the information")
        elif precision.slow_component:
            notes.append(f"a slow component under the noise: {SLOW_COMPONENT}{maybe_trend}; the "
                         f"interval is widened {fmt(precision.inflation, 3)}x to that model's variance "
                         "of the mean, and the ESS overstates the information")
        if trend:
            notes.append(trend)
        if shares is not None:
            # a rate's mean near 0 or 1 is not symmetric about it: the interval's score form,
            # as Wilson's for a proportion (20 episodes' success flags with p = 0.97 read [1, 1]
            # half the time, covering 49%)
            ci = bounded_score_interval(mean, (ci[1] - ci[0]) / 2, ess, level, shares)
        # a mean cannot lie beyond every value the series holds: a capped return's interval
        # stops at its cap (given enough values for the cut to cost nothing: with 4 the mean
        # lies beyond all of them 12.5% of the time)
        ci = within_bounds(within_range(within_range(ci, shape["minimum"], shape["maximum"], ess, level),
                                        *held_range(x)),  # (at a cap the series held, always)
                           shares)  # (and a success rate's within [0, 1], always)
        if median_method == "bootstrap" and n * n_boot > bootstrap.EXACT_LIMIT:
            notes.append(f"{n} values: the median's interval uses order statistics and the ESS "
                         "(a bootstrap would cost n x n_boot draws)")
            median_method = "order-statistics"
        if median_method == "bootstrap":
            median_ci = _median_interval(x, tau, level, n_boot, rng)
        else:
            median_ci = _median_order_interval(x, level)
        notes += [note for note in [median_range_note(n, level)] if note]
        if ess < 20:
            notes.append(f"only about {ess:.0f} effectively independent values: the intervals "
                         "are rough (their coverage can fall short of the nominal level)")
    return DescribeResult(**shape, ci=ci, ci_iid=_iid_interval(shape, level), ci_level=level,
                          autocorr_time=tau, ess=ess, median_ci=median_ci, notes=notes)


def _cluster_codes(y, clusters, nan_policy: str):
    """(y, codes 0..G-1, the label of each code): ``clusters`` checked against ``y`` (one
    label per value, none missing); with ``nan_policy="omit"`` the values dropped take their
    labels with them."""
    labels = pd.Series(np.asarray(clusters, dtype=object).ravel())
    values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y, dtype=object).ravel()
    if len(labels) != len(values):
        raise InputError(f"clusters: expected {len(values)} labels, one per value, got {len(labels)}")
    if labels.isna().any():
        row = int(np.flatnonzero(labels.isna().to_numpy())[0])
        raise InputError(f"clusters: no cluster label for the value at position {row} (every value needs one)")
    if nan_policy == "omit":
        numbers = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
        keep = ~np.isnan(numbers)
        if not keep.all():
            y = y[keep] if isinstance(y, pd.Series) else numbers[keep]
            labels = labels[keep]
    codes, names = pd.factorize(labels.astype(str))
    return y, codes, np.asarray(names)


def _describe_clustered(series: Series, codes: np.ndarray, names: np.ndarray, level: float,
                        tail: float) -> DescribeResult:
    """:func:`describe` of values grouped in clusters (see its ``clusters``): the same shape, and
    intervals from the clusters rather than from the values' autocorrelation."""
    shape = _shape(series, tail)
    # where the extremes lie: their cluster too (the steps of a pooled evaluation restart in
    # every example, so "step 0" alone names no rollout)
    where = shape["_values"]
    shape.update(minimum_cluster=str(names[codes[int(np.argmin(where))]]),
                 maximum_cluster=str(names[codes[int(np.argmax(where))]]))
    x, n, mean, sd = shape["_values"], shape["n"], shape["mean"], shape["sd"]
    groups = int(codes.max()) + 1
    nan = float("nan")
    notes = []
    ci, median_ci, ess, effect = (nan, nan), (nan, nan), nan, nan
    if np.ptp(x) == 0:
        ci = median_ci = (mean, mean)
        if n > 1:
            notes.append(_constant_note(n, level))
    elif groups < 2:
        notes.append("a single cluster: values that share a cluster say nothing about how far "
                     "another cluster would lie, so no interval is estimated")
    else:
        ratio = _cluster_ratio
        variance = float(jackknife_variance(ratio, cluster_totals(np.c_[np.ones(n), x], codes, groups))[0])
        effect = variance * n / (sd * sd)
        ess = n / effect if effect > 0 else float(n)
        half = float(stats.t.ppf(0.5 + level / 2, groups - 1)) * math.sqrt(variance)
        ci = within_range((mean - half, mean + half), float(x.min()), float(x.max()), ess, level)
        below = (x <= np.median(x)).astype(float)
        share = float(below.mean())
        indicator = float(jackknife_variance(ratio, cluster_totals(np.c_[np.ones(n), below], codes, groups))[0])
        median_ess = share * (1 - share) / indicator if indicator > 0 else float(n)
        median_ci = _order_interval(np.sort(x), median_ess, level)
        notes += [note for note in [median_range_note(n, level)] if note]
        if variance > 0:
            notes.append(_cluster_note(groups, n / groups, effect))
        else:
            # (the design effect is 0: every cluster's mean is the same, as in a model whose agents
            # share a fixed total - a Boltzmann economy's wealth - and the mean cannot vary)
            ess = nan
            notes.append(f"every one of the {groups} clusters has the same mean ({fmt(mean, 4)}): the mean does "
                         "not vary from cluster to cluster, so its interval is a point - so by design where the "
                         "clusters' total is fixed (a conserved quantity), by chance where there are few clusters")
    return DescribeResult(**shape, ci=ci, ci_iid=_iid_interval(shape, level), ci_level=level,
                          autocorr_time=nan, ess=ess, median_ci=median_ci, notes=notes,
                          clusters=groups, design_effect=effect)


def _cluster_ratio(sums: np.ndarray) -> np.ndarray:
    """The mean from (count, total) sums."""
    return (sums[..., 1] / sums[..., 0])[..., None]


def _cluster_note(groups: int, size: float, effect: float) -> str:
    """How much the clustering costs, and what would narrow the interval: with a share rho of
    the variance between clusters, Var(mean) ~ (rho + (1 - rho) / m) / G for G clusters of m."""
    text = (f"{groups} clusters of {fmt(size, 3)} value{'' if size == 1 else 's'} on average: the mean's variance is "
            f"{fmt(effect, 3)}x that of independent values (design effect; ESS {fmt(groups * size / effect, 3)})")
    if size > 1:
        rho = min(max((effect - 1) / (size - 1), 0.0), 1.0)
        per_value = 1 - math.sqrt((rho + (1 - rho) / (2 * size)) / (rho + (1 - rho) / size))
        text += (f"; {rho:.0%} of the variance lies between clusters: twice the values per cluster "
                 f"would narrow the interval by about {per_value:.0%}, twice the clusters by 29%")
    if groups < 10:
        text += (f"; with {groups} clusters the interval is rough (Student's t on {groups - 1} "
                 f"degree{'' if groups == 2 else 's'} of freedom)")
    return text


def _t_interval(mean: float, sd: float, ess: float, level: float, dof: float | None = None) -> tuple:
    """mean +- t(dof) sd / sqrt(ESS); dof ESS - 1 unless given."""
    if not (np.isfinite(ess) and ess > 1):
        return (float("nan"), float("nan"))
    half = stats.t.ppf(0.5 + level / 2, ess - 1 if dof is None else dof) * sd / math.sqrt(ess)
    return (float(mean - half), float(mean + half))


def _median_order_interval(x: np.ndarray, level: float) -> tuple:
    return _order_interval(np.sort(x), _median_ess(x), level)


def _order_interval(ordered: np.ndarray, ess: float, level: float) -> tuple:
    """The median's interval from the sorted values and the ESS of the indicator."""
    if not np.isfinite(ess):
        return median_binomial_interval(ordered, level)
    probs = stats.beta.ppf([(1 - level) / 2, (1 + level) / 2], ess / 2 + 1, ess / 2 + 1)
    # the order statistics at or beyond those positions, not an interpolation between two: with
    # 8-20 skewed values interpolating covered 87-92%, rounding outwards 91-97% (95% from 30)
    positions = probs * (len(ordered) - 1)
    return (float(ordered[int(np.floor(positions[0]))]), float(ordered[int(np.ceil(positions[1]))]))


def _median_ess(x: np.ndarray) -> float:
    """ESS of the indicator 1{x <= median}: split-chain (as posterior) up to 100,000 values;
    beyond, from ~20,000 block shares of it (the identity in :func:`integrated_time`), built
    block by block so that no n-long indicator is held (10^7 values took 5.4x their memory)."""
    n = len(x)
    if n < 5 * BLOCK_POINTS:
        return ess_quantile(x[None, :], 0.5)
    median = float(np.median(x))
    size = n // BLOCK_POINTS
    count = n // size
    start = n - count * size  # as block_means: a short remainder is dropped at the start
    shares = np.empty(count)
    per_chunk = max(1, _BLOCK // size)
    for first in range(0, count, per_chunk):
        last = min(first + per_chunk, count)
        part = x[start + first * size:start + last * size]
        shares[first:last] = (part <= median).reshape(last - first, size).mean(axis=1)
    share = float(np.count_nonzero(x <= median)) / n
    if share in (0.0, 1.0):
        return float("nan")
    tau = blocked_integrated_time(shares, size, share * (1 - share), n)
    return n / tau if np.isfinite(tau) else float("nan")


def _median_interval(x: np.ndarray, tau: float, level: float, n_boot: int,
                     rng: np.random.Generator) -> tuple:
    if n_boot == 0:
        return (float("nan"), float("nan"))
    # blocks of ~3 autocorrelation times: shorter blocks cut the dependence and
    # under-cover badly (measured: 83% at g = 1 block for AR(1) phi = 0.9, 90% at 3)
    block = max(1, round(BLOCK_TIMES * tau)) if np.isfinite(tau) else 1
    medians = np.empty(n_boot)
    start = 0
    for size in chunk_sizes(n_boot, len(x)):
        idx = block_bootstrap_indices(rng, len(x), block, size)
        medians[start:start + size] = np.median(x[idx], axis=1)
        start += size
    low, high = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return (float(low), float(high))

