"""Peak live tensor bytes grow with L as each backend's algorithm promises (log-log slope over L, 2L, 4L).

Counted with ``tests.attention.memory`` (a dispatch-mode counter: deterministic, but blind to scratch
memory inside fused kernels such as CPU SDPA). A backend is checked once its YAML stem is registered
in ``EXPECTED_SLOPE`` (an upper bound on the slope); ``MEMORY_OVERRIDES`` shrinks block-type
hyper-parameters so that the smallest L is at least 4 blocks. Unregistered backends are skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.attention.configs import ATTENTION_CONFIGS, load_backend
from tests.attention.memory import loglog_slope, peak_bytes
from tests.attention.reference import dense_attention

LENGTHS = (256, 512, 1024)
B, H, E = 1, 2, 16

#: Upper bound on the log-log slope of peak bytes against L, by config stem.
EXPECTED_SLOPE: dict[str, float] = {
    "full": 1.3,  # fused CPU SDPA (its kernel scratch is not counted here)
    "prob": 1.3,  # O(L log L)
    "local": 1.3,  # O(L * (block + 2 window))
    "logsparse": 1.3,  # O(L * (window + log L))
    "bigbird": 1.3,  # O(L * (5 + r) * block)
    "strided": 1.7,  # O(L^1.5) with l = sqrt(L); measured ~1.3 at these sizes (linear gathers dominate)
    "atrous": 2.1,  # O(L^2 / r) with a fixed rate: quadratic by design
    "linear": 1.3,  # O(L * chunk + L / chunk * E * D); measured 1.0
    "performer": 1.3,  # O(L * m); measured 1.0
    "nystrom": 1.3,  # O(L * m + m^2); measured 0.96
    "flash": 1.3,  # O(L * G + L / G * s * e); measured 1.0
    "flash_quad": 2.1,  # O(L^2) by design; lower bound (> 1.8) asserted in test_flash.py
}
#: Config overrides for the measurement (L >= 4 blocks at the smallest length).
MEMORY_OVERRIDES: dict[str, dict[str, object]] = {
    "local": {"window": 16, "block_size": 16},
    "bigbird": {"block_size": 16, "num_random_blocks": 2},
    "flash": {"group_size": 64},
}


def peaks(attend, causal: bool) -> list[int]:  # noqa: ANN001
    """Peak live bytes of one forward (no autograd graph) at each length; inputs are not counted."""
    out = []
    for length in LENGTHS:
        gen = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(B, H, length, E, generator=gen) for _ in range(3))
        with torch.no_grad():
            out.append(peak_bytes(lambda: attend(q, k, v, causal)))
    return out


@pytest.mark.parametrize("causal", [False, True], ids=["bidir", "causal"])
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in ATTENTION_CONFIGS])
def test_peak_memory_slope(path: Path, causal: bool) -> None:
    if path.stem not in EXPECTED_SLOPE:
        pytest.skip(f"no expected memory slope registered for {path.stem} (EXPECTED_SLOPE)")
    backend = load_backend(path, **MEMORY_OVERRIDES.get(path.stem, {})).eval()
    if causal and not backend.supports_causal:
        pytest.skip(f"{path.stem} is not causal")
    measured = peaks(lambda q, k, v, c: backend(q, k, v, causal=c), causal)
    slope = loglog_slope(LENGTHS, measured)
    assert slope < EXPECTED_SLOPE[path.stem], f"{path.stem}: peak bytes {measured}, slope {slope:.2f}"


def test_dense_reference_is_quadratic() -> None:
    measured = peaks(lambda q, k, v, c: dense_attention(q, k, v), False)
    slope = loglog_slope(LENGTHS, measured)
    assert slope > 1.8, f"dense reference: peak bytes {measured}, slope {slope:.2f}"
