"""One benchmark measurement: the request (:class:`Measurement`) and its CSV row (:class:`Result`)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Literal

Mode = Literal["fwd", "fwdbwd"]
Status = Literal["ok", "oom", "timeout", "error", "unsupported", "skipped"]

MODES: tuple[Mode, ...] = ("fwd", "fwdbwd")

#: CSV header: the six required columns first, then the settings that make a row reproducible.
CSV_COLUMNS: tuple[str, ...] = (
    "backend", "length", "mode", "device", "time_ms", "peak_mb",
    "status", "threads", "batch", "heads", "head_dim", "dtype", "causal", "allocator", "mem_method",
    "runs", "detail",
)

#: glibc thresholds of the design notes (README "Allocator"): keep every block on the heap.
TUNED_MALLOC_BYTES = 17179869184
MALLOC_ENV_KEYS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


@dataclass(frozen=True)
class Measurement:
    """What one worker process measures.

    Attributes:
        backend: registry name (a ``forecast/conf/attention`` stem) or a baseline (``sdpa``, ``dense``).
        conf_path: the backend's YAML, ``None`` for the baselines.
        length: sequence length L (self-attention, Lq = Lk = L).
        mode: ``fwd`` (under ``no_grad``) or ``fwdbwd`` (forward, then backward of ``out.sum()``).
        device: ``cpu`` or ``cuda``.
        batch: B.
        heads: H.
        head_dim: E = D.
        dtype: ``float32``, ``float16`` or ``bfloat16``.
        causal: causal self-attention.
        threads: ``torch.set_num_threads`` in the worker.
        repeats: timed blocks; the reported time is their median (per call).
        min_block_s: a timed block repeats the call until it lasts about this long.
        max_mb: memory budget above the worker's baseline (``None``: no guard).
        seed: seed of the random inputs.
    """

    backend: str
    conf_path: str | None
    length: int
    mode: Mode
    device: str = "cpu"
    batch: int = 1
    heads: int = 8
    head_dim: int = 64
    dtype: str = "float32"
    causal: bool = False
    threads: int = 1
    repeats: int = 5
    min_block_s: float = 0.05
    max_mb: float | None = None
    seed: int = 0


@dataclass
class Result:
    """One CSV row. ``time_ms``/``peak_mb`` are ``None`` unless ``status == "ok"``."""

    backend: str
    length: int
    mode: str
    device: str
    time_ms: float | None = None
    peak_mb: float | None = None
    status: Status = "ok"
    threads: int = 1
    batch: int = 1
    heads: int = 8
    head_dim: int = 64
    dtype: str = "float32"
    causal: bool = False
    allocator: str = ""
    mem_method: str = ""
    runs: int = 0
    detail: str = field(default="")

    @classmethod
    def for_measurement(cls, m: Measurement, *, status: Status = "ok", allocator: str = "",
                        detail: str = "") -> Result:
        """A row carrying ``m``'s settings (no numbers yet)."""
        return cls(backend=m.backend, length=m.length, mode=m.mode, device=m.device, status=status,
                   threads=m.threads, batch=m.batch, heads=m.heads, head_dim=m.head_dim, dtype=m.dtype,
                   causal=m.causal, allocator=allocator, detail=detail)

    def row(self) -> dict[str, object]:
        """The CSV row: empty strings for missing numbers, floats rounded to 4 significant digits."""
        out: dict[str, object] = {}
        for key, value in asdict(self).items():
            if value is None:
                out[key] = ""
            elif isinstance(value, float):
                out[key] = float(f"{value:.4g}")
            else:
                out[key] = value
        return {key: out[key] for key in CSV_COLUMNS}


def malloc_env(allocator: Literal["tuned", "default"]) -> dict[str, str]:
    """Environment overrides for the worker processes (``""`` means: remove the variable)."""
    value = str(TUNED_MALLOC_BYTES) if allocator == "tuned" else ""
    return {key: value for key in MALLOC_ENV_KEYS}


def describe_allocator(device: str, environ: dict[str, str] | None = None) -> str:
    """The allocator in effect, for the CSV ``allocator`` column and the plot title."""
    env = os.environ if environ is None else environ
    preload = env.get("LD_PRELOAD", "")
    if "jemalloc" in preload:
        host = "jemalloc"
    elif "tcmalloc" in preload:
        host = "tcmalloc"
    elif all(env.get(key) for key in MALLOC_ENV_KEYS):
        host = f"glibc-mmap/trim={env['MALLOC_MMAP_THRESHOLD_']}/{env['MALLOC_TRIM_THRESHOLD_']}"
    else:
        host = "glibc-default"
    if device.startswith("cuda"):
        conf = env.get("PYTORCH_CUDA_ALLOC_CONF", "")
        return "cuda-caching" + (f"({conf})" if conf else "") + f"+{host}"
    return host
