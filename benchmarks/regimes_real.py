"""Regime detection on annotated real series (issue 15): the Turing Change Point Dataset.

TCPD (van den Burg & Williams 2020, github.com/alan-turing-institute/TCPD) holds real
univariate series - economics, demography, environment, traffic, quality control - each
annotated by five people.  Its files carry their own licences (some GPL, some not
redistributable), so they are not bundled: pass a checkout, or a bare clone, of the repository.

Scores follow TCPD's protocol: F1 with a 5-point margin (index 0 counted in every set; precision
on the union of the annotators, recall averaged over them) and segmentation covering, averaged
over series.  Baselines: "no change", and ruptures' Binseg(model="l2") with a 3 log n penalty
on the standardised series.  The series are split into two halves by name (alternating), and
each half is scored separately: a default that wins only on one half was tuned to it.

    python benchmarks/regimes_real.py PATH_TO_TCPD [--verbose]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import warnings
from pathlib import Path

import numpy as np

from swarmstats import detect_regimes
from swarmstats.regimes.scoring import covering, f1_score


def read_tcpd(root: Path) -> dict:
    """{name: (series, [annotations of each annotator])} for the univariate series present."""
    def text(path):
        if (root / path).exists():
            return (root / path).read_text()
        return subprocess.run(["git", "--git-dir", str(root), "show", f"HEAD:{path}"], check=True,
                              capture_output=True, text=True).stdout

    annotations = json.loads(text("annotations.json"))
    series = {}
    for name in sorted(annotations):
        try:
            data = json.loads(text(f"datasets/{name}/{name}.json"))
        except (subprocess.CalledProcessError, FileNotFoundError):
            continue  # a series TCPD downloads at build time; not in the repository
        if data["n_dim"] != 1:
            continue
        y = np.array([np.nan if v is None else v for v in data["series"][0]["raw"]], dtype=float)
        if np.isnan(y).any():  # interpolated, as TCPD's wrappers do for methods without NaN support
            index = np.arange(len(y))
            y = np.interp(index, index[~np.isnan(y)], y[~np.isnan(y)])
        series[name] = (y, [sorted(set(a)) for a in annotations[name].values()])
    return series


def score(method, series: dict, verbose: bool = False) -> tuple[float, float]:
    f1s, covers = [], []
    for name, (y, annotated) in series.items():
        n = len(y)
        predicted = sorted({int(c) for c in method(y) if 0 < c < n})
        truth = [[a for a in ann if 0 < a < n] for ann in annotated]
        f1s.append(f1_score(truth, predicted, margin=5, count_start=True).f1)
        covers.append(covering(truth, predicted, n))
        if verbose:
            print(f"  {name:22s} n={n:4d} F1 {f1s[-1]:.3f} cover {covers[-1]:.3f} changes {predicted}")
    return float(np.mean(f1s)), float(np.mean(covers))


def binseg_l2(y):
    import ruptures as rpt

    z = (y - y.mean()) / y.std()
    return rpt.Binseg(model="l2").fit(z).predict(pen=3 * np.log(len(z)))[:-1]


METHODS = {
    "no change": lambda y: [],
    "ruptures Binseg l2, 3 log n": binseg_l2,
    "swarmstats default (trend)": lambda y: detect_regimes(y).changepoints,
    "swarmstats model='mean'": lambda y: detect_regimes(y, model="mean").changepoints,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tcpd", type=Path, help="a TCPD checkout or bare clone")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    series = read_tcpd(args.tcpd)
    names = sorted(series)
    halves = {"half A": {k: series[k] for k in names[0::2]}, "half B": {k: series[k] for k in names[1::2]}}
    print(f"TCPD: {len(series)} univariate series present "
          f"(targets with defaults: F1 >= 0.75, covering >= 0.70)")
    for label, method in METHODS.items():
        overall = score(method, series, verbose=args.verbose and label.startswith("swarmstats default"))
        parts = "  ".join(f"{h}: {score(method, s)[0]:.3f} / {score(method, s)[1]:.3f}" for h, s in halves.items())
        print(f"{label:30s} F1 {overall[0]:.3f}  covering {overall[1]:.3f}   ({parts})")


if __name__ == "__main__":
    main()
