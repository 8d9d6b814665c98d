"""A sweep summarised by setting: across-seed intervals, the share converged, regime shares."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..compare import compare_runs


def by_setting(results: list, by: list, *, metrics=None, n_boot: int = 2000, random_state=0) -> pd.DataFrame:
    """One row per (setting, metric): runs, how many failed, how many diverged, share converged,
    the across-seed mean (Student's t interval) / median / IQM (bootstrap intervals) of the
    runs' post-warm-up means, and the share of runs in each SWARM regime.  A run whose metric
    diverged counts as not converged and is left out of the scores: its mean is of the values
    before it diverged, not the run's."""
    rows = []
    ok = [r for r in results if r["status"] == "ok"]
    keys = sorted({tuple(_param(r, p) for p in by) for r in results}, key=lambda k: tuple(map(str, k)))
    names = metrics or sorted({m for r in ok for m in r["metrics"]})
    for key in keys:
        members = [r for r in results if tuple(_param(r, p) for p in by) == key]
        good = [r for r in members if r["status"] == "ok"]
        regimes = [r["regime"]["regime"] for r in good if r.get("regime")]
        base = {**dict(zip(by, key)), "runs": len(members), "failed": len(members) - len(good)}
        for label in ("cooperative", "contested", "collapse"):
            base[f"share_{label}"] = (regimes.count(label) / len(regimes)) if regimes else None
        for metric in names:
            entries = [r["metrics"][metric] for r in good if metric in r["metrics"]]
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


def _param(result: dict, name: str):
    return result["params"].get(name)
