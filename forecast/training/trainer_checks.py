"""Trainer settings that Lightning would refuse only after the run had started, checked before the data is read."""

from __future__ import annotations

import logging
import re
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig

from forecast.core.errors import ConfigError

DURATION = re.compile(r"^\d+:\d+:\d+:\d+$")  # days:hours:minutes:seconds


def check_max_time(trainer: DictConfig) -> None:
    """Refuse a ``trainer.max_time`` other than null or ``"DD:HH:MM:SS"`` (the form Lightning's ``Timer`` takes
    from a config).

    Raises:
        ConfigError: e.g. ``trainer.max_time must be days:hours:minutes:seconds (00:00:02:00 for two minutes),
            got '2min'``.
    """
    value: Any = trainer.get("max_time")
    if value is None or (isinstance(value, str) and DURATION.match(value.strip())):
        return
    shown = value if not isinstance(value, DictConfig) else dict(value)
    raise ConfigError(f"trainer.max_time must be days:hours:minutes:seconds (00:00:02:00 for two minutes), "
                      f"got {shown!r}")


def check_gradient_clip(trainer: DictConfig) -> None:
    """Refuse a negative ``trainer.gradient_clip_val``: Lightning takes it, and torch's norm clipping then
    multiplies every gradient by a negative factor, so training climbs the loss.

    Raises:
        ConfigError: ``trainer.gradient_clip_val must be 0 or more (0 or null: no clipping), got -1``.
    """
    value: Any = trainer.get("gradient_clip_val")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise ConfigError(f"trainer.gradient_clip_val must be 0 or more (0 or null: no clipping), got {value}")


def check_gpus(trainer: DictConfig) -> None:
    """Refuse ``trainer.accelerator=gpu`` (or ``cuda``) where torch sees fewer CUDA GPUs than ``trainer.devices``.

    Raises:
        ConfigError: e.g. ``trainer.accelerator must be cpu or auto here: 1 CUDA GPU(s) asked for and this torch
            (2.13.0+cpu) sees none; ...``.
    """
    if str(trainer.get("accelerator", "auto")).lower() not in ("gpu", "cuda"):
        return
    import torch

    seen = torch.cuda.device_count() if torch.cuda.is_available() else 0
    devices = trainer.get("devices", 1)
    wanted = devices if isinstance(devices, int) and not isinstance(devices, bool) and devices > 0 else 1
    if seen >= wanted:
        return
    what = "none" if seen == 0 else str(seen)
    raise ConfigError(f"trainer.accelerator must be cpu or auto here: {wanted} CUDA GPU(s) asked for and this torch "
                      f"({torch.__version__}) sees {what}; use trainer=cpu (trainer=ddp_sim for DDP in CPU processes), or "
                      f"run where a CUDA build of torch sees the GPUs")


def check_lightning(trainer: DictConfig) -> None:
    """Build Lightning's ``Trainer`` from ``trainer`` alone (no callbacks, logger or checkpoints; milliseconds, its
    own lines silenced) and refuse the settings it refuses, with its message.

    Raises:
        ConfigError: e.g. ``trainer must be given settings Lightning's Trainer takes (`Trainer(devices=0)` value is
            not a valid input using cpu accelerator.)``.
    """
    lightning_log = logging.getLogger("lightning.pytorch")
    level = lightning_log.level
    lightning_log.setLevel(logging.ERROR)
    try:
        instantiate(trainer, callbacks=[], logger=False, enable_checkpointing=False, enable_progress_bar=False,
                    enable_model_summary=False, _convert_="partial")
    except Exception as exc:  # Lightning's MisconfigurationException, a missing accelerator package, a bad value
        cause = exc.__cause__ or exc
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        raise ConfigError(f"trainer must be given settings Lightning's Trainer takes ({first})") from exc
    finally:
        lightning_log.setLevel(level)


def check_trainer(trainer: DictConfig) -> None:
    """:func:`check_max_time`, :func:`check_gradient_clip`, :func:`check_gpus`, then :func:`check_lightning` for
    the rest."""
    check_max_time(trainer)
    check_gradient_clip(trainer)
    check_gpus(trainer)
    check_lightning(trainer)
