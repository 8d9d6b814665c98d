"""Write examples/data/sb3-stdout.txt: what a Stable-Baselines3 run prints, saved as it is.

PPO learning CartPole for 25,600 timesteps (100 rollouts of 256 steps, an evaluation of 10
episodes every 2,560), run with ``verbose=1`` and no log file configured: the printed tables are
all the run leaves behind, which ``swarmstats check-convergence examples/data/sb3-stdout.txt``
reads as the progress table SB3 would have written.  Needs stable-baselines3 (the
``integrations`` extra); the fps and time columns differ from one run to the next.

    python examples/make_example_sb3_stdout.py > examples/data/sb3-stdout.txt
"""

import argparse

import gymnasium as gym
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import EvalCallback

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=100, help="rollouts of 256 timesteps (default 100)")
    args = parser.parse_args()
    model = PPO("MlpPolicy", "CartPole-v1", n_steps=256, batch_size=64, n_epochs=4, seed=7, verbose=1)
    evaluation = EvalCallback(gym.make("CartPole-v1"), eval_freq=2560, n_eval_episodes=10, verbose=1)
    model.learn(total_timesteps=256 * args.rollouts, callback=evaluation)
