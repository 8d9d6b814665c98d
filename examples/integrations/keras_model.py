"""Keras 3 (PyTorch backend, CPU): stop when the epoch loss has converged.

    pip install torch==2.13.0 'swarmstats[keras]'
    KERAS_BACKEND=torch python examples/integrations/keras_model.py
"""

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # before keras is imported

import keras  # noqa: E402
import numpy as np  # noqa: E402

from swarmstats.integrations.keras import callback  # noqa: E402

keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(2048, 4)).astype("float32")
y = (x @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=2048)).astype("float32")

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01), loss="mse")
# epoch losses; "converged" means flat within +-0.005 (the loss's own units) over the run
swarm = callback(metrics=["loss"], min_steps=30, first_check=30, tolerance=0.005)
history = model.fit(x, y, batch_size=64, epochs=300, verbose=0, callbacks=[swarm])
print(swarm.monitor.status.summary())
print(f"stopped after {len(history.history['loss'])} of 300 epochs")
