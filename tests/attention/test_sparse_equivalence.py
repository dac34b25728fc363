"""Each exact sparse backend equals dense float64 attention under its own ``pattern`` (to 1e-10).

``pattern`` is the explicit formula of the design notes (time differences ``q_offset + i - j*k_stride``);
the fast paths (blocks, residue groups, gathers) must reproduce it exactly, including lengths that
are not a block multiple, cross-attention with ``q_offset`` and ``k_stride = 2``, and key padding.
"""

from __future__ import annotations

import math

import pytest
import torch

from forecast.attention.atrous import AtrousAttention
from forecast.attention.base import AttentionBackend
from forecast.attention.bigbird import BigBirdAttention
from forecast.attention.full import FullAttention
from forecast.attention.local import LocalAttention
from forecast.attention.logsparse import LogSparseAttention
from forecast.attention.masks import causal_mask
from forecast.attention.strided import StridedAttention
from tests.attention.reference import causal_pattern, dense_attention

ATOL = 1e-10
BACKENDS = {
    "local-w3-b4": lambda: LocalAttention(window=3, block_size=4),
    "local-w0-b3": lambda: LocalAttention(window=0, block_size=3),
    "local-w-ge-L": lambda: LocalAttention(window=40, block_size=8),
    "atrous-r1": lambda: AtrousAttention(dilation=1),
    "atrous-r2": lambda: AtrousAttention(dilation=2),
    "atrous-r3": lambda: AtrousAttention(dilation=3),
    "atrous-r8": lambda: AtrousAttention(dilation=8),
    "strided-l3": lambda: StridedAttention(stride=3),
    "strided-l4": lambda: StridedAttention(stride=4),
    "strided-sqrt": lambda: StridedAttention(),
    "logsparse-w1": lambda: LogSparseAttention(window=1),
    "logsparse-w3": lambda: LogSparseAttention(window=3),
    "logsparse-auto": lambda: LogSparseAttention(),
    "bigbird-b3-r2": lambda: BigBirdAttention(block_size=3, num_random_blocks=2, seed=1),
    "bigbird-b4-r1": lambda: BigBirdAttention(block_size=4, num_random_blocks=1),
    "bigbird-b2-r3": lambda: BigBirdAttention(block_size=2, num_random_blocks=3, seed=7),
}
GEOMETRIES = {  # (Lq, Lk, q_offset, k_stride)
    "self-13": (13, 13, 0, 1),  # not a block multiple
    "self-24": (24, 24, 0, 1),
    "cross-7x11": (7, 11, 5, 2),  # Informer-style cross: decoder starts at q_offset, distilled keys
    "cross-9x6": (9, 6, 4, 2),
    "cross-10x5-s3": (10, 5, 3, 3),
}


def inputs(lq: int, lk: int, seed: int = 0) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(2, 3, lq, 5, generator=gen, dtype=torch.float64)
    k = torch.randn(2, 3, lk, 5, generator=gen, dtype=torch.float64)
    v = torch.randn(2, 3, lk, 4, generator=gen, dtype=torch.float64)  # random V exposes double counting
    kpm = torch.rand(2, lk, generator=gen) > 0.3
    kpm[:, -1] = True  # length-dependent defaults see the full key span (trailing padding: test_contract)
    return q, k, v, kpm


def assert_matches_pattern(backend: AttentionBackend, lq: int, lk: int, q_offset: int, k_stride: int,
                           causal: bool, padding: bool) -> None:
    q, k, v, kpm = inputs(lq, lk)
    kpm = kpm if padding else None
    out = backend(q, k, v, causal=causal, key_padding_mask=kpm, q_offset=q_offset, k_stride=k_stride)
    mask = backend.pattern(lq, lk, causal=causal, q_offset=q_offset, k_stride=k_stride)  # ([H,] Lq, Lk)
    mask = mask.expand(1, *mask.shape[-3:]) if mask.dim() == 3 else mask[None, None]  # (1, H|1, Lq, Lk)
    if kpm is not None:
        mask = mask & kpm[:, None, None, :]
    ref = dense_attention(q, k, v, mask)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)


