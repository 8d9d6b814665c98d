"""Soft and hard quality-gap metrics of one batch of interactions, with intervals.

Every metric is a function of thirteen column sums over the batch (counts, sums
of p, of p squared, of payoffs ... split by the accept flag and the hard label).
The observed value uses the sums of the batch; the bootstrap recomputes the
same function on the sums of each resample, which are one matrix product of
multinomial counts with the columns.  So the point estimate and its interval
can never disagree about a definition.

Definitions follow SWARM's code (swarm-metrics.md sections 4-6).  Where SWARM
reports 0.0 for an undefined quantity (an empty accepted or rejected set) we
report NaN ("undefined is not zero"); ``swarm_compatible=True`` restores
SWARM's zeros.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._input.interactions import interaction_arrays
from .._input.random_state import resolve_rng
from .._kernels import bootstrap
from .._kernels.autocorr import integrated_time
from .._kernels.bootstrap import (
    bootstrap_sums,
    cluster_bootstrap_t,
    column_moments,
    jackknife_t_pvalues,
    normal_limit_draws,
    percentile_interval,
    two_way_cluster_interval,
    wilson_interval,
)
from .._kernels.cluster_variance import FEW_CLUSTERS
from .._kernels.permutation import lower_tail_pvalue, permuted_gaps
from .._result import Result, fmt, fmt_interval
from ..errors import InputError, check_level
from .payoff import PayoffConfig
from .side_means import MIN_SIDE, ROUGH_SIDE, side_intervals

#: the columns whose sums every metric is computed from
_COLUMNS = ("n", "accepted", "p", "accepted_p", "p_squared", "high", "accepted_high",
            "uncertain", "pi_a", "accepted_pi_a", "pi_b", "accepted_pi_b", "accepted_social")

SOFT_METRICS = (
    "toxicity", "quality_gap", "accepted_quality", "rejected_quality", "average_quality",
    "toxicity_all", "spread", "conditional_loss_initiator", "conditional_loss_counterparty",
    "uncertain_fraction", "quality_std", "quality_correlation", "selection_saturation",
    "baseline_harm", "selection_credit", "total_welfare", "net_social_welfare",
    "avg_payoff_initiator", "avg_payoff_counterparty",
)
HARD_METRICS = (
    "hard_toxicity", "hard_quality_gap", "hard_spread", "hard_conditional_loss_initiator",
    "hard_conditional_loss_counterparty", "hard_quality_correlation", "hard_total_welfare",
    "hard_net_social_welfare", "acceptance_rate", "high_quality_acceptance",
    "low_quality_acceptance",
)
#: the range each bounded figure can take: a clustered t interval is clipped to it
_UNIT = (0.0, 1.0)
_SIGNED = (-1.0, 1.0)
BOUNDS = {**{name: _UNIT for name in (
    "toxicity", "accepted_quality", "rejected_quality", "average_quality", "toxicity_all",
    "uncertain_fraction", "selection_saturation", "baseline_harm", "hard_toxicity",
    "acceptance_rate", "high_quality_acceptance", "low_quality_acceptance")},
    "quality_std": (0.0, 0.5),
    **{name: _SIGNED for name in ("quality_gap", "quality_correlation", "hard_quality_gap",
                                  "hard_quality_correlation")}}

#: SWARM's soft-versus-hard rules (compare_soft_hard)
TOXICITY_AGREEMENT = 0.05
UNRELIABLE_UNCERTAIN_FRACTION = 0.3
#: SWARM's plots shade saturation above this as "proxy-bound"
SATURATION_DANGER = 0.85


@dataclass(frozen=True)
class Estimate:
    """A figure with its confidence interval (NaN where undefined)."""

    value: float
    ci_low: float
    ci_high: float

    def __str__(self) -> str:
        return fmt_interval(self.value, self.ci_low, self.ci_high)


@dataclass(frozen=True, repr=False)
class QualityResult(Result):
    """Soft and hard selection metrics of one batch (see :func:`quality_metrics`).

    ``soft`` and ``hard`` map metric names to :class:`Estimate`; ``comparison``
    holds SWARM's soft-versus-hard verdicts and the adverse-selection test.
    """

    n: int
    n_accepted: int
    n_rejected: int
    threshold: float
    band: float
    ci_level: float
    n_boot: int
    swarm_compatible: bool
    soft: dict
    hard: dict
    comparison: dict
    notes: list = field(default_factory=list)
    #: interactions per contiguous block the intervals resampled (``blocks``); 0 when the
    #: interactions were taken as independent or clustered by agent
    block_length: int = 0
    _p: np.ndarray | None = None
    _accepted: np.ndarray | None = None

    @property
    def toxicity(self) -> float:
        return self.soft["toxicity"].value

    @property
    def quality_gap(self) -> float:
        return self.soft["quality_gap"].value

    @property
    def hard_toxicity(self) -> float:
        return self.hard["hard_toxicity"].value

    @property
    def adverse_selection(self) -> bool:
        """True when the gap is significantly below zero (the permutation test)."""
        return bool(self.comparison["adverse_selection_significant"])

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: family (soft/hard), metric, value, ci_low, ci_high."""
        rows = [{"family": family, "metric": name, "value": e.value, "ci_low": e.ci_low,
                 "ci_high": e.ci_high}
                for family, table in (("soft", self.soft), ("hard", self.hard))
                for name, e in table.items()]
        return pd.DataFrame(rows)

    def to_row(self) -> dict:
        """A flat record: each metric with ``<name>_low`` / ``<name>_high`` beside it."""
        row = {"n": self.n, "n_accepted": self.n_accepted, "n_rejected": self.n_rejected}
        for table in (self.soft, self.hard):
            for name, e in table.items():
                row.update({name: e.value, f"{name}_low": e.ci_low, f"{name}_high": e.ci_high})
        row["adverse_selection_pvalue"] = self.comparison["adverse_selection_pvalue"]
        return row

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        s, h, c = self.soft, self.hard, self.comparison
        lines = [
            f"{self.n} interactions, {self.n_accepted} accepted ({fmt(h['acceptance_rate'].value, 3)}), "
            f"{self.n_rejected} rejected; {level} intervals",
            f"  quality gap   {s['quality_gap']}   (hard {h['hard_quality_gap']})",
            f"  toxicity      {s['toxicity']}   (hard {h['hard_toxicity']})",
            f"  spread        {s['spread']}",
            f"  saturation    {s['selection_saturation']}",
            f"  uncertain     {s['uncertain_fraction']}",
            f"  welfare       {s['total_welfare']}",
            f"  adverse selection: {c['adverse_selection_verdict']}",
            f"  soft vs hard toxicity: {c['toxicity_verdict']}",
        ]
        if c["labels_unreliable"]:
            lines.append("  labels may be unreliable: more than 30% of p lie inside the uncertain band")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

