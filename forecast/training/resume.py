"""Continue a run that stopped (a crash, Ctrl-C, SIGTERM, a kill) from its last checkpoint.

Every training run keeps ``checkpoints/last.ckpt`` (:class:`~forecast.training.checkpoints.LastCheckpoint`:
after every round, every ``train.ckpt_every_steps`` steps and on SIGTERM/Ctrl-C): weights, optimiser,
scheduler, loop counters, early-stopping and checkpoint state, the training stream's cursor (the data
module's state), plus the random-number generators this module adds. ``forecast-train <the run's settings>
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


def resume_target(run_dir: Path) -> Path:
    """The run dir's ``last.ckpt``, checked to exist in a ``forecast-train`` run dir (no settings compared).

    Raises:
        DataError: no such run dir, or no ``last.ckpt`` (the run finished, or stopped before its first
            epoch ended).
    """
    if not (run_dir / "config.yaml").is_file():
        raise DataError(f"resume={run_dir}: no config.yaml there, so it is not a forecast-train run dir; "
                        f"pass the directory a run printed as 'run dir:'")
    last = last_checkpoint(run_dir)
    if not last.is_file():
        raise DataError(f"resume={run_dir}: no checkpoints/{LAST} (the run finished, or stopped before its first "
                        f"epoch ended); start a new run without resume=")
    return last


def check_resumable(run_dir: Path, config: dict[str, Any]) -> Path:
    """The run dir's ``last.ckpt`` (:func:`resume_target`), after checking that ``config`` (resolved) continues
    that run.

    Raises:
        DataError: as :func:`resume_target`, or a setting that changes what the run learns differs from its
            ``config.yaml``.
    """
    last = resume_target(run_dir)
    saved = OmegaConf.to_container(OmegaConf.load(run_dir / "config.yaml"), resolve=False)  # as train() wrote it
    found = _first_difference(saved, config)
    if found is not None:
        key, before, now = found
        raise DataError(f"resume={run_dir}: {key} was {before!r} in that run but is {now!r} now; resume with the "
                        f"run's own settings (its .hydra/overrides.yaml)")
    return last


def _read_log(path: Path, before_step: int | None = None) -> pd.DataFrame:
    """A CSV log as text (so a rewrite keeps its numbers as written), its rows before ``before_step``."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if before_step is None or "step" not in frame:
        return frame
    return frame[pd.to_numeric(frame["step"], errors="coerce") < before_step]


def _write_log(frames: list[pd.DataFrame], path: Path) -> None:
    """The logs' rows one after another, columns united (a column a part lacks is left empty there)."""
    with atomic_path(path) as tmp:
        pd.concat(frames, ignore_index=True).fillna("").to_csv(tmp, index=False)


def finished_steps(last: Path) -> int:
    """The optimiser steps taken up to the end of the epoch ``last`` (a ``last.ckpt``) holds."""
    return int(torch.load(last, map_location="cpu", weights_only=False, mmap=True)["global_step"])


def set_aside_log(run_dir: Path, before_step: int) -> None:
    """Keep the epochs logged so far: Lightning's CSV logger deletes ``logs/metrics.csv`` when it starts.

    Only rows logged before ``before_step`` (the end of the last finished epoch) are kept: the resumed
    run logs the unfinished epoch, and anything after the last finished one, again. A run resumed
    before and stopped again adds its rows to those set aside the first time.
    """
    log_now, before = run_dir / _LOG, run_dir / _LOG_BEFORE
    if not log_now.is_file():
        return
    older = [_read_log(before)] if before.is_file() else []
    _write_log([*older, _read_log(log_now, before_step)], before)
    log_now.unlink()


def merge_log(run_dir: Path) -> None:
    """Put the epochs logged before the resume back in front of ``logs/metrics.csv``."""
    log_now, before = run_dir / _LOG, run_dir / _LOG_BEFORE
    if not before.is_file():
        return
    _write_log([_read_log(before)] + ([_read_log(log_now)] if log_now.is_file() else []), log_now)
    before.unlink()


def _sample_streams(module: nn.Module) -> Iterator[tuple[str, SampleStream]]:
    """The random draws of randomised attention backends (ProbSparse, BigBird), by module path."""
    for path, sub in module.named_modules():
        for attr, value in vars(sub).items():
            if isinstance(value, SampleStream):
                yield f"{path}.{attr}", value


class ResumeState(L.Callback):
    """Saves the random-number generators (and whether training was told to stop) in each checkpoint and
    restores them on resume; says how to resume.

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
                 "samples": {key: stream.state() for key, stream in _sample_streams(pl_module)},
                 "should_stop": trainer.should_stop}  # early stopping runs before the checkpoint callbacks
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
        # Lightning restores early stopping's counters but not the stop itself: a run stopped after early
        # stopping fired (in its test pass, say) would otherwise train one more epoch
        trainer.should_stop = bool(state.get("should_stop", False))

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        if trainer.state.fn != TrainerFn.FITTING or not trainer.is_global_zero:
            return
        if last_checkpoint(self.run_dir).is_file():
            log.error("training stopped (%s); its last checkpoint is saved. Continue it with:\n  %s",
                      type(exception).__name__, self.command)
        else:
            log.error("training stopped (%s) before its first epoch ended; nothing to resume",
                      type(exception).__name__)
