"""Performer FAVOR+: dense-form equality, unbiasedness, error decay in m, orthogonality, determinism."""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor

from forecast.attention.performer import PerformerAttention, orthogonal_random_matrix, softmax_kernel_features
from tests.attention.reference import causal_pattern, dense_attention


def qkv(lq: int, lk: int, *, b: int = 2, h: int = 2, e: int = 8, d: int = 4, seed: int = 0,
        std: float = 1.0) -> tuple[Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    return tuple(std * torch.randn(b, h, n, w, generator=gen, dtype=torch.float64)
                 for n, w in ((lq, e), (lk, e), (lk, d)))


def dense_kernel_form(phi_q: Tensor, phi_k: Tensor, v: Tensor, mask: Tensor | None, eps: float) -> Tensor:
    """``A = (phi_q phi_k^T) (.) M``, ``out = A V / (A 1 + eps)`` (dense, tests only)."""
    a = torch.einsum("bhqm,bhkm->bhqk", phi_q, phi_k)
    if mask is not None:
        a = a * mask
    return torch.einsum("bhqk,bhkd->bhqd", a, v) / (a.sum(-1, keepdim=True) + eps)


@pytest.mark.parametrize("causal", [False, True])
def test_fast_path_equals_dense_kernel_form(causal: bool) -> None:
    length = 29
    q, k, v = qkv(length, length)
    mask = torch.ones(2, length, dtype=torch.bool)
    mask[1, 20:] = False
    mask[0, 0] = False  # first key padded: the causal stabiliser uses the first valid key
    attn = PerformerAttention(nb_features=20, chunk_size=6).eval()
    phi_q, phi_k = attn.feature_maps(q, k, causal=causal, key_padding_mask=mask)
    pattern = causal_pattern(length, length) if causal else torch.ones(length, length, dtype=torch.bool)
    ref = dense_kernel_form(phi_q, phi_k, v, pattern & mask[:, None, None, :], attn.eps)
    out = attn(q, k, v, causal=causal, key_padding_mask=mask)
    torch.testing.assert_close(out, ref, atol=1e-10, rtol=1e-10)


def test_features_are_unbiased_for_exp_kernel() -> None:
    e, m, n_seeds = 8, 16, 200
    gen = torch.Generator().manual_seed(5)
    q, k = 0.6 * torch.randn(2, 3, 1, e, generator=gen, dtype=torch.float64)  # (2, 3, 1, E) each
    target = torch.exp((q * k).sum(-1) / math.sqrt(e)).squeeze(-1)  # (2, 3)
    estimates = []
    for seed in range(n_seeds):
        w = orthogonal_random_matrix(m, e, generator=torch.Generator().manual_seed(seed))
        phi_q = softmax_kernel_features(q, w, stabiliser=0.0, eps=0.0)
        phi_k = softmax_kernel_features(k, w, stabiliser=0.0, eps=0.0)
        estimates.append((phi_q * phi_k).sum(-1).squeeze(-1))  # (2, 3)
    est = torch.stack(estimates)  # (S, 2, 3)
    stderr = est.std(0) / math.sqrt(n_seeds)
    assert torch.all((est.mean(0) - target).abs() < 3 * stderr), (est.mean(0), target, stderr)


def relative_error(m: int, *, seed: int = 0) -> float:
    q, k, v = qkv(512, 512, b=1, h=1, e=16, d=8, seed=11, std=0.5)
    out = PerformerAttention(nb_features=m, seed=seed).eval()(q, k, v)
    ref = dense_attention(q, k, v)
    return ((out - ref).norm() / ref.norm()).item()


def test_error_falls_with_more_features() -> None:
    err64 = sum(relative_error(64, seed=s) for s in range(3)) / 3
    err1024 = sum(relative_error(1024, seed=s) for s in range(3)) / 3
    assert err1024 < 0.5 * err64, (err64, err1024)


def test_rows_of_each_block_are_orthogonal() -> None:
    e = 8
    w = orthogonal_random_matrix(3 * e + 3, e, generator=torch.Generator().manual_seed(0))
    for start in range(0, w.shape[0], e):
        block = w[start:start + e]
        gram = block @ block.T
        off = gram - torch.diag(torch.diagonal(gram))
        assert off.abs().max() < 1e-10
    fixed = orthogonal_random_matrix(e, e, generator=torch.Generator().manual_seed(0), row_norms="fixed")
    torch.testing.assert_close(fixed @ fixed.T, e * torch.eye(e, dtype=torch.float64))


def test_eval_is_deterministic_and_training_redraws() -> None:
    q, k, v = qkv(16, 16)
    a = PerformerAttention(nb_features=12, seed=3).eval()
    b = PerformerAttention(nb_features=12, seed=3).eval()
    torch.testing.assert_close(a(q, k, v), b(q, k, v), atol=0, rtol=0)
    torch.testing.assert_close(a(q, k, v), a(q, k, v), atol=0, rtol=0)
    t = PerformerAttention(nb_features=12, seed=3, redraw_interval=2).train()
    w0 = t.projection(8, dtype=torch.float64).clone()
    t(q, k, v), t(q, k, v)
    assert not torch.equal(t.projection(8, dtype=torch.float64), w0)
    t.eval()
    torch.testing.assert_close(t(q, k, v), a(q, k, v), atol=0, rtol=0)  # eval: draw 0 again


def test_causal_outputs_ignore_appended_tokens() -> None:
    q, k, v = qkv(40, 40, std=2.0)
    attn = PerformerAttention(nb_features=16, chunk_size=8).eval()
    full = attn(q, k, v, causal=True)
    torch.testing.assert_close(attn(q[:, :, :23], k[:, :, :23], v[:, :, :23], causal=True), full[:, :, :23],
                               atol=1e-13, rtol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck(causal: bool) -> None:
    q, k, v = (t.requires_grad_() for t in qkv(9, 9, b=1, h=1, e=3, d=2))
    attn = PerformerAttention(nb_features=5, chunk_size=4).eval()
    assert torch.autograd.gradcheck(lambda q, k, v: attn(q, k, v, causal=causal), (q, k, v))
