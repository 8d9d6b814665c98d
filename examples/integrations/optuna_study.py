"""Optuna: tune a learning rate, pruning trials whose curve shows they cannot win.

    pip install 'swarmstats[optuna]'
    python examples/integrations/optuna_study.py

Each trial trains a linear regression by minibatch SGD for 150 steps and reports the squared
error on a fresh sample of 100 validation points after each step: a jittery curve, as
evaluation on a subsample gives.  The swarmstats pruner stops a trial once even the lowest its
loss can still fall by step 150 stays above the best completed trial's level.
"""

import numpy as np
import optuna

from swarmstats.integrations.optuna import pruner

STEPS = 150
rng = np.random.default_rng(0)
weights = rng.normal(size=10)
x_train, x_valid = rng.normal(size=(5000, 10)), rng.normal(size=(5000, 10))
y_train = x_train @ weights + rng.normal(size=5000)
y_valid = x_valid @ weights + rng.normal(size=5000)


def objective(trial):
    rate = trial.suggest_float("learning_rate", 1e-4, 0.5, log=True)
    local = np.random.default_rng(trial.number)
    w = np.zeros(10)
    for step in range(STEPS):
        batch = local.integers(0, 5000, 32)
        w -= rate * x_train[batch].T @ (x_train[batch] @ w - y_train[batch]) / 32
        sample = local.integers(0, 5000, 100)
        loss = float(np.mean((x_valid[sample] @ w - y_valid[sample]) ** 2))
        trial.report(loss, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return loss


optuna.logging.set_verbosity(optuna.logging.WARNING)
swarm = pruner(total_steps=STEPS)
study = optuna.create_study(direction="minimize", pruner=swarm,
                            sampler=optuna.samplers.RandomSampler(seed=0))
study.optimize(objective, n_trials=20)

pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
run = sum(len(t.intermediate_values) for t in study.trials)
print(f"stopped {len(pruned)} of 20 trials early; {1 - run / (20 * STEPS):.0%} of the steps saved")
print(f"best learning rate {study.best_params['learning_rate']:.3g}, loss {study.best_value:.3f}")
for trial in pruned[:3]:
    print(f"  trial {trial.number} (rate {trial.params['learning_rate']:.2g}): "
          f"{swarm.decisions[trial.number].reason}")