#: the metrics that are sums over the accepted interactions, not averages
TOTALS = ("total_welfare", "net_social_welfare", "hard_total_welfare", "hard_net_social_welfare")

#: rows per block when the columns are summed block by block
BLOCK_ROWS = 1 << 16


def _row_blocks(n: int):
    return (slice(start, start + BLOCK_ROWS) for start in range(0, n, BLOCK_ROWS))


def _rows_of(extras: dict, rows: slice) -> dict:
    return {name: values[rows] if np.ndim(values) else values for name, values in extras.items()}


def _columns(p, accepted, threshold, band, payoff: PayoffConfig, extras) -> np.ndarray:
    a = accepted.astype(float)
    high = (p >= threshold).astype(float)
    # "uncertain" is about the label, not the decision: p near a coin flip (SWARM centres it
    # on 0.5 whatever the threshold)
    uncertain = ((p > 0.5 - band) & (p < 0.5 + band)).astype(float)
    pi_a, pi_b = payoff.payoffs(p, **extras)
    social = payoff.surplus(p) - payoff.harm(p)
    ones = np.ones_like(p)
    return np.column_stack([ones, a, p, a * p, p * p, high, a * high, uncertain,
                            ones * pi_a, a * pi_a, ones * pi_b, a * pi_b, a * social])


