"""Stable-Baselines3: stop when episode returns have converged.

    pip install torch==2.13.0 'swarmstats[sb3]'
    python examples/integrations/sb3_agent.py
"""

import stable_baselines3 as sb3

from swarmstats.integrations.sb3 import callback

model = sb3.PPO("MlpPolicy", "CartPole-v1", n_steps=256, seed=0, device="cpu", verbose=0)
swarm = callback(min_steps=100)
model.learn(total_timesteps=10_000, callback=swarm)  # still learning: no stop is right
print(swarm.monitor.status.summary())
print(f"stopped at {model.num_timesteps} of 10000 timesteps")
