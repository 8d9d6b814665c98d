"""Offline regime detection: penalised segmentation, then practical-size merging."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._base import Estimator
from .._input.series import as_series
from .._kernels.precision import within_range
from .._result import Result, fmt, plain_number
from ..errors import InputError, check_choice
from .bends import change_kinds, curve_note
from .costs import COSTS, KernelCost, LevelOrTrendCost, MeanCost, SegmentCost
from .local_noise import LocalNoise, merge_within_local_noise
from .noise import noise_scale
from .pelt import pelt
from .residuals import WANDER_Z, memory_around, wander_changes
from .seeded import place_changes, seeded_search
from .spikes import defuse_spikes, edge_note, merge_spike_carried, spike_note
from .spread import COLUMNS as SPREAD_COLUMNS
from .spread import ratio_text, spread_changes, spread_text
from .whitened import (
    CHANGE_CONSTANT,
    SLOPE_CONSTANT,
    fit_whitened,
    place_bends,
    start_note,
)

__all__ = ["detect_regimes", "RegimeDetector", "RegimeResult", "MODELS", "PENALTIES", "METHODS"]

MODELS = ("trend", *COSTS, "kernel")
PENALTIES = ("bic", "mbic")
METHODS = ("auto", "pelt", "seeded", "binseg", "bottomup", "window")
#: "auto" runs exact PELT up to this many points and the seeded search above: PELT is
#: quadratic on a plateau, the seeded search O(n log n), 5-17x faster already at 200-1,000
#: points, and it found PELT's segmentation on every test series (tests/test_regimes_seeded.py)
AUTO_EXACT_UP_TO = 100
#: the same for ``model="kernel"``: ruptures' exact KernelCPD (all pairs, ~0.3 s at 2,000
#: points and quadratic on a plateau) up to here; above, the seeded search on the kernel's
#: 25-feature form (:class:`.costs.KernelCost`, within 3e-8 of the kernel)
KERNEL_EXACT_UP_TO = 2_000
# The rbf kernel (bandwidth one noise SD) cost on robustly standardised data:
# c = 1 in g log n gave no spurious change on white noise (n = 200 and 1000)
# and F1 0.995 on 2-SD shifts; c = 0.5 gave 0.1 spurious changes, c = 2 F1 0.96.
_KERNEL_CONSTANT = 1.0
# The BIC constant per change: the parameters a change adds (its location and
# a mean; a mean and a variance; an intercept and a slope) plus one.  The extra
# one is what keeps short end segments of pure noise out: with 2 log n on a
# mean, 24% of white-noise series of 200 points got a spurious change, with
# 3 log n 2% (and F1 on 2-SD shifts went from 0.98 to 0.998).
_PARAMETERS = {"mean": 3, "meanvar": 4, "linear": 4}
#: a change whose own selection-adjusted p-value is above this is said, in the summary, not to
#: be significant on its own: the penalty placed it, its test does not confirm it (a real Go2
#: reward's bend read "5.84 noise SDs; z = 0.431, p = 1" and nothing more)
CONFIRMED_P = 0.05


@dataclass(frozen=True, repr=False)
class RegimeResult(Result):
    """Regimes found in one series.  ``changepoints`` are first indices of new segments."""

    changepoints: list
    changepoint_steps: list | None
    segments: pd.DataFrame
    strengths: pd.DataFrame
    n: int
    model: str
    penalty: float
    penalty_rule: str
    min_size: int
    min_effect: float
    noise_sd: float
    autocorr_time: float
    merged: int
    notes: list
    name: str | None = None
    persistence: float | None = None  # the AR(1) phi of the "trend" model's noise
    period: int | None = None  # a seasonal cycle removed before segmenting
    step_unit: str = "steps"  # what a step of the series' axis is, for "per 100 timesteps"
    #: the changes (first indices of new regimes) no larger than the wander of the noise
    #: around the regimes, whose spectrum reads long memory (:func:`.residuals.wander_changes`)
    wander_changes: list = field(default_factory=list)
    #: where the noise's spread changes (:func:`.spread.spread_changes`): one row per change,
    #: ``at_change`` when it falls on one of ``changepoints``; empty for ``meanvar`` and
    #: ``kernel``, whose regimes are already changes of spread
    spread_changes: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SPREAD_COLUMNS))
    _values: np.ndarray = field(default=None, repr=False)
    _steps: np.ndarray = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per segment."""
        return self.segments

    @property
    def n_regimes(self) -> int:
        return len(self.changepoints) + 1

    def summary(self) -> str:
        label = f"{self.name}: " if self.name else ""
        spread = self.spread_changes.to_dict("records")
        on_change = {row["changepoint"]: row for row in spread if row["at_change"]}
        if not self.changepoints:
            found = "no change of level found" if self.model == "mean" else "no change of level or trend found"
            head = f"{label}one regime, {found if spread else 'no change found'} ({self.model} model)"
        else:
            where = ", ".join(str(s) for s in (self.changepoint_steps or self.changepoints))
            head = f"{label}{self.n_regimes} regimes, changes at {where} ({self.model} model)"
            if self.wander_changes:
                some = "" if len(self.wander_changes) == len(self.changepoints) else "some "
                head += f" - {some}possibly the wander of long-memory noise (see the note)"
            unconfirmed = int((self.strengths["pvalue_adjusted"] > CONFIRMED_P).sum()) if len(self.strengths) else 0
            if unconfirmed:
                # said up front: a staircase of changes each short of its own test reads as
                # events in the head line otherwise (pymarl's smoothed QMIX return: 6 of 7)
                head += (f"; {unconfirmed} of the {len(self.changepoints)} not significant on "
                         f"{'their' if unconfirmed > 1 else 'its'} own")
        if spread:
            where = ", ".join(f"{row['step']} ({ratio_text(row)})" for row in spread)
            head += f"; the noise's spread changes at {where}"
        lines = [head]
        slopes = [100 * (row["slope"] if row.get("sloped") else 0.0) for row in self.segments.to_dict("records")]
        for i, row in enumerate(self.strengths.to_dict("records")):
            test = (f"z = {fmt(row['z'], 3)}, p = {fmt(row['pvalue_adjusted'], 2)} adjusted for choosing "
                    "where to split")
            if row["pvalue_adjusted"] > CONFIRMED_P:  # (9% of the changes found on the real logs)
                test += f": not significant at {CONFIRMED_P:g} on its own - the penalised search placed it"
            also = (f"; and {spread_text(on_change[row['changepoint']])}"
                    if row["changepoint"] in on_change else "")
            if row.get("kind") == "bend":  # the lines meet: what changes is the pace
                lines.append(f"  change at {row['step']}: a bend, the slope {fmt(slopes[i], 3)} -> "
                             f"{fmt(slopes[i + 1], 3)} per 100 {self.step_unit} ({fmt(abs(row['effect_size']), 3)} "
                             f"noise SDs; {test}){also}")
            else:
                kind = "a jump: " if row.get("kind") == "jump" else ""
                lines.append(f"  change at {row['step']}: {kind}{fmt(row['effect_size'], 3)} noise SDs ({test})"
                             f"{also}")
        for row in spread:
            if not row["at_change"]:
                lines.append(f"  change of spread at {row['step']}: {spread_text(row)}, within a regime")
        for row in self.segments.to_dict("records"):
            if row.get("sloped"):
                # per 100 steps of the axis, as the convergence verdict states a slope
                lines.append(f"  regime {row['start_step']}-{row['end_step']}: a trend of "
                             f"{fmt(100 * row['slope'], 3)} per 100 {self.step_unit} "
                             f"[{fmt(100 * row['slope_ci_low'], 3)}, {fmt(100 * row['slope_ci_high'], 3)}], "
                             f"mean {fmt(row['mean'])}")
        noise = f"  noise SD {fmt(self.noise_sd)}, autocorrelation time {fmt(self.autocorr_time, 3)}"
        if self.persistence is not None:
            noise += f" (AR(1) persistence {fmt(self.persistence, 2)})"
        lines.append(noise + f", penalty {fmt(self.penalty)} ({self.penalty_rule}), min_size {self.min_size}, "
                     f"min_effect {self.min_effect}" + (f", {self.merged} merged" if self.merged else ""))
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

