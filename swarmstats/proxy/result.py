"""ProxyResult: the per-key noise table, the verdict and, with outcomes, calibration."""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._kernels.bootstrap import wilson_interval
from .._kernels.calibration import (
    auc,
    auc_interval,
    brier_score,
    calibration_error_interval,
    calibration_errors,
    log_loss,
    reliability_bins,
)
from .._kernels.cluster_variance import FEW_CLUSTERS
from .._kernels.key_kurtosis import HeavyTails, variance_dofs
from .._kernels.key_persistence import Persistence, mean_inflation, variance_correction
from .._kernels.shrinkage import fit_mean_prior, fit_noise_prior, wrong_side_probability
from .._result import Result, fmt, jsonable
from ..regimes.cusum import CusumDetector
from .tracker import _factorize

#: squared errors are averaged over blocks of this many outcomes before the drift check, so
#: the CUSUM sees near-normal values instead of a two-point distribution
DRIFT_BLOCK = 10
#: blocks needed before the drift check says anything (its reference uses the first 30)
DRIFT_MIN_BLOCKS = 60
#: a key's scores whose SD is below this (p lies in [0, 1]) differ by rounding only
ROUNDING_SD = 1e-12
#: outcomes needed (with both classes) for the logistic recalibration fit
RECALIBRATION_MIN = 20


