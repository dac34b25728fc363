"""``trainer.precision``: ``auto`` resolves to ``bf16-mixed`` on a CPU that multiplies bf16 natively.

Native bf16 on a CPU means flags that list ``avx512_bf16`` or ``amx_bf16`` (x86, ``/proc/cpuinfo``) or
``bf16`` (ARM's ``Features``); elsewhere bf16 is emulated and slower than fp32. On a CUDA GPU ``auto``
gives ``32-true``: at this project's model sizes a step is bound by kernel launches, not arithmetic,
and bf16-mixed measured slower there (docs/performance.md); ``trainer.precision=bf16`` asks for it. A few short names are accepted
beside Lightning's own: ``fp32``/``32`` -> ``32-true``, ``bf16`` -> ``bf16-mixed``.

A model with nothing to train (a closed-form floor: naive, ridge, a calendar profile, the best floor) runs in
``32-true`` under ``auto``: its forecast gains no speed from bf16, only rounding. The pipeline resolves the
value once, after the model is built and before the trainer is, so ``config.yaml`` and ``metrics.json``
(``precision``) record what ran.
"""

from __future__ import annotations

import functools
from pathlib import Path

from omegaconf import DictConfig, open_dict

ALIASES = {"auto": "auto", "fp32": "32-true", "32": "32-true", "bf16": "bf16-mixed", "fp16": "16-mixed"}
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


@functools.lru_cache(maxsize=None)
def auto_precision(accelerator: str) -> str:
    """``bf16-mixed`` where ``accelerator`` (Lightning's name: auto, cpu, gpu, cuda) is a CPU with native
    bf16, else ``32-true`` (a CUDA GPU included)."""
    accelerator = accelerator.lower()
    if accelerator in ("gpu", "cuda"):
        return "32-true"
    if accelerator == "auto":
        import torch

        if torch.cuda.is_available():  # Lightning's auto picks the GPU
            return "32-true"
    if accelerator in ("auto", "cpu"):
        return "bf16-mixed" if cpu_has_bf16() else "32-true"
    return "32-true"


def resolve_precision(value: object, accelerator: object = "auto") -> str:
    """Lightning's precision name for a ``trainer.precision`` value (``auto`` and the short names resolved)."""
    name = ALIASES.get(str(value).strip().lower(), str(value))
    return auto_precision(str(accelerator)) if name == "auto" else name


def apply_precision(cfg: DictConfig, *, trains: bool = True, requested: object = None) -> str:
    """Write the resolved ``trainer.precision`` into ``cfg`` (in place) and return it.

    Args:
        cfg: the composed config.
        trains: whether the model has parameters that train; ``auto`` gives ``32-true`` to one that has none
            (a closed-form floor), whose forecast bf16 would only round.
        requested: the value to resolve, where ``cfg`` already holds a resolved one; None: ``cfg``'s.
    """
    trainer = cfg.get("trainer")
    if trainer is None or "precision" not in trainer:
        return "32-true"
    value = trainer.precision if requested is None else requested
    automatic = ALIASES.get(str(value).strip().lower()) == "auto"
    precision = resolve_precision(value, trainer.get("accelerator", "auto"))
    if automatic and not trains:
        precision = "32-true"
    with open_dict(cfg):
        cfg.trainer.precision = precision
    return precision
