"""Hugging Face Trainer (TRL trainers too): stop when the logged loss has converged.

    pip install torch==2.13.0 'swarmstats[hf]'
    python examples/integrations/hf_trainer.py
"""

import tempfile

import torch
import transformers

from swarmstats.integrations.hf import callback


class Regressor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 1)

    def forward(self, x, labels=None):
        out = self.linear(x).squeeze(-1)
        return {"loss": torch.nn.functional.mse_loss(out, labels), "logits": out}


class Data(torch.utils.data.Dataset):
    def __init__(self, n=2048):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 4, generator=generator)
        self.y = self.x @ torch.tensor([1.0, -2.0, 0.5, 0.0]) + 0.3 * torch.randn(n, generator=generator)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "labels": self.y[i]}


# stop once the loss is shown flat (alpha spent over the checks: anytime-valid)
swarm = callback(metrics=["loss"], min_steps=100)
with tempfile.TemporaryDirectory() as folder:
    args = transformers.TrainingArguments(output_dir=folder, max_steps=3000, logging_steps=1,
                                          learning_rate=0.02, per_device_train_batch_size=16,
                                          report_to=[], save_strategy="no", use_cpu=True,
                                          disable_tqdm=True, seed=0)
    trainer = transformers.Trainer(model=Regressor(), args=args, train_dataset=Data(), callbacks=[swarm])
    trainer.train()
print(swarm.monitor.status.summary())
print(f"stopped at step {trainer.state.global_step} of {args.max_steps}")
