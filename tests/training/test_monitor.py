"""forecast.training.monitor: the peak memory of one run, not of the process's earlier runs."""

from __future__ import annotations

import sys

import pytest
import torch

from forecast.training.monitor import peak_memory_mb, reset_peak_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM and clear_refs are Linux's")
def test_the_cpu_peak_restarts_after_a_reset() -> None:
    big = torch.ones(64 * 2**20 // 4)  # 64 MB resident
    big.add_(1)
    del big
    before = peak_memory_mb()
    reset_peak_memory()
    after = peak_memory_mb()
    assert after < before - 32  # the freed 64 MB no longer counts
    small = torch.ones(16 * 2**20 // 4)
    small.add_(1)
    assert peak_memory_mb() >= after