class RegimeDetector(Estimator):
    """Penalised changepoint detection (exact PELT) with practical-size merging.

    Parameters (keyword-only)
    -------------------------
    model : {"trend", "mean", "meanvar", "linear", "kernel"}
        ``"trend"`` (default): each regime a level or a straight line, in
        AR(1) noise whose persistence is chosen by profile likelihood, with a
        seasonal cycle removed and heavy tails winsorised (see
        :mod:`.whitened`) - a steady climb is one regime, not a staircase.
        ``"mean"``: piecewise-constant mean; ``"meanvar"``: mean and variance;
        ``"linear"``: discontinuous linear trend, all three on a running-median
        noise scale.
    penalty : "bic", "mbic" or float
        ``"bic"``: c log n in the cost's units with the noise's long-run variance
        (c = 3 for a mean, 4 otherwise: the parameters a change adds, plus one); ``"mbic"``: Zhang & Siegmund's
        3 log n plus log(l/n) per segment; a float is used as is, in the
        units of the cost (for ``"mean"`` the residual sum of squares, exactly
        as ruptures' ``l2``).
    min_size : int, default 5
        Shortest segment.
    min_effect : float, default 0.5 for ``"trend"``, 1.0 for the others
        Adjacent segments that differ by less than this many noise SDs are
        merged: a dip of a few steps inside a noisy climb is not a regime
        change.  The difference is the model's: means; for ``linear`` also the
        slope difference over the shorter segment; for ``meanvar`` and
        ``kernel`` also the SDs.  For ``trend``, ``mean`` and ``linear`` a
        change must then also pay its penalty against the noise of the regimes
        either side, where that is larger than the series' (a stretch that
        scatters ten times more is not cut into "regimes"; see
        :mod:`.local_noise`).  ``0`` turns both merges off.
    method : {"auto", "pelt", "seeded", "binseg", "bottomup", "window"}
        The search.  ``"pelt"`` is exact (our own; for ``model="kernel"``,
        ruptures' C-accelerated ``KernelCPD``); ``"seeded"`` minimises the
        same penalised cost over changes proposed by seeded binary
        segmentation, in O(n log n) (see :mod:`.seeded`); ``"auto"``
        (default) is PELT up to 100 points and seeded above (for
        ``model="kernel"``: up to 2,000 points); the others are
        ruptures' approximate searches run on the same costs and penalty.

    ``model="kernel"`` detects changes in the whole distribution (an rbf
    kernel of bandwidth one noise SD on robustly standardised data); its
    penalty is g log n, or a number in the kernel cost's units.  Its
    ``"auto"`` search is ruptures' exact ``KernelCPD`` up to 2,000 points and
    above that the seeded search on the kernel's Fourier-feature form
    (:class:`.costs.KernelCost`), which keeps 10^6 points to seconds.

    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.zeros(200), np.full(200, 2.0)] + rng.normal(size=400)
    >>> RegimeDetector().fit(y).changepoints
    [200]
    """

    def __init__(self, *, model: str = "trend", penalty="bic", min_size: int = 5,
                 min_effect: float | None = None, method: str = "auto", nan_policy: str = "raise"):
        self.model = model
        self.method = method
        self.penalty = penalty
        self.min_size = min_size
        self.min_effect = min_effect
        self.nan_policy = nan_policy
        self._validate()

    def _validate(self):
        check_choice("model", self.model, MODELS)
        if isinstance(self.penalty, str):
            if self.penalty not in PENALTIES:
                raise InputError(f"penalty must be one of {PENALTIES} or a number, got {self.penalty!r}")
        elif not (isinstance(self.penalty, (int, float)) and math.isfinite(self.penalty) and self.penalty >= 0):
            raise InputError(f"penalty must be a non-negative number, 'bic' or 'mbic', got {self.penalty!r}")
        if int(self.min_size) < 1:
            raise InputError(f"min_size must be a positive integer, got {self.min_size!r}")
        if self.min_effect is not None and not (math.isfinite(self.min_effect) and self.min_effect >= 0):
            raise InputError(f"min_effect must be >= 0, got {self.min_effect!r}")
        check_choice("method", self.method, METHODS)
        if self.model == "kernel" and self.penalty == "mbic":
            raise InputError("penalty='mbic' is defined for the likelihood costs; "
                             "use 'bic' or a number with model='kernel'")
        if self.model == "trend" and self.penalty != "bic":
            raise InputError("model='trend' chooses its own penalty (BIC on the whitened series); "
                             "for penalty='mbic' or a number use model='mean' or 'linear'")
        if self.model == "kernel" and self.method not in ("auto", "pelt", "seeded"):
            raise InputError("model='kernel' runs ruptures' KernelCPD (method='pelt') or the seeded "
                             "search on the kernel's feature form (method='seeded'); "
                             f"method={self.method!r} is not offered for it")

    def fit(self, y, *, name: str | None = None) -> RegimeResult:
        self._validate()
        series = as_series(y, nan_policy=self.nan_policy, min_length=1, name=name)
        return dataclasses.replace(self._fit(series), step_unit=series.step_unit)

    def _fit(self, series) -> RegimeResult:
        values = series.values
        n = len(values)
        steps = series.steps if series.steps is not None else np.arange(n, dtype=np.float64)
        min_size = max(int(self.min_size), COSTS[self.model].min_size if self.model in COSTS else 1)
        sd, tau, noise_free = self._noise(values)
        notes = []
        if n < 2 * min_size:
            notes.append(f"the series has {n} points, fewer than 2 x min_size = {2 * min_size}: "
                         "no change can be placed")
            return self._result(values, steps, [], sd, tau, 0.0, "n/a", min_size, 0, notes, series.name)
        if np.ptp(values) == 0:
            notes.append("the series is constant: one regime")
            return self._result(values, steps, [], 0.0, 1.0, 0.0, "n/a", min_size, 0, notes, series.name)
        if noise_free:
            notes.append("no measurable noise: changes are exact")

        if self.model == "trend":
            return self._fit_trend(values, steps, min_size, notes, series.name)
        if self.model == "kernel":
            changepoints, penalty, rule = self._kernel(values, sd, tau, min_size)
        else:
            cost, penalty, rule = self._cost_and_penalty(values, sd, tau)
            changepoints = self._search(cost, values, penalty, min_size)
        kept, merged = merge_small_effects(values, changepoints, self._min_effect() * sd, self.model)
        if self.model in ("mean", "linear"):  # one noise variance for the whole series: re-judge locally
            kept, noisy = self._merge_within_local_noise(kept, LocalNoise(values, cost, sd * sd * tau, inflation=tau),
                                                         penalty, notes)
            merged += noisy
        # meanvar's and kernel's regimes are already changes of spread
        spread_values = values if self.model in ("mean", "linear") else None
        return self._result(values, steps, kept, sd, tau, penalty, rule, min_size, merged, notes,
                            series.name, spread_values=spread_values)

    @staticmethod
    def _noise(values):
        """(sd, g, noise_free) of the series' noise (see :func:`.noise.noise_scale`)."""
        scale = noise_scale(values) if len(values) >= 8 else None
        sd = scale.sd if scale else float(np.std(values))
        tau = scale.autocorr_time if scale else 1.0
        spread = float(np.ptp(values))
        if spread > 0 and sd <= 1e-9 * spread:
            # noise-free steps: any change is infinitely many noise SDs; keep the
            # penalty positive so that no needless split is added
            return 1e-9 * spread, tau, True
        return sd, tau, False

    def _min_effect(self) -> float:
        """The merging threshold in noise SDs: 0.5 for ``"trend"`` (its changes are already
        judged against persistence and the series' spread; 1 SD merged half of all 1-SD
        shifts), 1 for the fixed-scale models."""
        if self.min_effect is not None:
            return float(self.min_effect)
        return 0.5 if self.model == "trend" else 1.0

    def _merge_within_local_noise(self, changepoints, local, penalty, notes):
        """The changes that still pay the penalty against their regimes' own noise (see
        :mod:`.local_noise`), and how many did not; ``min_effect=0`` keeps every change."""
        if self._min_effect() <= 0:
            return changepoints, 0
        kept, noisy = merge_within_local_noise(changepoints, local, penalty)
        if noisy:
            notes.append(f"{noisy} change{'s' if noisy > 1 else ''} merged for not standing out from the scatter "
                         "of the regimes either side (the series is noisier there than overall)")
        return kept, noisy

    def _fit_trend(self, values, steps, min_size, notes, name):
        # fitted in units of the series' spread: squared costs of 1e-300-sized data would
        # underflow to zero (and of 1e+200-sized data overflow); the answers are scale-free
        unit = float(np.ptp(values)) or 1.0  # not the SD: squaring 1e-300 underflows
        fit = fit_whitened(values / unit, min_size=min_size, search=self._search)
        n = len(values)
        if fit.marginal_sd <= 0:
            notes.append("no measurable noise: one regime")
            return self._result(values, steps, [], 0.0, 1.0, 0.0, "n/a", min_size, 0, notes, name)
        if fit.period and fit.marginal_sd <= 1e-9:
            # a series that is its cycle to rounding (a 19 every 50th step of a 21) has nothing
            # left but rounding once the cycle is out: its "changes" read 1e15 noise SDs
            notes.append(f"the series repeats a cycle of period {fit.period} exactly, with no noise "
                         "around it: one regime")
            return self._result(values, steps, [], 0.0, 1.0, 0.0, "n/a", min_size, 0, notes, name)
        phi = min(fit.phi, 0.99)
        tau = (1 + phi) / (1 - phi)
        sd = fit.marginal_sd * unit
        long_run = sd * sd * tau
        if fit.period:
            notes.append(f"a seasonal cycle of period {fit.period} was removed before looking for changes")
        if fit.phi >= 0.98:
            notes.append(f"the series wanders like a random walk (AR(1) persistence {fmt(fit.phi, 2)}): only "
                         "jumps large against that wander are reported; a slow drift is not a regime change here")
        elif n / tau < 30:
            notes.append(f"too short to tell small changes from persistence: about {fmt(n / tau, 2)} independent "
                         f"points (persistence {fmt(fit.phi, 2)}); only changes of more than "
                         f"{fmt(sd * math.sqrt(4 * CHANGE_CONSTANT * math.log(n) * tau / n), 2)} (in the series' units) "
                         "can be told apart")
        # the whitened search finds the changes; their places are set on y itself (in the fit's
        # units), where a jump is located to a few points (the whitened series blurs it over
        # the sloped fits)
        scaled_long_run = fit.marginal_sd**2 * tau
        adjusted = fit.adjusted
        level_or_trend = LevelOrTrendCost(adjusted, SLOPE_CONSTANT * scaled_long_run * math.log(n))
        placed = place_changes(level_or_trend, fit.changepoints, min_size)
        kept, merged = merge_small_effects(adjusted, placed, self._min_effect() * fit.marginal_sd, "linear")
        kept = place_bends(adjusted, kept, min_size, scaled_long_run * math.log(n))
        # the search saw lone far values clipped; placed on the series itself, changes can close
        # round one of them (a "regime" of min_size points): they are judged without them
        defused, spikes, spike_sizes = defuse_spikes(adjusted, min_size)
        without = LevelOrTrendCost(defused, level_or_trend.slope_penalty) if len(spikes) else level_or_trend
        local = LocalNoise(adjusted, without, scaled_long_run, persistence=phi)
        kept, noisy = self._merge_within_local_noise(kept, local, CHANGE_CONSTANT * scaled_long_run * math.log(n),
                                                     notes)
        merged += noisy
        if len(spikes):
            kept, spiky = merge_spike_carried(kept, level_or_trend, without, CHANGE_CONSTANT * scaled_long_run * math.log(n))
            if spiky:  # the changes left were placed beside the merged ones: place them again
                kept = place_changes(without, kept, min_size)
            merged += spiky
            named = spike_note(spikes, spike_sizes, steps, values, spiky)
            if named is not None:
                notes.append(named)
            notes += edge_note(spikes, spike_sizes, steps, values, sd, min_size)
        first_end = kept[0] if kept else n
        far = start_note(values, first_end, sd, fit.phi, sloped=level_or_trend.sloped(0, first_end))
        if far is not None:
            notes.append(far)
        penalty = CHANGE_CONSTANT * long_run * math.log(n)
        return self._result(values, steps, kept, sd, tau, penalty, f"bic, AR(1) phi = {fmt(fit.phi, 2)}",
                            min_size, merged, notes, name, persistence=fit.phi, period=fit.period,
                            spread_values=adjusted * unit)  # a seasonal cycle is not a spread

    def _cost_and_penalty(self, values, sd, tau, penalty=None):
        """The segment cost and the penalty in its units (``penalty`` overrides the detector's)."""
        n = len(values)
        penalty = self.penalty if penalty is None else penalty
        base = COSTS[self.model](values)
        if not isinstance(penalty, str):
            return base, float(penalty), "given"
        # Units of one "log-likelihood point": RSS costs scale with the long-run
        # variance; the mean-and-variance cost is already a log-likelihood, and
        # autocorrelation inflates it by g.
        unit = sd * sd * tau if self.model in ("mean", "linear") else tau
        if penalty == "bic":
            return base, _PARAMETERS[self.model] * unit * math.log(n), "bic"
        return _MbicCost(base, unit), 3.0 * unit * math.log(n), "mbic"

    def _search(self, cost, values, penalty, min_size):
        method = self.method
        if method == "auto":
            method = "pelt" if cost.n <= AUTO_EXACT_UP_TO else "seeded"
        if method == "pelt":
            return pelt(cost, penalty, min_size)[0]
        if method == "seeded":
            return seeded_search(cost, penalty, min_size)
        import ruptures as rpt

        searches = {"binseg": rpt.Binseg, "bottomup": rpt.BottomUp, "window": rpt.Window}
        search = searches[method](custom_cost=_RupturesCost(cost, min_size), min_size=min_size, jump=1)
        return [int(c) for c in search.fit(values).predict(pen=penalty)[:-1]]

    def _kernel(self, values, sd, tau, min_size):
        standardised = (values - np.median(values)) / sd
        if isinstance(self.penalty, str):
            penalty, rule = _KERNEL_CONSTANT * tau * math.log(len(values)), "bic"
        else:
            penalty, rule = float(self.penalty), "given"
        exact = self.method == "pelt" or (self.method == "auto" and len(values) <= KERNEL_EXACT_UP_TO)
        if not exact:
            return seeded_search(KernelCost(standardised), penalty, min_size), penalty, rule
        import ruptures as rpt

        search = rpt.KernelCPD(kernel="rbf", min_size=min_size, params={"gamma": 0.5})
        return [int(c) for c in search.fit(standardised).predict(pen=penalty)[:-1]], penalty, rule

    def _result(self, values, steps, changepoints, sd, tau, penalty, rule, min_size, merged, notes, name,
                persistence=None, period=None, spread_values=None):
        # the tables are computed in units of the series' range and scaled back: a long-run
        # variance of 1e-300-sized data underflows to zero, and its intervals with it
        unit = float(np.ptp(values)) or 1.0
        scaled, scaled_sd = values / unit, sd / unit
        long_run = scaled_sd * scaled_sd * tau
        trend = self.model == "trend"
        slope_penalty = SLOPE_CONSTANT * long_run * math.log(max(len(values), 2))
        trend_cost = LevelOrTrendCost(scaled, slope_penalty) if trend else None
        segments = segment_table(scaled, steps, changepoints, long_run,
                                 sloped_by=trend_cost if long_run > 0 else None, autocorr_time=tau)
        if trend:
            local = LocalNoise(scaled, trend_cost, long_run, persistence=persistence or 0.0)
        else:
            local = LocalNoise(scaled, MeanCost(scaled), long_run, inflation=tau)
        strengths = change_strengths(segments, changepoints, steps, scaled_sd, long_run, tau, trend_cost=trend_cost,
                                     local=local)
        # a change of the trend model is a bend where the lines either side meet, else a jump;
        # between two regimes the table calls level there is no pace to change: a jump (a real
        # Go2 reward read "a bend, the slope 0 -> 0")
        if trend and long_run > 0:
            kinds = change_kinds(scaled, list(changepoints), long_run * math.log(len(values)))
            sloped = segments["sloped"].to_numpy(dtype=bool)
            strengths["kind"] = ["jump" if kind == "bend" and not (sloped[i] or sloped[i + 1]) else kind
                                 for i, kind in enumerate(kinds)]
        else:
            strengths["kind"] = None
        if trend and len(changepoints):
            slopes = np.where(segments["sloped"], segments["slope"], 0.0)
            smooth = curve_note(list(slopes), list(strengths["kind"]))
            if smooth is not None:
                notes = [*notes, smooth]
        # in the range's units, as the tables (a periodogram of 1e-300-sized data underflows);
        # a seasonal cycle was removed before the search but is in the values: not noise
        memory = memory_around(scaled, segments) if len(changepoints) and not period else None
        points = list(changepoints)
        wander = [points[i] for i in wander_changes(segments, memory)] if memory else []
        # each regime whose start is a change within that wander (the first regime has none)
        segments["after_wander"] = segments["start"].isin(wander)
        in_units = ["mean", "sd", "slope", "ci_low", "ci_high", "slope_ci_low", "slope_ci_high"]
        segments[in_units] = segments[in_units] * unit
        strengths["difference"] = strengths["difference"] * unit
        has_steps = not np.array_equal(steps, np.arange(len(values), dtype=np.float64))
        if wander:
            where = [plain_number(steps[c]) for c in wander]
            notes = [*notes, f"the noise around these regimes has long memory (a fractionally integrated "
                             f"model, d = {memory.d:.2f}, fits it better than any short-memory one: BIC lower "
                             f"by {memory.evidence:.1f}), and such noise wanders in stretches that look like "
                             f"regimes: the change{'s' if len(wander) > 1 else ''} at "
                             f"{', '.join(map(str, where))} {'are' if len(wander) > 1 else 'is'} within that "
                             f"wander (less than {WANDER_Z:g} standard deviations of a difference of regime "
                             "means under that model), so may be no regime change"]
        return RegimeResult(
            changepoints=list(changepoints),
            changepoint_steps=[plain_number(steps[c]) for c in changepoints] if has_steps else None,
            segments=segments, strengths=strengths, n=len(values), model=self.model,
            penalty=float(penalty), penalty_rule=rule, min_size=min_size,
            min_effect=float(self._min_effect()), noise_sd=float(sd), autocorr_time=float(tau),
            merged=int(merged), notes=notes, name=name, persistence=persistence, period=period,
            wander_changes=wander, _values=values, _steps=steps,
            spread_changes=(spread_changes(spread_values, steps, list(changepoints), min_size)
                            if spread_values is not None else pd.DataFrame(columns=SPREAD_COLUMNS)))


