"""A sweep summarised by setting: across-seed intervals, the share converged, regime shares."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..compare import compare_runs


def by_setting(results: list, by: list, *, metrics=None, n_boot: int = 2000, random_state=0) -> pd.DataFrame:
    """One row per (setting, metric): runs, how many failed, how many diverged, share converged,
    the across-seed mean (Student's t interval) / median (order statistics) / IQM (bootstrap) of the
    runs' post-warm-up means, and the share of runs in each SWARM regime.  A run whose metric
    diverged counts as not converged and is left out of the scores: its mean is of the values
    before it diverged, not the run's."""
    rows = []
    names = metrics or _logged(results)
    for key, members, good in _settings(results, by):
        regimes = [r["regime"]["regime"] for r in good if r.get("regime")]
        base = {**dict(zip(by, key)), "runs": len(members), "failed": len(members) - len(good)}
        for label in ("cooperative", "contested", "collapse"):
            base[f"share_{label}"] = (regimes.count(label) / len(regimes)) if regimes else None
        for metric in names:
            entries = [r["metrics"][metric] for r in good if metric in r["metrics"]]
            if good and not entries:
                continue  # a metric this setting's runs do not log (said by not_logged)
            row = {**base, "metric": metric, "n": len(entries),
                   "diverged": sum("diverged_at" in e for e in entries)}
            scores = np.array([e["mean"] for e in entries if e.get("mean") is not None and "diverged_at" not in e],
                              dtype=float)
            row["share_converged"] = (float(np.mean([bool(e.get("converged")) for e in entries]))
                                      if entries else None)
            if len(scores) >= 2:
                # the mean's interval is Student's t (compare_runs): a percentile bootstrap of 2
                # runs is their range, and covered ~50% where it read as 95%
                table = compare_runs(scores, n_boot=n_boot, random_state=random_state).table.iloc[0]
                row.update({k: float(table[k]) for k in ("mean", "mean_low", "mean_high", "median",
                                                         "median_low", "median_high", "iqm", "iqm_low",
                                                         "iqm_high")})
            elif len(scores) == 1:
                row.update(mean=float(scores[0]))
            rows.append(row)
    return pd.DataFrame(rows)


def not_logged(results: list, by: list, metrics=None) -> list:
    """A note for each setting whose analysed runs log none of some metrics the others do (four
    agents printing different fields: "setting=HC does not log Buffer, ε"): its rows leave them
    out, where each read "mean n/a over 0 runs; converged n/a"."""
    names = metrics or _logged(results)
    notes = []
    for key, _, good in _settings(results, by):
        absent = [m for m in names if good and not any(m in r["metrics"] for r in good)]
        if absent:
            setting = ", ".join(f"{p}={v}" for p, v in zip(by, key)) or "all runs"
            notes.append(f"{setting} does not log {', '.join(map(str, absent))}")
    return notes


def _logged(results: list) -> list:
    """The metrics any analysed run logs, by name."""
    return sorted({m for r in results if r["status"] == "ok" for m in r["metrics"]})


def _settings(results: list, by: list) -> list:
    """(the setting's values of ``by``, its runs, those analysed) for each setting, in order."""
    keys = sorted({tuple(_param(r, p) for p in by) for r in results}, key=lambda k: tuple(map(str, k)))
    out = []
    for key in keys:
        members = [r for r in results if tuple(_param(r, p) for p in by) == key]
        out.append((key, members, [r for r in members if r["status"] == "ok"]))
    return out


def _param(result: dict, name: str):
    return result["params"].get(name)
