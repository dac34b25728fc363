"""``checkpoints/last.ckpt``: the point a stopped run resumes from, written after every round and every N steps."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint


class LastCheckpoint(ModelCheckpoint):
    """Keeps ``<dirpath>/last.ckpt`` current: after every round's validation (as a ``ModelCheckpoint`` with no
    monitor), every ``every_n_steps`` optimiser steps inside a round, and at the step where SIGTERM or Ctrl-C
    arrived, after which training stops with the usual interrupt (and the resume command is printed).

    A step checkpoint holds the training stream's cursor (:class:`~forecast.data.sampler.StreamLoader`) and,
    with :class:`~forecast.training.resume.ResumeState`, the random generators, so a run resumed from it
    continues with the batches and dropout masks it would have drawn. The last step of a round is never saved
    here: its checkpoint is the one written after that round's validation. Files are written to a temporary
    name and renamed, so a kill while writing leaves the previous ``last.ckpt`` whole.

    Args:
        dirpath: the run's checkpoint directory.
        every_n_steps: steps between checkpoints inside a round; None saves only after validation (and on a
            signal).
    """

    def __init__(self, *, dirpath: str | Path, every_n_steps: int | None = None) -> None:
        super().__init__(dirpath=str(dirpath), filename="last", save_top_k=1)
        if every_n_steps is not None and every_n_steps < 1:
            raise ValueError(f"every_n_steps must be at least 1 or None, got {every_n_steps}")
        self.every_n_steps = every_n_steps
        self.interrupted = False
        self._previous_handler: Any = None

    @property
    def path(self) -> str:
        return os.path.join(str(self.dirpath), "last" + self.FILE_EXTENSION)

    def on_fit_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous_handler = signal.signal(signal.SIGINT, self._on_sigint)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.interrupted:  # a second Ctrl-C stops at once
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        self.interrupted = True

    def teardown(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if self._previous_handler is not None:
            signal.signal(signal.SIGINT, self._previous_handler)
            self._previous_handler = None

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        if batch_idx + 1 >= trainer.num_training_batches:  # the round's end: saved after its validation
            return
        stop = self.interrupted or trainer.received_sigterm
        due = self.every_n_steps is not None and trainer.global_step % self.every_n_steps == 0
        if (stop or due) and trainer.global_step > 0:
            self._save_checkpoint(trainer, self.path)
        if self.interrupted:
            raise KeyboardInterrupt  # Lightning's graceful interrupt; SIGTERM stops through Lightning itself

    def _get_metric_interpolated_filepath_name(self, monitor_candidates: dict[str, Any], trainer: L.Trainer,
                                               del_filepath: str | None = None) -> str:
        return self.path  # always last.ckpt, also when a step checkpoint wrote it first

    def _save_checkpoint(self, trainer: L.Trainer, filepath: str) -> None:
        partial = filepath + ".part"
        super()._save_checkpoint(trainer, partial)
        if trainer.is_global_zero:
            os.replace(partial, filepath)
        self._last_checkpoint_saved = filepath
