"""Hugging Face ``Trainer`` (and TRL's trainers): a ``TrainerCallback`` fed from ``on_log``."""

from __future__ import annotations

from . import AUTO, check_budget, log_and_check, monitor_for, plan_budget, require


def callback(monitor=None, *, stop: bool = True, budget=AUTO, **monitor_options):
    """A ``transformers.TrainerCallback`` that logs every ``on_log`` dict into a Monitor and,
    with ``stop=True``, sets ``control.should_training_stop`` once it says so.

    The step is ``state.global_step`` (it is not a key of the logs); only the main process
    acts.  TRL's GRPO names (``reward``, ``rewards/<f>/mean``, ``frac_reward_zero_std``, ``kl``
    logged as None ...) pass through unchanged.

    ``budget`` is the step the run ends at: with "auto" (the default) it is read from the
    Trainer's ``state.max_steps`` when training starts, so a stop means that training on to the
    end would change the metric's mean by less than the tolerance; None claims flatness only
    over the next stretch as long as the part kept (stops sooner; a slow climb may be stopped).
    A budget set on a given Monitor is kept.

        trainer = Trainer(..., callbacks=[callback(metrics=["loss"])])
    """
    transformers = require("transformers", "hf")
    check_budget(budget)
    tracker = monitor_for(monitor, monitor_options)

    class SwarmstatsCallback(transformers.TrainerCallback):
        """Feeds the Trainer's logs to a swarmstats Monitor (``.monitor``)."""

        def __init__(self):
            self.monitor = tracker
            self.stop = stop

        def on_train_begin(self, args, state, control, **kwargs):
            plan_budget(self.monitor, budget, state.max_steps)
            return control

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not logs or not state.is_world_process_zero:
                return control
            if log_and_check(self.monitor, state.global_step, logs, self.stop):
                control.should_training_stop = True
            return control

    return SwarmstatsCallback()
