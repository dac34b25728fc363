"""Progress over the whole step budget, with an ETA, instead of one bar per epoch: a bar on a terminal, plain
lines in a log file or a pipe."""

from __future__ import annotations

import math
import sys
import time
from typing import Any

import lightning as L
from lightning.pytorch.callbacks import ProgressBar, TQDMProgressBar
from lightning.pytorch.callbacks.progress.tqdm_progress import _update_n

from forecast.training.budget import planned_steps, round_name


def budget_steps(trainer: L.Trainer) -> int | None:
    """The steps the fit plans at most (:func:`~forecast.training.budget.planned_steps` of this round's length)."""
    batches = trainer.num_training_batches
    round_steps = math.ceil(batches / trainer.accumulate_grad_batches) if math.isfinite(batches) else batches
    return planned_steps(trainer, round_steps)


def step_progress() -> ProgressBar:
    """The progress shown for the step budget: a bar where stderr is a terminal, plain lines elsewhere."""
    return StepProgressBar() if sys.stderr.isatty() else StepProgressLines()


class StepProgressBar(TQDMProgressBar):
    """One training bar for the whole budget, ``steps done/planned [elapsed<ETA, steps/s]``, described by its
    round (``round 2/6``); validation and test show their own bars counting their batches. A resumed run
    starts the bar at its restored step."""

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.train_progress_bar = self.init_train_tqdm()
        self.train_progress_bar.reset(total=budget_steps(trainer))
        self.train_progress_bar.initial = trainer.global_step
        _update_n(self.train_progress_bar, trainer.global_step)

    def on_train_epoch_start(self, trainer: L.Trainer, *_: Any) -> None:
        total = budget_steps(trainer)  # grows when a round is added (ExtraRounds)
        if total != self.train_progress_bar.total:
            self.train_progress_bar.total = total
            self.train_progress_bar.refresh()
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

    def on_validation_batch_start(self, trainer: L.Trainer, pl_module: L.LightningModule, batch: Any,
                                  batch_idx: int, dataloader_idx: int = 0) -> None:
        super().on_validation_batch_start(trainer, pl_module, batch, batch_idx, dataloader_idx)
        if batch_idx == 0:
            self.val_progress_bar.set_description("sanity check" if trainer.sanity_checking else "validation, batches")

    def on_test_batch_start(self, trainer: L.Trainer, pl_module: L.LightningModule, batch: Any,
                            batch_idx: int, dataloader_idx: int = 0) -> None:
        super().on_test_batch_start(trainer, pl_module, batch, batch_idx, dataloader_idx)
        if batch_idx == 0:
            self.test_progress_bar.set_description("test, batches")


class StepProgressLines(ProgressBar):
    """The budget's progress as plain lines on stderr, for a log file or a pipe, where a bar's carriage returns
    and cursor moves would fill the file: at most one line every ``every`` seconds while training,
    ``round 2/6: step 400/3000 (13%), 4.10 steps/s, about 11 min left`` (the rate over this process's steps,
    round validations included). Validation and test print nothing until their metrics.

    Args:
        every: seconds between two lines at least.
    """

    def __init__(self, every: float = 30.0) -> None:
        super().__init__()
        self.every = every
        self._enabled = True
        self._total: int | None = None
        self._started = self._last = 0.0
        self._first_step = 0

    @property
    def is_enabled(self) -> bool:
        return self._enabled

    def disable(self) -> None:
        self._enabled = False

    def enable(self) -> None:
        self._enabled = True

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._total = budget_steps(trainer)
        self._started = self._last = time.monotonic()
        self._first_step = trainer.global_step

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._total = budget_steps(trainer)  # grows when a round is added (ExtraRounds)

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        now = time.monotonic()
        if not self._enabled or not trainer.is_global_zero or now - self._last < self.every:
            return
        self._last = now
        print(self.line(trainer, now), file=sys.stderr, flush=True)

    def line(self, trainer: L.Trainer, now: float) -> str:
        """``round 2/6: step 400/3000 (13%), 4.10 steps/s, about 11 min left``."""
        step, rate = trainer.global_step, (trainer.global_step - self._first_step) / max(now - self._started, 1e-9)
        text = f"{round_name(trainer, trainer.current_epoch + 1)}: step {step}"
        if self._total is None:
            return f"{text}, {rate:.2f} steps/s"
        left = (self._total - step) / rate if rate > 0 else math.inf
        return (f"{text}/{self._total} ({100 * step / self._total:.0f}%), {rate:.2f} steps/s, "
                f"about {duration(left)} left")


def duration(seconds: float) -> str:
    """``45 s``, ``11 min``, ``2.5 h``; ``?`` when unknown."""
    if not math.isfinite(seconds):
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
