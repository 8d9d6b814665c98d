"""Regime detection on annotated real series (issue 15): TCPD and real RL training curves.

TCPD (van den Burg & Williams 2020, github.com/alan-turing-institute/TCPD) holds real
univariate series - economics, demography, environment, traffic, quality control - each
annotated by five people.  Its files carry their own licences (some GPL, some not
redistributable), so they are not bundled: pass a checkout, or a bare clone, of the repository.

Scores follow TCPD's protocol: F1 with a 5-point margin (index 0 counted in every set; precision
on the union of the annotators, recall averaged over them) and segmentation covering, averaged
over series.  Baselines: "no change", and ruptures' Binseg(model="l2") with a 3 log n penalty
on the standardised series.  The series are split into two halves by name (alternating), and
each half is scored separately: a default that wins only on one half was tuned to it.

The second set needs no download: the public RL logs of tests/fixtures/real (their provenance
and licences are in that folder's README).  Fourteen training curves are annotated where a reader
of the plotted curve sees its behaviour change - a climb starting, a jump, a plateau reached, a
collapse - by one annotator (a developer of this project, from plots of the curves; not blind to
the detector, whose outputs these curves had already been checked against in
tests/test_real_logs.py), so they are scored with TCPD's protocol at a margin of 2% of the
length (at least 5 points: a take-off spans tens to hundreds of episodes).  Four agents that were
evaluated frozen have no change by construction: every change reported on them is false.

    python benchmarks/regimes_real.py [PATH_TO_TCPD] [--verbose]
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


REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"

#: (file, metric, where a reader sees the curve change), one annotator
TRAINING_CURVES = [
    ("sb3/dqn-MountainCar-v0.monitor.csv", "r", [205]),  # -200 until the climb starts
    ("sb3/a2c-Pong-v4.monitor.csv", "r", [240, 285]),  # the rise from -20 starts; the plateau near +18
    ("sb3/ppo-Pong-v4.monitor.csv", "r", [55, 140]),  # the rise from -20 starts; the cap of 21 reached
    ("sb3/ddpg-Pendulum-v1.monitor.csv", "r", [57, 68]),  # the jump from ~-1,300 starts and ends
    ("sb3/a2c-CartPole-v1.monitor.csv", "r", [20, 60, 94]),  # learning; the collapse; the 500 cap held
    ("sb3/dqn-Acrobot-v1.monitor.csv", "r", [12, 60]),  # out of the first dip; the plateau near -90
    ("sb3/ppo-Pendulum-v1", "r", [80, 270]),  # four workers as one run: the climb starts; the plateau
    ("sb3/sac-LunarLanderContinuous-v2.monitor.csv", "r", [125]),  # the jump to ~200
    ("sb3/a2c-Walker2DBulletEnv-v0.monitor.csv", "r", [100, 490]),  # the climb starts; falls grow common
    ("baselines/gail-ppo-progress.csv", "mean 100 episode reward", [7]),  # the climb to ~195 ends
    ("sb3-long/td3-Humanoid-v3.monitor.csv", "r", [3450, 3750]),  # the take-off from ~500 to ~5,000
    ("sb3-long/ddpg-HopperBulletEnv-v0.monitor.csv", "r", [1000, 1450, 1750]),  # climb; jump; plateau
    ("sb3-long/qrdqn-Breakout-v4.monitor.csv", "r", [3300, 4650, 5400]),  # slow start; steep; plateau
    ("sb3-long/ppo-Hopper-v3.monitor.csv", "r", [2100, 9800]),  # the early bursts end; the late climb
]
#: agents evaluated frozen: stationary by construction
FROZEN_AGENTS = ["sb3/zoo-benchmark-ppo-LunarLander-v2.monitor.csv", "sb3-eval/trpo-Acrobot-v1.monitor.csv",
                 "sb3-eval/her-FetchReach-v1.monitor.csv", "sb3-eval/tqc-PandaStack-v1.monitor.csv"]


def _reward(path: str, metric: str) -> np.ndarray:
    from swarmstats import read_log

    log = read_log(REAL / path)
    values = log.loc[log["metric"] == metric, "value"].to_numpy(float)
    return values[np.isfinite(values)]


def read_training_curves() -> dict:
    """{name: (series, [the one annotation])}, as read_tcpd."""
    return {path.split("/")[-1].removesuffix(".monitor.csv"): (_reward(path, metric), [where])
            for path, metric, where in TRAINING_CURVES}


def score(method, series: dict, verbose: bool = False, margin=lambda n: 5) -> tuple[float, float]:
    f1s, covers = [], []
    for name, (y, annotated) in series.items():
        n = len(y)
        predicted = sorted({int(c) for c in method(y) if 0 < c < n})
        truth = [[a for a in ann if 0 < a < n] for ann in annotated]
        f1s.append(f1_score(truth, predicted, margin=margin(n), count_start=True).f1)
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


def rl_margin(n: int) -> int:
    return max(5, round(0.02 * n))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tcpd", type=Path, nargs="?", help="a TCPD checkout or bare clone")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    curves = read_training_curves()
    print(f"{len(curves)} real RL training curves, annotated (margin: 2% of the length, at least 5 points)")
    for label, method in METHODS.items():
        verbose = args.verbose and label.startswith("swarmstats default")
        f1, cover = score(method, curves, verbose=verbose, margin=rl_margin)
        false = [len([c for c in method(_reward(path, "r")) if 0 < c]) for path in FROZEN_AGENTS]
        print(f"{label:30s} F1 {f1:.3f}  covering {cover:.3f}   "
              f"changes on the {len(FROZEN_AGENTS)} frozen agents: {false}")
    if args.tcpd is None:
        return
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
