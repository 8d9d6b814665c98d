"""Matplotlib views of distributions: quality reports, descriptions, run comparisons.

Each function draws on one Axes and returns it; results call them from their
``plot()`` methods.  Imported only when a plot is asked for.
"""

from __future__ import annotations

import numpy as np

from ._result import fmt
from .plotting import _axes


def _bins(values: np.ndarray, lo: float | None = None, hi: float | None = None) -> np.ndarray:
    lo = float(np.min(values)) if lo is None else lo
    hi = float(np.max(values)) if hi is None else hi
    if hi <= lo:
        hi = lo + 1.0
    count = int(np.clip(np.sqrt(len(values)), 10, 60))
    return np.linspace(lo, hi, count + 1)


def plot_quality(report, ax=None):
    """Densities of p for accepted and rejected interactions, their means with
    intervals, the threshold and the uncertain band."""
    ax = _axes(ax)
    p, accepted = report._p, report._accepted
    bins = _bins(p, 0.0, 1.0)
    lo, hi = 0.5 - report.band, 0.5 + report.band
    ax.axvspan(lo, hi, color="0.92", zorder=0, label=f"uncertain band ({fmt(report.band)})")
    for mask, label, colour, key in ((accepted, "accepted", "C2", "accepted_quality"),
                                     (~accepted, "rejected", "C3", "rejected_quality")):
        if mask.any():
            ax.hist(p[mask], bins=bins, density=True, histtype="stepfilled", alpha=0.35, color=colour,
                    label=f"{label} (n = {int(mask.sum())})")
            estimate = report.soft[key]
            ax.axvline(estimate.value, color=colour, lw=2)
            if np.isfinite(estimate.ci_low):
                ax.axvspan(estimate.ci_low, estimate.ci_high, color=colour, alpha=0.15)
    ax.axvline(report.threshold, color="k", ls="--", lw=1, label=f"threshold {fmt(report.threshold)}")
    gap, toxicity = report.soft["quality_gap"], report.soft["toxicity"]
    ax.set_title(f"gap {fmt(gap.value, 3)} [{fmt(gap.ci_low, 3)}, {fmt(gap.ci_high, 3)}], "
                 f"toxicity {fmt(toxicity.value, 3)} (hard {fmt(report.hard['hard_toxicity'].value, 3)})",
                 fontsize=9)
    ax.set_xlabel("p = P(beneficial)")
    ax.set_ylabel("density")
    ax.set_xlim(0, 1)
    ax.legend(fontsize=7, loc="upper left")
    return ax


def plot_describe(result, ax=None):
    """Histogram of the values with the mean and its interval, median, IQM,
    the 5-95% range, the lower-tail CVaR and the peak."""
    ax = _axes(ax)
    values = result._values
    ax.hist(values, bins=_bins(values), density=True, color="0.75", label=f"values (n = {result.n})")
    ax.axvspan(result.ci[0], result.ci[1], color="C0", alpha=0.25,
               label=f"mean {fmt(result.mean)}, {result.ci_level:.0%} CI (ESS {fmt(result.ess, 3)})")
    ax.axvline(result.mean, color="C0", lw=2)
    ax.axvline(result.median, color="C1", lw=1.5, label=f"median {fmt(result.median)}")
    ax.axvline(result.iqm, color="C4", lw=1.5, ls=":", label=f"IQM {fmt(result.iqm)}")
    q = result.quantiles
    ax.axvline(q["q05"], color="0.3", lw=1, ls="--", label="5% / 95% quantiles")
    ax.axvline(q["q95"], color="0.3", lw=1, ls="--")
    ax.axvline(result.cvar, color="C3", lw=1.5, ls="-.", label=f"CVaR {result.cvar_tail:.0%} {fmt(result.cvar)}")
    ax.axvline(result.maximum, color="C2", lw=1.5, label=f"peak {fmt(result.maximum)}")
    sds = result.peak_gap_sd  # in SDs: a percentage of a mean near or below zero means nothing
    gap = "" if not np.isfinite(sds) else f": the peak is {fmt(sds, 3)} SDs above the mean"
    ax.set_title(f"{result.name or 'series'}{gap}", fontsize=9)
    ax.set_xlabel(result.name or "value")
    ax.set_ylabel("density")
    ax.legend(fontsize=7)
    return ax


