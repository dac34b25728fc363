"""forecast.training.monitor: the peak memory of one run, not of the process's earlier runs."""

from __future__ import annotations

import mmap
import sys

import pytest

from forecast.training.monitor import peak_memory_mb, reset_peak_memory

MB = 2**20


def touch_and_release(megabytes: int) -> None:
    """Make `megabytes` resident, then give them back to the kernel. An anonymous map is unmapped on
    close whatever the allocator's state, which a freed tensor (kept by malloc for reuse) is not."""
    with mmap.mmap(-1, megabytes * MB) as block:
        for offset in range(0, megabytes * MB, mmap.PAGESIZE):
            block[offset] = 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM and clear_refs are Linux's")
def test_the_cpu_peak_restarts_after_a_reset() -> None:
    reset_peak_memory()
    start = peak_memory_mb()
    touch_and_release(128)
    before = peak_memory_mb()
    assert before >= start + 120  # the 128 MB counted while resident
    reset_peak_memory()
    after = peak_memory_mb()
    assert after < before - 100  # and no longer count once released and the peak reset
    touch_and_release(16)
    assert peak_memory_mb() >= after + 12  # the peak counts again from the reset
