"""Continue a run that stopped (a crash, Ctrl-C, a time limit) from its last finished epoch.

Every training run keeps ``checkpoints/last.ckpt`` (a second ``ModelCheckpoint``, monitor none, in
``conf/callbacks/default.yaml``): weights, optimiser, scheduler, epoch, early-stopping and checkpoint
state, plus the random-number generators this module adds. ``forecast-train <the run's settings>
resume=RUN_DIR`` continues from it in the same directory and, on CPU, ends with the metrics the run
would have had without the stop.
``last.ckpt`` is removed once the run has written ``metrics.json``.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Any, Iterator

import lightning as L
import numpy as np
import pandas as pd
import torch
from lightning.pytorch.trainer.states import TrainerFn
from omegaconf import OmegaConf
from torch import nn

from forecast.attention.base import SampleStream
from forecast.data.errors import DataError
from forecast.io import atomic_path

log = logging.getLogger("forecast")

LAST = "last.ckpt"
RNG_KEY = "forecast_rng"
# settings a resumed run may change: where and how it runs, not what it learns
FREE_KEYS = frozenset({"resume", "threads", "plot", "trainer", "logger", "callbacks", "paths", "optimized_metric"})
_LOG = Path("logs") / "metrics.csv"
_LOG_BEFORE = Path("logs") / "metrics.before_resume.csv"


def last_checkpoint(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / LAST


def _first_difference(saved: Any, now: Any, key: str = "") -> tuple[str, Any, Any] | None:
    """The first dotted key whose value differs between two plain config trees, with both values."""
    if isinstance(saved, dict) and isinstance(now, dict):
        for name in sorted(set(saved) | set(now), key=str):
            if not key and name in FREE_KEYS:
                continue
            found = _first_difference(saved.get(name), now.get(name), f"{key}.{name}" if key else str(name))
            if found is not None:
                return found
        return None
    return None if saved == now else (key, saved, now)


def check_resumable(run_dir: Path, config: dict[str, Any]) -> Path:
    """The run dir's ``last.ckpt``, after checking that ``config`` (resolved) continues that run.

    Raises:
        DataError: no such run dir, no ``last.ckpt`` (the run finished, or stopped before its first
            epoch ended), or a setting that changes what the run learns differs from its ``config.yaml``.
    """
    saved_path = run_dir / "config.yaml"
    if not saved_path.is_file():
        raise DataError(f"resume={run_dir}: no config.yaml there, so it is not a forecast-train run dir; "
                        f"pass the directory a run printed as 'run dir:'")
    last = last_checkpoint(run_dir)
    if not last.is_file():
        raise DataError(f"resume={run_dir}: no checkpoints/{LAST} (the run finished, or stopped before its first "
                        f"epoch ended); start a new run without resume=")
    saved = OmegaConf.to_container(OmegaConf.load(saved_path), resolve=False)  # as train() wrote it
    found = _first_difference(saved, config)
    if found is not None:
        key, before, now = found
        raise DataError(f"resume={run_dir}: {key} was {before!r} in that run but is {now!r} now; resume with the "
                        f"run's own settings (its .hydra/overrides.yaml)")
    return last


def _join_logs(first: Path, second: Path, into: Path) -> None:
    """Write ``first``'s rows then ``second``'s (when it exists) to ``into``; remove the other file."""
    frames = [pd.read_csv(first)] + ([pd.read_csv(second)] if second.is_file() else [])
    with atomic_path(into) as tmp:
        pd.concat(frames, ignore_index=True).to_csv(tmp, index=False)
    (second if into == first else first).unlink(missing_ok=True)


def set_aside_log(run_dir: Path) -> None:
    """Keep the epochs logged so far: Lightning's CSV logger deletes ``logs/metrics.csv`` when it starts."""
    log_now, before = run_dir / _LOG, run_dir / _LOG_BEFORE
    if not log_now.is_file():
        return
    if before.is_file():  # resumed before and stopped again: the side file holds the older epochs
        _join_logs(before, log_now, into=before)
    else:
        log_now.rename(before)


def merge_log(run_dir: Path) -> None:
    """Put the epochs logged before the resume back in front of ``logs/metrics.csv``."""
    log_now, before = run_dir / _LOG, run_dir / _LOG_BEFORE
    if before.is_file():
        _join_logs(before, log_now, into=log_now)


def _sample_streams(module: nn.Module) -> Iterator[tuple[str, SampleStream]]:
    """The random draws of randomised attention backends (ProbSparse, BigBird), by module path."""
    for path, sub in module.named_modules():
        for attr, value in vars(sub).items():
            if isinstance(value, SampleStream):
                yield f"{path}.{attr}", value


class ResumeState(L.Callback):
    """Saves the random-number generators in each checkpoint and restores them on resume; says how to resume.

    With the generators restored (torch, numpy, Python, CUDA, and the sample streams of randomised
    attention backends), a resumed run on CPU draws the same batch order, dropout masks and attention
    samples as an uninterrupted one.

    Args:
        run_dir: the run's directory.
        command: the command line that resumes it, printed when training stops with an error.
    """

    def __init__(self, *, run_dir: Path, command: str) -> None:
        self.run_dir = run_dir
        self.command = command

    def on_save_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule,
                           checkpoint: dict[str, Any]) -> None:
        # tensors and plain types only: Lightning loads checkpoints for validate/test with weights_only
        name, keys, pos, has_gauss, gauss = np.random.get_state()
        state = {"torch": torch.get_rng_state(), "python": random.getstate(),
                 "numpy": (name, torch.from_numpy(keys.astype(np.int64)), int(pos), int(has_gauss), float(gauss)),
                 "samples": {key: stream.state() for key, stream in _sample_streams(pl_module)}}
        if torch.cuda.is_available():
            state["cuda"] = torch.cuda.get_rng_state_all()
        checkpoint[RNG_KEY] = state

    def on_load_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule,
                           checkpoint: dict[str, Any]) -> None:
        state = checkpoint.get(RNG_KEY)
        if trainer.state.fn != TrainerFn.FITTING or state is None:  # validate/test with a checkpoint: no resume
            return
        torch.set_rng_state(state["torch"])
        name, keys, pos, has_gauss, gauss = state["numpy"]
        np.random.set_state((name, keys.numpy().astype(np.uint32), pos, has_gauss, gauss))
        random.setstate(state["python"])
        for key, stream in _sample_streams(pl_module):
            stream.restore(state["samples"].get(key))
        cuda = state.get("cuda")
        if cuda is not None and torch.cuda.is_available() and len(cuda) == torch.cuda.device_count():
            torch.cuda.set_rng_state_all(cuda)

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        if trainer.state.fn != TrainerFn.FITTING or not trainer.is_global_zero:
            return
        if last_checkpoint(self.run_dir).is_file():
            log.error("training stopped (%s); its last finished epoch is saved. Continue it with:\n  %s",
                      type(exception).__name__, self.command)
        else:
            log.error("training stopped (%s) before its first epoch ended; nothing to resume",
                      type(exception).__name__)
