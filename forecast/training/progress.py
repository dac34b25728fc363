"""A progress bar over the whole step budget, with an ETA, instead of one bar per epoch."""

from __future__ import annotations

import math
from typing import Any

import lightning as L
from lightning.pytorch.callbacks import TQDMProgressBar
from lightning.pytorch.callbacks.progress.tqdm_progress import _update_n

from forecast.training.budget import planned_steps, round_name


class StepProgressBar(TQDMProgressBar):
    """One training bar for the whole budget, ``steps done/planned [elapsed<ETA, steps/s]``, described by its
    round (``round 2/6``); validation and test show their own bars counting their batches. A resumed run
    starts the bar at its restored step."""

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.train_progress_bar = self.init_train_tqdm()
        batches = trainer.num_training_batches
        round_steps = math.ceil(batches / trainer.accumulate_grad_batches) if math.isfinite(batches) else batches
        self.train_progress_bar.reset(total=planned_steps(trainer, round_steps))
        self.train_progress_bar.initial = trainer.global_step
        _update_n(self.train_progress_bar, trainer.global_step)

    def on_train_epoch_start(self, trainer: L.Trainer, *_: Any) -> None:
        self.train_progress_bar.set_description(f"{round_name(trainer, trainer.current_epoch + 1)}, steps")

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        n = trainer.global_step
        if self._should_update(n, self.train_progress_bar.total):
            _update_n(self.train_progress_bar, n)
            self.train_progress_bar.set_postfix(self.get_metrics(trainer, pl_module))

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not self.train_progress_bar.disable:
            _update_n(self.train_progress_bar, trainer.global_step)
            self.train_progress_bar.set_postfix(self.get_metrics(trainer, pl_module))
