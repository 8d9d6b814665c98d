"""Keras 3: a ``Callback`` reading the ``logs`` Keras passes after each batch or epoch.

Keras 3 runs on several backends (JAX, TensorFlow, PyTorch); the callback sees only the
``logs`` dictionary, so it works with any of them (tested on the PyTorch backend, on the CPU).
"""

from __future__ import annotations

from . import AUTO, check_budget, log_and_check, monitor_for, plan_budget, require


def callback(monitor=None, *, stop: bool = True, every: str = "epoch", budget=AUTO, **monitor_options):
    """A Keras ``Callback`` that logs Keras' ``logs`` into a Monitor after every epoch
    (``every="epoch"``, the default: the epoch's metrics with the validation ones; the step is
    the epoch) or training batch (``every="batch"``; the step counts batches across epochs)
    and, with ``stop=True``, sets ``model.stop_training`` once the Monitor says so.

    Keras' batch logs hold the *running mean* of each metric since the epoch began, not the
    batch's own value: a batch-level series is a saw-tooth that restarts every epoch, which
    the convergence check rightly reads as persistent.  Epoch values are the natural series.

    ``budget`` is the step the run ends at: with "auto" (the default) it is read from the
    ``epochs`` (and, per batch, ``steps``) given to ``fit`` when training starts, so a stop
    means that training on to the end would change the metric's mean by less than the tolerance;
    None claims flatness only over the next stretch as long as the part kept (stops sooner; a
    slow climb may be stopped).  A budget set on a given Monitor is kept.

        model.fit(x, y, callbacks=[callback(metrics=["loss"])])
    """
    if every not in ("batch", "epoch"):
        raise ValueError(f"every must be 'batch' or 'epoch', got {every!r}")
    check_budget(budget)
    base = require("keras", "keras").callbacks.Callback
    tracker = monitor_for(monitor, monitor_options)

    class SwarmstatsCallback(base):
        """Feeds Keras' logged metrics to a swarmstats Monitor (``.monitor``)."""

        def __init__(self):
            super().__init__()
            self.monitor = tracker
            self.stop = stop
            self.batches = 0  # training batches seen, across epochs

        def _record(self, step, logs):
            if log_and_check(self.monitor, step, dict(logs or {}), self.stop):
                self.model.stop_training = True

        def on_train_begin(self, logs=None):
            params = self.params or {}
            epochs, per_epoch = params.get("epochs"), params.get("steps")
            if every == "epoch":
                planned = epochs - 1 if epochs else None  # the step is the epoch, from 0
            else:
                planned = epochs * per_epoch - 1 if epochs and per_epoch else None
            plan_budget(self.monitor, budget, planned)

        def on_train_batch_end(self, batch, logs=None):
            if every == "batch":
                self._record(self.batches, logs)
            self.batches += 1

        def on_epoch_end(self, epoch, logs=None):
            if every == "epoch":
                self._record(epoch, logs)

    return SwarmstatsCallback()
