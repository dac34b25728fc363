"""An exponential moving average of the trained weights, scored and kept in place of the last step's.

:class:`WeightAverage` is Lightning's ``WeightAveraging`` (a ``torch.optim.swa_utils.AveragedModel``
updated after every optimiser step) confined to the fit: while training, every round's validation scores
the average and every checkpoint stores it as its ``state_dict`` (the last step's weights and the
average's count ride along, so ``resume=`` continues both). Once training has ended the average is the
model, and nothing is swapped any more: the closed-form start and its checkpoint, the final validation
and the test score the weights they load.

The average spans a fixed share of a round (half, by default): after each step it moves ``1 / (span x
round steps)`` of the way to the weights (decay 0.99 on rounds of 200 steps, 0.996 on rounds of 500, 0.83
on a small file's rounds of 12), so it smooths the steps that one validation sees whatever the file's
size. Parameters that train and floating-point buffers (the distilling layers' batch-norm statistics) are
averaged as ``avg + rate * (weights - avg)``; a parameter that does not train (a fitted floor: a calendar
profile holds slots x channels values) is left as the first step copied it, and integer buffers (the floor
chosen, batch counts) are copied.
"""

from __future__ import annotations

import math
from typing import Any

import lightning as L
import torch
from lightning.pytorch.callbacks import WeightAveraging
from lightning.pytorch.trainer.states import TrainerFn
from torch import Tensor

from forecast.core.errors import ConfigError


class WeightAverage(WeightAveraging):
    """Exponential moving average of the parameters over the training steps, in force until training ends.

    Args:
        span: the steps the average spans, as a share of a round's steps (``trainer.num_training_batches``):
            each step moves it ``1 / max(1, span x round steps)`` of the way to the weights.
    """

    def __init__(self, *, span: float = 0.5) -> None:
        if not span > 0:
            raise ConfigError(f"span must be positive, got {span}")
        self.span = span
        self.rate = 1.0  # set from the round's steps when training starts

        self._fixed: set[int] = set()  # storage addresses of the parameters that do not train

        @torch.no_grad()
        def towards(averages: list[Tensor], weights: list[Tensor], _count: Tensor) -> None:
            """One device and dtype's tensors, in place: floating ones that move lerp, integer ones are copied."""
            moving = [(a, w) for a, w in zip(averages, weights, strict=True) if w.data_ptr() not in self._fixed]
            if moving and moving[0][0].is_floating_point():
                torch._foreach_lerp_([a for a, _ in moving], [w for _, w in moving], self.rate)
            else:
                for average, weight in moving:
                    average.copy_(weight)

        super().__init__(use_buffers=True, multi_avg_fn=towards)
        self._training = False

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        steps = float(trainer.num_training_batches)  # inf for a round of unknown length: nothing averaged
        self.rate = 1.0 / max(1.0, self.span * steps) if math.isfinite(steps) else 1.0
        self._fixed = {p.data_ptr() for p in pl_module.parameters() if not p.requires_grad and p.numel()}
        self._training = True

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        super().on_train_end(trainer, pl_module)  # the model takes the average's weights
        self._training = False

    def _active(self, trainer: L.Trainer) -> bool:
        return self._training and trainer.state.fn == TrainerFn.FITTING and self._average_model is not None

    def on_validation_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self._active(trainer):
            super().on_validation_epoch_start(trainer, pl_module)

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self._active(trainer):
            super().on_validation_epoch_end(trainer, pl_module)

    def on_save_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule, checkpoint: dict[str, Any]) -> None:
        if self._active(trainer):
            super().on_save_checkpoint(trainer, pl_module, checkpoint)

    def on_load_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule, checkpoint: dict[str, Any]) -> None:
        """Resuming a fit restores the last step's weights and the average; validate and test keep ``state_dict``."""
        if trainer.state.fn == TrainerFn.FITTING and self._average_model is not None:
            super().on_load_checkpoint(trainer, pl_module, checkpoint)