def _metrics_from_sums(sums: np.ndarray, payoff: PayoffConfig, swarm_compatible: bool) -> dict:
    """Every metric, vectorised over rows of ``sums`` (one row per batch or resample)."""
    (n, acc, p, acc_p, p2, high, acc_high, unc, pi_a, acc_pi_a, pi_b, acc_pi_b,
     acc_social) = sums.T
    rej = n - acc
    with np.errstate(all="ignore"):
        has_acc, has_rej, has_high, has_low = acc > 0, rej > 0, high > 0, n - high > 0
        alpha = acc / n
        beta = 1 - alpha
        mean_p = p / n
        mean_acc = np.where(has_acc, acc_p / acc, np.nan)
        mean_rej = np.where(has_rej, (p - acc_p) / rej, np.nan)
        gap = mean_acc - mean_rej
        variance = np.maximum(p2 / n - mean_p ** 2, 0.0)
        sd = np.sqrt(variance)
        corr = np.where((sd > 0) & has_acc & has_rej, gap * np.sqrt(alpha * beta) / sd, np.nan)
        # the identity T = (1 - E[p]) - beta Q needs beta Q = 0 when nothing was rejected
        credit = np.where(has_rej, beta * gap, 0.0)
        hard_acc = np.where(has_acc, acc_high / acc, np.nan)
        hard_rej = np.where(has_rej, (high - acc_high) / rej, np.nan)
        hard_gap = hard_acc - hard_rej
        share_high = high / n
        hard_sd = np.sqrt(share_high * (1 - share_high))
        lift = (hard_acc - share_high) - (mean_acc - mean_p)  # change of E[x|A] - E[x] from p to 1{p>=t}
        loss_a = np.where(has_acc, acc_pi_a / acc - pi_a / n, np.nan)
        loss_b = np.where(has_acc, acc_pi_b / acc - pi_b / n, np.nan)
        values = {
            "toxicity": 1 - mean_acc,
            "quality_gap": gap,
            "accepted_quality": mean_acc,
            "rejected_quality": mean_rej,
            "average_quality": mean_p,
            "toxicity_all": 1 - mean_p,
            "spread": payoff.surplus_range * (mean_p - mean_acc),
            "conditional_loss_initiator": loss_a,
            "conditional_loss_counterparty": loss_b,
            "uncertain_fraction": unc / n,
            "quality_std": sd,
            "quality_correlation": corr,
            "selection_saturation": np.abs(corr),
            "baseline_harm": 1 - mean_p,
            "selection_credit": credit,
            "total_welfare": acc_pi_a + acc_pi_b,
            "net_social_welfare": acc_social,
            "avg_payoff_initiator": np.where(has_acc, acc_pi_a / acc, np.nan),
            "avg_payoff_counterparty": np.where(has_acc, acc_pi_b / acc, np.nan),
            "hard_toxicity": 1 - hard_acc,
            "hard_quality_gap": hard_gap,
            "hard_spread": payoff.surplus_range * (share_high - hard_acc),
            "hard_conditional_loss_initiator": loss_a + payoff.slope_initiator * lift,
            "hard_conditional_loss_counterparty": loss_b + payoff.slope_counterparty * lift,
            "hard_quality_correlation": np.where((hard_sd > 0) & has_acc & has_rej,
                                                 hard_gap * np.sqrt(alpha * beta) / hard_sd, np.nan),
            "hard_total_welfare": acc_pi_a + acc_pi_b
            + (payoff.slope_initiator + payoff.slope_counterparty) * (acc_high - acc_p),
            "hard_net_social_welfare": acc_social
            + (payoff.surplus_range + payoff.h) * (acc_high - acc_p),
            "acceptance_rate": alpha,
            "high_quality_acceptance": np.where(has_high, acc_high / high, np.nan),
            "low_quality_acceptance": np.where(has_low, (acc - acc_high) / (n - high), np.nan),
        }
    if swarm_compatible:
        # SWARM: every undefined conditional figure is reported as 0.0 (D4, D5)
        values = {name: np.nan_to_num(v, nan=0.0) for name, v in values.items()}
        values["quality_gap"] = np.where(has_acc & has_rej, gap, 0.0)
    return values


def _proportion_counts(sums: np.ndarray) -> dict:
    """(successes, trials) of the metrics that are plain proportions: Wilson intervals."""
    n, acc, _, _, _, high, acc_high, unc = sums[:8]
    return {
        "uncertain_fraction": (unc, n),
        "acceptance_rate": (acc, n),
        "high_quality_acceptance": (acc_high, high),
        "low_quality_acceptance": (acc - acc_high, n - high),
        "hard_toxicity": (acc - acc_high, acc),
    }


