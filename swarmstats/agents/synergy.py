"""Is the team better than its best member?  The synergy gap, and how it moves with team size.

"Two agents performed 50% worse than one; the gap grew as agents were added" (the multi-agent
seed).  :func:`synergy_gap` takes team evaluations - one row per team and unit (a seed, a task,
an episode), its outcome and its size - and the members' solo outcomes on the same units, and
reports, per team size, the team's outcome minus its best member's solo outcome and minus the
mean member's, each with a t interval across units, and the gap's trend with team size.

Two layouts:

- **members' solo outcomes in columns** (``solos=``: a list of columns, or a prefix such as
  ``"solo_"``; a member absent from a smaller team is NaN).  The best member is not known, only
  estimated: the member whose solo mean is highest is the luckiest as often as the best (the
  winner's curse).  Since team - best = min over members of (team - member), the interval is
  [min of the lower bounds, min of the upper bounds] of paired t bounds for every member, the
  upper ones Bonferroni-corrected (any one falling short would spoil the minimum; a lower bound
  below the truth needs only the best member's) - it covers whichever member is truly best.  The point estimate
  is cross-fitted: the best member chosen on half of the units, the gap measured on the other
  half, then the halves swap;
- **no solo columns**: teams of copies of one agent, where the size-1 rows are the solo reference
  on the same unit (best member and mean member are then the same).

The trend: each unit evaluated at two or more team sizes gives its own slope of the gap on team
size; their mean has a t interval across units, whatever the correlation within a unit.  With
members' solo outcomes it is measured only when every team's best member is clear (its solo
outcome significantly above each other member's): otherwise which member looks best would change
with team size and pass for a trend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Result, fmt
from ..errors import InputError, check_level

__all__ = ["SynergyResult", "synergy_gap"]


@dataclass(frozen=True, repr=False)
class SynergyResult(Result):
    """Team minus best member (and mean member) per team size, and the trend with size."""

    verdict: str                # "negative synergy", "positive synergy" or "not shown"
    reason: str
    by_size: pd.DataFrame       # per team: size, members, units, gap_best (+ interval), relative, gap_mean (+ interval)
    slope: float                # change of the gap (vs the best member) per added member
    slope_ci: tuple
    slope_p: float
    slope_units: int
    reference: str              # "members' solo outcomes" or "size-1 runs on the same unit"
    ci_level: float
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return self.by_size

    def summary(self) -> str:
        level = f"{self.ci_level:.0%}"
        lines = [f"synergy gap: {self.verdict} - {self.reason}"]
        for row in self.by_size.to_dict("records"):
            who = f" ({row['members']})" if row["members"] else ""
            lines.append(f"  team of {row['team_size']:g}{who}: vs best member {fmt(row['gap_best'], 3)} "
                         f"[{fmt(row['gap_best_low'], 3)}, {fmt(row['gap_best_high'], 3)}] "
                         f"({_percent(row['relative'])}), vs mean member {fmt(row['gap_mean'], 3)} "
                         f"[{fmt(row['gap_mean_low'], 3)}, {fmt(row['gap_mean_high'], 3)}] ({level}, "
                         f"{row['units']} units)")
        if math.isfinite(self.slope):
            lines.append(f"  per added member: {fmt(self.slope, 3)} [{fmt(self.slope_ci[0], 3)}, "
                         f"{fmt(self.slope_ci[1], 3)}], p = {fmt(self.slope_p, 3)} ({self.slope_units} units)")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def _percent(value) -> str:
    return "n/a" if not math.isfinite(value) else f"{100 * value:+.0f}% of the best member"


def synergy_gap(data, *, outcome: str = "outcome", size: str = "team_size", unit: str | None = "unit",
                solos=None, ci: float = 0.95) -> SynergyResult:
    """The synergy gap per team size and its trend (see the module docstring).

    ``data``: one row per team evaluation with ``outcome``, ``size`` and (optionally) ``unit``
    columns - without a unit column every row is its own unit - and, in the first layout, the
    members' solo outcomes in the ``solos`` columns (default: every column starting ``solo_``).

    >>> rng = np.random.default_rng(0)
    >>> rows = [{"unit": u, "team_size": s, "outcome": 0.6 - 0.15 * (s - 1) + 0.05 * rng.normal()}
    ...         for u in range(20) for s in (1, 2, 3)]
    >>> result = synergy_gap(pd.DataFrame(rows))
    >>> result.verdict, round(result.slope, 2)
    ('negative synergy', -0.14)
    """
    level = check_level(ci)
    frame = _validated(data, outcome, size, unit)
    solo_columns = _solo_columns(frame, solos)
    notes = []
    if solo_columns:
        by_size, gaps, notes = _member_gaps(frame, solo_columns, outcome, size, level)
        reference = "members' solo outcomes"
    else:
        by_size, gaps = _size_one_gaps(frame, outcome, size, level)
        reference = "size-1 runs on the same unit"
    if by_size.empty:
        raise InputError("no team larger than one to compare with its members")
    by_size = by_size.sort_values("team_size", kind="stable").reset_index(drop=True)
    slope, slope_ci, slope_p, slope_units, slope_note = _trend(gaps, level)
    if slope_note:
        notes.append(slope_note)
    verdict, reason = _verdict(by_size, slope, slope_ci, slope_p)
    return SynergyResult(verdict=verdict, reason=reason, by_size=by_size, slope=slope, slope_ci=slope_ci,
                         slope_p=slope_p, slope_units=slope_units, reference=reference, ci_level=level, notes=notes)


def _validated(data, outcome, size, unit) -> pd.DataFrame:
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"expected a frame with one row per team evaluation, got {type(data).__name__}")
    for column in (outcome, size):
        if column not in data.columns:
            raise InputError(f"no {column!r} column (columns: {', '.join(map(str, data.columns))})")
    frame = data.copy()
    frame["_unit"] = frame[unit] if unit is not None and unit in frame.columns else np.arange(len(frame))
    frame[outcome] = pd.to_numeric(frame[outcome], errors="coerce")
    frame[size] = pd.to_numeric(frame[size], errors="coerce")
    bad = frame[outcome].isna() | frame[size].isna()
    if bad.any():
        raise InputError(f"{int(bad.sum())} row(s) without a numeric {outcome!r} or {size!r}")
    if (frame[size] < 1).any() or (frame[size] % 1 != 0).any():
        raise InputError(f"{size}: team sizes are whole numbers >= 1")
    return frame


def _solo_columns(frame, solos) -> list:
    if solos is None:
        return [c for c in frame.columns if str(c).startswith("solo_")]
    if isinstance(solos, str):
        found = [c for c in frame.columns if str(c).startswith(solos)]
        if not found:
            raise InputError(f"no column starts with {solos!r}")
        return found
    missing = [c for c in solos if c not in frame.columns]
    if missing:
        raise InputError(f"no solo column {missing[0]!r}")
    return list(solos)


def _member_gaps(frame, solo_columns, outcome, size, level):
    """Per team composition: team minus best member (simultaneous bound, cross-fitted point) and
    minus mean member; and per unit, the cross-fitted gaps for the trend (None if a best member
    is not clear)."""
    from .._kernels.distributions import t_ppf, t_sf

    solos = frame[solo_columns].apply(pd.to_numeric, errors="coerce")
    teams = frame[frame[size] > 1]
    if teams.empty:
        return pd.DataFrame(), None, []
    notes, rows, per_unit_rows, all_clear = [], [], [], True
    composition = solos.loc[teams.index].notna().apply(lambda row: tuple(np.flatnonzero(row.to_numpy())), axis=1)
    for members, part in teams.groupby(composition, sort=False):
        columns = [solo_columns[i] for i in members]
        if not columns:
            raise InputError("a team row with no member's solo outcome")
        cells = pd.concat([part[["_unit", outcome]], solos.loc[part.index, columns]], axis=1).groupby("_unit").mean()
        k, m = len(cells), len(columns)
        if k < 2:
            raise InputError(f"team of {', '.join(map(str, columns))}: evaluated on {k} unit; an interval needs two")
        team = cells[outcome].to_numpy()
        member = cells[columns].to_numpy()
        differences = team[:, None] - member                                  # units x members
        means, ses = differences.mean(axis=0), differences.std(axis=0, ddof=1) / math.sqrt(k)
        # team - best = min over members of (team - member).  Its lower bound needs no
        # correction: the best member's own lower bound is below it, and the minimum of the
        # lower bounds is below that.  Its upper bound fails if any member's upper bound falls
        # short, so the upper bounds share the error (Bonferroni over the members).
        lower_quantile = t_ppf(0.5 + level / 2.0, k - 1)
        upper_quantile = t_ppf(1.0 - (1.0 - level) / (2.0 * m), k - 1)
        low = float(np.min(means - lower_quantile * ses))
        high = float(np.min(means + upper_quantile * ses))
        crossed = _cross_fitted(team, member)
        point = float(np.clip(np.mean(crossed), low, high))
        mean_member = team - member.mean(axis=1)
        half = t_ppf(0.5 + level / 2.0, k - 1) * mean_member.std(ddof=1) / math.sqrt(k)
        top = int(np.argmax(member.mean(axis=0)))
        clear = True
        for j in range(m):
            if j == top:
                continue
            edge = member[:, top] - member[:, j]
            se = edge.std(ddof=1) / math.sqrt(k)
            clear &= bool(se > 0 and t_sf(edge.mean() / se, k - 1) < (1.0 - level) / max(m - 1, 1))
        all_clear &= clear
        if clear:
            # one member is shown best: the plain paired interval for it (a simultaneous bound
            # over members that are shown worse would only widen it - 98% instead of 95%)
            single = t_ppf(0.5 + level / 2.0, k - 1) * ses[top]
            low, high = float(means[top] - single), float(means[top] + single)
            point = float(means[top])
        best_solo = float(member[:, top].mean())
        rows.append({"team_size": float(part[size].iloc[0]), "members": ", ".join(map(str, columns)), "units": k,
                     "gap_best": point, "gap_best_low": low, "gap_best_high": high,
                     "relative": point / abs(best_solo) if best_solo != 0 else math.nan,
                     "gap_mean": float(mean_member.mean()), "gap_mean_low": float(mean_member.mean() - half),
                     "gap_mean_high": float(mean_member.mean() + half), "best_member": str(columns[top]),
                     "best_clear": clear})
        per_unit_rows += [{"_unit": unit, "team_size": float(part[size].iloc[0]), "gap_best": gap}
                          for unit, gap in zip(cells.index, crossed)]
    if not all_clear:
        notes.append("a team's best member is not clear (its solo outcome is not shown above every other "
                     "member's): the gap's trend with team size is not measured, as which member looks best could "
                     "change with size and pass for a trend; the per-size intervals cover whichever member is best")
    return pd.DataFrame(rows), (pd.DataFrame(per_unit_rows) if all_clear else None), notes


def _cross_fitted(team: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Per unit, team minus the member that is best on the other half of the units (units
    alternate between halves)."""
    k = len(team)
    half = np.arange(k) % 2
    gaps = np.empty(k)
    for fold in (0, 1):
        here, other = half == fold, half != fold
        chooser = member[other] if other.any() else member[here]
        best = int(np.argmax(chooser.mean(axis=0)))
        gaps[here] = team[here] - member[here, best]
    return gaps


