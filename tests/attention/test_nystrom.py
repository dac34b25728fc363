"""Nyströmformer: exactness at m = L, pseudo-inverse, approximation vs m, padding, causal refusal."""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor

from forecast.attention.nystrom import NystromAttention, iterative_pinv
from tests.attention.reference import dense_attention

#: Relative error bound per landmark count, default (6-iteration) pinv, smooth fixture at L = 256.
#: Measured: 0.314, 0.169, 0.065, 0.033, 0.030, 0.029. The exact pinv is *not* monotone here (it
#: amplifies the tiny singular values of an ill-conditioned A; the 6-step iteration regularises),
#: and no m helps on sharp (peaked) attention: Nystrom approximates smooth, low-rank attention only.
ERROR_BOUND = {4: 0.4, 8: 0.22, 16: 0.09, 32: 0.045, 64: 0.04, 128: 0.038}


def qkv(lq: int, lk: int, *, b: int = 2, h: int = 2, e: int = 8, d: int = 4,
        seed: int = 0) -> tuple[Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(b, h, n, w, generator=gen, dtype=torch.float64)
                 for n, w in ((lq, e), (lk, e), (lk, d)))


def smooth_fixture(length: int, *, amplitude: float = 1.0, e: int = 16, d: int = 8,
                   seed: int = 0) -> tuple[Tensor, ...]:
    """Sinusoids of position plus a little noise: smooth in time, hence low-rank attention."""
    gen = torch.Generator().manual_seed(seed)
    t = torch.linspace(0, 1, length, dtype=torch.float64)[:, None]  # (L, 1)
    freq = torch.randn(1, e, generator=gen, dtype=torch.float64) * 3
    phase = torch.rand(1, e, generator=gen, dtype=torch.float64) * 2 * math.pi
    base = torch.sin(2 * math.pi * freq * t + phase)  # (L, E)
    q = base + 0.05 * torch.randn(1, 1, length, e, generator=gen, dtype=torch.float64)
    k = torch.cos(2 * math.pi * freq * t + phase) + 0.05 * torch.randn(1, 1, length, e, generator=gen,
                                                                         dtype=torch.float64)
    v = torch.randn(1, 1, length, d, generator=gen, dtype=torch.float64)
    return amplitude * q, amplitude * k, v


@pytest.mark.parametrize("lq", [24, 10])
def test_landmarks_equal_length_with_exact_pinv_is_full_attention(lq: int) -> None:
    q, k, v = qkv(lq, 24)
    attn = NystromAttention(num_landmarks=24, pinv="exact")
    torch.testing.assert_close(attn(q, k, v), dense_attention(q, k, v), atol=1e-8, rtol=1e-8)


def test_exact_with_padding_when_every_valid_key_is_a_landmark() -> None:
    q, k, v = qkv(20, 20)
    mask = torch.ones(2, 20, dtype=torch.bool)
    mask[0, 15:] = False
    out = NystromAttention(num_landmarks=20, pinv="exact")(q, k, v, key_padding_mask=mask)
    torch.testing.assert_close(out, dense_attention(q, k, v, mask[:, None, None, :]), atol=1e-8, rtol=1e-8)


@pytest.mark.parametrize(("m", "iterations"), [(8, 12), (16, 20)])
def test_iterative_pinv_matches_linalg_pinv(m: int, iterations: int) -> None:
    """Convergence speed depends on cond(A) (measured: 67 at m = 8, 1.4e3 at m = 16 here, where 12
    iterations are still 200 away from pinv and 20 are within 5e-12)."""
    q, k, _ = smooth_fixture(256)
    _, a, _ = NystromAttention(num_landmarks=m).kernels(q, k)  # (1, 1, m, m)
    z = iterative_pinv(a, iterations)
    torch.testing.assert_close(z, torch.linalg.pinv(a), atol=1e-8, rtol=1e-8)
    assert ((a @ z @ a - a).norm() / a.norm()).item() < 1e-10


def test_iterative_pinv_init_is_per_matrix() -> None:
    """A batch-wide init (mlpen issue #3) would leave the unscaled matrix ~100% off after 15 steps."""
    gen = torch.Generator().manual_seed(0)
    a = torch.softmax(torch.randn(2, 8, 8, generator=gen, dtype=torch.float64), -1)
    a[0] *= 1e4  # one large matrix in the batch must not slow down the other
    pinv = torch.linalg.pinv(a)
    err = (iterative_pinv(a, 15) - pinv).abs().amax((-1, -2)) / pinv.abs().amax((-1, -2))
    assert torch.all(err < 1e-10), err


def test_error_falls_as_landmarks_grow_on_smooth_fixture() -> None:
    q, k, v = smooth_fixture(256)
    ref = dense_attention(q, k, v)
    errors = {}
    for m in ERROR_BOUND:
        out = NystromAttention(num_landmarks=m)(q, k, v)
        errors[m] = ((out - ref).norm() / ref.norm()).item()
    values = list(errors.values())
    assert all(b < a for a, b in zip(values, values[1:])), errors
    assert all(errors[m] < ERROR_BOUND[m] for m in errors), errors


def test_default_iterations_output_close_to_exact_pinv() -> None:
    q, k, v = smooth_fixture(256)
    exact = NystromAttention(num_landmarks=32, pinv="exact")(q, k, v)
    approx = NystromAttention(num_landmarks=32)(q, k, v)
    assert ((approx - exact).norm() / exact.norm()).item() < 0.05


def test_padding_invariance() -> None:
    length, pad = 30, 9
    q, k, v = qkv(length, length)
    junk = qkv(pad, pad, seed=4)
    qp, kp, vp = (torch.cat([x, 30 * j], dim=2) for x, j in zip((q, k, v), junk))
    mask = torch.ones(2, length + pad, dtype=torch.bool)
    mask[:, length:] = False
    attn = NystromAttention(num_landmarks=8)
    out = attn(qp, kp, vp, key_padding_mask=mask)[:, :, :length]
    torch.testing.assert_close(out, attn(q, k, v), atol=1e-10, rtol=1e-10)
    left = attn(*(torch.cat([30 * j, x], dim=2) for x, j in zip((q, k, v), junk)),
                key_padding_mask=mask.flip(-1))[:, :, pad:]
    torch.testing.assert_close(left, attn(q, k, v), atol=1e-10, rtol=1e-10)


def test_refuses_causal_role_naming_working_backends() -> None:
    attn = NystromAttention()
    with pytest.raises(ValueError, match="use full, prob, local or linear"):
        attn.check_role(causal=True, cross=False, role="decoder self-attention")
    q, k, v = qkv(8, 8)
    with pytest.raises(ValueError, match="full"):
        attn(q, k, v, causal=True)
    attn.check_role(causal=False, cross=True, role="cross-attention")  # cross is fine


def test_fully_padded_batch_outputs_zero() -> None:
    q, k, v = qkv(12, 12)
    out = NystromAttention(num_landmarks=4)(q, k, v, key_padding_mask=torch.zeros(2, 12, dtype=torch.bool))
    assert torch.all(out == 0)


def test_gradcheck() -> None:
    q, k, v = (t.requires_grad_() for t in qkv(10, 10, b=1, h=1, e=3, d=2))
    mask = torch.tensor([[True] * 8 + [False] * 2])
    attn = NystromAttention(num_landmarks=3)
    assert torch.autograd.gradcheck(lambda q, k, v: attn(q, k, v, key_padding_mask=mask), (q, k, v))