def plot_compare(result, ax=None):
    """Performance profiles: share of runs above each score, with bootstrap bands."""
    ax = _axes(ax)
    for i, (name, part) in enumerate(result.profile.groupby("name", sort=False)):
        colour = f"C{i}"
        ax.plot(part["threshold"], part["fraction"], color=colour, lw=2, label=name)
        ax.fill_between(part["threshold"], part["low"], part["high"], color=colour, alpha=0.2)
    ax.set_xlabel("score threshold")
    ax.set_ylabel("share of runs scoring above")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"performance profiles ({result.ci_level:.0%} stratified bootstrap bands)", fontsize=9)
    ax.legend(fontsize=8)
    return ax


def plot_early_warning(result, ax=None):
    """The per-epoch metric with its interval, the level and the alarms."""
    ax = _axes(ax)
    steps, values = result._steps, result._values
    x = steps if np.issubdtype(np.asarray(steps).dtype, np.number) else np.arange(len(values))
    ax.plot(x, values, marker="o", ms=3, lw=1, color="C0", label=result.metric)
    if result._low is not None and result._high is not None:
        ax.fill_between(x, result._low, result._high, color="C0", alpha=0.2, label="interval")
    ax.axhline(result.level, color="k", ls="--", lw=1, label=f"level {fmt(result.level)}")
    for alarm in result.alarms:
        position = alarm["alarm"] if x is steps else list(steps).index(alarm["alarm"])
        ax.axvline(position, color="C3", lw=1.5)
    sign = ">" if result.direction == "above" else "<"
    outcome = f"first alarm at {result.first_alarm}" if result.fired else "no alarm"
    ax.set_title(f"{result.metric} {sign} {fmt(result.level)} for {result.consecutive} epochs "
                 f"({result.rule} rule): {outcome}", fontsize=9)
    ax.set_xlabel("epoch")
    ax.legend(fontsize=7)
    return ax


#: keys drawn at most in the per-key plot (the worst first)
MAX_KEYS_DRAWN = 40


def plot_proxy_keys(report, ax=None):
    """Per-key mean of p with its 95% interval (thick) and +-1 SD of single scores (thin),
    against the threshold; too-noisy keys in red."""
    from scipy import stats

    ax = _axes(ax)
    table = report.table.head(MAX_KEYS_DRAWN)
    positions = np.arange(len(table))[::-1]
    n = table["n"].to_numpy(float)
    half = stats.t.ppf(0.975, np.maximum(n - 1, 1)) * table["se"].to_numpy(float)
    colours = np.where(table["too_noisy"].to_numpy(bool), "C3", "C2")
    mean, sd = table["mean"].to_numpy(float), table["sd"].to_numpy(float)
    ax.hlines(positions, mean - sd, mean + sd, colors=colours, lw=1, alpha=0.5)
    ax.hlines(positions, mean - half, mean + half, colors=colours, lw=4)
    ax.scatter(mean, positions, color="k", s=10, zorder=3)
    ax.axvline(report.threshold, color="k", ls="--", lw=1)
    ax.set_yticks(positions)
    ax.set_yticklabels([str(key) for key in table.index], fontsize=7)
    ax.set_xlabel("p  (thick: 95% CI of the mean; thin: +-1 SD of single scores)")
    shown = "" if len(report.table) <= MAX_KEYS_DRAWN else f", worst {MAX_KEYS_DRAWN} shown"
    ax.set_title(f"{report.n_too_noisy} of {report.n_keys} keys too noisy for a hard decision at "
                 f"{fmt(report.threshold)}{shown}", fontsize=9)
    return ax


def plot_reliability(report, ax=None):
    """Reliability diagram: share of positive outcomes against mean p per bin, with intervals."""
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.6", ls="--", lw=1, label="perfect calibration")
    if report.reliability is None:
        ax.text(0.5, 0.5, "no outcomes: no reliability diagram", ha="center", va="center",
                transform=ax.transAxes)
        return ax
    used = report.reliability[report.reliability["count"] > 0]
    ax.errorbar(used["mean_p"], used["share_positive"],
                yerr=[used["share_positive"] - used["share_low"], used["share_high"] - used["share_positive"]],
                fmt="o-", color="C0", capsize=3, label="observed (95% Wilson intervals)")
    c = report.calibration
    ax.set_title(f"reliability: ECE {fmt(c['ece'], 3)}, Brier {fmt(c['brier'], 3)}, "
                 f"AUC {fmt(c['auc'], 3)} (n = {c['n_outcomes']})", fontsize=9)
    ax.set_xlabel("mean p in bin")
    ax.set_ylabel("share of positive outcomes")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="upper left")
    return ax


STATUS_COLOURS = {"improving": "C2", "degrading": "C3", "stable": "C0", "uncertain": "0.75"}