@dataclass(frozen=True, repr=False)
class ProxyResult(Result):
    """Per-key noise of a proxy score and whether hard decisions on it can be trusted.

    ``table`` is indexed by key, worst first; ``verdict`` is "too_noisy" when
    any key is, "insufficient_data" when no key has two observations, else "ok".
    """

    verdict: str
    n_keys: int
    n_too_noisy: int
    threshold: float
    band: float
    max_wrong_side: float
    table: pd.DataFrame
    calibration: dict | None = None
    reliability: pd.DataFrame | None = None
    recalibration: dict | None = None
    temperature: float = math.nan
    notes: list = field(default_factory=list)
    #: the keys' pooled lag-1 autocorrelation (AR(1)): ``rho``, ``se``, ``used`` (rho less one
    #: standard error, at least 0: what the table applies) and ``keys`` (those with 3+ scores)
    persistence: dict | None = None
    #: the scores' pooled kurtosis within keys: ``kurtosis`` (3 for normal noise), ``se``,
    #: ``excess_used`` (less one standard error, less 3, at least 0: what the table applies) and
    #: ``keys`` (those with 4+ scores)
    heavy_tails: dict | None = None

    @property
    def too_noisy(self) -> bool:
        return self.verdict == "too_noisy"

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["table"] = jsonable(self.table.reset_index())
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per key (the key a column, worst first)."""
        return self.table.reset_index()

    def summary(self) -> str:
        lines = [self.headline()]
        shown = self.table.head(10)
        width = max([14] + [len(str(key)) for key in shown.index])  # long agent names keep the columns
        for key, row in shown.iterrows():
            flag = "TOO NOISY" if row["too_noisy"] else "ok"
            lines.append(f"  {str(key):<{width}} n {int(row['n']):<6} mean {fmt(row['mean'], 3):<6} "
                         f"sd {fmt(row['sd'], 3):<6} {flag:<9} {row['reason']}")
        if len(self.table) > 10:
            lines.append(f"  ... {len(self.table) - 10} more key(s)")
        return "\n".join(lines + self.detail_lines())

    def headline(self) -> str:
        """The first line of the summary: keys, how many are too noisy, at what threshold."""
        return (f"{self.n_keys} key(s); {self.n_too_noisy} too noisy for a hard decision at "
                f"p >= {fmt(self.threshold)} (tolerated wrong-side probability {fmt(self.max_wrong_side)})")

    def detail_lines(self) -> list:
        """Calibration, prediction error, recalibration and notes, each an indented line (the
        command line prints them under its own key table)."""
        lines = []
        if self.calibration:
            c = self.calibration
            lines.append(f"  calibration on {c['n_outcomes']} outcomes: Brier {fmt(c['brier'], 3)}, "
                         f"log loss {fmt(c['log_loss'], 3)}, ECE {fmt(c['ece'], 3)}, AUC {fmt(c['auc'], 3)} "
                         f"[{fmt(c['auc_low'], 3)}, {fmt(c['auc_high'], 3)}], E[p] - E[y] "
                         f"{fmt(c['calibration_error'], 3)} [{fmt(c['calibration_error_low'], 3)}, "
                         f"{fmt(c['calibration_error_high'], 3)}] (95%"
                         + (f", each of {c['clusters']} keys' outcomes a cluster)" if c["clusters"] else ")"))
            lines.append(f"  prediction error: variance {fmt(c['error_variance'], 3)}; {c['drift']['message']}")
        if self.recalibration:
            r = self.recalibration
            lines.append(f"  recalibration: k {fmt(r['k'], 3)} [{fmt(r['k_low'], 3)}, {fmt(r['k_high'], 3)}], "
                         f"intercept {fmt(r['intercept'], 3)} [{fmt(r['intercept_low'], 3)}, "
                         f"{fmt(r['intercept_high'], 3)}]; {r['message']}")
        return lines + [f"  note: {note}" for note in self.notes]

def build_result(tracker) -> ProxyResult:
    states = list(tracker._keys.values())
    threshold, alpha = tracker.threshold, tracker.max_wrong_side
    notes = []
    table = _key_table(states, tracker)
    # (read before the joins below, which do not keep a frame's attrs)
    persistence, noise_prior = table.attrs["persistence"], table.attrs["noise_prior"]
    tails = table.attrs["heavy_tails"]
    labelled = tracker.labelled()
    calibration = reliability = recalibration = None
    if labelled is not None:
        p, y, keys, v = labelled
        calibration, reliability = _calibration(p, y, _outcome_clusters(keys, notes))
        per_key = pd.DataFrame({"key": keys, "p": p, "y": y}).assign(
            sq=lambda f: (f.p - f.y) ** 2,
            ll=lambda f: -(f.y * np.log(np.clip(f.p, 1e-15, 1 - 1e-15))
                           + (1 - f.y) * np.log1p(-np.clip(f.p, 1e-15, 1 - 1e-15))))
        grouped = per_key.groupby("key", sort=False, dropna=False)
        extra = pd.DataFrame({"n_outcomes": grouped.size(), "brier": grouped["sq"].mean(),
                              "log_loss": grouped["ll"].mean()})
        table = table.join(extra, how="left")
        table["n_outcomes"] = table["n_outcomes"].fillna(0).astype(int)
        if np.isfinite(v).any():
            recalibration = _recalibration(v, y, tracker.temperature(), notes)
    order = np.argsort(-np.nan_to_num(np.maximum(table["wrong_side_probability"].to_numpy(float),
                                                 table["round_error_rate"].to_numpy(float)), nan=-1.0),
                       kind="stable")
    table = table.iloc[order]
    n_noisy = int(table["too_noisy"].sum())
    judged = int((table["n"] >= 2).sum())
    verdict = "too_noisy" if n_noisy else ("ok" if judged else "insufficient_data")
    if judged < len(table):
        notes.append(f"{len(table) - judged} key(s) with fewer than 2 observations are not judged")
    if persistence.used > 0:
        long_run = (1 - persistence.used) / (1 + persistence.used)
        shown = persistence.rho > 2 * persistence.se
        notes.append(f"scores within a key {'are' if shown else 'may be slightly'} persistent: lag-1 "
                     f"autocorrelation {fmt(persistence.rho, 2)} +- {fmt(persistence.se, 2)} (AR(1), "
                     f"pooled over {persistence.keys} key(s), each centred on its own mean); a key's "
                     f"mean is taken to count as n_effective independent scores (about {long_run:.0%} "
                     "of a long key's), and its wrong-side probability, se and observations_needed "
                     "say so")
    if tails.excess_used > 0:
        notes.append(f"scores within a key are heavy-tailed: kurtosis {fmt(tails.kurtosis, 3)} +- "
                     f"{fmt(tails.se, 2)} (3 for normal noise; pooled over {tails.keys} key(s) of 4+ "
                     "scores): a key's own spread says less about its noise - a few close scores "
                     "can come before a rare far one - so its variance is taken to count as fewer "
                     "degrees of freedom and a key with few scores leans on what the others show")
    if noise_prior is not None:
        notes.append(f"each key's noise and mean borrow strength from all {judged} judged keys "
                     "(empirical Bayes): a key with few scores is judged with what the others say "
                     "about how noisy and how spread keys are; sd is its own, sd_shrunk the one used")
    return ProxyResult(verdict=verdict, n_keys=len(table), n_too_noisy=n_noisy, threshold=threshold,
                       band=tracker.band, max_wrong_side=alpha, table=table, calibration=calibration,
                       reliability=reliability, recalibration=recalibration,
                       temperature=tracker.temperature(), notes=notes,
                       persistence=dataclasses.asdict(persistence), heavy_tails=dataclasses.asdict(tails))


def _key_table(states, tracker) -> pd.DataFrame:
    threshold, alpha = tracker.threshold, tracker.max_wrong_side
    n = np.array([s.n for s in states], dtype=float)
    mean = np.array([s.mean for s in states])
    m2 = np.array([s.m2 for s in states])
    # a key whose scores differ only in the last bits (a constant score summed in a batch) has
    # no lag-1 structure to read: its ratio of rounding errors is left out
    varies = m2 > n * ROUNDING_SD ** 2
    persistence = Persistence.of(np.array([s.lagged for s in states])[varies], m2[varies], n[varies])
    tails = HeavyTails.of(np.array([s.m4 for s in states])[varies], m2[varies], n[varies])
    rho = persistence.used
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.where(n > 1, np.sqrt(m2 / (n - 1)), np.nan)
        distance = np.abs(mean - threshold)
        # persistent scores: a key's mean counts as fewer independent scores, and its sample
        # variance misses the variance of that mean (1 and n - 1 when rho is 0)
        inflation = mean_inflation(rho, n)
        effective = n / inflation
        judged = n > 1
        dofs_all = np.maximum((n - 1) * (1 - rho * rho) / (1 + rho * rho), 1.0)
        # heavy tails: a short key's own variance is a poorer guide to its noise (a key of five
        # close scores whose agent scores 0 one time in ten looked precise: keys given 1-5%
        # were wrong 8.7% of the time)
        dofs_all = variance_dofs(dofs_all, tails.excess_used, n)
        variances_all = sd ** 2 * variance_correction(rho, n)
        # each key's noise borrows strength from all keys' (empirical Bayes): with 3-5 scores
        # a key's own SD is mostly luck, and alone it made the 1-5% bin wrong 6% of the time
        prior = fit_noise_prior(variances_all[judged], dofs_all[judged])
        sd_shrunk = np.full(len(n), np.nan)
        wrong = np.full(len(n), np.nan)
        if judged.any():
            variances = np.where(np.isfinite(variances_all[judged]), variances_all[judged], 0.0)
            dofs = dofs_all[judged]
            if prior is not None:
                sd_shrunk[judged] = np.sqrt(prior.posterior(variances, dofs) @ prior.grid)
            else:
                sd_shrunk[judged] = np.sqrt(variances_all[judged])
            # P(the true mean lies on the other side of the threshold than the sample mean),
            # with the keys' means and noise as the prior of each one
            level = (fit_mean_prior(mean[judged], sd_shrunk[judged] ** 2, effective[judged])
                     if prior is not None else None)
            wrong[judged] = wrong_side_probability(mean[judged], threshold, effective[judged],
                                                   variances, dofs, prior, level)
        se = sd_shrunk / np.sqrt(effective)
        share_above = np.array([s.above for s in states]) / n
        round_error = np.minimum(share_above, 1 - share_above)
        round_error = np.where(n > 1, round_error, np.nan)
        thrash = np.where(n > 1, np.array([s.flips for s in states]) / (n - 1), np.nan)
        expected = np.where(n > 1, 2 * share_above * (1 - share_above), np.nan)
        z = stats.norm.ppf(1 - alpha)
        # a long key's mean counts (1 - rho) / (1 + rho) of its scores
        needed_total = np.where(distance > 0, np.ceil((z * sd_shrunk / distance) ** 2
                                                      * (1 + rho) / (1 - rho)), np.inf)
        needed = np.maximum(needed_total - n, 0)
    too_noisy = (np.nan_to_num(wrong) > alpha) | (np.nan_to_num(round_error) > alpha)
    frame = pd.DataFrame({
        "n": n.astype(int), "n_effective": effective, "mean": mean, "sd": sd,
        "sd_shrunk": sd_shrunk, "se": se,
        "uncertain_fraction": np.array([s.uncertain for s in states]) / n,
        "share_above": share_above, "wrong_side_probability": wrong, "round_error_rate": round_error,
        "thrash_rate": thrash, "expected_thrash_rate": expected, "too_noisy": too_noisy,
        "observations_needed": [None if not np.isfinite(x) or n_ < 2 else int(x)
                                for x, n_ in zip(needed, n)],
    }, index=pd.Index([s.key for s in states], name="key", dtype=object))
    frame["reason"] = [_reason(row, alpha) for row in frame.to_dict("records")]
    frame.attrs["noise_prior"] = prior
    frame.attrs["persistence"] = persistence
    frame.attrs["heavy_tails"] = tails
    if tracker.halflife:
        frame["ewma_mean"] = [s.ew_mean for s in states]
        frame["ewma_sd"] = [math.sqrt(s.ew_var) for s in states]
    if tracker.window:
        frame["window_sd"] = [float(np.std(s.window, ddof=1)) if len(s.window) > 1 else math.nan
                              for s in states]
    if any(s.v_n for s in states):
        k = tracker.temperature()
        v_sd = np.array([math.sqrt(s.v_m2 / (s.v_n - 1)) if s.v_n > 1 else math.nan for s in states])
        frame["v_hat_sd"] = v_sd
        # delta method: Var p ~ (dp/dv_hat)^2 Var v_hat, with dp/dv_hat = k p (1 - p)
        frame["delta_sd"] = k * mean * (1 - mean) * v_sd
    return frame


def _reason(row: dict, alpha: float) -> str:
    n = row["n"]
    if n < 2:
        return "only one observation: noise cannot be judged yet"
    if row["sd"] == 0:
        return "every score identical: no measurable noise"
    if row["round_error_rate"] > alpha:
        return (f"a hard decision on one score is on the minority side {row['round_error_rate']:.0%} of "
                f"rounds (limit {alpha:.0%}); decisions flip in {row['thrash_rate']:.0%} of rounds "
                f"({row['expected_thrash_rate']:.0%} expected from noise alone)")
    if row["wrong_side_probability"] > alpha:
        needed = row["observations_needed"]
        more = f"; about {needed} more observations would settle it" if needed else ""
        return (f"the mean is on the wrong side of the threshold with probability "
                f"{row['wrong_side_probability']:.0%}{more}")
    return (f"clear of the threshold: one score is on the minority side {row['round_error_rate']:.0%} "
            f"of rounds, the mean's wrong-side probability is {row['wrong_side_probability']:.1%}")


def _outcome_clusters(keys: np.ndarray, notes: list) -> np.ndarray | None:
    """The keys of the labelled outcomes as cluster codes for the calibration's intervals, or
    None (one key, one outcome per key, or too few keys: then a note says what the intervals
    hold for).  An agent's outcomes share its own bias - p reading high for it, or its outcomes
    running above what p says - and 20 agents' 1,000 outcomes taken as independent held the
    population's E[p] - E[y] 73% and AUC 55% of the time (docs/proxy.md)."""
    codes, uniques = _factorize(keys)
    count = len(uniques)
    if count < 2 or count == len(codes):
        return None
    if count < FEW_CLUSTERS:
        notes.append(f"the outcomes come from {count} keys, fewer than the {FEW_CLUSTERS} it takes to "
                     f"allow for each key's own bias: the intervals of AUC and E[p] - E[y] take the "
                     f"outcomes as independent given p, so they hold for these keys, not for others "
                     f"like them")
        return None
    return codes


