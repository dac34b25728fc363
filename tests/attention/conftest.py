"""Attention-test fixtures: one thread for the small tensors used throughout."""

from __future__ import annotations

from typing import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _attention_one_thread() -> Iterator[None]:
    """Small tensors: one thread is fastest and deterministic on the shared 2-core machines."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