@pytest.mark.parametrize("padding", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("causal", [False, True], ids=["bidir", "causal"])
@pytest.mark.parametrize("geometry", GEOMETRIES.values(), ids=GEOMETRIES.keys())
@pytest.mark.parametrize("name", BACKENDS.keys())
def test_fast_path_equals_dense_pattern(name: str, geometry: tuple[int, int, int, int], causal: bool,
                                        padding: bool) -> None:
    backend = BACKENDS[name]().eval()
    lq, lk, q_offset, k_stride = geometry
    if lq != lk or q_offset or k_stride != 1:
        if not backend.supports_cross or (causal and not backend.supports_causal_cross):
            pytest.skip(f"{name} does not support this cross-attention role")
    assert_matches_pattern(backend, lq, lk, q_offset, k_stride, causal, padding)


@pytest.mark.parametrize("name", ["local-w3-b4", "atrous-r3", "strided-l3", "logsparse-w3", "bigbird-b3-r2"])
def test_gradcheck(name: str) -> None:
    backend = BACKENDS[name]().eval()
    gen = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(1, 2, 7, 3, generator=gen, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    kpm = torch.tensor([[True, True, False, True, True, True, True]])
    for causal in (False, True):
        assert torch.autograd.gradcheck(lambda a, b, c: backend(a, b, c, causal=causal, key_padding_mask=kpm),
                                        (q, k, v))


@pytest.mark.parametrize("causal", [False, True])
def test_full_matches_dense_reference(causal: bool) -> None:
    q, k, v, kpm = inputs(11, 11)
    full = FullAttention(dropout=0.0)
    mask = causal_pattern(11, 11)[None, None] if causal else None
    torch.testing.assert_close(full(q, k, v, causal=causal), dense_attention(q, k, v, mask),
                               atol=ATOL, rtol=0)
    # Cross with a q_offset / k_stride causal mask, plus key padding.
    q, k, v, kpm = inputs(7, 11)
    mask = causal_pattern(7, 11, q_offset=5, k_stride=2)
    assert torch.equal(mask, causal_mask(7, 11, q_offset=5, k_stride=2))
    out = full(q, k, v, causal=True, key_padding_mask=kpm, q_offset=5, k_stride=2)
    ref = dense_attention(q, k, v, mask[None, None] & kpm[:, None, None, :])
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("length", [1, 10, 17])
def test_atrous_rate_one_is_full_attention(causal: bool, length: int) -> None:
    q, k, v, _ = inputs(length, length)
    full = FullAttention(dropout=0.0)
    out = AtrousAttention(dilation=1)(q, k, v, causal=causal)
    torch.testing.assert_close(out, full(q, k, v, causal=causal), atol=ATOL, rtol=0)


@pytest.mark.parametrize("length", [9, 64, 100])
def test_logsparse_row_budget_and_receptive_field(length: int) -> None:
    backend = LogSparseAttention(window=1)
    pattern = backend.pattern(length, length, causal=True)  # (L, L)
    assert (pattern.sum(-1) <= 1 + math.ceil(math.log2(length)) + 1).all()  # window + ceil(log2 L) + 1
    assert torch.equal(pattern & ~causal_pattern(length, length), torch.zeros_like(pattern))  # causal
    reach = torch.eye(length, dtype=torch.float64)
    step = pattern.double()
    for _ in range(math.ceil(math.log2(length))):  # ceil(log2 L) stacked layers
        reach = ((reach @ step) > 0).double()
    assert reach[-1].bool().all(), "the last step does not reach every earlier step"
    wide = LogSparseAttention(window=4).pattern(length, length, causal=True)
    assert (wide.sum(-1) <= 4 + math.ceil(math.log2(length)) + 1).all()


@pytest.mark.parametrize("causal", [False, True])
def test_bigbird_table_has_no_duplicates_and_is_seeded(causal: bool) -> None:
    backend = BigBirdAttention(block_size=2, num_random_blocks=3, seed=5)
    table = backend.key_blocks(12, 4, causal=causal)  # (H, nb, Kb)
    for row in table.reshape(-1, table.shape[-1]):
        real = row[row >= 0]
        assert real.unique().numel() == real.numel(), f"duplicate key block in {row.tolist()}"
    assert torch.equal(table, BigBirdAttention(block_size=2, num_random_blocks=3, seed=5).key_blocks(
        12, 4, causal=causal))
    assert not torch.equal(table, BigBirdAttention(block_size=2, num_random_blocks=3, seed=6).key_blocks(
        12, 4, causal=causal))
    if causal:  # window {q-1, q}, block 0, random blocks from [1, q-2]: never a later block
        assert (table <= torch.arange(12)[None, :, None]).all()
    # Realized patterns of one seed agree between calls (eval re-seeds) and token rows hold each key once.
    q, k, v, _ = inputs(24, 24)
    backend.eval()
    backend(q, k, v, causal=causal)
    first = backend.pattern(24, 24, causal=causal)
    backend(q, k, v, causal=causal)
    assert torch.equal(first, backend.pattern(24, 24, causal=causal))


def test_bigbird_trains_with_fresh_random_blocks() -> None:
    backend = BigBirdAttention(block_size=2, num_random_blocks=2, seed=0).train()
    q, k, v, _ = inputs(24, 24)
    backend(q, k, v)
    first = backend.last_key_blocks
    backend(q, k, v)
    assert not torch.equal(first, backend.last_key_blocks)  # the training generator advances