class _MbicCost(SegmentCost):
    """C(s, t) + unit * log(l / n): MBIC's per-segment term folded into the cost."""

    def __init__(self, base: SegmentCost, unit: float):
        self.base, self.unit, self.n = base, unit, base.n
        self.min_size = base.min_size

    def cost(self, starts, end):
        return self.base.cost(starts, end) + self.unit * np.log((end - starts) / self.n)


class _RupturesCost:
    """One of our segment costs behind ruptures' cost interface (fit / error)."""

    model = "swarmstats"

    def __init__(self, cost: SegmentCost, min_size: int):
        self._cost, self.min_size = cost, min_size

    def fit(self, signal):
        return self

    def error(self, start, end):
        return float(self._cost.cost(np.array([start]), end)[0])


def detect_regimes(y, **kwargs) -> RegimeResult:
    """``RegimeDetector(**kwargs).fit(y)`` (``name=`` goes to ``fit``)."""
    name = kwargs.pop("name", None)
    return RegimeDetector(**kwargs).fit(y, name=name)


def merge_small_effects(values, changepoints, threshold, model="mean"):
    """Remove, one at a time, the change with the smallest effect between adjacent
    segments, while that effect is below ``threshold`` (in the units of y).

    The effect is what the model can change: the difference of means; for
    ``linear`` also the slope difference sustained over the shorter segment;
    for ``meanvar`` and ``kernel`` also the difference of SDs.  A pure change
    of variance or of slope is therefore not merged away for having equal means.

    Each segment is held as its moments and two merged segments' moments are
    combined exactly (Chan et al.'s pairwise update), so a merge costs O(k) for
    k changes instead of a pass over the series: 1,400 changes at 10^6 points
    took 10 s when every merge recomputed every segment.

    >>> y = np.r_[np.zeros(50), np.full(50, 0.2), np.full(50, 3.0)]
    >>> merge_small_effects(y, [50, 100], 1.0)
    ([100], 1)
    """
    points = list(changepoints)
    if not points or threshold <= 0:
        return points, 0
    moments = _SegmentMoments(np.asarray(values, dtype=np.float64), points, model)
    effects = np.array([moments.effect(i) for i in range(len(points))])
    merged = 0
    while points:
        smallest = int(np.argmin(effects))
        if effects[smallest] >= threshold:
            break
        del points[smallest]
        moments.merge(smallest)
        effects = np.delete(effects, smallest)
        # only the merged segment's two borders changed
        for border in (smallest - 1, smallest):
            if 0 <= border < len(points):
                effects[border] = moments.effect(border)
        merged += 1
    return points, merged


