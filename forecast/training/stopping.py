"""Early stopping whose improvement is a share of the best score, not an absolute amount."""

from __future__ import annotations

import logging
import math
from typing import Any

import lightning as L
from lightning.pytorch.callbacks import EarlyStopping
from lightning.pytorch.callbacks.early_stopping import EarlyStoppingReason
import torch

from forecast.core.errors import ConfigError
from forecast.core.standing import score

log = logging.getLogger("forecast")


class RelativeEarlyStopping(EarlyStopping):
    """Lightning's ``EarlyStopping`` where a round counts as an improvement only when it beats the best score
    so far by at least ``min_gain`` of that score (and by more than ``min_delta``).

    Before each check Lightning's absolute threshold is set to the larger of ``min_delta`` and ``min_gain x
    |best score|`` (signed as its constructor signs it), so the threshold follows the scale of the monitored
    loss, which an absolute one cannot for series scaled differently. A round below the best by less than that does not reset
    the patience and does not become the best score; the checkpoint callback still keeps the lowest round.
    ``min_delta`` comes again from the restored best score on resume. When the patience runs out it says so in
    one line: ``training stops after round 2: 1 round without beating the best val/loss so far (0.1158) by 0.5%
    of it (callbacks.early_stopping.patience=1)``; where no round has beaten the score early stopping held before
    the first round (the closed-form start puts its own there), the line names it: ``(0.3934, the closed-form
    start)``. Both come from Lightning's own restored counters, so a resumed run says the same.

    Args:
        min_gain: the share of the best score a round must gain; 0 is Lightning's behaviour at
            ``min_delta=0``.
        min_delta: the least absolute gain, as Lightning's.
        patience: rounds without a new best that end training, as Lightning's (named here so that its type is
            checked before a run starts: :func:`~forecast.core.forecaster.check_types`).
        **kwargs: ``EarlyStopping``'s other arguments (``monitor``, ``mode``, ``check_finite`` ...).

    Raises:
        ConfigError: ``min_gain`` outside [0, 1) or a negative ``patience``.
    """

    def __init__(self, *, min_gain: float = 0.0, min_delta: float = 0.0, patience: int = 3, **kwargs: Any) -> None:
        if not 0.0 <= float(min_gain) < 1.0:
            raise ConfigError(f"min_gain must be in [0, 1), got {min_gain}")
        if patience < 0:
            raise ConfigError(f"patience must be 0 or more, got {patience}")
        super().__init__(min_delta=min_delta, patience=patience, **kwargs)
        self.min_gain = float(min_gain)
        self.least_delta = abs(float(min_delta))

    def _set_threshold(self) -> None:
        best = float(self.best_score)
        relative = self.min_gain * abs(best) if math.isfinite(best) else 0.0
        sign = 1.0 if self.monitor_op == torch.gt else -1.0
        self.min_delta = sign * max(self.least_delta, relative)

    def _run_early_stopping_check(self, trainer: L.Trainer) -> None:
        stopped = trainer.should_stop
        super()._run_early_stopping_check(trainer)
        if (trainer.should_stop and not stopped and self.stopping_reason == EarlyStoppingReason.PATIENCE_EXHAUSTED
                and trainer.is_global_zero):  # every process decides the same (val/loss is synced); one line
            rounds = f"{self.wait_count} round{'s' if self.wait_count != 1 else ''}"
            share = f" by {self.min_gain * 100:g}% of it" if self.min_gain > 0 else ""
            # every round so far without a new best: the best is the score held before round 1, the start's
            start = ", the closed-form start" if self.wait_count == trainer.current_epoch + 1 else ""
            log.info("training stops after round %d: %s without beating the best %s so far (%s%s)%s "
                     "(callbacks.early_stopping.patience=%d)", trainer.current_epoch + 1, rounds, self.monitor,
                     score(float(self.best_score)), start, share, self.patience)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._set_threshold()
        super().on_validation_end(trainer, pl_module)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._set_threshold()
        super().on_train_epoch_end(trainer, pl_module)