def _size_one_gaps(frame, outcome, size, level):
    """Teams of copies of one agent: each team row minus the size-1 outcome on the same unit."""
    from .._kernels.distributions import t_ppf

    solo = frame[frame[size] == 1].groupby("_unit")[outcome].mean()
    if solo.empty:
        raise InputError(f"no solo outcomes: give the members' solo outcomes in columns (solos=), or rows with "
                         f"{size} = 1 on the same units")
    teams = frame[(frame[size] > 1) & frame["_unit"].isin(solo.index)]
    per_unit = pd.DataFrame({"_unit": teams["_unit"], "team_size": teams[size].astype(float),
                             "gap_best": teams[outcome] - teams["_unit"].map(solo)})
    per_unit = per_unit.groupby(["_unit", "team_size"], as_index=False)["gap_best"].mean()
    rows = []
    for team_size, part in per_unit.groupby("team_size"):
        values = part["gap_best"].to_numpy()
        k = len(values)
        mean = float(values.mean())
        half = t_ppf(0.5 + level / 2.0, k - 1) * values.std(ddof=1) / math.sqrt(k) if k >= 2 else math.nan
        reference = float(solo.loc[part["_unit"]].mean())
        rows.append({"team_size": float(team_size), "members": "", "units": k, "gap_best": mean,
                     "gap_best_low": mean - half, "gap_best_high": mean + half,
                     "relative": mean / abs(reference) if reference != 0 else math.nan, "gap_mean": mean,
                     "gap_mean_low": mean - half, "gap_mean_high": mean + half, "best_member": "", "best_clear": True})
    return pd.DataFrame(rows), per_unit