class _SegmentMoments:
    """Count, means and centred second moments (of y, of t, and their co-moment) of each
    segment between changes, with the exact combination of two neighbours."""

    def __init__(self, values, changepoints, model):
        self.model = model
        bounds = np.array([0, *changepoints, len(values)])
        lengths = np.diff(bounds).astype(np.float64)
        t = np.arange(len(values), dtype=np.float64)
        starts = bounds[:-1]
        self.n = list(lengths)
        self.mean_y = list(np.add.reduceat(values, starts) / lengths)
        self.mean_t = list((bounds[:-1] + bounds[1:] - 1) / 2.0)
        deviation_y = values - np.repeat(self.mean_y, lengths.astype(np.int64))
        deviation_t = t - np.repeat(self.mean_t, lengths.astype(np.int64))
        self.m2_y = list(np.add.reduceat(deviation_y * deviation_y, starts))
        self.m2_t = list(np.add.reduceat(deviation_t * deviation_t, starts))
        self.c_ty = list(np.add.reduceat(deviation_t * deviation_y, starts))

    def merge(self, i):
        """Segments i and i + 1 become one (the change between them is gone)."""
        na, nb = self.n[i], self.n[i + 1]
        total = na + nb
        dy = self.mean_y[i + 1] - self.mean_y[i]
        dt = self.mean_t[i + 1] - self.mean_t[i]
        weight = na * nb / total
        self.m2_y[i] += self.m2_y[i + 1] + dy * dy * weight
        self.m2_t[i] += self.m2_t[i + 1] + dt * dt * weight
        self.c_ty[i] += self.c_ty[i + 1] + dt * dy * weight
        self.mean_y[i] += dy * nb / total
        self.mean_t[i] += dt * nb / total
        self.n[i] = total
        for column in (self.n, self.mean_y, self.mean_t, self.m2_y, self.m2_t, self.c_ty):
            del column[i + 1]

    def effect(self, i):
        """The effect of the change between segments i and i + 1 (see merge_small_effects)."""
        left, right = i, i + 1
        effect = abs(self.mean_y[right] - self.mean_y[left])
        nl, nr = self.n[left], self.n[right]
        if self.model == "linear" and nl > 2 and nr > 2:
            slope = lambda j: self.c_ty[j] / self.m2_t[j]  # noqa: E731
            effect = max(effect, abs(slope(right) - slope(left)) * min(nl, nr))
        elif self.model in ("meanvar", "kernel") and nl > 1 and nr > 1:
            sd = lambda j: math.sqrt(max(self.m2_y[j], 0.0) / (self.n[j] - 1))  # noqa: E731
            effect = max(effect, abs(sd(right) - sd(left)))
        return effect


