"""PyTorch Lightning: stop when train_loss has converged.

    pip install torch==2.13.0 'swarmstats[lightning]'
    python examples/integrations/lightning_trainer.py
"""

import lightning
import torch

from swarmstats.integrations.lightning import callback


class Regressor(lightning.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x).squeeze(-1), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


generator = torch.Generator().manual_seed(0)
x = torch.randn(2048, 4, generator=generator)
y = x @ torch.tensor([1.0, -2.0, 0.5, 0.0]) + 0.3 * torch.randn(2048, generator=generator)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)

swarm = callback(metrics=["train_loss"], min_steps=100)
trainer = lightning.Trainer(max_epochs=30, callbacks=[swarm], logger=False, enable_checkpointing=False,
                            enable_progress_bar=False, enable_model_summary=False, accelerator="cpu")
trainer.fit(Regressor(), loader)
print(swarm.monitor.status.summary())
print(f"stopped at step {trainer.global_step} of {30 * len(loader)}")