def _trend(gaps, level):
    """The mean over units of each unit's slope of the gap on team size (units at >= 2 sizes)."""
    from .._kernels.distributions import t_ppf, t_sf

    if gaps is None:
        return math.nan, (math.nan, math.nan), math.nan, 0, None
    per_cell = gaps.groupby(["_unit", "team_size"])["gap_best"].mean().reset_index()
    slopes = []
    for _, part in per_cell.groupby("_unit"):
        if part["team_size"].nunique() >= 2:
            x = part["team_size"].to_numpy(dtype=float)
            y = part["gap_best"].to_numpy(dtype=float)
            slopes.append(float(np.polyfit(x, y, 1)[0]))
    if per_cell["team_size"].nunique() < 2:
        return math.nan, (math.nan, math.nan), math.nan, 0, None
    if len(slopes) < 3:
        return math.nan, (math.nan, math.nan), math.nan, len(slopes), (
            f"{len(slopes)} unit(s) evaluated at two or more team sizes; the trend with size needs at least 3")
    slopes = np.array(slopes)
    k = len(slopes)
    mean, se = float(slopes.mean()), float(slopes.std(ddof=1) / math.sqrt(k))
    if se == 0:
        return mean, (mean, mean), 0.0 if mean != 0 else 1.0, k, None
    half = t_ppf(0.5 + level / 2.0, k - 1) * se
    p = 2.0 * t_sf(abs(mean) / se, k - 1)
    return mean, (mean - half, mean + half), float(p), k, None


