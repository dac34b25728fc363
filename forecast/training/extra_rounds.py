"""Rounds past the budget's last one, only while training still learns fast."""

from __future__ import annotations

import logging
import math
from typing import Any

import lightning as L
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.trainer.states import TrainerFn

log = logging.getLogger("forecast")


class ExtraRounds(Callback):
    """Let training go past round ``rounds`` one round at a time while each round beats the best earlier round
    by at least ``min_gain`` of it; the trainer's ``max_epochs`` (``rounds`` plus the extra rounds allowed)
    bounds the extension.

    After round ``rounds`` and after each extra round, training stops unless the round just validated lowered
    ``monitor`` by at least ``min_gain`` x the lowest value of the rounds before it. Early stopping and the
    closed-form start's patience still stop a run sooner; this only decides whether the budget grows.

    Args:
        rounds: the rounds of the budget (``trainer.max_epochs`` as the user set it).
        min_gain: the share of the best earlier round that a round must gain for one more (0.05: 5%).
        monitor: the logged validation metric (lower is better).

    Attributes:
        best: the lowest ``monitor`` of the rounds validated so far, the closed-form start's included (inf
            before the first where there is none).
        allowed: the rounds the run may train now (``rounds``, more once extended).
    """

    def __init__(self, *, rounds: int, min_gain: float, monitor: str = "val/loss") -> None:
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}")
        if not 0.0 <= float(min_gain) < 1.0:
            raise ValueError(f"min_gain must be in [0, 1), got {min_gain}")
        self.min_gain, self.monitor = float(min_gain), monitor
        self.best = math.inf
        self.allowed = int(rounds)

    def gain(self, value: float) -> float:
        """``1 - value / best``; 0 with nothing before to compare with (no round, no closed-form start)."""
        if not math.isfinite(self.best) or self.best <= 0:
            return 0.0
        return 1.0 - value / self.best

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """A fresh fit compares its first round with the closed-form start where early stopping holds one
        (:class:`~forecast.training.closed_form.ClosedFormStart` puts it there first); a resumed one keeps its own."""
        stopping = trainer.early_stopping_callback
        if trainer.global_step == 0 and stopping is not None and stopping.monitor == self.monitor:
            start = float(stopping.best_score)
            if math.isfinite(start):
                self.best = min(self.best, start)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.sanity_checking or trainer.state.fn != TrainerFn.FITTING:
            return
        value = trainer.callback_metrics.get(self.monitor)
        if value is None:
            return
        value = float(value)
        done = trainer.current_epoch + 1
        gain = self.gain(value)
        self.best = min(self.best, value)
        if done < self.allowed or trainer.should_stop:
            return
        if gain >= self.min_gain and done < int(trainer.max_epochs):
            self.allowed = done + 1
            if trainer.is_global_zero:  # every process decides the same (val/loss is synced); one line
                log.info("round %d is %.1f%% under the best %s before it (%.0f%% or more trains one more round): "
                         "round %d of at most %d", done, gain * 100, self.monitor, self.min_gain * 100, done + 1,
                         trainer.max_epochs)
        else:
            trainer.should_stop = True

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "allowed": self.allowed}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.best = float(state_dict["best"])
        self.allowed = int(state_dict["allowed"])
