"""FLASH / FLASH-Quad GAU kernels: exact against their dense float64 forms, length-leak probe."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor

from forecast.attention.flash import FlashAttention
from forecast.attention.flash_quad import FlashQuadAttention
from tests.attention.memory import loglog_slope, peak_bytes
from tests.attention.reference import causal_pattern


def tensors(length: int, *, n: int = 5, b: int = 2, h: int = 2, e: int = 6, d: int = 4, seed: int = 0,
            lk: int | None = None) -> list[Tensor]:
    """q, k, v, lin_q, lin_k (k, v, lin_k of length ``lk`` if given)."""
    gen = torch.Generator().manual_seed(seed)
    lk = length if lk is None else lk
    shapes = [(length, e), (lk, e), (lk, d), (length, e), (lk, e)][:n]
    return [torch.randn(b, h, t, w, generator=gen, dtype=torch.float64) for t, w in shapes]


def visible(lq: int, lk: int, causal: bool, mask: Tensor | None) -> Tensor:
    """(B|1, 1, Lq, Lk) keys each row may see."""
    vis = causal_pattern(lq, lk) if causal else torch.ones(lq, lk, dtype=torch.bool)
    vis = vis[None, None]
    return vis if mask is None else vis & mask[:, None, None, :]


def dense_flash(q: Tensor, k: Tensor, v: Tensor, lq: Tensor, lk: Tensor, *, group: int, causal: bool,
                mask: Tensor | None, scaling: str) -> Tensor:
    """Dense: ``A = blockdiag(quad)[(.) tril] + tau lq lk^T [(.) chunk-strictly-lower]``, ``out = AV / l``."""
    length, e = q.shape[2], q.shape[3]
    vis = visible(length, length, causal, mask)
    count = vis.sum(-1, keepdim=True).clamp(min=1).double()  # (B, 1, L, 1)
    chunk = torch.arange(length) // group
    same = chunk[:, None] == chunk[None, :]
    everywhere = torch.ones(length, length, dtype=torch.bool)
    lin_allowed = (chunk[None, :] < chunk[:, None]) if causal else everywhere
    scores = q @ k.transpose(-1, -2)
    quad = F.relu(scores).square() / e if scaling == "ns" else F.relu(scores / count).square() * count
    tau = 1 / math.sqrt(e) if scaling == "ns" else 1.0
    lin = tau * (lq @ lk.transpose(-1, -2))
    a = quad * (vis & same) + lin * (vis & lin_allowed)
    return a @ v / count


def dense_quad(q: Tensor, k: Tensor, v: Tensor, *, causal: bool, mask: Tensor | None, scaling: str) -> Tensor:
    """ns: ``relu^2(q k^T / sqrt(s)) / l``; n2: ``relu^2(q k^T / l)``, over visible keys (dense)."""
    vis = visible(q.shape[2], k.shape[2], causal, mask)
    count = vis.sum(-1, keepdim=True).clamp(min=1).double()
    scores = q @ k.transpose(-1, -2)
    if scaling == "ns":
        a = F.relu(scores / math.sqrt(q.shape[-1])).square() / count
    else:
        a = F.relu(scores / count).square()
    return (a * vis) @ v


def padding_mask(length: int) -> Tensor:
    mask = torch.ones(2, length, dtype=torch.bool)
    mask[1, length - 7:] = False
    mask[0, 2] = False
    return mask


@pytest.mark.parametrize("scaling", ["ns", "n2"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("length", [24, 29])  # a multiple of the chunk and not
def test_mixed_chunk_equals_dense_form(scaling: str, causal: bool, padded: bool, length: int) -> None:
    q, k, v, lq, lk = tensors(length)
    mask = padding_mask(length) if padded else None
    attn = FlashAttention(group_size=8, gau_scaling=scaling)
    out = attn(q, k, v, causal=causal, key_padding_mask=mask, lin_q=lq, lin_k=lk)
    ref = dense_flash(q, k, v, lq, lk, group=8, causal=causal, mask=mask, scaling=scaling)
    torch.testing.assert_close(out, ref, atol=1e-12, rtol=1e-10)


def test_mixed_chunk_defaults_linear_heads_to_q_and_k() -> None:
    q, k, v = tensors(20, n=3)
    attn = FlashAttention(group_size=8)
    torch.testing.assert_close(attn(q, k, v, causal=True), attn(q, k, v, causal=True, lin_q=q, lin_k=k))


@pytest.mark.parametrize("scaling", ["ns", "n2"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_quad_equals_explicit_formula(scaling: str, causal: bool, padded: bool) -> None:
    q, k, v = tensors(19, n=3)
    mask = padding_mask(19) if padded else None
    out = FlashQuadAttention(gau_scaling=scaling)(q, k, v, causal=causal, key_padding_mask=mask)
    torch.testing.assert_close(out, dense_quad(q, k, v, causal=causal, mask=mask, scaling=scaling),
                               atol=1e-12, rtol=1e-10)


def test_quad_cross_attention() -> None:
    q, k, v = tensors(7, n=3, lk=13)
    out = FlashQuadAttention()(q, k, v)
    torch.testing.assert_close(out, dense_quad(q, k, v, causal=False, mask=None, scaling="ns"))


KERNELS = [FlashAttention(group_size=8), FlashAttention(group_size=8, gau_scaling="n2"), FlashQuadAttention(),
           FlashQuadAttention(gau_scaling="n2")]


@pytest.mark.parametrize("attn", KERNELS, ids=["flash-ns", "flash-n2", "quad-ns", "quad-n2"])
def test_causal_outputs_do_not_depend_on_total_length(attn: FlashAttention) -> None:
    """Appending tokens must not change earlier causal outputs (a 1/n normaliser fails this)."""
    q, k, v = tensors(37, n=3, seed=3)
    full = attn(q, k, v, causal=True)
    for t in (5, 8, 21):
        torch.testing.assert_close(attn(q[:, :, :t], k[:, :, :t], v[:, :, :t], causal=True), full[:, :, :t],
                                   atol=1e-13, rtol=1e-12)


def test_padding_at_the_end_is_invisible() -> None:
    q, k, v, lq, lk = tensors(21)
    pads = tensors(6, seed=9)
    longer = [torch.cat([x, 40 * p], dim=2) for x, p in zip((q, k, v, lq, lk), pads)]
    mask = torch.ones(2, 27, dtype=torch.bool)
    mask[:, 21:] = False
    attn = FlashAttention(group_size=8)
    for causal in (False, True):
        out = attn(*longer[:3], causal=causal, key_padding_mask=mask, lin_q=longer[3], lin_k=longer[4])
        torch.testing.assert_close(out[:, :, :21], attn(q, k, v, causal=causal, lin_q=lq, lin_k=lk))


def test_flash_refuses_cross_attention_naming_full() -> None:
    with pytest.raises(ValueError, match="use full"):
        FlashAttention().check_role(causal=False, cross=True, role="cross-attention")
    q, k, v = tensors(6, n=3, lk=9)
    with pytest.raises(ValueError, match="full"):
        FlashAttention()(q, k, v)


def test_flags_and_gau_options() -> None:
    for cls in (FlashAttention, FlashQuadAttention):
        assert cls.replaces_layer and cls.supports_causal and not cls.exact
    assert FlashAttention.qk_heads == 4 and FlashQuadAttention.qk_heads == 2
    with pytest.raises(ValueError):
        FlashAttention(gau_scaling="n")


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck(causal: bool) -> None:
    q, k, v, lq, lk = (t.requires_grad_() for t in tensors(11, b=1, h=1, e=3, d=2))
    mask = torch.tensor([[True] * 9 + [False] * 2])
    flash, quad = FlashAttention(group_size=4), FlashQuadAttention()
    assert torch.autograd.gradcheck(
        lambda q, k, v, lq, lk: flash(q, k, v, causal=causal, key_padding_mask=mask, lin_q=lq, lin_k=lk),
        (q, k, v, lq, lk))
    assert torch.autograd.gradcheck(lambda q, k, v: quad(q, k, v, causal=causal, key_padding_mask=mask),
                                    (q, k, v))


def test_memory_flash_linear_and_quad_quadratic() -> None:
    """Peak live bytes: mixed chunks grow linearly, FLASH-Quad quadratically (upper bounds for both
    live in test_memory_scaling.py; this is the quadratic lower bound)."""
    lengths = (128, 256, 512)

    def slope(attn: FlashAttention, causal: bool) -> float:
        peaks = []
        for length in lengths:
            q, k, v = (x.float() for x in tensors(length, n=3, b=1, h=1, e=16, d=16))
            with torch.no_grad():
                peaks.append(peak_bytes(lambda: attn(q, k, v, causal=causal)))
        return loglog_slope(lengths, peaks)

    for causal in (False, True):
        assert slope(FlashAttention(group_size=32), causal) < 1.3
        assert slope(FlashQuadAttention(), causal) > 1.8
