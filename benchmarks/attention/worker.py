"""One measurement (backend, length, mode): its memory and its time, each in a fresh process.

Two processes per measurement (the runner forks both), because the allocator setting that gives
stable times distorts the memory number and vice versa:

* **Memory process (CPU).** Tensor storage is invisible to ``tracemalloc`` (pytorch/pytorch#91823),
  so the worker reads the resident-set high-water mark: it resets it to the current RSS (``5`` to
  ``/proc/self/clear_refs``), runs the call once, and reports ``VmHWM - VmRSS_before``.
  Before anything else it fixes glibc's mmap threshold low (``mallopt(M_MMAP_THRESHOLD, 64 KiB)``):
  every block of 64 KiB or more is then its own mmap, unmapped on free, so RSS follows the live
  tensor bytes and the high-water mark is their peak (plus kernel scratch memory, which a
  live-tensor counter would miss). With the *tuned* thresholds of the design README instead
  (``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` = 16 GiB) freed blocks stay resident on the
  heap: a warm-up would hide the peak entirely, and even a single cold call over-counts, because
  an aligned request cannot reuse a freed block of the same size (measured here: dense einsum,
  L=1024, fwd: 72 MB with the low threshold, which is the two live 32 MB score tensors plus
  small change; 102 MB with the tuned thresholds). ``mem_method = vmhwm+mmap64k``. Fallbacks:
  ``vmhwm`` where mallopt is not glibc's (jemalloc/tcmalloc preloaded), ``ru_maxrss`` (Δ of the
  maximum) where ``/proc`` cannot be reset; note that Linux carries the *parent's* peak RSS into
  ``ru_maxrss`` across fork and exec, so that fallback understates small peaks.
  Only a tiny warm-up (L <= 128, loading kernels and thread pools) precedes the measured call.
  Trust only differences well above ~1 MB.
* **Memory process (CUDA).** Warm up at full size, then ``max_memory_allocated() -
  memory_allocated()`` around one call (``mem_method = cuda_max_allocated``; the reserved peak goes
  to ``detail``).
* **Time process.** Keeps the allocator the runner configured (tuned by default: stable CPU step
  times, no page faults per call; the CSV ``allocator`` column names it). One warm-up call, then
  ``repeats`` blocks of ``torch.utils.benchmark.Timer.timeit(n)`` (it synchronises CUDA), ``n``
  chosen so that a block lasts about ``min_block_s``; the median per-call time is reported.

Memory guard (``max_mb``, both processes, CPU): ``RLIMIT_AS`` = current address-space size +
``max_mb``, set once the inputs exist, so a run that would not fit fails with an allocation error
(status ``oom``; ``detail`` names the phase) instead of swapping or meeting the kernel's OOM
killer. It bounds address space, which in the time process also grows with heap fragmentation
over repeated calls, so give it headroom; it is a safety net, not the measurement. On CUDA it is
``torch.cuda.set_per_process_memory_fraction``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import math
import os
import resource
import statistics
import time
from multiprocessing.connection import Connection
from typing import Callable, Literal

import torch
from torch.utils import benchmark

from benchmarks.attention.backends import AttentionFn, BackendEntry, Unsupported, build
from benchmarks.attention.spec import Measurement, Result, describe_allocator

MiB = 2**20
WARMUP_LENGTH = 128
M_MMAP_THRESHOLD = -3  # glibc mallopt parameter
EXACT_MMAP_BYTES = 64 * 1024


def _proc_status_kib(*keys: str) -> dict[str, int]:
    """Fields of ``/proc/self/status`` in KiB (empty dict where unavailable)."""
    out: dict[str, int] = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                name, _, rest = line.partition(":")
                if name in keys:
                    out[name] = int(rest.split()[0])
    except OSError:
        pass
    return out


def _reset_hwm() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False where not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return "VmHWM" in _proc_status_kib("VmHWM")


class CpuPeak:
    """Peak resident memory above the current RSS while the ``with`` block runs."""

    def __enter__(self) -> CpuPeak:
        gc.collect()
        self.method = "vmhwm" if _reset_hwm() else "ru_maxrss"
        if self.method == "vmhwm":
            self._base = _proc_status_kib("VmRSS")["VmRSS"]
        else:
            self._base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.peak_mb = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        if self.method == "vmhwm":
            now = _proc_status_kib("VmHWM")["VmHWM"]
        else:
            now = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.peak_mb = max(0, now - self._base) / 1024


def limit_address_space(max_mb: float) -> None:
    """Cap the address space at the current size + ``max_mb`` so that a bigger run fails cleanly."""
    size_kib = _proc_status_kib("VmSize").get("VmSize")
    if size_kib is None:
        return
    soft = int(size_kib * 1024 + max_mb * MiB)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def make_inputs(m: Measurement, length: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random q, k, v of shape (B, H, L, E); requiring grad in ``fwdbwd`` mode."""
    gen = torch.Generator().manual_seed(m.seed)
    shape = (m.batch, m.heads, length, m.head_dim)
    dtype = getattr(torch, m.dtype)
    qkv = [torch.randn(shape, generator=gen).to(device=m.device, dtype=dtype) for _ in range(3)]
    for t in qkv:
        t.requires_grad_(m.mode == "fwdbwd")
    return qkv[0], qkv[1], qkv[2]


def make_step(fn: AttentionFn, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool,
              mode: str) -> Callable[[], None]:
    """The timed call: forward under ``no_grad``, or forward + backward of ``out.sum()``."""
    if mode == "fwd":
        def step() -> None:
            with torch.no_grad():
                fn(q, k, v, causal)
    else:
        def step() -> None:
            fn(q, k, v, causal).sum().backward()
            q.grad = k.grad = v.grad = None
    return step