def plot_windows(result, ax=None):
    """The series, the level now (the trend line's end, or the window's mean) with its interval,
    the status as a coloured band along
    the bottom, the window length on the right-hand axis and the changes as vertical lines."""
    ax = _axes(ax)
    from .plotting import downsample, plot_series

    table = result.table
    steps = table["step"].to_numpy(dtype=float)
    plot_series(ax, steps, table["value"], color="0.55", lw=0.7, label=result.name or "series")
    every = max(1, len(steps) // 4000)  # smooth curves: every k-th point is enough to draw them
    ax.plot(steps[::every], table["level"].to_numpy()[::every], color="k", lw=1.2, label="level now")
    ax.fill_between(steps[::every], table["level_low"].to_numpy()[::every],
                    table["level_high"].to_numpy()[::every], color="k", alpha=0.12, label="its CI")
    low, high = np.nanmin(table["value"]), np.nanmax(table["value"])
    band = (high - low) * 0.06 or 1.0
    status = table["status"].to_numpy()
    run_start = 0
    for i in range(1, len(status) + 1):
        if i == len(status) or status[i] != status[run_start]:
            right = steps[i] if i < len(status) else steps[-1]
            ax.fill_between([steps[run_start], right], low - 2 * band, low - band,
                            color=STATUS_COLOURS[status[run_start]], lw=0)
            run_start = i
    for change in result.changes:
        ax.axvline(change["start"], color="C3" if change["direction"] == "down" else "C2", ls="--", lw=1)
    handles = [__import__("matplotlib.patches", fromlist=["Patch"]).Patch(color=colour, label=name)
               for name, colour in STATUS_COLOURS.items()]
    lines, labels = ax.get_legend_handles_labels()
    ax.legend(lines + handles, labels + list(STATUS_COLOURS), fontsize=7, ncol=2, loc="upper left")
    twin = ax.twinx()
    twin.plot(*downsample(steps, table["length"].to_numpy(dtype=float)), color="C1", lw=0.8, alpha=0.7)
    twin.set_ylabel("window length", color="C1", fontsize=8)
    twin.tick_params(axis="y", labelcolor="C1", labelsize=7)
    ax.set_ylim(low - 2.5 * band, high + band)
    ax.set_xlabel("step")
    ax.set_title(f"{result.name or 'series'}: now {result.final_status}; "
                 f"{len(result.changes)} change(s)", fontsize=9)
    return ax


def plot_sweep(result, ax=None):
    """The share of collapsed runs against the phase parameter with the logistic fit and its
    interval; without a phase, each setting's across-seed mean with its interval."""
    ax = _axes(ax)
    if result.phase:
        phase = result.phase
        levels = np.array([float(v) for v in phase["collapse_share"]])
        shares = np.array(list(phase["collapse_share"].values()))
        ax.plot(levels, shares, "o", color="C3", label="share of runs collapsed")
        if phase["logistic"] is not None:
            grid = np.linspace(levels.min(), levels.max(), 200)
            centre, slope = phase["logistic"], phase["slope"]
            ax.plot(grid, 1 / (1 + np.exp(-slope * (grid - centre))), color="k", lw=1, label="logistic fit")
            if phase["ci"][0] is not None:
                ax.axvspan(phase["ci"][0], phase["ci"][1], color="C3", alpha=0.15, label="50% point, CI")
            ax.axvline(centre, color="C3", lw=1.5)
        if phase["midpoint"] is not None:
            ax.axvline(phase["midpoint"], color="C0", ls="--", lw=1, label="SWARM midpoint rule")
        ax.set_xlabel(phase["parameter"])
        ax.set_ylabel("P(collapse)")
        ax.legend(fontsize=7)
        ax.set_title(f"collapse begins at {phase['parameter']} ~ {fmt(phase['logistic'])}", fontsize=9)
        return ax
    table = result.table
    if table.empty:
        ax.text(0.5, 0.5, "no successful run", ha="center", transform=ax.transAxes)
        return ax
    metric = table["metric"].iloc[0]
    part = table[table["metric"] == metric].reset_index(drop=True)
    labels = [", ".join(f"{p}={row[p]}" for p in result.by) or "all" for row in part.to_dict("records")]
    x = np.arange(len(part))
    low = part["mean"] - part.get("mean_low", part["mean"])
    high = part.get("mean_high", part["mean"]) - part["mean"]
    ax.errorbar(x, part["mean"], yerr=[low.fillna(0), high.fillna(0)], fmt="o", capsize=3)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(f"{metric} (mean over seeds, 95% CI)")
    return ax
