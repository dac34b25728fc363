"""Run every (backend, length, mode) measurement in fresh processes and collect the rows.

Each measurement takes two processes, one for its peak memory and then one for its time (why: see
:mod:`benchmarks.attention.worker`). Processes come from a ``multiprocessing`` *forkserver* that has
imported torch once: each is a fresh fork of it (a clean heap and its own RSS high-water mark)
without paying the multi-second ``import torch`` per process. The server never runs a tensor op,
so no thread pool or CUDA context is forked.

The allocator and thread environment (glibc ``MALLOC_*_THRESHOLD_``, ``OMP_NUM_THREADS``) is set
in ``os.environ`` before the server starts, because glibc and OpenMP read it at process start.

Failure handling, per measurement: a Python exception in the worker becomes ``oom`` or ``error``;
a worker killed by a signal becomes ``oom`` for SIGKILL (the kernel's OOM killer) and ``error``
otherwise; a worker (either of the two) past ``timeout_s`` is killed and recorded as ``timeout``. After an ``oom`` or
``timeout`` the longer lengths of that (backend, mode) are not attempted (status ``skipped``), and
after ``unsupported`` none are.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Callable, Iterable, Sequence

from benchmarks.attention.backends import BackendEntry
from benchmarks.attention.spec import MODES, Measurement, Mode, Result, describe_allocator, malloc_env

WORKER_MODULE = "benchmarks.attention.worker"


def configure_environment(*, allocator: str, threads: int) -> str:
    """Set the worker environment in ``os.environ``; returns the allocator description."""
    for key, value in malloc_env(allocator).items():  # type: ignore[arg-type]
        if value:
            os.environ[key] = value
        else:
            os.environ.pop(key, None)
    for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[key] = str(threads)
    return describe_allocator("cpu")


def default_max_mb() -> float | None:
    """80 % of ``MemAvailable`` (so an oversized run fails cleanly instead of swapping), if known."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return 0.8 * int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def measure(ctx: mp.context.BaseContext, m: Measurement, entry: BackendEntry, *, timeout_s: float) -> Result:
    """Peak memory (one process), then time (another), merged into one row."""
    row = run_one(ctx, m, entry, "memory", timeout_s=timeout_s)
    if row.status != "ok":
        return row
    timed = run_one(ctx, m, entry, "time", timeout_s=timeout_s)
    if timed.status != "ok":
        timed.peak_mb, timed.mem_method = None, row.mem_method
        return timed
    row.time_ms, row.runs, row.allocator = timed.time_ms, timed.runs, timed.allocator
    row.detail = "; ".join(d for d in (row.detail, timed.detail) if d)
    return row


def run_one(ctx: mp.context.BaseContext, m: Measurement, entry: BackendEntry, what: str, *,
            timeout_s: float) -> Result:
    """One ``memory`` or ``time`` measurement in a fresh forked worker, with a wall-clock limit."""
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(m, entry, what, sender), daemon=True)
    proc.start()
    sender.close()
    result: Result | None = None
    timed_out = not receiver.poll(timeout_s)  # True also when the worker died (EOF)
    if not timed_out:
        try:
            result = receiver.recv()
        except EOFError:  # died before sending
            result = None
    proc.join(timeout=5 if result is not None else 0.5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    receiver.close()
    if result is not None:
        return result
    code = proc.exitcode
    if timed_out:
        status, detail = "timeout", f"{what}: over {timeout_s:g} s"
    elif code == -signal.SIGKILL:
        status, detail = "oom", f"{what}: killed by SIGKILL (OOM killer?)"
    elif code is not None and code < 0:
        status, detail = "error", f"{what}: killed by signal {-code}"
    else:
        status, detail = "error", f"{what}: worker exited with code {code} and no result"
    return Result.for_measurement(m, status=status, detail=detail,  # type: ignore[arg-type]
                                  allocator=describe_allocator(m.device))


def _child(m: Measurement, entry: BackendEntry, what: str, conn: Connection) -> None:
    """Worker entry point (torch is imported only here, i.e. in the forkserver and its children)."""
    from benchmarks.attention.worker import child_main  # noqa: PLC0415

    child_main(m, entry, what, conn)  # type: ignore[arg-type]


def run_all(entries: Sequence[BackendEntry], lengths: Sequence[int], modes: Iterable[Mode],
            template: Measurement, *, timeout_s: float,
            on_result: Callable[[Result], None] | None = None) -> list[Result]:
    """Measure every (backend, mode, length); lengths ascending, so skips follow failures.

    Args:
        entries: backends to run.
        lengths: sequence lengths.
        modes: ``fwd`` and/or ``fwdbwd``.
        template: the shared settings (its backend, length and mode are replaced).
        timeout_s: wall-clock limit per measurement.
        on_result: called after each row (progress printing, incremental CSV).
    """
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload([WORKER_MODULE])
    rows: list[Result] = []
    for entry in entries:
        for mode in [m for m in MODES if m in set(modes)]:
            stop: Result | None = None
            for length in sorted(set(lengths)):
                m = replace(template, backend=entry.name,
                            conf_path=None if entry.conf_path is None else str(entry.conf_path),
                            length=length, mode=mode)
                if stop is None:
                    result = measure(ctx, m, entry, timeout_s=timeout_s)
                else:
                    result = _follow_up(m, stop)
                if result.status in ("oom", "timeout", "unsupported") and stop is None:
                    stop = result
                rows.append(result)
                if on_result is not None:
                    on_result(result)
    return rows


def _follow_up(m: Measurement, stop: Result) -> Result:
    """The row for a length not attempted because a shorter one failed (or the mode is refused)."""
    if stop.status == "unsupported":
        return Result.for_measurement(m, status="unsupported", detail=stop.detail,
                                      allocator=stop.allocator)
    return Result.for_measurement(m, status="skipped", allocator=stop.allocator,
                                  detail=f"{stop.status} at length {stop.length}")