def segment_table(values, steps, changepoints, long_run_variance, sloped_by=None,
                  autocorr_time: float = 1.0) -> pd.DataFrame:
    """One row per regime: its span, mean with a 95% interval, SD, and least-squares slope
    (per unit of ``steps``) with its interval.  ``sloped_by`` (a :class:`LevelOrTrendCost`)
    marks the regimes the ``"trend"`` model fits with a line.

    The intervals use ``long_run_variance``, or a regime's own scatter (around its line when
    it is sloped) times the series' ``autocorr_time`` where that is larger, then on a t law
    with the regime's degrees of freedom: regimes differ in noise as well as level (a policy
    that sometimes succeeds scatters far more than one that always fails), and one
    series-wide noise scale gave a noisy regime's mean an interval covering a third of the
    time.  Never narrower than the series-wide interval: a short regime's own scatter is too
    uncertain to narrow it.  Cut to the range of the regime's values (a mean cannot lie
    beyond them; the series' range for a constant regime) when it holds 9 or more effective
    values (:func:`within_range`: with fewer the cut costs coverage).
    """
    rows = []
    bounds = [0, *changepoints, len(values)]
    for start, end in zip(bounds[:-1], bounds[1:]):
        part = values[start:end]
        length = end - start
        constant = bool(part.max() == part.min())  # a score held at its cap: no rounding shown
        mean = float(part[0]) if constant else float(part.mean())
        sd = (0.0 if constant else float(part.std(ddof=1))) if length > 1 else float("nan")
        sloped = bool(sloped_by.sloped(start, end)) if sloped_by is not None and length >= 3 else False
        slope, slope_half, spread = float("nan"), float("nan"), 0.0
        residuals = part - mean
        if length > 2:
            t = steps[start:end]
            spread = float(np.sum((t - t.mean()) ** 2))
            # no slope along steps that never move within the regime (a step column of one value)
            slope = 0.0 if constant else (float(np.polyfit(t, part, 1)[0]) if spread > 0 else math.nan)
            if sloped:
                residuals = residuals - slope * (t - t.mean())
        fitted = 2 if sloped else 1
        variance, quantile = long_run_variance, 1.959964
        if length > fitted + 1:
            own = float(residuals @ residuals) / (length - fitted) * max(autocorr_time, 1.0)
            if own > long_run_variance:
                variance, quantile = own, float(stats.t.ppf(0.975, length - fitted))
        if length > 2 and spread > 0:
            slope_half = quantile * math.sqrt(variance / spread)
        half = quantile * math.sqrt(variance / length) if variance > 0 else 0.0
        # a regime's mean cannot lie beyond every value it produced: a score held at its cap
        # (CartPole's 500, Pong's 21) gets no upper end above the cap.  A constant regime
        # shows no range of its own: the series' range bounds it (500 at the top stays the top)
        spread_of = values if constant else part
        low, high = within_range((mean - half, mean + half), float(spread_of.min()), float(spread_of.max()),
                                 length / max(autocorr_time, 1.0))
        low, high = min(low, mean), max(high, mean)  # the mean's own rounding stays inside
        row = {"start": start, "end": end, "n": length, "start_step": plain_number(steps[start]),
               "end_step": plain_number(steps[end - 1]), "mean": mean, "sd": sd, "slope": slope,
               "ci_low": low, "ci_high": high,
               "slope_ci_low": slope - slope_half, "slope_ci_high": slope + slope_half}
        if sloped_by is not None:
            row["sloped"] = sloped
        rows.append(row)
    return pd.DataFrame(rows)


