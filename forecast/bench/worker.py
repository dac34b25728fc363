"""One measurement (backend, length, mode), meant to run alone in a fresh process.

CPU memory: tensor storage is invisible to ``tracemalloc`` (pytorch/pytorch#91823), so the worker
reads the process's resident-set high-water mark. It resets it to the current RSS by writing ``5``
to ``/proc/self/clear_refs``, runs the call once, and reports ``VmHWM - VmRSS_before``
(``mem_method = vmhwm``). ``getrusage().ru_maxrss`` is only the fallback (``mem_method =
ru_maxrss``, Δ of the maximum): Linux carries the *parent's* peak RSS into ``ru_maxrss`` across
fork and exec, and it cannot be reset, so it understates whenever the process once held more.

Why the memory call is the first full-size call: with the tuned glibc thresholds (design README
"Allocator") freed blocks stay on the heap and stay resident, and a later call reuses them without
raising RSS; a full-size warm-up would hide the whole peak. Only a tiny warm-up (L <= 128, to load
kernels and thread pools) runs before it. Within the measured call the high-water mark is the
baseline plus the peak of live heap bytes plus fragmentation (a freed block too small for the
next request), i.e. the memory this allocator really needed; with glibc's default thresholds big
blocks are mmapped and unmapped on free, which tracks live bytes slightly more tightly but makes
step times erratic (page faults). Trust only differences well above ~5 MB either way.

CUDA memory: warm up at full size, then ``max_memory_allocated() - memory_allocated()`` around one
call (``mem_method = cuda_max_allocated``; the reserved peak goes to ``detail``).

Memory guard (``max_mb``, CPU): ``RLIMIT_AS`` = current address-space size + ``max_mb``, set after
the inputs exist and kept through the timing calls, so a run that would not fit fails with an
allocation error (status ``oom``; ``detail`` names the phase) instead of swapping or meeting the
kernel's OOM killer. It bounds address space, which also grows with heap fragmentation over
repeated calls, so give it headroom over the expected peak; it is a safety net, not the measurement.

Time: one warm-up call, then ``repeats`` blocks of ``torch.utils.benchmark.Timer.timeit(n)`` (it
synchronises CUDA), ``n`` chosen so a block lasts about ``min_block_s``; the median per-call time
is reported.
"""

from __future__ import annotations

import gc
import math
import resource
import statistics
import time
from multiprocessing.connection import Connection
from typing import Callable

import torch
from torch.utils import benchmark

from forecast.bench.backends import AttentionFn, BackendEntry, Unsupported, build
from forecast.bench.spec import Measurement, Result, describe_allocator

MiB = 2**20
WARMUP_LENGTH = 128


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


def measure(m: Measurement, entry: BackendEntry) -> Result:
    """Run one measurement in this process (it must be fresh for the memory number to be valid)."""
    torch.set_num_threads(m.threads)
    result = Result.for_measurement(m, allocator=describe_allocator(m.device))
    try:
        fn = build(entry, causal=m.causal, device=m.device)
    except Unsupported as err:
        result.status, result.detail = "unsupported", str(err).splitlines()[0][:300]
        return result
    cuda = m.device.startswith("cuda")
    phase = "memory call"
    try:
        if not cuda:
            _warm_up_small(fn, m)
        q, k, v = make_inputs(m, m.length)
        step = make_step(fn, q, k, v, causal=m.causal, mode=m.mode)
        if cuda:
            peak_mb, result.detail = _cuda_peak(step, q.device, m.max_mb)
            result.mem_method = "cuda_max_allocated"
        else:
            if m.max_mb is not None:
                limit_address_space(m.max_mb)
            with CpuPeak() as mem:
                step()
            peak_mb, result.mem_method = mem.peak_mb, mem.method
        phase = "timing"
        seconds, result.runs = time_step(step, repeats=m.repeats, min_block_s=m.min_block_s, cuda=cuda)
    except Exception as err:  # noqa: BLE001 - every failure becomes a status
        result.status = _classify(err)
        message = str(err).splitlines()[0] if str(err) else ""
        result.detail = f"{phase}: {type(err).__name__}: {message}"[:300]
        return result
    result.time_ms, result.peak_mb = seconds * 1e3, peak_mb
    return result


def _cuda_peak(step: Callable[[], None], device: torch.device, max_mb: float | None) -> tuple[float, str]:
    """Peak allocated MiB of one call after a full-size warm-up, and the reserved peak as detail."""
    if max_mb is not None:
        total = torch.cuda.get_device_properties(device).total_memory
        wanted = torch.cuda.memory_allocated(device) + max_mb * MiB
        torch.cuda.set_per_process_memory_fraction(min(1.0, wanted / total), device)
    step()  # warm-up: kernels, cuBLAS workspace
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    step()
    torch.cuda.synchronize(device)
    peak = (torch.cuda.max_memory_allocated(device) - base) / MiB
    return peak, f"max_reserved_mb={torch.cuda.max_memory_reserved(device) / MiB:.1f}"


def child_main(m: Measurement, entry: BackendEntry, conn: Connection) -> None:
    """Process entry point: measure and send the :class:`Result` back through ``conn``."""
    try:
        result = measure(m, entry)
    except BaseException as err:  # noqa: BLE001 - report instead of dying silently
        result = Result.for_measurement(m, status="error", detail=f"{type(err).__name__}: {err}"[:300])
    conn.send(result)
    conn.close()
