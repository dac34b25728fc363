"""Linear attention (elu+1): exact against its dense float64 form, chunking, padding."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from forecast.attention.linear import LinearAttention, elu_feature_map
from tests.attention.reference import causal_pattern


def dense_linear(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, eps: float) -> Tensor:
    """``A = (phi(Q) phi(K)^T) (.) M``, ``out = A V / (A 1 + eps)`` in float64 (dense, tests only)."""
    a = torch.einsum("bhqe,bhke->bhqk", elu_feature_map(q.double()), elu_feature_map(k.double()))
    if mask is not None:
        a = a * mask
    return torch.einsum("bhqk,bhkd->bhqd", a, v.double()) / (a.sum(-1, keepdim=True) + eps)


def qkv(lq: int, lk: int, *, b: int = 2, h: int = 3, e: int = 5, d: int = 4,
        seed: int = 0) -> tuple[Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(b, h, n, w, generator=gen, dtype=torch.float64)
                 for n, w in ((lq, e), (lk, e), (lk, d)))


@pytest.mark.parametrize("causal", [False, True])
def test_equals_dense_form(causal: bool) -> None:
    q, k, v = qkv(37, 37)
    attn = LinearAttention(chunk_size=8)
    mask = causal_pattern(37, 37) if causal else None
    torch.testing.assert_close(attn(q, k, v, causal=causal), dense_linear(q, k, v, mask, attn.eps),
                               atol=1e-12, rtol=1e-10)


def test_cross_equals_dense_form() -> None:
    q, k, v = qkv(11, 29)
    torch.testing.assert_close(LinearAttention()(q, k, v), dense_linear(q, k, v, None, 1e-6),
                               atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
def test_chunk_sizes_agree(causal: bool) -> None:
    length = 50
    q, k, v = qkv(length, length, seed=1)
    outs = [LinearAttention(chunk_size=c)(q, k, v, causal=causal) for c in (1, 7, 64, length)]
    for out in outs[1:]:
        torch.testing.assert_close(out, outs[0], atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
def test_key_padding_matches_dense_and_is_invariant(causal: bool) -> None:
    length, pad = 21, 6
    q, k, v = qkv(length, length, seed=2)
    attn = LinearAttention(chunk_size=4)
    junk = qkv(pad, pad, seed=3)
    qp, kp, vp = (torch.cat([x, 50 * j], dim=2) for x, j in zip((q, k, v), junk))  # padded at the end
    mask = torch.ones(2, length + pad, dtype=torch.bool)
    mask[:, length:] = False
    mask[1, 3] = False  # an interior padded key too
    out = attn(qp, kp, vp, causal=causal, key_padding_mask=mask)
    pattern = causal_pattern(length + pad, length + pad) if causal else torch.ones(length + pad, length + pad,
                                                                                     dtype=torch.bool)
    ref = dense_linear(qp, kp, vp, pattern & mask[:, None, None, :], attn.eps)
    torch.testing.assert_close(out, ref, atol=1e-12, rtol=1e-10)
    short_mask = mask[:, :length]
    torch.testing.assert_close(out[:, :, :length], attn(q, k, v, causal=causal, key_padding_mask=short_mask),
                               atol=1e-12, rtol=1e-10)


def test_fully_padded_row_outputs_zero() -> None:
    q, k, v = qkv(6, 6)
    mask = torch.zeros(2, 6, dtype=torch.bool)
    assert torch.all(LinearAttention()(q, k, v, causal=True, key_padding_mask=mask) == 0)


def test_causal_cross_refused() -> None:
    q, k, v = qkv(5, 8)
    with pytest.raises(ValueError, match="full"):
        LinearAttention()(q, k, v, causal=True)


def test_half_inputs_accumulate_in_float32() -> None:
    q, k, v = (x.to(torch.bfloat16) for x in qkv(300, 300))
    out = LinearAttention()(q, k, v, causal=True)
    assert out.dtype == torch.bfloat16 and torch.isfinite(out).all()


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck(causal: bool) -> None:
    q, k, v = (t.requires_grad_() for t in qkv(9, 9, b=1, h=1, e=3, d=2))
    mask = torch.tensor([[True] * 7 + [False] * 2])
    attn = LinearAttention(chunk_size=4)
    assert torch.autograd.gradcheck(lambda q, k, v: attn(q, k, v, causal=causal, key_padding_mask=mask),
                                    (q, k, v))