def quality_metrics(
    p,
    accepted,
    *,
    threshold: float = 0.5,
    band: float = 0.2,
    payoff: PayoffConfig | None = None,
    ci: float = 0.95,
    n_boot: int = 2000,
    alpha: float = 0.05,
    swarm_compatible: bool = False,
    random_state=0,
    nan_policy: str = "raise",
    clusters=None,
    blocks="auto",
    tau=None,
    c_a=None,
    c_b=None,
    r_a=None,
    r_b=None,
) -> QualityResult:
    """Soft and hard quality-gap metrics of a batch of interactions, each with an interval.

    Parameters
    ----------
    p : array-like
        Soft labels P(beneficial) in [0, 1].
    accepted : array-like
        The governance decision per interaction (booleans, 0/1 or true/false
        strings).  Acceptance is taken as given, never derived from p.
    threshold, band : float
        The hard label is 1{p >= threshold}; "uncertain" is
        0.5 - band < p < 0.5 + band (strict, centred on 0.5 whatever the
        threshold, as in SWARM).
    payoff : PayoffConfig
        Payoff parameters for the welfare and conditional-loss figures.
    ci : float
        Confidence level.  Proportions (acceptance rates, hard toxicity,
        uncertain fraction) get Wilson score intervals, the means of one side
        (accepted and rejected quality, toxicity) a score interval given each
        side's size (a quasi-binomial mean's), the gap and the hard gap the two
        sides' intervals combined as Newcombe's, soft - hard toxicity a score
        interval over the accepted; every other figure a percentile bootstrap
        over interactions with ``n_boot`` resamples.
    alpha : float
        Level of the one-sided permutation test of "the gap is below zero"
        (adverse selection), with ``n_boot`` shuffles.
    swarm_compatible : bool
        Report SWARM's 0.0 for figures that are undefined on an empty accepted
        or rejected set, instead of NaN (JSON ``null``).
    random_state : None, int or numpy Generator
        Seeds the bootstrap and the permutation test.
    clusters : array-like, or a tuple of two, optional
        Who produced each interaction, when interactions of one agent are not independent
        (each agent has its own typical quality).  One label per interaction (e.g. the
        initiator's id): a studentized bootstrap over whole agents.  A tuple ``(initiators,
        counterparties)``: both ways at once (Cameron-Gelbach-Miller's two-way variance, by
        the jackknife, with a t interval).  Every interval, the proportions' too, then comes
        from these, and the adverse-selection p-value is their one-sided test.  Without it
        the intervals treat interactions as independent: with 20 agents whose qualities
        differ by 1 SD on the logit scale they covered the population gap 66% of the time.
    blocks : "auto", int or None
        Interactions in time order whose p drifts with a shared environment are not
        independent either.  "auto" (default, without ``clusters``): when p or the accept
        flags are persistent in the order given (Geyer's integrated autocorrelation time
        above 1 + 10 / sqrt(n), about its 95th percentile for independent interactions), the
        intervals and the adverse-selection test resample contiguous blocks of five
        autocorrelation times (at least five blocks) as clusters: a block bootstrap.  An
        int: blocks of that many interactions.  None: independent interactions.  Rows not
        in time order (sorted by p, say) read as persistent: pass None for them.
    tau, c_a, c_b, r_a, r_b : array-like, optional
        Per-interaction transfer, governance costs and reputation terms of the
        payoffs (0 when omitted).

    Examples
    --------
    SWARM's worked batch (swarm-metrics.md section 8):

    >>> report = quality_metrics([0.9, 0.8, 0.3, 0.6, 0.2], [1, 1, 0, 1, 0], random_state=0)
    >>> round(report.quality_gap, 6), round(report.toxicity, 6), report.hard_toxicity
    (0.516667, 0.233333, 0.0)
    >>> round(report.soft["selection_saturation"].value, 6)
    0.927961
    """
    threshold, band = float(threshold), float(band)
    if not 0 < threshold < 1:
        raise InputError(f"threshold must lie strictly between 0 and 1, got {threshold}")
    if not 0 <= band <= 0.5:
        raise InputError(f"band must lie in [0, 0.5], got {band}")
    level = check_level(ci)
    check_level(alpha, "alpha")
    n_boot = int(n_boot)
    if n_boot < 0:
        raise InputError(f"n_boot must be >= 0 (0 skips the bootstrap and the test), got {n_boot}")
    payoff = PayoffConfig() if payoff is None else payoff
    if not isinstance(payoff, PayoffConfig):
        raise InputError(f"payoff must be a PayoffConfig, got {type(payoff).__name__}")
    rng = resolve_rng(random_state)
    if clusters is not None and blocks not in ("auto", None):
        raise InputError("blocks and clusters are alternatives: resample contiguous blocks or "
                         "agents, not both")
    p, flags, extras, labels = interaction_arrays(
        p, accepted, nan_policy=nan_policy,
        extras={"tau": tau, "c_a": c_a, "c_b": c_b, "r_a": r_a, "r_b": r_b},
        labels=_cluster_labels(clusters))
    block_length, block_note = 0, None
    if not labels:
        block_length, block_note = _time_blocks(p, flags, blocks, n_boot)
        if block_length:
            labels = {"cluster": np.arange(len(p)) // block_length}

    one_way = bool(labels) and len(labels) == 1
    whole_matrix = ((bool(labels) and not one_way)
                    or (not labels and n_boot > 0 and bootstrap.exact_replicates(n_boot, len(p)) > 0))
    columns = None
    if whole_matrix:  # resampling rows (or two-way cells) needs every row's columns
        columns = _columns(p, flags, threshold, band, payoff, extras)
        observed_sums = columns.sum(axis=0)
    elif one_way:
        # resampling whole clusters (agents, time blocks) needs only each cluster's sums:
        # block by block, as below
        columns, observed_sums = _cluster_sums(p, flags, threshold, band, payoff, extras,
                                               labels["cluster"])
    else:
        # only sums and cross-products are needed: block by block, so 10^7 interactions never
        # build their 13-column matrix (1 GB)
        blocks = (_columns(p[rows], flags[rows], threshold, band, payoff, _rows_of(extras, rows))
                  for rows in _row_blocks(len(p)))
        _, observed_sums, centred_gram = column_moments(blocks)
    observed = _metrics_from_sums(observed_sums[None, :], payoff, swarm_compatible)
    names = SOFT_METRICS + HARD_METRICS
    clustered = None
    if n_boot > 0 and labels:
        low, high, difference_ci, cluster_pvalue = _clustered_intervals(
            columns, labels, observed, names, n_boot, rng, level, payoff, swarm_compatible, len(p))
        clustered = (difference_ci, cluster_pvalue)
    elif n_boot > 0:
        sums = (bootstrap_sums(columns, n_boot, rng) if whole_matrix
                else normal_limit_draws(observed_sums, centred_gram, n_boot, rng))
        replicates = _metrics_from_sums(sums, payoff, swarm_compatible)
        low, high = percentile_interval(np.column_stack([replicates[k] for k in names]), level)
    else:
        low = high = np.full(len(names), np.nan)
    intervals = {name: (low[i], high[i]) for i, name in enumerate(names)}
    toxicity_difference_ci = None
    if not labels:
        # independent interactions: the proportions get Wilson intervals (exact enough at any n)
        for name, (successes, trials) in _proportion_counts(observed_sums).items():
            intervals[name] = tuple(float(x) for x in wilson_interval(successes, trials, level))
        # and the means of one side (the gap, toxicity, soft - hard toxicity) score intervals
        # given each side's size: the percentile bootstrap is about the range of a few values
        # (3-9 rejected: 78-92% covered)
        intervals.update(side_intervals(p, flags, threshold, level))
        toxicity_difference_ci = intervals.pop("toxicity_difference")
    estimates = {name: Estimate(float(observed[name][0]), float(intervals[name][0]),
                                float(intervals[name][1])) for name in names}
    # an undefined value has no interval, whatever the resamples did
    estimates = {name: e if np.isfinite(e.value) else Estimate(e.value, np.nan, np.nan)
                 for name, e in estimates.items()}

    n_accepted = int(flags.sum())
    one_sided = n_accepted in (0, len(p))
    if clustered is not None:
        # shuffling accept flags across agents would ignore the clustering just as the
        # independent bootstrap does: the test is the clustered interval's own dual
        pvalue = np.nan if one_sided else clustered[1]
    else:
        null = permuted_gaps(p, flags, n_boot, rng) if n_boot > 0 else np.array([])
        pvalue = lower_tail_pvalue(np.nan if one_sided else float(observed["quality_gap"][0]), null)
    test = ("permutation" if clustered is None else "block jackknife t" if block_length
            else _cluster_test_name(labels))
    comparison = _comparison(estimates, pvalue, alpha,
                             toxicity_difference_ci if clustered is None else clustered[0], test)
    notes = _notes(len(p), n_accepted, swarm_compatible, estimates)
    if block_note:
        notes.append(block_note)
    elif labels:
        notes.append(_cluster_note(labels))
    gap = estimates["quality_gap"]
    fewer = min(n_accepted, len(p) - n_accepted)
    if not labels and np.isfinite(gap.value) and fewer < MIN_SIDE:
        side = _side(n_accepted, len(p))
        notes.append(f"the quality gap has no interval, nor the {side} interactions' mean quality"
                     + (" and toxicity" if side == "accepted" else "")
                     + f": {fewer} {side} interaction(s), where an interval needs at least {MIN_SIDE}")
    elif not labels and np.isfinite(gap.value) and fewer < ROUGH_SIDE:
        notes.append(f"only {fewer} {_side(n_accepted, len(p))} interactions: the intervals of the gap and of that "
                     "side's mean quality are rough (with 3 or 4 the gap's covered 92-97% where it reads 95%, "
                     "that side's mean 89-95%: less when p piles up near 0 and 1)")
    elif n_boot > 0 and np.isfinite(gap.value) and not np.isfinite(gap.ci_low):
        notes.append("the quality gap has no interval: more than 10% of the resamples had no "
                     "accepted or no rejected interaction (too few on one side, or all of them from a "
                     "few agents)")
    if not labels and n_boot * len(p) > bootstrap.EXACT_LIMIT:
        exact = bootstrap.exact_replicates(n_boot, len(p))
        notes.append(f"{len(p)} interactions: {n_boot - exact} of the {n_boot} bootstrap sums and shuffled "
                     "gaps are drawn from their normal limits, the rest by exact resampling (exact "
                     "resampling of all would cost n x n_boot draws)")
    return QualityResult(
        n=len(p), n_accepted=n_accepted, n_rejected=len(p) - n_accepted, threshold=threshold,
        band=band, ci_level=level, n_boot=n_boot, swarm_compatible=bool(swarm_compatible),
        soft={k: estimates[k] for k in SOFT_METRICS}, hard={k: estimates[k] for k in HARD_METRICS},
        comparison=comparison, notes=notes, block_length=block_length, _p=p, _accepted=flags)


def _side(n_accepted: int, n: int) -> str:
    """The smaller side of the decision, in words."""
    return "accepted" if n_accepted <= n - n_accepted else "rejected"


#: "persistent in the order given": an integrated autocorrelation time above
#: 1 + PERSISTENCE_MARGIN / sqrt(n) (about the 95th percentile of Geyer's estimate, the larger
#: of p's and the accept flags', for independent interactions: 1.96 at n = 50, 1.39 at 600)
#: and above PERSISTENCE_FLOOR (a time of 1.2 narrows an interval by 9%; on long inputs the
#: estimate's own scatter, from ~20,000 block means, reaches 1.07)
PERSISTENCE_MARGIN = 10.0
PERSISTENCE_FLOOR = 1.2
#: blocks span this many integrated autocorrelation times, and there are at least FEWEST_BLOCKS
#: and at most MOST_BLOCKS (the studentized bootstrap's jackknife costs reps x blocks
#: evaluations: 0.3 s for 200 blocks, 1.5 s for 1,000, minutes for 10^5)
BLOCK_TAUS = 5.0
FEWEST_BLOCKS = 5
MOST_BLOCKS = 500


def _time_blocks(p: np.ndarray, flags: np.ndarray, blocks, n_boot: int) -> tuple[int, str | None]:
    """(interactions per block, the note saying so), or (0, None) for independent interactions.

    Interactions whose p drifts with a shared environment (a market, a governance regime) are
    persistent in time order, and intervals that resample them one by one are too narrow: for
    p following an AR(0.9) environment the independent bootstrap covered the mean quality 40%
    and the toxicity 60% of the time (600 and 3,000 interactions); blocks of five
    autocorrelation times, 90-94%."""
    n = len(p)
    if blocks is None or n_boot == 0 or n < 2 * FEWEST_BLOCKS:
        return 0, None
    if blocks != "auto":
        if isinstance(blocks, bool) or not isinstance(blocks, (int, np.integer)) or blocks < 1:
            raise InputError(f"blocks must be 'auto', None or a whole number of interactions "
                             f">= 1, got {blocks!r}")
        if n // int(blocks) < 2:
            raise InputError(f"blocks={blocks} leaves fewer than 2 blocks of {n} interactions")
        length = max(int(blocks), math.ceil(n / MOST_BLOCKS))
        note = (f"intervals resample {math.ceil(n / length)} contiguous blocks of {length} "
                f"interactions, and the adverse-selection test takes them as its units (blocks={blocks})")
        if length > blocks:
            note += (f": blocks of {blocks} would be {math.ceil(n / int(blocks))}, and more than "
                     f"{MOST_BLOCKS} cost far more time for no better interval")
        return length, note
    times = [integrated_time(x) for x in (p, flags.astype(np.float32)) if np.ptp(x) > 0]
    tau = max([t for t in times if np.isfinite(t)], default=1.0)
    if tau <= max(1.0 + PERSISTENCE_MARGIN / math.sqrt(n), PERSISTENCE_FLOOR):
        return 0, None
    ideal = math.ceil(BLOCK_TAUS * tau)
    length = min(max(ideal, math.ceil(n / MOST_BLOCKS)), n // FEWEST_BLOCKS)
    count = math.ceil(n / length)
    note = (f"p or the accept flags are persistent in the order given (integrated "
            f"autocorrelation time {fmt(tau, 3)}): intervals resample {count} contiguous blocks "
            f"of {length} interactions (a block bootstrap) and the adverse-selection test takes "
            "them as its units, as interactions close in time are not independent; pass "
            "blocks=None if the rows are not in time order")
    if length < ideal:
        note += (f"; blocks of {ideal} would span five autocorrelation times, but leave fewer "
                 f"than {FEWEST_BLOCKS}: the intervals may still be too narrow")
    elif count < FEW_CLUSTERS:
        note += f"; with fewer than {FEW_CLUSTERS} blocks the intervals are rough"
    return length, note


def _cluster_labels(clusters) -> dict | None:
    """{"cluster": labels} or {"initiator": ..., "counterparty": ...} from ``clusters``."""
    if clusters is None:
        return None
    if isinstance(clusters, tuple):
        if len(clusters) != 2:
            raise InputError(f"clusters: a tuple must hold two label arrays (initiators, "
                             f"counterparties), got {len(clusters)}")
        return {"initiator": clusters[0], "counterparty": clusters[1]}
    return {"cluster": clusters}


def _cluster_sums(p, flags, threshold, band, payoff, extras, codes):
    """(each cluster's column sums (clusters x k), the column sums of all), the columns built
    block by block (the second summed as the independent path sums it: the same estimate to
    the last bit)."""
    count = int(codes.max()) + 1
    totals = overall = None
    for rows in _row_blocks(len(p)):
        block = _columns(p[rows], flags[rows], threshold, band, payoff, _rows_of(extras, rows))
        sums = np.column_stack([np.bincount(codes[rows], weights=block[:, j], minlength=count)
                                for j in range(block.shape[1])])
        totals = sums if totals is None else totals + sums
        overall = block.sum(axis=0) if overall is None else overall + block.sum(axis=0)
    return totals, overall


def _fewest_clusters(labels: dict) -> int:
    return min(int(codes.max()) + 1 for codes in labels.values())


def _clustered_intervals(columns, labels: dict, observed: dict, names, reps: int, rng, level: float,
                         payoff, swarm_compatible: bool, n: int):
    """(low, high, toxicity-difference interval, adverse-selection p-value) when interactions
    come in clusters (see ``clusters``); ``columns`` holds each cluster's sums one way, every
    interaction's columns two ways.

    One way (one label per interaction): the studentized cluster bootstrap, and the p-value a
    one-sided t test on the delete-one-cluster jackknife error (the bootstrap's share of
    gaps >= 0 rejected 6-8% of null batches of 10-20 agents at 5%).  Two ways (initiator x
    counterparty): Cameron-Gelbach-Miller's two-way jackknife variance with a t interval, and
    the matching one-sided t test."""
    fewest = _fewest_clusters(labels)
    if fewest < 2:
        name = min(labels, key=lambda k: labels[k].max())
        raise InputError(f"clusters: every interaction has the same {name}; resampling clusters "
                         "needs at least 2 (leave clusters out to treat interactions as independent)")
    # the soft-minus-hard toxicity rides along as one more statistic
    columns_of = list(names) + ["toxicity_difference"]
    size = float(n)

    def statistic(sums):
        values = _metrics_from_sums(sums, payoff, swarm_compatible)
        values["toxicity_difference"] = values["toxicity"] - values["hard_toxicity"]
        # A total grows with the interactions summed: leaving a cluster out shrinks it, and the
        # jackknife read that as a bias of ~(G - 1)/G of the total (a public SWARM run's
        # welfare 158.3 got the interval [188.9, 364.8]).  Totals are judged per interaction,
        # at this batch's size.
        with np.errstate(all="ignore"):
            per_batch = size / sums[..., 0]
        for name in TOTALS:
            values[name] = values[name] * per_batch
        return np.column_stack([values[k] for k in columns_of])

    gap = columns_of.index("quality_gap")
    if len(labels) == 1:
        low, high, _ = cluster_bootstrap_t(columns, statistic, reps, rng, level)
        pvalue = float(jackknife_t_pvalues(statistic, columns)[0][gap])
    else:
        low, high, se, dof = two_way_cluster_interval(columns, labels["initiator"], labels["counterparty"],
                                                      statistic, level)
        centre = (low[gap] + high[gap]) / 2.0     # the bias-corrected gap the interval is built on
        pvalue = (float(stats.t.cdf(centre / se[gap], dof)) if np.isfinite(centre) and se[gap] > 0
                  else np.nan)
    bounds = np.array([BOUNDS.get(name, (-np.inf, np.inf)) for name in columns_of])
    low, high = np.clip(low, *bounds.T), np.clip(high, *bounds.T)
    return low[:-1], high[:-1], (float(low[-1]), float(high[-1])), pvalue


def _cluster_test_name(labels: dict) -> str:
    return "cluster jackknife t" if len(labels) == 1 else "two-way cluster t"


def _cluster_note(labels: dict, *, test_only: bool = False) -> str:
    """What the clustering changed; ``test_only``: for the adverse-selection test alone."""
    counts = {name: int(codes.max()) + 1 for name, codes in labels.items()}
    plural = {"cluster": "clusters", "initiator": "initiators", "counterparty": "counterparties"}
    clusters = " x ".join(f"{count} {plural[name]}" for name, count in counts.items())
    if len(labels) > 1:
        how = "a two-way cluster variance (Cameron-Gelbach-Miller, by the jackknife)"
    elif test_only:
        how = "a t test on the delete-one-cluster jackknife error"
    else:
        how = ("a bootstrap over whole clusters (the adverse-selection test: a t test on the "
               "delete-one-cluster jackknife error)")
    what = "the test allows" if test_only else "intervals and the adverse-selection test allow"
    note = (f"{what} for clustering ({clusters}) by {how}: interactions of one agent are not "
            "independent")
    if min(counts.values()) < FEW_CLUSTERS:
        rough = "its p-value is" if test_only else "the intervals are"
        note += f"; with fewer than {FEW_CLUSTERS} clusters {rough} rough"
    return note


def _comparison(estimates: dict, pvalue: float, alpha: float, difference_ci=None,
                test: str = "permutation") -> dict:
    """Soft against hard toxicity (``difference_ci``: the interval of their difference - Student's
    t over the accepted interactions, or the clustered one; None when there is none) and the
    adverse-selection verdict."""
    soft, hard = estimates["toxicity"].value, estimates["hard_toxicity"].value
    difference = soft - hard
    diff_ci = difference_ci if difference_ci is not None else (np.nan, np.nan)
    if not np.isfinite(difference):
        verdict = "undefined (nothing accepted)"
    elif abs(difference) > TOXICITY_AGREEMENT:
        verdict = "the soft metric captures uncertainty the hard label hides"
    else:
        verdict = "soft and hard toxicity roughly agree"
    gap = estimates["quality_gap"].value
    significant = bool(np.isfinite(pvalue) and pvalue < alpha)
    if not np.isfinite(gap):
        adverse = "undefined: the gap needs both accepted and rejected interactions"
    elif significant:
        adverse = f"adverse selection: the gap is significantly below zero ({test} p = {fmt(pvalue, 3)})"
    elif gap < 0:
        adverse = f"the gap is below zero but not significantly ({test} p = {fmt(pvalue, 3)})"
    else:
        adverse = f"no adverse selection (gap {fmt(gap, 3)} >= 0, {test} p = {fmt(pvalue, 3)})"
    saturation = estimates["selection_saturation"].value
    return {
        "toxicity_difference": Estimate(float(difference), *diff_ci),
        "toxicity_verdict": verdict,
        "labels_unreliable": bool(estimates["uncertain_fraction"].value > UNRELIABLE_UNCERTAIN_FRACTION),
        "adverse_selection": bool(np.isfinite(gap) and gap < 0),
        "adverse_selection_pvalue": pvalue,
        "adverse_selection_significant": significant,
        "adverse_selection_verdict": adverse,
        "proxy_bound": bool(np.isfinite(saturation) and saturation > SATURATION_DANGER),
        "decomposition_error": float(estimates["toxicity"].value
                                     - (estimates["baseline_harm"].value
                                        - estimates["selection_credit"].value)),
    }


def _notes(n: int, n_accepted: int, swarm_compatible: bool, estimates: dict) -> list:
    notes = []
    zero = "reported as 0.0 (swarm_compatible)" if swarm_compatible else "undefined (None), not zero"
    if n_accepted == 0:
        notes.append(f"nothing was accepted: toxicity, the gap and the payoffs on A are {zero}")
    elif n_accepted == n:
        notes.append(f"everything was accepted: the quality gap is {zero}; selection credit is 0")
    if estimates["selection_saturation"].value > SATURATION_DANGER:
        notes.append("selection saturation above 0.85: selection is proxy-bound; only a better "
                     "proxy, not a stricter policy, can improve it")
    return notes
