"""Across-seed learning curves with honest bands.

Runs (seeds) are logged on their own step axes, at their own intervals, for their own lengths.
:func:`learning_curves` puts them on one grid of steps (each run linearly interpolated between
its own logged steps, and absent beyond its first and last), then gives at every grid step the
mean with a Student t interval across the runs present there - exact for normal scores, and
the band to read - the median with the runs' order statistics (distribution-free) and the IQM
with a percentile-bootstrap interval stretched for few runs.
The bands are pointwise: each step's interval covers that step's mean at its level, not the
whole curve at once.  Where fewer than three runs reach a step it gets no interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._input.random_state import resolve_rng
from ._input.series import as_series
from ._kernels.bootstrap import percentile_interval, stretched_for_few_runs
from ._kernels.distributions import t_ppf
from ._kernels.order_statistics import median_range_note, median_rank
from ._result import Result, fmt
from .errors import InputError, check_count, check_level, shown

#: fewer runs than this at a step: no interval there
MIN_RUNS = 3


@dataclass(frozen=True, repr=False)
class CurvesResult(Result):
    """Per-step statistics of several runs (``table``: step, n_runs, mean, median, iqm and
    their ``_low`` / ``_high`` interval columns)."""

    table: pd.DataFrame
    n_runs: int
    ci_level: float
    n_boot: int
    notes: list = field(default_factory=list)
    name: str | None = None
    run_names: list = field(default_factory=list)
    _grid_values: np.ndarray = field(default=None, repr=False)  # runs x steps, NaN where absent

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def summary(self) -> str:
        label = f"{self.name}: " if self.name else ""
        shown = self.table[self.table["n_runs"] >= MIN_RUNS]
        lines = [f"{label}{self.n_runs} runs on {len(self.table)} steps "
                 f"({self.ci_level:.0%} pointwise intervals)"]
        if len(shown):
            last = shown.iloc[-1]
            lines.append(f"  at step {fmt(last['step'], 6)} ({int(last['n_runs'])} runs): mean "
                         f"{fmt(last['mean'])} [{fmt(last['mean_low'])}, {fmt(last['mean_high'])}], median "
                         f"{fmt(last['median'])} [{fmt(last['median_low'])}, {fmt(last['median_high'])}], "
                         f"IQM {fmt(last['iqm'])} [{fmt(last['iqm_low'])}, {fmt(last['iqm_high'])}]")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def learning_curves(runs, *, points: int = 200, ci: float = 0.95, n_boot: int = 2000,
                    random_state=0, name: str | None = None) -> CurvesResult:
    """Mean, median and IQM of several runs at each step, with pointwise intervals.

    Parameters
    ----------
    runs : list of pandas Series (or arrays), or a dict {name: Series}
        One curve per run; a Series' index is its step axis (an array's steps are 0, 1, ...).
    points : int
        Steps on the common grid, evenly spaced from the earliest to the latest logged step
        (the runs' own steps when they all share at most this many).
    ci, n_boot, random_state
        Interval level, bootstrap resamples of the IQM, their seed.

    >>> rng = np.random.default_rng(0)
    >>> runs = [pd.Series(1 - np.exp(-np.arange(100) / 20) + 0.05 * rng.normal(size=100)) for _ in range(8)]
    >>> result = learning_curves(runs, random_state=0)
    >>> int(result.table["n_runs"].min()), bool(result.table["mean_low"].iloc[-1] < 1 < result.table["mean_high"].iloc[-1])
    (8, True)
    """
    level = check_level(ci)
    check_count("points", points, minimum=2)
    check_count("n_boot", n_boot)
    if not isinstance(runs, dict) and (isinstance(runs, (str, bytes)) or not hasattr(runs, "__iter__")):
        raise InputError(f"runs: expected several runs ({{name: values}}, a list of series or a runs x "
                         f"steps array), got {shown(runs)}")
    named = runs if isinstance(runs, dict) else {f"run {i}": run for i, run in enumerate(runs)}
    if len(named) < 2:
        raise InputError(f"runs: learning curves across seeds need at least two runs, got {len(named)}")
    series = [as_series(run, argname=f"runs[{key!r}]", min_length=1) for key, run in named.items()]
    axes = [s.steps if s.steps is not None else np.arange(len(s), dtype=float) for s in series]
    for key, steps in zip(named, axes):
        if np.any(np.diff(steps) <= 0):
            raise InputError(f"runs[{key!r}]: its steps must increase (sort the run, or drop repeated steps)")
    shared = all(len(a) == len(axes[0]) and np.array_equal(a, axes[0]) for a in axes)
    grid = axes[0] if shared and len(axes[0]) <= points else np.linspace(
        min(a[0] for a in axes), max(a[-1] for a in axes), points)
    values = np.full((len(series), len(grid)), np.nan)
    for i, (s, steps) in enumerate(zip(series, axes)):
        inside = (grid >= steps[0]) & (grid <= steps[-1])
        values[i, inside] = np.interp(grid[inside], steps, s.values)
    table = _per_step(grid, values, level, n_boot, resolve_rng(random_state))
    notes = []
    if not shared:
        notes.append(f"runs logged on different steps: each is interpolated onto {len(grid)} common steps "
                     "between its own logged ones")
    lengths = sorted({int(a[-1]) if float(a[-1]).is_integer() else float(a[-1]) for a in axes})
    if len(lengths) > 1:
        notes.append(f"runs end at different steps ({lengths[0]} to {lengths[-1]}): later steps hold fewer runs "
                     "(n_runs), and none past the last run's end")
    judged = table.loc[table["n_runs"] >= MIN_RUNS, "n_runs"]
    short = median_range_note(int(judged.min()), level, "runs") if len(judged) else None
    if short:
        notes.append(f"where {int(judged.min())} runs reach a step, {short}")
    return CurvesResult(table=table, n_runs=len(series), ci_level=level, n_boot=int(n_boot), notes=notes,
                        name=name, run_names=[str(k) for k in named], _grid_values=values)


def _per_step(grid, values, level, n_boot, rng) -> pd.DataFrame:
    present = np.isfinite(values)
    count = present.sum(axis=0)
    mean = np.where(count > 0, np.nansum(values, axis=0) / np.maximum(count, 1), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        deviations = np.where(present, values - mean, 0.0)
        sd = np.sqrt((deviations**2).sum(axis=0) / (count - 1))
        quantile = {n: t_ppf(0.5 + level / 2, n - 1) for n in set(count.tolist()) if n >= MIN_RUNS}  # a few run counts
        half = np.array([quantile.get(n, np.nan) for n in count]) * sd / np.sqrt(count)
    table = {"step": grid, "n_runs": count, "mean": mean, "mean_low": mean - half, "mean_high": mean + half}
    enough = count >= MIN_RUNS
    table["median"] = _nan_median(values[None])[0]
    low, high = _median_intervals(values, count, level)
    table["median_low"], table["median_high"] = np.where(enough, low, np.nan), np.where(enough, high, np.nan)
    runs = values.shape[0]
    resampled = values[rng.integers(0, runs, size=(n_boot, runs))]  # n_boot x runs x steps
    point = _nan_iqm(values[None])[0]
    low, high = percentile_interval(_nan_iqm(resampled), level, min_defined=0.0)
    low, high = stretched_for_few_runs(point, low, high, count, count - 1, level)
    table["iqm"] = point
    table["iqm_low"], table["iqm_high"] = np.where(enough, low, np.nan), np.where(enough, high, np.nan)
    return pd.DataFrame(table)


def _median_intervals(values: np.ndarray, count: np.ndarray, level: float) -> tuple:
    """Each step's (x_(j), x_(k+1-j)) of the k runs present there (runs x steps): the median's
    distribution-free interval, as :func:`swarmstats.compare_runs` gives it for one task.  A
    percentile bootstrap of 5 runs' median reads (x_(2), x_(4)) and holds it 62.5% of the time."""
    ordered = np.sort(values, axis=0)  # NaN (absent runs) last
    low, high = np.full(values.shape[1], np.nan), np.full(values.shape[1], np.nan)
    for k in set(count.tolist()) - {0}:  # a few distinct run counts
        at = np.flatnonzero(count == k)
        j = median_rank(k, level)
        low[at], high[at] = ordered[j - 1, at], ordered[k - j, at]
    return low, high


def _nan_median(samples: np.ndarray) -> np.ndarray:
    """Median over axis 1 of (replicates x runs x steps), ignoring absent runs."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a step no drawn run reaches
        return np.nanmedian(samples, axis=1)


def _nan_iqm(samples: np.ndarray) -> np.ndarray:
    """IQM over axis 1 (floor(k/4) cut from each end of the k present values), ignoring NaN."""
    ordered = np.sort(samples, axis=1)  # NaN last
    k = np.isfinite(ordered).sum(axis=1, keepdims=True)
    cut = np.floor(0.25 * k)
    position = np.arange(samples.shape[1])[None, :, None]
    keep = (position >= cut) & (position < k - cut)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(keep, np.nan_to_num(ordered), 0.0).sum(axis=1) / keep.sum(axis=1)
