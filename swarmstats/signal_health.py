"""Is group-relative RL still learning?  The share of reward groups with no spread, and the
onset of a collapse.

GRPO and its relatives standardise each prompt's rewards within its group of completions: a
group whose completions all score the same has zero advantage for every one of them and teaches
nothing.  TRL logs the share of such groups each step (``frac_reward_zero_std``); when it climbs
to nearly one - every prompt solved, or every prompt failed - the loss goes to zero and the run
goes on without learning ("gradient collapse").

:func:`learning_signal` reads that share per logged step (or computes it from per-sample rewards
with their group and step), and reports

- the share of zero-spread groups over the run and now, with autocorrelation-aware intervals;
- the advantage signal-to-noise ratio relative to a fully informative batch: with advantages
  standardised per group, a batch whose share s of groups is flat carries (1 - s) of the
  informative samples, and the gradient's signal-to-noise ratio scales with the square root of
  their number: sqrt(1 - s);
- a **collapse**: a regime change (:func:`swarmstats.detect_regimes`, mean model) into a level
  at or above ``collapse_level`` that lasts to the end of the run - "learning signal lost since
  step N: 93% [89%, 96%] of groups have identical rewards".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._input.series import as_float_array
from ._result import Result, fmt
from .errors import InputError, check_level

__all__ = ["LearningSignalResult", "learning_signal"]


@dataclass(frozen=True, repr=False)
class LearningSignalResult(Result):
    """The share of zero-spread groups, its regimes, and the collapse if there is one."""

    n: int
    share: float                # over the whole run
    share_ci: tuple
    share_now: float            # in the last regime
    share_now_ci: tuple
    relative_snr_now: float     # sqrt(1 - share_now)
    collapsed: bool
    onset_step: float | None
    verdict: str                # "healthy", "collapsed", "recovered", "flat from the start"
    reason: str
    segments: pd.DataFrame      # the regimes of the share
    spread_now: float | None    # the mean within-group reward SD in the last regime (if logged)
    ci_level: float
    notes: list = field(default_factory=list)
    _values: np.ndarray = field(default=None, repr=False)
    _steps: np.ndarray = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        return self.segments

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        lines = [f"learning signal: {self.verdict} - {self.reason}",
                 f"  zero-spread groups over the run {fmt(self.share, 3)} [{fmt(self.share_ci[0], 3)}, "
                 f"{fmt(self.share_ci[1], 3)}], now {fmt(self.share_now, 3)} [{fmt(self.share_now_ci[0], 3)}, "
                 f"{fmt(self.share_now_ci[1], 3)}] ({level}); advantage signal-to-noise now "
                 f"{fmt(self.relative_snr_now, 3)} of a fully informative batch"]
        if self.spread_now is not None:
            lines.append(f"  within-group reward SD now {fmt(self.spread_now)}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def learning_signal(source=None, *, zero_std: str = "frac_reward_zero_std", spread: str = "reward_std",
                    rewards=None, groups=None, steps=None, collapse_level: float = 0.5,
                    ci: float = 0.95) -> LearningSignalResult:
    """The learning signal of a group-relative RL run (see the module docstring).

    ``source``: a log (a path ``read_log`` reads, such as a TRL ``trainer_state.json``, or a wide
    frame) with a ``zero_std`` column (and optionally ``spread``); or per-sample ``rewards`` with
    their ``groups`` (prompt ids) and ``steps``.

    >>> rng = np.random.default_rng(0)
    >>> q = np.r_[rng.beta(2, 2, (150, 8)), rng.beta(30, 1, (150, 8))]      # solved from step 150
    >>> wins = rng.binomial(8, q)
    >>> share = ((wins == 0) | (wins == 8)).mean(axis=1)
    >>> result = learning_signal(pd.DataFrame({"step": np.arange(300), "frac_reward_zero_std": share}))
    >>> result.verdict, result.onset_step
    ('collapsed', 150.0)
    """
    level = check_level(ci)
    if not 0 < collapse_level <= 1:
        raise InputError(f"collapse_level must be a share in (0, 1], got {collapse_level!r}")
    step_axis, shares, spreads, notes = _shares(source, zero_std, spread, rewards, groups, steps)
    if len(shares) < 10:
        raise InputError(f"{len(shares)} logged step(s) with a share of zero-spread groups; at least 10 "
                         "are needed to tell a collapse from noise")
    if np.any((shares < 0) | (shares > 1)):
        raise InputError(f"{zero_std}: a share of groups must lie in [0, 1]; got values from "
                         f"{shares.min():.4g} to {shares.max():.4g}")
    from ._kernels.precision import share_interval
    from .regimes import detect_regimes

    if np.ptp(shares) == 0:
        notes = notes + [f"every logged share is {shares[0]:g}: the data give no spread, so the "
                         "intervals are that value alone (the share per group is not known)"]
        segments = pd.DataFrame({"start": [0], "end": [len(shares)], "start_step": [step_axis[0]],
                                 "end_step": [step_axis[-1]], "mean": [shares[0]],
                                 "ci_low": [shares[0]], "ci_high": [shares[0]]})
    else:
        found = detect_regimes(pd.Series(shares, index=step_axis), model="mean")
        segments = found.segments[["start", "end", "start_step", "end_step", "mean", "ci_low", "ci_high"]].copy()
    last = segments.iloc[-1]
    now, now_ci = share_interval(shares[int(last["start"]):], level)
    share, share_ci = _run_interval(shares, segments, level)
    high = segments["mean"].to_numpy() >= collapse_level
    verdict, onset, reason = _verdict(segments, high, now, now_ci, collapse_level)
    spread_now = (float(np.nanmean(spreads[int(last["start"]):])) if spreads is not None
                  and np.isfinite(spreads[int(last["start"]):]).any() else None)
    return LearningSignalResult(n=len(shares), share=share, share_ci=share_ci, share_now=now, share_now_ci=now_ci,
                                relative_snr_now=math.sqrt(max(1.0 - now, 0.0)), collapsed=verdict
                                in ("collapsed", "flat from the start"), onset_step=onset, verdict=verdict, reason=reason,
                                segments=segments.reset_index(drop=True), spread_now=spread_now, ci_level=level,
                                notes=notes, _values=shares, _steps=step_axis)


def _verdict(segments: pd.DataFrame, high: np.ndarray, now: float, now_ci: tuple, collapse_level: float):
    def percent(value):
        return f"{100 * value:.0f}%"

    shown = f"{percent(now)} [{percent(now_ci[0])}, {percent(now_ci[1])}] of groups have identical rewards"
    if high.all():
        return "flat from the start", float(segments["start_step"].iloc[0]), f"no learning signal at any step: {shown}"
    if high[-1]:
        first = len(high) - 1
        while first > 0 and high[first - 1]:
            first -= 1
        onset = float(segments["start_step"].iloc[first])
        return "collapsed", onset, f"learning signal lost since step {onset:g}: {shown}"
    if high.any():
        spells = ", ".join(f"{row.start_step:g}-{row.end_step:g}" for row in segments[high].itertuples())
        return "recovered", None, (f"a collapse (>= {percent(collapse_level)} flat groups) over steps {spells}, "
                                   f"then recovered: now {shown}")
    return "healthy", None, f"no collapse (no regime with >= {percent(collapse_level)} flat groups): now {shown}"


def _run_interval(values: np.ndarray, segments: pd.DataFrame, level: float) -> tuple[float, tuple]:
    """The share over the whole run, its interval combined from each regime's: a change of level
    is not noise, and an autocorrelation time measured across one would make the interval [0, 1]."""
    from ._kernels.distributions import t_ppf
    from ._kernels.precision import autocorrelated_mean

    parts = [autocorrelated_mean(values[int(row.start):int(row.end)]) for row in segments.itertuples()]
    weights = np.array([row.end - row.start for row in segments.itertuples()], dtype=float) / len(values)
    mean = float(values.mean())
    se = float(np.sqrt(np.sum((weights * np.array([p[1] for p in parts])) ** 2)))
    half = t_ppf(0.5 + level / 2.0, min(p[2] for p in parts)) * se
    return mean, (max(mean - half, 0.0), min(mean + half, 1.0))


def _shares(source, zero_std, spread, rewards, groups, steps):
    """(steps, share of zero-spread groups, within-group reward SD or None, notes) per logged step."""
    if rewards is not None:
        if source is not None:
            raise InputError("give either a log or per-sample rewards with their groups and steps, not both")
        return _from_rewards(rewards, groups, steps)
    if source is None:
        raise InputError("nothing to read: give a log with a frac_reward_zero_std column, or rewards=, "
                         "groups= and steps=")
    if isinstance(source, pd.DataFrame):
        frame = source
    elif isinstance(source, (np.ndarray, list, tuple, pd.Series)):
        raise InputError("source: a log path or a wide frame with a frac_reward_zero_std column; per-sample "
                         "rewards go in rewards=, with their groups= and steps=")
    else:
        from .io import read_log

        frame = read_log(source, wide=True)
    if "run" in frame.columns and frame["run"].nunique() > 1:
        raise InputError(f"the log holds {frame['run'].nunique()} runs; give one run at a time")
    if zero_std not in frame.columns:
        raise InputError(f"no {zero_std!r} column (columns: {', '.join(map(str, frame.columns))}); name the "
                         "share of zero-spread groups with zero_std=")
    rows = frame[pd.to_numeric(frame[zero_std], errors="coerce").notna()]
    step_axis = (pd.to_numeric(rows["step"], errors="coerce").to_numpy(dtype=float) if "step" in rows.columns
                 else np.arange(len(rows), dtype=float))
    shares = pd.to_numeric(rows[zero_std], errors="coerce").to_numpy(dtype=float)
    spreads = (pd.to_numeric(rows[spread], errors="coerce").to_numpy(dtype=float) if spread in rows.columns else None)
    return step_axis, shares, spreads, []


def _from_rewards(rewards, groups, steps):
    if groups is None or steps is None:
        raise InputError("per-sample rewards need their groups (prompt ids) and steps")
    columns = {"rewards": as_float_array(rewards, "rewards"), "groups": np.asarray(groups, dtype=object),
               "steps": as_float_array(steps, "steps")}
    for name, column in columns.items():
        if column.ndim != 1:
            raise InputError(f"{name}: expected one value per sample (a 1-D sequence), got shape {column.shape}")
    if len({len(column) for column in columns.values()}) > 1:
        raise InputError("rewards, groups and steps need one value per sample each: lengths "
                         + ", ".join(str(len(column)) for column in columns.values()))
    frame = pd.DataFrame({"reward": columns["rewards"], "group": columns["groups"], "step": columns["steps"]})
    if not np.isfinite(frame["reward"]).all():
        raise InputError("rewards: non-finite value(s); remove them first")
    by_group = frame.groupby(["step", "group"])["reward"]
    flat = (by_group.max() - by_group.min() == 0).groupby(level="step").mean()
    sizes = by_group.size()
    notes = []
    if (sizes < 2).any():
        notes.append(f"{int((sizes < 2).sum())} group(s) with a single completion count as flat")
    spread = by_group.std(ddof=0).groupby(level="step").mean()
    return flat.index.to_numpy(dtype=float), flat.to_numpy(dtype=float), spread.to_numpy(dtype=float), notes