def _verdict(by_size, slope, slope_ci, slope_p):
    below = by_size[by_size["gap_best_high"] < 0]
    above = by_size[by_size["gap_best_low"] > 0]
    trend = ""
    if math.isfinite(slope) and (slope_ci[0] > 0 or slope_ci[1] < 0):
        way = "grew" if slope < 0 else "shrank"
        trend = f"; the shortfall {way} by {abs(slope):.3g} per added member (p = {slope_p:.2g})"
        if slope > 0:
            trend = f"; the gap rose by {slope:.3g} per added member (p = {slope_p:.2g})"
    if len(below) and not len(above):
        sizes = ", ".join(f"{s:g}" for s in below["team_size"])
        worst = below.iloc[below["gap_best"].argmin()]
        return "negative synergy", (f"teams of {sizes} fell short of their best member (at {worst.team_size:g}: "
                                    f"{worst.gap_best:.3g} [{worst.gap_best_low:.3g}, {worst.gap_best_high:.3g}], "
                                    f"{_percent(worst.relative)}){trend}")
    if len(above) and not len(below):
        sizes = ", ".join(f"{s:g}" for s in above["team_size"])
        return "positive synergy", f"teams of {sizes} beat their best member{trend}"
    if len(above) and len(below):
        return "mixed", f"some team sizes beat their best member and others fall short{trend}"
    return "not shown", f"no team size is shown to differ from its best member{trend}"
