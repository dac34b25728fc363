"""The closed-form fit before training, and the closed-form start as a checkpoint candidate."""

from __future__ import annotations

import copy
import logging
import time
from pathlib import Path
from typing import Any

import lightning as L
import torch
from torch import Tensor
from torchmetrics import MeanSquaredError

log = logging.getLogger("forecast")


class ClosedFormStart(L.Callback):
    """Fits the model's closed-form parts once, before its first fit, validation or test pass.

    ``net.fit_closed_form`` runs on every training window in order (the data module's
    ``ordered_train_dataloader``), then ``net.select_on_validation`` on every validation window (a
    ``BestFloor`` picks the floor that validates best); a checkpoint restored afterwards (resume, or validate/test with
    ``ckpt_path``) overwrites the result with the same values, since the fit is deterministic.

    With ``keep_start`` and a closed-form part in a model that also trains (a floor residual), the
    model as the fit left it (the start) is validated before training on the windows every round's
    validation scores, and competes with every round: when no round's ``val/loss`` is below the start's, :meth:`on_fit_end` writes the start to
    ``checkpoints/start.ckpt`` and :attr:`best_path` names it. A resumed run fits and validates the
    start again, to the same numbers.

    Args:
        keep_start: make the closed-form start a checkpoint candidate.
        checkpoint_dir: where ``start.ckpt`` is written.

    Attributes:
        fit_seconds: seconds of the closed-form fit; None when the model has no closed-form part.
        start_loss: the start's ``val/loss`` (MSE over the validation windows every round scores); None when
            not a candidate.
        best_path: ``start.ckpt`` when the start was kept, else None.
    """

    def __init__(self, *, keep_start: bool, checkpoint_dir: str | Path) -> None:
        self.keep_start = keep_start
        self.checkpoint_dir = Path(checkpoint_dir)
        self.fitted = False
        self.fit_seconds: float | None = None
        self.start_loss: float | None = None
        self.best_path: str | None = None
        self._start_state: dict[str, Tensor] | None = None

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if self.fitted:
            return
        self.fitted = True
        datamodule = trainer.datamodule
        started = time.perf_counter()
        rows = pl_module.net.fit_closed_form(datamodule.ordered_train_dataloader())
        if rows is None:
            return
        pl_module.net.select_on_validation(datamodule.ordered_dataloader("val"))
        self.fit_seconds = time.perf_counter() - started
        log.info("closed-form fit on %s rows in %.2f s", rows, self.fit_seconds)
        trains = any(p.requires_grad for p in pl_module.parameters())
        if stage == "fit" and self.keep_start and trains:
            self.start_loss = validation_mse(pl_module, datamodule)
            self._start_state = copy.deepcopy(pl_module.state_dict())
            log.info("closed-form start: val/loss %.4f", self.start_loss)

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self._start_state is None:
            return
        checkpoint = trainer.checkpoint_callback
        trained = checkpoint.best_model_score if checkpoint is not None else trainer.callback_metrics.get("val/loss")
        if trained is not None and self.start_loss > float(trained):
            return
        log.info("no round beat the closed-form start on val/loss (%.4f); keeping the start", self.start_loss)
        pl_module.load_state_dict(self._start_state)
        self.best_path = str(self.checkpoint_dir / "start.ckpt")
        trainer.save_checkpoint(self.best_path)


@torch.no_grad()
def validation_mse(pl_module: L.LightningModule, datamodule: Any) -> float:
    """MSE of ``pl_module`` over the validation windows scored every round, in eval mode, as the task's
    ``val/loss`` while fitting.

    Every process reads every window (not its shard), so the number is the same under DDP.
    """
    was_training = pl_module.training
    pl_module.eval()
    device = next(pl_module.parameters(), torch.empty(0)).device  # in ``setup`` the weights may not be on the trainer's device yet
    mse = MeanSquaredError().to(device)
    for batch in datamodule.round_val_dataloader():
        batch = batch._replace(**{k: v.to(device) for k, v in batch._asdict().items()})
        mse.update(pl_module(batch).reshape(-1), batch.y.reshape(-1))
    pl_module.train(was_training)
    return float(mse.compute())
