"""Run statistics for the report: epochs and their time, inference time per batch, peak memory."""

from __future__ import annotations

import logging
import resource
import time
from pathlib import Path
from typing import Any

import lightning as L
import torch
from lightning.pytorch.callbacks import Timer
from lightning.pytorch.trainer.states import TrainerFn

from forecast.core.standing import score
from forecast.training.budget import round_name

EPOCHS_KEY = "forecast_epoch_seconds"
ROUND_LOSSES_KEY = "forecast_round_val_losses"

log = logging.getLogger("forecast")


STATUS, CLEAR_REFS = Path("/proc/self/status"), Path("/proc/self/clear_refs")


def peak_memory_mb(device: torch.device | None = None) -> float:
    """Peak memory since the last :func:`reset_peak_memory`: the CUDA allocator's peak on GPU; on CPU
    the resident high-water mark (Linux ``VmHWM``), else the process's max RSS since it started."""
    if device is not None and device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    try:
        for line in STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def reset_peak_memory(device: torch.device | None = None) -> None:
    """Start :func:`peak_memory_mb` afresh, so a process that runs several jobs (a joblib worker of a
    sweep) reports each job's own peak: the CUDA peak statistics, and on Linux the resident high-water
    mark (writing 5 to ``/proc/self/clear_refs`` sets it to the current RSS)."""
    if device is not None and device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        return
    try:
        CLEAR_REFS.write_text("5")
    except OSError:
        pass  # not Linux, or not allowed: the peak counts from the process start


class RunMonitor(L.Callback):
    """Counts and times completed training rounds (epochs) and keeps each round's ``val/loss``, with a line in the
    log per round (both kept in checkpoints, so a resumed run lists them all); measures median test-batch latency
    (ms) and the peak memory from the start of fitting."""

    def __init__(self) -> None:
        self.test_batch_ms: list[float] = []
        self.epoch_seconds: list[float] = []
        self.round_losses: list[float] = []
        self._t0 = 0.0
        self._epoch_t0 = 0.0
        self._in_epoch = False
        self._validated = False
        self.restored_epochs: int | None = None  # epochs done before a resume

    @property
    def epochs(self) -> int:
        return len(self.epoch_seconds)

    def on_save_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule,
                           checkpoint: dict[str, Any]) -> None:
        # Lightning checkpoints an epoch at validation end, before on_train_epoch_end: count it as done; a
        # checkpoint inside a round (every N steps) leaves the round to the resumed run
        done = self._in_epoch and self._validated
        running = [time.perf_counter() - self._epoch_t0] if done else []
        checkpoint[EPOCHS_KEY] = self.epoch_seconds + running
        checkpoint[ROUND_LOSSES_KEY] = list(self.round_losses)

    def on_load_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule,
                           checkpoint: dict[str, Any]) -> None:
        if trainer.state.fn == TrainerFn.FITTING and EPOCHS_KEY in checkpoint:  # a resume, not validate/test
            self.epoch_seconds = list(checkpoint[EPOCHS_KEY])
            self.round_losses = list(checkpoint.get(ROUND_LOSSES_KEY, []))
            self.restored_epochs = self.epochs

    def on_fit_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        reset_peak_memory(pl_module.device)

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._epoch_t0, self._in_epoch, self._validated = time.perf_counter(), True, False

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._validated = trainer.state.fn == TrainerFn.FITTING and not trainer.sanity_checking
        loss = trainer.callback_metrics.get("val/loss")
        if not self._validated or loss is None:
            return
        self.round_losses.append(float(loss))
        if trainer.is_global_zero:  # every process holds the same synced val/loss; one line
            log.info("%s, step %d: val/loss %s (%.0f s)", round_name(trainer, len(self.round_losses)),
                     trainer.global_step, score(self.round_losses[-1]), time.perf_counter() - self._epoch_t0)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.epoch_seconds.append(time.perf_counter() - self._epoch_t0)
        self._in_epoch = False

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        timer = next((c for c in trainer.callbacks if isinstance(c, Timer)), None)  # trainer.max_time's
        remaining = None if timer is None else timer.time_remaining("train")
        if remaining is not None and remaining <= 0 and trainer.is_global_zero:
            log.info("training stops at step %d: trainer.max_time reached (%.0f s of training)", trainer.global_step,
                     timer.time_elapsed("train"))

    def on_test_batch_start(self, trainer: L.Trainer, pl_module: L.LightningModule, batch: Any, batch_idx: int,
                            dataloader_idx: int = 0) -> None:
        if pl_module.device.type == "cuda":
            torch.cuda.synchronize(pl_module.device)
        self._t0 = time.perf_counter()

    def on_test_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any,
                          batch_idx: int, dataloader_idx: int = 0) -> None:
        if pl_module.device.type == "cuda":
            torch.cuda.synchronize(pl_module.device)
        self.test_batch_ms.append((time.perf_counter() - self._t0) * 1000.0)

    def summary(self, device: torch.device) -> dict[str, float]:
        ms = sorted(self.test_batch_ms)
        return {"inference_ms_per_batch": ms[len(ms) // 2] if ms else float("nan"),
                "peak_memory_mb": peak_memory_mb(device)}
