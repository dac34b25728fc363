"""Process set-up shared by the command-line entry points."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from pathlib import Path

from omegaconf import OmegaConf

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CONF_DIR = PROJECT_ROOT / "conf"

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_BIG = 1 << 34  # 16 GiB: keep large tensors on the heap


def tune_malloc() -> bool:
    """Keep big allocations on glibc's heap (like ``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_``).

    With the default thresholds each large tensor is a fresh mmap and CPU step times become erratic
    (page faults); see ``docs/performance.md``. Returns True when applied (glibc only).
    """
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        ok_trim = libc.mallopt(_M_TRIM_THRESHOLD, ctypes.c_int(min(_BIG, 2**31 - 1)))
        ok_mmap = libc.mallopt(_M_MMAP_THRESHOLD, ctypes.c_int(min(_BIG, 2**31 - 1)))
    except (OSError, AttributeError):
        return False
    return bool(ok_trim and ok_mmap)


def _period_for(freq: str | None) -> int | None:
    from forecast.baselines.seasonal_naive import period_for

    return period_for(freq)


def register_resolvers() -> None:
    """Register the config resolvers.

    * ``${project_root:}``: the repository root (where ``data/`` and ``conf/`` live).
    * ``${period_for:${data.freq}}``: the default season length of a pandas frequency (``h`` -> 24,
      ``15min`` -> 96, ``D`` -> 7, ``B`` -> 5, ``W`` -> 52, ``MS`` -> 12), null when the frequency is null
      (inferred from the data) or has no default season.
    * ``${when_resuming:${resume},A,B}``: A when ``resume`` is set, else B (the run dir of a resumed run).
    """
    if not OmegaConf.has_resolver("project_root"):
        OmegaConf.register_new_resolver("project_root", lambda: str(PROJECT_ROOT))
    if not OmegaConf.has_resolver("period_for"):
        OmegaConf.register_new_resolver("period_for", _period_for)
    if not OmegaConf.has_resolver("when_resuming"):
        OmegaConf.register_new_resolver("when_resuming", lambda resume, then, otherwise: otherwise if resume is None
                                        else then)