def change_strengths(segments, changepoints, steps, sd, long_run_variance, autocorr_time=1.0,
                     trend_cost=None, local=None) -> pd.DataFrame:
    """Effect size of each change in noise SDs and a z statistic, with the
    long-run variance, or the two regimes' own where ``local`` (a
    :class:`.local_noise.LocalNoise`) finds it larger: a jump inside a stretch
    that scatters twenty times more than the rest is judged by that scatter.

    For levels z is the difference of the two means over its standard error;
    for the ``"trend"`` model (``trend_cost``) it is the root of the cost the
    split saves, over the long-run variance (for two levels the same number).
    ``pvalue`` treats the split point as given; ``pvalue_adjusted`` accounts for
    it having been chosen as the best of the positions between the neighbouring
    changes (Bonferroni over their number / g, the effectively independent
    ones): conservative, but a number that can be read as a test.
    """
    rows = []
    table = segments.to_dict("records")
    for point, left, right in zip(changepoints, table[:-1], table[1:]):
        difference = right["mean"] - left["mean"]
        effect = difference
        variance = long_run_variance
        if local is not None and long_run_variance > 0:
            variance = local.variance(left["start"], point, right["end"])
        if trend_cost is not None and long_run_variance > 0:
            # the cost the split saves between the neighbouring changes
            saved = (trend_cost.cost(np.array([left["start"]]), right["end"])[0]
                     - trend_cost.cost(np.array([left["start"]]), point)[0]
                     - trend_cost.cost(np.array([point]), right["end"])[0])
            z = math.copysign(math.sqrt(max(saved, 0.0) / variance), difference or 1.0)
            effect = _boundary_effect(left, right, difference)
        else:
            se = math.sqrt(variance * (1 / left["n"] + 1 / right["n"])) if variance > 0 else 0
            z = difference / se if se > 0 else float("inf")
        pvalue = float(2 * stats.norm.sf(abs(z)))
        positions = max((left["n"] + right["n"]) / max(autocorr_time, 1.0), 1.0)
        rows.append({"changepoint": point, "step": plain_number(steps[point]), "difference": difference,
                     "effect_size": effect / sd if sd > 0 else float("inf"), "z": z,
                     "pvalue": pvalue, "pvalue_adjusted": min(1.0, pvalue * positions)})
    return pd.DataFrame(rows, columns=["changepoint", "step", "difference", "effect_size", "z", "pvalue",
                                       "pvalue_adjusted"])


def _boundary_effect(left, right, difference):
    """What a sloped regime change amounts to: the larger of the jump between
    the two fits at the boundary and the slope change over the shorter regime
    (signed like the difference of means)."""
    if not (left.get("sloped") or right.get("sloped")):
        return difference

    def at(row, where):
        slope = row["slope"] if row.get("sloped") and np.isfinite(row["slope"]) else 0.0
        centre = (row["start_step"] + row["end_step"]) / 2
        return row["mean"] + slope * (where - centre)
    boundary = (left["end_step"] + right["start_step"]) / 2
    jump = at(right, boundary) - at(left, boundary)
    slopes = [row["slope"] if row.get("sloped") and np.isfinite(row["slope"]) else 0.0 for row in (left, right)]
    bend = (slopes[1] - slopes[0]) * min(left["end_step"] - left["start_step"], right["end_step"] - right["start_step"])
    size = max(abs(jump), abs(bend))
    return math.copysign(size, difference or jump or bend or 1.0)
