"""Each trainer adapter against the real library: a few training steps with the callback
attached; the callback sees the metrics and stops the run.  The libraries come from the
[integrations] extra (CPU torch: pip install torch==2.13.0 first); absent, the tests skip."""

import importlib
import subprocess
import sys

import numpy as np
import pytest

from swarmstats import Monitor


def test_importing_swarmstats_imports_no_trainer():
    code = ("import sys, swarmstats, swarmstats.integrations.hf, swarmstats.integrations.lightning, "
            "swarmstats.integrations.sb3, swarmstats.integrations.tune, swarmstats.integrations.keras, "
            "swarmstats.integrations.optuna; "
            "print([m for m in ('torch', 'transformers', 'lightning', 'stable_baselines3', 'ray', 'keras', "
            "'optuna') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_library_gives_the_install_hint(monkeypatch):
    from swarmstats.integrations import MissingDependency, hf

    real = importlib.import_module

    def fake(name, *args):
        if name.startswith("transformers"):
            raise ImportError("no")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(MissingDependency, match=r"pip install 'swarmstats\[hf\]'"):
        hf.callback(metrics=["loss"])


def _stationary_monitor(metric):
    # a stationary metric is shown flat within a few hundred values on the default schedule
    # (checks at 100, 150, 225, ... values, alpha spent over them): the run must stop early.
    # A frozen model learns nothing, which by default is no reason to stop (no improvement
    # shown): these tests are of the stop's plumbing, so they stop on the level itself
    return Monitor(metrics=[metric], min_steps=30, require_improvement=False)


def test_hugging_face_trainer_callback_sees_logs_and_stops(tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from swarmstats.integrations.hf import callback

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 1)

        def forward(self, x, labels=None):
            out = self.linear(x).squeeze(-1)
            return {"loss": torch.nn.functional.mse_loss(out, labels), "logits": out}

    class Data(torch.utils.data.Dataset):
        def __init__(self):
            generator = torch.Generator().manual_seed(0)
            self.x = torch.randn(512, 4, generator=generator)
            self.y = torch.randn(512, generator=generator)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return {"x": self.x[i], "labels": self.y[i]}

    cb = callback(_stationary_monitor("loss"))
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path), max_steps=2000, logging_steps=1, learning_rate=0.0,
        per_device_train_batch_size=8, report_to=[], save_strategy="no", use_cpu=True,
        disable_tqdm=True, seed=0)
    trainer = transformers.Trainer(model=Tiny(), args=args, train_dataset=Data(), callbacks=[cb])
    trainer.train()
    assert cb.monitor.status.metrics["loss"]["n"] >= 30
    assert cb.monitor.budget == 2000  # read from the Trainer: flat up to max_steps
    assert trainer.state.global_step < 2000  # stopped by the callback


def test_lightning_callback_sees_metrics_and_stops():
    torch = pytest.importorskip("torch")
    lightning = pytest.importorskip("lightning")
    from swarmstats.integrations.lightning import callback

    class Module(lightning.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.layer(x).squeeze(-1), y)
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.0)

    generator = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(256, 4, generator=generator),
                                          torch.randn(256, generator=generator))
    # shuffled, so that the frozen model's batch losses are stationary rather than one cycle
    loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True,
                                         generator=torch.Generator().manual_seed(1))
    cb = callback(_stationary_monitor("train_loss"))
    trainer = lightning.Trainer(max_epochs=100, callbacks=[cb], logger=False, enable_checkpointing=False,
                                enable_progress_bar=False, enable_model_summary=False,
                                accelerator="cpu", num_sanity_val_steps=0)
    trainer.fit(Module(), loader)
    assert cb.monitor.status.metrics["train_loss"]["n"] >= 30
    assert cb.monitor.budget == 100 * 32  # max_epochs x batches: the estimated last step
    assert trainer.global_step < 100 * 32  # stopped before the last epoch


_KERAS_RUN = """
import json
import keras
import numpy as np
from swarmstats import Monitor
from swarmstats.integrations.keras import callback

keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x, y = rng.normal(size=(256, 4)).astype("float32"), rng.normal(size=256).astype("float32")
# frozen weights (learning rate 0) behind dropout: each epoch's loss is a fresh draw around one
# level, a stationary series the monitor must stop on (within +-1.0, about 2 of its SDs)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dropout(0.5), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss="mse")
cb = callback(Monitor(metrics=["loss"], min_steps=30, first_check=30, tolerance=1.0, require_improvement=False))
history = model.fit(x, y, batch_size=64, epochs=400, verbose=0, callbacks=[cb])
try:
    callback(every="step")
    refused = False
except ValueError:
    refused = True
print(json.dumps({"backend": keras.backend.backend(), "n": cb.monitor.status.metrics["loss"]["n"],
                  "epochs": len(history.history["loss"]), "stop": cb.monitor.should_stop,
                  "budget": cb.monitor.budget,
                  "refused": refused}))
"""


def test_keras_callback_sees_epoch_losses_and_stops():
    # in a fresh process: Keras reads KERAS_BACKEND once, at its first import, whatever this
    # test process has imported before
    import importlib.util
    import json
    import os
    import subprocess
    import sys

    pytest.importorskip("torch")
    if importlib.util.find_spec("keras") is None:  # not imported here: that would fix its backend
        pytest.skip("keras is not installed")

    done = subprocess.run([sys.executable, "-c", _KERAS_RUN], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "KERAS_BACKEND": "torch"})
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["backend"] == "torch"
    assert outcome["n"] == outcome["epochs"] >= 30
    assert outcome["epochs"] < 400 and outcome["stop"]  # stopped before the last epoch
    assert outcome["budget"] == 399  # the last epoch's step, read from fit(epochs=400)
    assert outcome["refused"]


