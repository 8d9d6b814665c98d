"""Ray Tune: stop each trial once its score has converged.

    pip install 'swarmstats[ray]'
    python examples/integrations/ray_tune.py
"""

import numpy as np
import ray
from ray import tune

from swarmstats.integrations.tune import stopper


def trainable(config):
    rng = np.random.default_rng(config["seed"])
    score = 0.0
    for _ in range(1000):
        score += config["lr"] * (1.0 - score) + rng.normal(0, 0.01)  # rises, then plateaus
        tune.report({"score": score})


ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
tuner = tune.Tuner(trainable, param_space={"lr": tune.grid_search([0.02, 0.05]), "seed": 0},
                   run_config=tune.RunConfig(stop=stopper("score", min_steps=100),
                                             verbose=0))
for result in tuner.fit():
    print(f"lr {result.config['lr']}: stopped after {result.metrics['training_iteration']} iterations, "
          f"score {result.metrics['score']:.3f}")
ray.shutdown()
