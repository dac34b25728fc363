"""``trainer.precision``: ``auto`` (the default) trains in ``32-true``; bf16 only on request.

``auto`` gives ``32-true`` on every device. On a CPU that multiplies bf16 natively (Zen 4, a Xeon with AMX)
``bf16-mixed`` takes a quarter to a half off a training step, but where a learned residual carries the
forecast it tested 1.5-19.8% above fp32 on the same CPU and code (docs/results.md §13.9); on a CUDA GPU at
this project's sizes a step is bound by kernel launches, and bf16-mixed measured slower (docs/performance.md
§8). ``trainer.precision=bf16`` asks for it; on a CPU without native bf16 (flags without ``avx512_bf16``,
``amx_bf16`` or ARM's ``bf16``) autocast emulates it, slower than fp32, and the run says so. A few short names
are accepted beside Lightning's own: ``fp32``/``32`` -> ``32-true``, ``bf16`` -> ``bf16-mixed``. The pipeline
resolves the value once, before the trainer is built, so ``config.yaml`` and ``metrics.json`` (``precision``)
record what ran.
"""

from __future__ import annotations

import logging
from pathlib import Path

from omegaconf import DictConfig, open_dict

log = logging.getLogger("forecast")

ALIASES = {"auto": "32-true", "fp32": "32-true", "32": "32-true", "bf16": "bf16-mixed", "fp16": "16-mixed"}
CPU_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The CPU's feature flags (x86 ``flags``, ARM ``Features``) from the first processor entry; empty if unreadable."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def cpu_has_bf16(flags: frozenset[str] | None = None) -> bool:
    """Whether the CPU has native bf16 arithmetic (AVX512_BF16, AMX-BF16 or ARM BF16)."""
    return bool((cpu_flags() if flags is None else flags) & CPU_BF16_FLAGS)


def resolve_precision(value: object) -> str:
    """Lightning's precision name for a ``trainer.precision`` value (``auto`` and the short names resolved)."""
    return ALIASES.get(str(value).strip().lower(), str(value))


def runs_on_cpu(accelerator: object) -> bool:
    """Whether Lightning's ``accelerator`` setting trains on the CPU (``auto`` where no CUDA GPU is seen)."""
    name = str(accelerator).lower()
    if name == "auto":
        import torch

        return not torch.cuda.is_available()
    return name == "cpu"


def apply_precision(cfg: DictConfig) -> str:
    """Write the resolved ``trainer.precision`` into ``cfg`` (in place) and return it; warn where bf16 is asked
    of a CPU that would emulate it."""
    trainer = cfg.get("trainer")
    if trainer is None or "precision" not in trainer:
        return "32-true"
    precision = resolve_precision(trainer.precision)
    if precision.startswith("bf16") and runs_on_cpu(trainer.get("accelerator", "auto")) and not cpu_has_bf16():
        log.warning("trainer.precision=%s on a CPU without native bf16 (no avx512_bf16, amx_bf16 or bf16 flag): "
                    "autocast emulates it, slower than fp32; trainer.precision=fp32 is faster here", precision)
    with open_dict(cfg):
        cfg.trainer.precision = precision
    return precision
