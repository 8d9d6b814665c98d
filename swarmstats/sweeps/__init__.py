"""Sweeps: analyse hundreds of runs at once, on one machine or a Dask cluster."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._result import Result, fmt, jsonable
from ..errors import InputError
from ..io.runs import name_list
from .aggregate import by_setting, not_logged
from .analyse import RegimeRules, SweepOptions, analyse_run, classify_regime
from .backends import BACKENDS, run_all
from .phase import critical_value, midpoint_rule
from .runs import (
    ENVIRONMENT,
    SETTING,
    RunSpec,
    discover,
    environments_of,
    links_out,
    settings_of,
    worker_notes,
)

CHECKS = ("convergence", "regimes", "describe")


def _known(value) -> bool:
    """A table cell that holds a number: a setting whose every run failed has none, and its
    row's cells read NaN, not None, once the table is a frame."""
    return value is not None and bool(np.isfinite(value))


@dataclass(frozen=True, repr=False)
class SweepResult(Result):
    """Per-run results (``runs``), the summary by setting (``table``) and the phase transition."""

    n_runs: int
    n_failed: int
    by: list
    runs: list
    table: pd.DataFrame
    phase: dict | None = None
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def summary(self) -> str:
        lines = [f"{self.n_runs} runs, {self.n_failed} failed"
                 + (f"; by {', '.join(self.by)}" if self.by else "")]
        for run in self.runs:
            if run["status"] == "error":
                lines.append(f"  FAILED {run['name']}: {run['error']}")
        for row in self.table.to_dict("records"):
            setting = ", ".join(f"{p}={row[p]}" for p in self.by) or "all runs"
            interval = (f" [{fmt(row.get('mean_low'))}, {fmt(row.get('mean_high'))}]"
                        if _known(row.get("mean_low")) else "")
            converged = row.get("share_converged")
            regimes = ", ".join(f"{label} {row[f'share_{label}']:.0%}" for label in
                                ("cooperative", "contested", "collapse")
                                if _known(row.get(f"share_{label}")))
            scored = row["n"] - row.get("diverged", 0)
            gone = f" ({row['diverged']} more diverged, left out)" if row.get("diverged") else ""
            lines.append(f"  {setting}: {row['metric']} mean {fmt(row.get('mean'))}{interval} over "
                         f"{scored} run{'s' if scored != 1 else ''}{gone}; "
                         + (f"{round(converged * row['n'])} of {row['n']} converged"
                            if _known(converged) else "converged n/a")
                         + (f"; {regimes}" if regimes else ""))
        if self.phase:
            p = self.phase
            ci = p["ci"]
            lines.append(f"  collapse begins at {p['parameter']} ~ {fmt(p['logistic'])} "
                         f"[{fmt(ci[0])}, {fmt(ci[1])}] (logistic fit); SWARM's midpoint rule: "
                         f"{fmt(p['midpoint'])}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return jsonable({"n_runs": self.n_runs, "n_failed": self.n_failed, "by": self.by,
                         "runs": self.runs, "table": self.table, "phase": self.phase,
                         "notes": self.notes})