def _calibration(p: np.ndarray, y: np.ndarray, clusters: np.ndarray | None):
    ece, mce = calibration_errors(p, y)
    low, high, count, mean_p, share = reliability_bins(p, y)
    share_low, share_high = wilson_interval(np.round(share * count), count, 0.95)
    reliability = pd.DataFrame({"bin_low": low, "bin_high": high, "count": count.astype(int),
                                "mean_p": mean_p, "share_positive": share,
                                "share_low": share_low, "share_high": share_high})
    error = y - p
    # intervals of the two figures a decision rests on, "does p rank outcomes" and "is p too
    # high or too low overall" (95%, as the reliability bins'): 40 outcomes of a 10% event read
    # E[p] - E[y] = 0.05 and AUC 0.8 with room for either to be nothing
    # with keys enough, for the keys' population: a key's own bias is shared by its outcomes
    auc_low, auc_high = auc_interval(p, y, 0.95, clusters)
    error_low, error_high = calibration_error_interval(p, y, 0.95, clusters)
    calibration = {
        "n_outcomes": int(len(y)), "brier": brier_score(p, y), "log_loss": log_loss(p, y),
        "ece": ece, "mce": mce, "auc": auc(p, y), "calibration_error": float(p.mean() - y.mean()),
        "auc_low": auc_low, "auc_high": auc_high,
        "calibration_error_low": error_low, "calibration_error_high": error_high,
        "clusters": 0 if clusters is None else int(clusters.max()) + 1,
        "error_variance": float(error.var(ddof=1)) if len(y) > 1 else math.nan,
        "drift": _error_drift(error),
    }
    return calibration, reliability