def time_step(step: Callable[[], None], *, repeats: int, min_block_s: float,
              cuda: bool = False) -> tuple[float, int]:
    """Median per-call seconds over ``repeats`` blocks, and the number of timed calls."""
    t0 = time.perf_counter()
    step()  # warm-up (also sizes the blocks)
    if cuda:
        torch.cuda.synchronize()
    once = max(time.perf_counter() - t0, 1e-6)
    number = max(1, math.ceil(min_block_s / once)) if once < min_block_s else 1
    timer = benchmark.Timer(stmt="step()", globals={"step": step})
    per_call = [timer.timeit(number).median for _ in range(max(1, repeats))]
    return statistics.median(per_call), number * max(1, repeats)


def _classify(err: BaseException) -> str:
    text = f"{type(err).__name__}: {err}".lower()
    if isinstance(err, MemoryError) or "out of memory" in text or "allocate" in text \
            or "not enough memory" in text:
        return "oom"
    return "error"


def _warm_up_small(fn: AttentionFn, m: Measurement) -> None:
    """Load kernels and thread pools at a tiny length; failures here are ignored."""
    length = min(m.length, WARMUP_LENGTH)
    try:
        q, k, v = make_inputs(m, length)
        make_step(fn, q, k, v, causal=m.causal, mode=m.mode)()
    except Exception:  # noqa: BLE001 - the real call reports errors
        pass


def exact_mmap_threshold() -> bool:
    """Make glibc mmap every block >= 64 KiB (unmapped on free); False where not possible."""
    preload = os.environ.get("LD_PRELOAD", "")
    if "jemalloc" in preload or "tcmalloc" in preload:
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        return bool(ctypes.CDLL(name).mallopt(M_MMAP_THRESHOLD, ctypes.c_int(EXACT_MMAP_BYTES)))
    except (OSError, AttributeError):
        return False


def measure(m: Measurement, entry: BackendEntry, what: Literal["memory", "time"]) -> Result:
    """Measure ``m``'s peak memory or its time in this (fresh) process.

    Returns:
        A row with ``peak_mb`` and ``mem_method`` (memory) or ``time_ms`` and ``runs`` (time) set
        when ``status == "ok"``, else a failure status and ``detail``.
    """
    exact = what == "memory" and not m.device.startswith("cuda") and exact_mmap_threshold()
    torch.set_num_threads(m.threads)
    result = Result.for_measurement(m, allocator=describe_allocator(m.device))
    try:
        fn = build(entry, causal=m.causal, device=m.device)
    except Unsupported as err:
        result.status, result.detail = "unsupported", str(err).splitlines()[0][:300]
        return result
    cuda = m.device.startswith("cuda")
    phase = "warm-up"
    try:
        if not cuda:
            _warm_up_small(fn, m)
        q, k, v = make_inputs(m, m.length)
        step = make_step(fn, q, k, v, causal=m.causal, mode=m.mode)
        phase = "memory call" if what == "memory" else "timing"
        if cuda:
            _cuda_limit(q.device, m.max_mb)
        elif m.max_mb is not None:
            limit_address_space(m.max_mb)
        if what == "time":
            seconds, result.runs = time_step(step, repeats=m.repeats, min_block_s=m.min_block_s, cuda=cuda)
            result.time_ms = seconds * 1e3
        elif cuda:
            result.peak_mb, result.detail = _cuda_peak(step, q.device)
            result.mem_method = "cuda_max_allocated"
        else:
            with CpuPeak() as mem:
                step()
            result.peak_mb = mem.peak_mb
            result.mem_method = mem.method + ("+mmap64k" if exact and mem.method == "vmhwm" else "")
    except Exception as err:  # noqa: BLE001 - every failure becomes a status
        result.status = _classify(err)  # type: ignore[assignment]
        message = str(err).splitlines()[0] if str(err) else ""
        result.detail = f"{phase}: {type(err).__name__}: {message}"[:300]
        result.time_ms = result.peak_mb = None
    return result


def _cuda_limit(device: torch.device, max_mb: float | None) -> None:
    """Cap this process's CUDA allocations at the current ones + ``max_mb``."""
    if max_mb is None:
        return
    total = torch.cuda.get_device_properties(device).total_memory
    wanted = torch.cuda.memory_allocated(device) + max_mb * MiB
    torch.cuda.set_per_process_memory_fraction(min(1.0, wanted / total), device)


def _cuda_peak(step: Callable[[], None], device: torch.device) -> tuple[float, str]:
    """Peak allocated MiB of one call after a full-size warm-up, and the reserved peak as detail."""
    step()  # warm-up: kernels, cuBLAS workspace
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    step()
    torch.cuda.synchronize(device)
    peak = (torch.cuda.max_memory_allocated(device) - base) / MiB
    return peak, f"max_reserved_mb={torch.cuda.max_memory_reserved(device) / MiB:.1f}"


def child_main(m: Measurement, entry: BackendEntry, what: Literal["memory", "time"],
               conn: Connection) -> None:
    """Process entry point: measure and send the :class:`Result` back through ``conn``."""
    try:
        result = measure(m, entry, what)
    except BaseException as err:  # noqa: BLE001 - report instead of dying silently
        result = Result.for_measurement(m, status="error", detail=f"{type(err).__name__}: {err}"[:300])
    conn.send(result)
    conn.close()
