"""PyTorch Lightning: a ``Callback`` reading ``trainer.callback_metrics``."""

from __future__ import annotations

from . import (
    AUTO,
    MissingDependency,
    check_budget,
    log_and_check,
    monitor_for,
    plan_budget,
    require,
)


def _callback_base():
    try:
        return require("lightning.pytorch", "lightning").Callback
    except MissingDependency:
        return require("pytorch_lightning", "lightning").Callback  # the legacy import path


def callback(monitor=None, *, stop: bool = True, every: str = "batch", budget=AUTO, **monitor_options):
    """A Lightning ``Callback`` that logs ``trainer.callback_metrics`` into a Monitor after every
    training batch (``every="batch"``) or validation epoch (``every="validation"``) and, with
    ``stop=True``, sets ``trainer.should_stop`` once the Monitor says so.  Only global rank
    zero acts; the step is ``trainer.global_step``.

    ``budget`` is the step the run ends at: with "auto" (the default) it is read from the
    Trainer's ``max_steps`` (or ``estimated_stepping_batches`` when only epochs are set) when
    training starts, so a stop means that training on to the end would change the metric's mean
    by less than the tolerance; None claims flatness only over the next stretch as long as the
    part kept (stops sooner; a slow climb may be stopped).  A budget set on a given Monitor is
    kept.

        trainer = L.Trainer(callbacks=[callback(metrics=["train_loss"])])
    """
    if every not in ("batch", "validation"):
        raise ValueError(f"every must be 'batch' or 'validation', got {every!r}")
    check_budget(budget)
    base = _callback_base()
    tracker = monitor_for(monitor, monitor_options)

    class SwarmstatsCallback(base):
        """Feeds Lightning's logged metrics to a swarmstats Monitor (``.monitor``)."""

        def __init__(self):
            super().__init__()
            self.monitor = tracker
            self.stop = stop

        def _record(self, trainer):
            if not trainer.is_global_zero:
                return
            if log_and_check(self.monitor, trainer.global_step, dict(trainer.callback_metrics), self.stop):
                trainer.should_stop = True

        def on_train_start(self, trainer, pl_module):
            plan_budget(self.monitor, budget, _planned_steps(trainer))

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            if every == "batch":
                self._record(trainer)

        def on_validation_epoch_end(self, trainer, pl_module):
            if every == "validation":
                self._record(trainer)

    return SwarmstatsCallback()


def _planned_steps(trainer):
    """The global step the run ends at: ``max_steps``, else the estimate from the epochs."""
    if trainer.max_steps is not None and trainer.max_steps > 0:
        return trainer.max_steps
    try:
        return float(trainer.estimated_stepping_batches)  # inf when the epochs are unbounded
    except Exception:  # the estimate needs the dataloaders; without it there is no budget
        return None
