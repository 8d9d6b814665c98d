"""Watch a metric while training: ConvergenceMonitor, cheap enough for every step.

    python examples/streaming_monitor.py
"""

import numpy as np

import swarmstats

rng = np.random.default_rng(1)
monitor = swarmstats.ConvergenceMonitor(tolerance=0.02)
previous = None
for step in range(5000):
    # a stand-in for the trainer's reward: a transient, then a noisy plateau
    reward = 0.7 - 0.4 * np.exp(-step / 300) + rng.normal(0, 0.05)
    state = monitor.update(reward)
    if state.verdict != previous:
        print(f"step {step:5d}: {state.verdict}")
        previous = state.verdict
    if state.converged and step > 2000:
        print(f"stop at step {step}: {monitor.last_result.main_reason}")
        break
