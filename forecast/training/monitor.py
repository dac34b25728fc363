"""Run statistics for the report: epoch time, inference time per batch, peak memory."""

from __future__ import annotations

import resource
import time
from typing import Any

import lightning as L
import torch


def peak_memory_mb(device: torch.device | None = None) -> float:
    """Peak memory of this process: CUDA allocator peak on GPU, max RSS on CPU."""
    if device is not None and device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


class RunMonitor(L.Callback):
    """Measures median test-batch latency (ms) and counts completed training epochs."""

    def __init__(self) -> None:
        self.test_batch_ms: list[float] = []
        self.epochs = 0
        self._t0 = 0.0

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.epochs += 1

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