def sweep(runs, *, checks=CHECKS, metrics=None, by=None, group: str | None = None,
          backend: str = "local", workers: int | None = None, scheduler: str | None = None,
          phase: str | None = None, regime_rules: RegimeRules | None = None, format: str | None = None,
          progress: bool | None = None, n_boot: int = 2000, random_state=0) -> SweepResult:
    """Analyse every run of a sweep and summarise it by setting.

    ``runs``: paths (files, globs, directories of run folders), one long file with ``group``
    naming its run column, or a list of :class:`RunSpec`.  Each run gets its convergence
    verdict, regimes and description per metric, and SWARM's regime call when it logs
    acceptance and toxicity; a run that fails is reported with its error, the rest go on.
    ``by``: parameters to group runs by (from ``key=value`` path segments, ``params.json`` or
    constant columns); runs whose logs name different environments (an SB3 monitor header's
    ``env_id``) are always grouped by it as well, with a note; without ``by``, runs whose names
    say they are of several settings (``ppo_seed1``, ``ppo_seed2``, ``sac_seed1``; see
    :func:`~swarmstats.sweeps.runs.settings_of`) are grouped by that ``setting``.  ``phase``: a numeric parameter
    for the collapse transition (both SWARM's midpoint rule and a logistic fit with a bootstrap
    interval).  ``backend``: ``"local"`` (a process pool of ``workers``) or ``"dask"`` (a
    ``LocalCluster``, or the cluster at ``scheduler``); every backend gives the same result.
    """
    for check in checks:
        if check not in CHECKS:
            raise InputError(f"checks must be among {CHECKS}, got {check!r}")
    by = [by] if isinstance(by, str) else list(by or [])
    specs = runs if isinstance(runs, list) and runs and all(isinstance(r, RunSpec) for r in runs) \
        else discover(runs, group=group, format=format, metrics=metrics)
    options = SweepOptions(metrics=tuple(metrics) if metrics else None, checks=tuple(checks),
                           regime_rules=regime_rules or RegimeRules())
    show = sys.stderr.isatty() if progress is None else progress
    settings, told_by = settings_of(specs, told_by=True)
    if settings is not None:  # a parameter the runs can be grouped by (a 'setting' of their own wins)
        specs = [replace(spec, params={SETTING: settings[spec.name], **spec.params}) for spec in specs]
    results = run_all(specs, options, backend=backend, workers=workers, scheduler=scheduler, progress=show)
    notes = links_out(specs) + worker_notes(specs, "the spread between them is not a spread between seeds")
    notes += list(dict.fromkeys(spec.frame.attrs["left_out"] for spec in specs
                                if spec.frame is not None and "left_out" in spec.frame.attrs))
    if settings is not None and not by:
        # "a2c-CartPole-v1" and "dqn-CartPole-v1" read "r mean 300.1 [-2240, 2840] over 2 runs":
        # two algorithms' spread given as a spread between seeds
        by = [SETTING]
        shown = list(dict.fromkeys(settings.values()))
        seeds = ("a run number at a name's end marking a seed of its setting" if told_by == "names" else
                 "the runs that differ only in a seed parameter being its seeds")
        notes.append(f"the runs' {told_by} say they are of {len(shown)} settings ({name_list(shown)}): each is "
                     f"summarised apart, {seeds}; --by PARAM groups them by a parameter instead")
    environments = environments_of(specs)
    if len(environments) > 1 and ENVIRONMENT not in by:
        # ten runs on CartPole, Pong and MountainCar read "r mean 67.69 over 10 runs"
        by = [ENVIRONMENT] + by
        notes.append(f"the runs are of {len(environments)} environments ({', '.join(environments)}; "
                     f"{ENVIRONMENT} from their monitor headers): each is summarised apart, since a "
                     "mean over environments mixes their reward scales")
    for name in by:
        missing = sum(1 for r in results if name not in r["params"])
        if missing:
            notes.append(f"{missing} run(s) have no parameter {name!r}")
    table = by_setting(results, by, metrics=list(metrics) if metrics else None, n_boot=n_boot,
                       random_state=random_state)
    notes += not_logged(results, by, list(metrics) if metrics else None)
    if len(table) and ((table["n"] >= 2) & (table["n"] < 10)).any():
        notes.append("a setting with fewer than 10 runs: its intervals hold their level when the scores are "
                     "not strongly skewed (the mean's is Student's t, the IQM's a percentile interval "
                     "stretched for few runs); the median's is the runs' order statistics, which with fewer "
                     "than 6 runs is their range and holds the median less often than 95% (3 runs: 75%)")
    transition = _phase(results, phase, n_boot, random_state, notes) if phase else None
    return SweepResult(n_runs=len(results), n_failed=sum(r["status"] != "ok" for r in results), by=by,
                       runs=results, table=table, phase=transition, notes=notes)


def _phase(results, parameter, n_boot, random_state, notes) -> dict | None:
    pairs = [(r["params"].get(parameter), r["regime"]["regime"] == "collapse") for r in results
             if r["status"] == "ok" and r.get("regime") and isinstance(r["params"].get(parameter), (int, float))]
    if len(pairs) < 4:
        notes.append(f"phase transition: fewer than 4 runs with {parameter!r} and a regime call")
        return None
    values, collapsed = map(np.array, zip(*pairs))
    estimate = critical_value(values, collapsed, n_boot=n_boot, random_state=random_state)
    if estimate["ci_open"]:
        notes.append(f"phase transition: the interval of the 50% point is open on the {estimate['ci_open']} "
                     f"side{'s' if ' and ' in estimate['ci_open'] else ''}: the swept {parameter!r} values do "
                     "not bound where collapse begins (sweep further that way, or more seeds)")
    return {"parameter": parameter, **estimate,
            "collapse_share": {str(v): float(collapsed[values == v].mean()) for v in np.unique(values)}}


__all__ = ["sweep", "SweepResult", "RunSpec", "RegimeRules", "critical_value", "midpoint_rule",
           "analyse_run", "classify_regime", "BACKENDS"]
