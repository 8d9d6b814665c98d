"""The Optuna pruner against Optuna's MedianPruner on the same simulated studies.

Each study: 20 trials of a random search (Optuna's RandomSampler, seeded, so both pruners see
the same configurations and the same noise), 200 reports each (``scenarios.tuning_curve``).
Printed per design and noise level: the share of all steps saved, and in how many studies the
trial that would have ended best (the highest true final value) was pruned; for the default
pruner, for it with ``median_rule=True``, and for MedianPruner (Optuna's defaults).

    python benchmarks/calibration_pruner.py [studies]
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import TUNING_RANGES, tuning_curve  # noqa: E402

TRIALS, STEPS = 20, 200


def run_study(seed, make_pruner, design="learning_rate", sd=0.25, trials=TRIALS, steps=STEPS,
              direction="maximize"):
    """One study; returns (was the eventual best trial pruned, share of steps saved, study)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    low, high = TUNING_RANGES[design]
    finals, ran = {}, {}
    sign = 1.0 if direction == "maximize" else -1.0

    def objective(trial):
        x = trial.suggest_float("x", low, high)
        curve, finals[trial.number] = tuning_curve(design, x, steps, sd,
                                                   np.random.default_rng([seed, trial.number]))
        for step in range(steps):
            trial.report(sign * float(curve[step]), step)
            ran[trial.number] = step + 1
            if trial.should_prune():
                raise optuna.TrialPruned()
        return sign * float(curve[-10:].mean())

    study = optuna.create_study(direction=direction, pruner=make_pruner(),
                                sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(objective, n_trials=trials)
    best = max(finals, key=finals.get)
    return ran[best] < steps, 1.0 - sum(ran.values()) / (trials * steps), study


def compare(studies, design, sd, first_seed=0):
    import optuna

    from swarmstats.integrations.optuna import pruner

    rows = {}
    for name, make in (("swarmstats", lambda: pruner(total_steps=STEPS)),
                       ("+ median_rule", lambda: pruner(total_steps=STEPS, median_rule=True)),
                       ("MedianPruner", optuna.pruners.MedianPruner)):
        runs = [run_study(first_seed + seed, make, design, sd)[:2] for seed in range(studies)]
        rows[name] = (sum(pruned for pruned, _ in runs), float(np.mean([saved for _, saved in runs])))
    return rows


def main(studies=60):
    print(f"{studies} studies x {TRIALS} trials x {STEPS} reports, AR(0.5) noise")
    print(f"{'design':<14} {'noise SD':>8} {'pruner':<13} {'steps saved':>11} {'best pruned':>14}")
    for design in ("learning_rate", "crossing"):
        for sd in (0.25, 0.5):
            for name, (pruned, saved) in compare(studies, design, sd).items():
                print(f"{design:<14} {sd:>8} {name:<13} {saved:>11.1%} {pruned:>6}/{studies} "
                      f"({pruned / studies:.0%})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