def test_stable_baselines3_callback_logs_episodes_and_stops():
    pytest.importorskip("torch")
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    from swarmstats.integrations.sb3 import callback

    # a frozen policy on eight environments at once (the usual vectorised set-up: episodes end
    # in any of them, and each is logged): one policy call per eight steps, 36 -> 8 s CPU.  It
    # stops at step 25,488, after ~1,140 episodes, when the mean is shown flat up to the budget
    model = sb3.A2C("MlpPolicy", make_vec_env("CartPole-v1", n_envs=8, seed=0), learning_rate=0.0,
                    n_steps=16, seed=0, device="cpu")
    cb = callback(Monitor(metrics=["episode_reward"], min_steps=30, require_improvement=False))
    model.learn(total_timesteps=50_000, callback=cb)
    report = cb.monitor.status
    # every episode of every environment, none twice
    finished = sum(len(env.get_episode_rewards()) for env in model.env.envs)
    assert report.metrics["episode_reward"]["n"] == finished >= 30
    assert cb.monitor.budget == 50_000  # learn()'s total_timesteps
    assert model.num_timesteps < 50_000  # a frozen policy's returns are stationary: stopped


def test_stable_baselines3_callback_counts_timesteps():
    # its steps are num_timesteps: the reasons say "per 100 timesteps", as check-convergence
    # says of the run's progress.csv (a user's own step_unit wins)
    pytest.importorskip("stable_baselines3")
    from swarmstats.integrations.sb3 import callback

    assert callback().monitor.get_params()["step_unit"] == "timesteps"
    assert callback(step_unit="env steps").monitor.get_params()["step_unit"] == "env steps"


def test_ray_tune_stopper_stops_a_trial(tmp_path):
    tune = pytest.importorskip("ray.tune")
    ray = pytest.importorskip("ray")
    from swarmstats.integrations.tune import stopper

    def trainable(config):
        rng = np.random.default_rng(0)
        for _ in range(2000):
            tune.report({"env_runners": {"episode_return_mean": float(20 + rng.normal())}})

    stop = stopper("env_runners/episode_return_mean", min_steps=30, require_improvement=False)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        tuner = tune.Tuner(trainable, run_config=tune.RunConfig(stop=stop, verbose=0,
                                                                storage_path=str(tmp_path)))
        results = tuner.fit()
    finally:
        ray.shutdown()
    iterations = results[0].metrics["training_iteration"]
    assert 30 <= iterations < 2000


def test_hf_callback_with_trl_grpo_metric_names():
    pytest.importorskip("transformers")
    from types import SimpleNamespace

    from swarmstats.integrations.hf import callback

    cb = callback(metrics=["reward", "rewards/accuracy_reward/mean", "frac_reward_zero_std"],
                  min_steps=30)
    state = SimpleNamespace(global_step=0, is_world_process_zero=True)
    control = SimpleNamespace(should_training_stop=False)
    rng = np.random.default_rng(0)
    for step in range(1, 2000):
        state.global_step = step
        # the reward climbs to 0.6 over 150 steps and holds: learned, then converged
        logs = {"loss": 0.003, "reward": 0.6 * min(step / 150, 1.0) + rng.normal(0, 0.05), "reward_std": 0.2,
                "rewards/accuracy_reward/mean": 0.5 + rng.normal(0, 0.05), "frac_reward_zero_std": 0.375,
                "kl": None, "completions/mean_length": 212.4, "epoch": step / 100}
        cb.on_log(None, state, control, logs=logs)
        if control.should_training_stop:
            break
    report = cb.monitor.status
    assert set(report.metrics) == {"reward", "rewards/accuracy_reward/mean", "frac_reward_zero_std"}
    assert control.should_training_stop and state.global_step < 1999
    other = SimpleNamespace(global_step=5, is_world_process_zero=False)
    before = cb.monitor.calls
    cb.on_log(None, other, control, logs={"reward": 1.0})  # not the main process: ignored
    assert cb.monitor.calls == before


def test_adapters_give_the_monitor_the_run_s_budget_unless_told_otherwise():
    from swarmstats.integrations import check_budget, plan_budget

    monitor = Monitor(metrics=["loss"])
    plan_budget(monitor, "auto", 2000)  # what the trainer plans
    assert monitor.budget == 2000
    plan_budget(monitor, "auto", 5000)  # a budget already set is kept
    assert monitor.budget == 2000
    for budget, planned in ((None, 2000), ("auto", None), ("auto", -1), ("auto", float("inf"))):
        untouched = Monitor(metrics=["loss"])
        plan_budget(untouched, budget, planned)  # no budget wanted, or the host has none
        assert untouched.budget is None
    own = Monitor(metrics=["loss"])
    plan_budget(own, 300, 2000)  # the adapter's number wins over the trainer's plan
    assert own.budget == 300
    horizon = Monitor(metrics=["loss"], horizon=50)
    plan_budget(horizon, "auto", 2000)  # flatness over a horizon was asked for: no budget
    assert horizon.budget is None
    with pytest.raises(ValueError, match="budget"):
        check_budget("soon")
