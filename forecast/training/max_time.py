"""``trainer.max_time``: the form Lightning's ``Timer`` takes from a config, checked before the data is read."""

from __future__ import annotations

import re
from typing import Any

from omegaconf import DictConfig

from forecast.core.errors import ConfigError

DURATION = re.compile(r"^\d+:\d+:\d+:\d+$")  # days:hours:minutes:seconds


def check_max_time(trainer: DictConfig) -> None:
    """Refuse a ``trainer.max_time`` other than null or ``"DD:HH:MM:SS"``, which Lightning would refuse only
    after the run had started.

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