def _error_drift(error: np.ndarray) -> dict:
    """Is the size of the prediction error changing?  A CUSUM (ARL-calibrated) on block
    means of the squared error, replayed in arrival order."""
    blocks = len(error) // DRIFT_BLOCK
    if blocks < DRIFT_MIN_BLOCKS:
        return {"checked": False, "alarm": False, "first_alarm_outcome": None,
                "message": f"drift not checked (needs {DRIFT_MIN_BLOCKS * DRIFT_BLOCK} outcomes)"}
    squared = (error[: blocks * DRIFT_BLOCK] ** 2).reshape(blocks, DRIFT_BLOCK).mean(axis=1)
    detector = CusumDetector(warmup=30, alpha=0.05, horizon=blocks)
    detector.update_many(squared)
    if not detector.alarms:
        return {"checked": True, "alarm": False, "first_alarm_outcome": None,
                "message": "no drift in the squared prediction error (CUSUM, 5% false-alarm rate)"}
    alarm, start = detector.alarms[0]
    return {"checked": True, "alarm": True, "first_alarm_outcome": int((alarm + 1) * DRIFT_BLOCK),
            "change_outcome": int(max(start, 0) * DRIFT_BLOCK),
            "message": f"the squared prediction error drifted (CUSUM alarm after outcome "
                       f"{(alarm + 1) * DRIFT_BLOCK}, change from about outcome {max(start, 0) * DRIFT_BLOCK})"}


