"""Where did the seeds settle?  Counting distinct equilibria across runs.

"Almost any outcome ... can be a stable equilibrium; agents may fail to converge on the same one"
(the multi-agent seed).  R-hat says only that the seeds disagree.  :func:`equilibria` takes
several runs of the same setting, cuts each run's warm-up, measures where each settled (its
post-warm-up mean of every chosen metric, with an autocorrelation-aware standard error), and
groups runs that settled at the same place:

two runs are at *different* equilibria when, for some metric, their levels differ both by more
than ``min_separation`` within-run SDs (the runs' own noise, pooled) *and* by more than their
standard errors allow (Bonferroni over all pairs of runs and metrics).  The first condition keeps
slightly different seeds of one equilibrium together however long the runs are; the second keeps
short, noisy runs from being split by noise.  Runs are grouped by complete linkage: a group
holds only runs no two of which are distinguishable.

It reports how many equilibria were reached, each one's level and the share of seeds that
reached it - with a Wilson interval: the chance that a new seed lands there - and which seeds
went where.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt
from ..errors import InputError, check_level

__all__ = ["EquilibriaResult", "equilibria"]

#: values each run needs after its warm-up for a standard error
MIN_KEPT = 20


@dataclass(frozen=True, repr=False)
class EquilibriaResult(Result):
    """The distinct equilibria the runs reached, and which runs reached which."""

    n_equilibria: int
    verdict: str                 # "one equilibrium" or "N equilibria"
    reason: str
    equilibria: pd.DataFrame     # label, runs, share, share_low, share_high, <metric> level per metric
    runs: pd.DataFrame           # run, equilibrium, warmup, <metric>, <metric>_se per metric
    metrics: list
    min_separation: float
    within_sd: dict              # the pooled within-run SD per metric
    alpha: float
    ci_level: float
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return self.runs

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        lines = [f"equilibria: {self.verdict} - {self.reason}"]
        for row in self.equilibria.to_dict("records"):
            where = ", ".join(f"{m} {fmt(row[m], 4)}" for m in self.metrics)
            lines.append(f"  {row['label']}: {where}; {row['runs']} run(s), {row['share']:.0%} "
                         f"[{row['share_low']:.0%}, {row['share_high']:.0%}] of seeds ({level}): "
                         f"{', '.join(map(str, row['members']))}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def equilibria(runs, *, metrics=None, group: str | None = None, min_separation: float = 1.5,
               alpha: float = 0.05, ci: float = 0.95) -> EquilibriaResult:
    """The distinct equilibria several runs reached (see the module docstring).

    ``runs``: ``{run: values}`` (values: an array or Series for one metric, a frame with a
    column per metric), a runs x steps array, a list of arrays, or a long frame with a ``group``
    column naming the run.  ``metrics``: the columns to use (default: every numeric column but
    ``step``).  ``min_separation``: in within-run SDs, the smallest difference in level that
    counts as a different equilibrium.

    >>> rng = np.random.default_rng(0)
    >>> levels = [0.2, 0.2, 0.8, 0.2, 0.8, 0.8, 0.2, 0.2]            # two equilibria, 3 SDs apart
    >>> runs = {f"seed{i}": level + 0.2 * rng.normal(size=300) for i, level in enumerate(levels)}
    >>> result = equilibria(runs)
    >>> result.n_equilibria, list(result.equilibria["runs"])
    (2, [3, 5])
    """
    from .._kernels.bootstrap import wilson_interval
    from .._kernels.distributions import norm_ppf

    level = check_level(ci)
    alpha = check_level(alpha, "alpha")
    if not (isinstance(min_separation, (int, float)) and math.isfinite(min_separation) and min_separation >= 0):
        raise InputError(f"min_separation must be a number of within-run SDs >= 0, got {min_separation!r}")
    names, matrices, metric_names = _runs(runs, metrics, group)
    if len(names) < 2:
        raise InputError(f"{len(names)} run(s); equilibria are counted across at least two")
    settled, notes = _settled(names, matrices, metric_names)
    means = np.array([s["mean"] for s in settled])                 # runs x metrics
    ses = np.array([s["se"] for s in settled])
    within_sd = np.sqrt(np.mean(np.array([s["sd"] for s in settled]) ** 2, axis=0))
    if np.any(within_sd == 0):
        flat = [m for m, sd in zip(metric_names, within_sd) if sd == 0]
        raise InputError(f"{', '.join(flat)}: constant within every run after the warm-up; no noise to measure "
                         "a separation in")
    k, m = means.shape
    critical = norm_ppf(1.0 - alpha / (2.0 * max(k * (k - 1) // 2, 1) * m))
    difference = np.abs(means[:, None, :] - means[None, :, :])
    noise = np.sqrt(ses[:, None, :] ** 2 + ses[None, :, :] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        significant = difference > critical * noise
    distinguishable = np.any((difference > min_separation * within_sd) & significant, axis=2)
    groups = _connected_groups(distinguishable)
    return _result(names, settled, metric_names, means, groups, within_sd, min_separation, alpha, level, notes,
                   wilson_interval)


def _connected_groups(distinguishable: np.ndarray) -> list[list[int]]:
    """Groups of runs joined by chains of indistinguishable pairs (single linkage): runs of one
    equilibrium that differ a little from seed to seed stay together as long as no gap between
    them is a separation."""
    unvisited, groups = set(range(len(distinguishable))), []
    while unvisited:
        frontier = [min(unvisited)]
        members = []
        unvisited.discard(frontier[0])
        while frontier:
            run = frontier.pop()
            members.append(run)
            near = [other for other in unvisited if not distinguishable[run, other]]
            for other in near:
                unvisited.discard(other)
            frontier.extend(near)
        groups.append(sorted(members))
    return groups


def _result(names, settled, metric_names, means, groups, within_sd, min_separation, alpha, level, notes,
            wilson_interval) -> EquilibriaResult:
    k = len(names)
    # the equilibria in order of their first metric's level, highest first
    groups = sorted(groups, key=lambda members: -float(np.mean(means[members, 0])))
    rows, label_of = [], {}
    for index, members in enumerate(groups):
        label = f"E{index + 1}"
        low, high = wilson_interval(len(members), k, level)
        row = {"label": label, "runs": len(members), "share": len(members) / k, "share_low": float(low),
               "share_high": float(high), "members": [names[i] for i in members]}
        row.update({metric: float(np.mean(means[members, j])) for j, metric in enumerate(metric_names)})
        rows.append(row)
        label_of.update({i: label for i in members})
    table = pd.DataFrame(rows)
    per_run = pd.DataFrame({"run": names, "equilibrium": [label_of[i] for i in range(k)],
                            "warmup": [s["warmup"] for s in settled]})
    for j, metric in enumerate(metric_names):
        per_run[metric] = means[:, j]
        per_run[f"{metric}_se"] = [s["se"][j] for s in settled]
    count = len(groups)
    verdict = "one equilibrium" if count == 1 else f"{count} equilibria"
    if count == 1:
        reason = (f"all {k} runs settled at one level (no two differ by more than {min_separation:g} within-run SDs "
                  "and their standard errors)")
    else:
        reason = (f"the {k} runs settled at {count} distinct levels, each at least {min_separation:g} within-run SDs "
                  f"and beyond their standard errors from the others; " +
                  "; ".join(f"{row['label']} holds {row['runs']}" for row in rows))
    return EquilibriaResult(n_equilibria=count, verdict=verdict, reason=reason, equilibria=table, runs=per_run,
                            metrics=list(metric_names), min_separation=float(min_separation),
                            within_sd=dict(zip(metric_names, map(float, within_sd))), alpha=alpha, ci_level=level,
                            notes=notes)


def _settled(names, matrices, metric_names):
    """Each run's warm-up cut (the latest over its metrics), and its post-warm-up mean, standard
    error and SD per metric."""
    from .._kernels.precision import autocorrelated_mean
    from ..convergence.warmup import detect_warmup

    settled, capped = [], []
    for name, values in zip(names, matrices):
        cuts = []
        for j in range(values.shape[1]):
            column = values[:, j]
            if np.ptp(column) == 0:
                cuts.append(0)
                continue
            found = detect_warmup(column)
            cuts.append(found.index)
            if found.at_cap:
                capped.append(name)
        cut = max(cuts)
        kept = values[cut:]
        if len(kept) < MIN_KEPT:
            raise InputError(f"run {name!r}: {len(kept)} value(s) after its warm-up; at least {MIN_KEPT} are needed "
                             "to say where it settled")
        parts = [autocorrelated_mean(kept[:, j]) for j in range(kept.shape[1])]
        settled.append({"warmup": int(cut), "mean": np.array([p[0] for p in parts]),
                        "se": np.array([p[1] for p in parts]), "sd": kept.std(axis=0, ddof=1)})
    notes = []
    if capped:
        shown = ", ".join(map(str, sorted(set(capped))[:8]))
        notes.append(f"{len(set(capped))} run(s) may not have settled - the warm-up search reached half the run "
                     f"({shown}): their level may still be moving")
    return settled, notes


def _runs(runs, metrics, group):
    """(names, one steps x metrics matrix per run, metric names)."""
    from .._input.series import as_runs

    if isinstance(runs, pd.DataFrame) and group is not None:
        if group not in runs.columns:
            raise InputError(f"no {group!r} column (columns: {', '.join(map(str, runs.columns))})")
        parts = {name: frame.drop(columns=[group]) for name, frame in runs.groupby(group, sort=False)}
        return _from_frames(parts, metrics)
    if isinstance(runs, dict) and any(isinstance(v, pd.DataFrame) for v in runs.values()):
        return _from_frames({name: (v if isinstance(v, pd.DataFrame) else pd.DataFrame({"value": v}))
                             for name, v in runs.items()}, metrics)
    if isinstance(runs, dict):
        names = [str(name) for name in runs]
        series = [_series_values(v, str(name)) for name, v in runs.items()]
    else:
        validated = as_runs(runs, min_length=MIN_KEPT)
        names = [r.name or f"run{i}" for i, r in enumerate(validated)]
        series = [r.values for r in validated]
    if metrics not in (None, ["value"], "value"):
        raise InputError("metrics= names columns of frames; these runs are plain series")
    return names, [values[:, None] for values in series], ["value"]


def _series_values(values, name) -> np.ndarray:
    from .._input.series import as_series

    return as_series(values, argname=f"run {name!r}", min_length=MIN_KEPT).values


def _from_frames(frames: dict, metrics):
    first = next(iter(frames.values()))
    if metrics is None:
        metrics = [c for c in first.columns if c != "step" and pd.api.types.is_numeric_dtype(first[c])]
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise InputError("no numeric metric column in the runs; name them with metrics=")
    names, matrices = [], []
    for name, frame in frames.items():
        missing = [m for m in metrics if m not in frame.columns]
        if missing:
            raise InputError(f"run {name!r}: no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})")
        if "step" in frame.columns:
            frame = frame.sort_values("step")
        values = frame[metrics].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(values).all():
            raise InputError(f"run {name!r}: missing or non-numeric value(s) in {', '.join(metrics)}")
        names.append(str(name))
        matrices.append(values)
    return names, matrices, [str(m) for m in metrics]
