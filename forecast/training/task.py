"""The one LightningModule: training, validation and test logic for every forecaster."""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torchmetrics import MeanAbsoluteError, MeanSquaredError, MetricCollection

from forecast.core.errors import ConfigError
from forecast.data.batch import Batch

OptimizerFactory = Callable[..., torch.optim.Optimizer]
SchedulerFactory = Callable[..., torch.optim.lr_scheduler.LRScheduler]


def check_optimizer(factory: OptimizerFactory) -> None:
    """Build the optimiser once on a placeholder parameter: a setting it does not take (the default Adam's
    ``fused`` left on ``task.optimizer._target_=torch.optim.RMSprop``) or a value it refuses (a negative
    learning rate) is a :class:`~forecast.core.errors.ConfigError` naming it, before any fit."""
    try:
        factory(params=[nn.Parameter(torch.zeros(1))])
    except TypeError as exc:
        unknown = re.search(r"unexpected keyword argument '(\w+)'", str(exc))
        if unknown is None:
            raise
        raise ConfigError(f"task.optimizer must be given only settings its optimiser takes ({exc}); remove it: "
                          f"~task.optimizer.{unknown.group(1)}") from exc
    except ValueError as exc:  # a value it refuses: torch.optim's "Invalid learning rate: -1.0"
        raise ConfigError(f"task.optimizer must be given values its optimiser takes ({exc})") from exc


class ForecastTask(L.LightningModule):
    """MSE training of any forecaster ``net(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``.

    Metrics (``split/name``): ``mse``/``mae`` on the scaled values (what the papers report),
    ``mae_orig``/``rmse_orig`` in original units, and for test ``mse_step_<k>`` per horizon step.
    Every window counts once: metrics accumulate sums over elements, not means of batch means.

    Args:
        net: the forecaster.
        optimizer: partial optimizer, completed with the parameters.
        scheduler: partial epoch-level scheduler, completed with the optimizer, or None.
        target_mean: training-row mean of each target column (original units).
        target_std: training-row std of each target column.
        pred_len: horizon, for the per-step metric.
    """

    def __init__(self, *, net: nn.Module, optimizer: OptimizerFactory, scheduler: SchedulerFactory | None,
                 target_mean: Sequence[float], target_std: Sequence[float], pred_len: int) -> None:
        super().__init__()
        # plain floats: Hydra's instantiate hands lists over as ListConfig, which Lightning's
        # weights-only checkpoint loading (validate/test with ckpt_path) refuses to unpickle.
        target_mean, target_std = [float(v) for v in target_mean], [float(v) for v in target_std]
        self.save_hyperparameters(ignore=["net", "optimizer", "scheduler"], logger=False)
        self.net = net
        check_optimizer(optimizer)
        self.optimizer_factory, self.scheduler_factory = optimizer, scheduler
        self.register_buffer("target_mean", torch.tensor(list(target_mean), dtype=torch.float32))
        self.register_buffer("target_std", torch.tensor(list(target_std), dtype=torch.float32))
        scaled = MetricCollection({"mse": MeanSquaredError(), "mae": MeanAbsoluteError()})
        orig = MetricCollection({"mae_orig": MeanAbsoluteError(), "rmse_orig": MeanSquaredError(squared=False)})
        self.metrics = nn.ModuleDict({f"{s}_scaled": scaled.clone() for s in ("val", "test")}
                                     | {f"{s}_orig": orig.clone() for s in ("val", "test")})
        self.test_step_mse = MeanSquaredError(num_outputs=pred_len)
        self.pred_len = pred_len
        self.keep_errors = False  # the final evaluation on one process: keep every window's error
        self._errors: dict[str, list[Tensor]] = {}

    def forward(self, batch: Batch) -> Tensor:
        """Shapes: batch as in :class:`Batch` -> (B, P, C_out)."""
        return self.net(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)

    def training_step(self, batch: Batch, batch_idx: int) -> Tensor:
        loss = F.mse_loss(self(batch), batch.y)
        # sync_dist: under DDP the logged value is the mean over processes, not rank 0's own batch
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True, batch_size=batch.y.shape[0],
                 sync_dist=True)
        return loss

    def _eval_step(self, batch: Batch, split: str) -> None:
        pred, y = self(batch), batch.y  # (B, P, C_out) each
        n = y.shape[0]
        scaled, orig = self.metrics[f"{split}_scaled"], self.metrics[f"{split}_orig"]
        scaled.update(pred.reshape(-1), y.reshape(-1))
        orig.update(self.unscale(pred).reshape(-1), self.unscale(y).reshape(-1))
        self.log_dict({f"{split}/{k}": m for k, m in scaled.items()}, on_epoch=True, prog_bar=split == "val",
                      batch_size=n)
        self.log_dict({f"{split}/{k}": m for k, m in orig.items()}, on_epoch=True, batch_size=n)
        # the loss that checkpointing and early stopping watch is the torchmetrics MSE, which sums
        # over every process under DDP; a logged batch loss would be each process's own half
        self.log(f"{split}/loss", scaled["mse"], on_epoch=True, batch_size=n)
        if self.keep_errors:
            self._errors.setdefault(split, []).append((pred.float() - y.float()).cpu())  # (B, P, C_out)
        if split == "test":
            self.test_step_mse.update(pred.permute(0, 2, 1).reshape(-1, self.pred_len),  # (B*C, P)
                                      y.permute(0, 2, 1).reshape(-1, self.pred_len))

    def validation_step(self, batch: Batch, batch_idx: int) -> None:
        self._eval_step(batch, "val")

    def test_step(self, batch: Batch, batch_idx: int) -> None:
        self._eval_step(batch, "test")

    def on_test_epoch_end(self) -> None:
        per_step = self.test_step_mse.compute()  # (P,)
        self.test_step_mse.reset()
        self.per_step_mse = [float(v) for v in per_step.reshape(-1)]

    def take_errors(self) -> dict[str, np.ndarray]:
        """The errors (forecast - target, scaled) kept while :attr:`keep_errors` was on, per split, in the
        order the loaders gave the windows, and forgets them. Shapes: ``{split: (W, P, C_out)}`` float32."""
        errors = {split: torch.cat(parts).numpy() for split, parts in self._errors.items()}
        self._errors = {}
        return errors

    def unscale(self, values: Tensor) -> Tensor:
        """Scaled targets -> original units. Shapes: (..., C_out) -> (..., C_out)."""
        return values * self.target_std + self.target_mean

    def configure_optimizers(self) -> Any:
        params = [p for p in self.parameters() if p.requires_grad]
        optimizer = self.optimizer_factory(params=params)
        if self.scheduler_factory is None:
            return optimizer
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": self.scheduler_factory(optimizer),
                                                         "interval": "epoch"}}