def _recalibration(v: np.ndarray, y: np.ndarray, k_in_use: float, notes: list) -> dict | None:
    """Logistic regression of outcomes on v_hat: the k (and intercept) the data ask for."""
    import statsmodels.api as sm

    usable = np.isfinite(v)
    v, y = v[usable], y[usable]
    if len(y) < RECALIBRATION_MIN or y.min() == y.max():
        notes.append(f"recalibration needs at least {RECALIBRATION_MIN} outcomes with v_hat and both "
                     "outcomes present")
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = sm.Logit(y, sm.add_constant(v, has_constant="add")).fit(disp=0)
        (intercept, slope), bounds = fit.params, fit.conf_int(0.05)
    except Exception as exc:  # perfect separation and the like: say so, do not crash
        notes.append(f"the recalibration fit failed ({type(exc).__name__}: {exc})")
        return None
    if not np.all(np.isfinite(bounds)):
        notes.append("the recalibration fit did not converge (outcomes separated by v_hat?)")
        return None
    k_low, k_high = float(bounds[1][0]), float(bounds[1][1])
    if not math.isfinite(k_in_use):
        message = "no k in use to compare"
    elif k_low <= k_in_use <= k_high:
        message = f"the k in use ({fmt(k_in_use, 3)}) is consistent with the outcomes"
    else:
        message = (f"the k in use ({fmt(k_in_use, 3)}) is outside the interval: p is "
                   f"{'over' if k_in_use > k_high else 'under'}confident")
    return {"k": float(slope), "k_low": k_low, "k_high": k_high, "intercept": float(intercept),
            "intercept_low": float(bounds[0][0]), "intercept_high": float(bounds[0][1]),
            "k_in_use": k_in_use, "n": int(len(y)), "message": message}
