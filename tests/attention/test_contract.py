"""The contract every attention backend meets, run over every ``forecast/conf/attention/*.yaml``.

The suite is generic: what is checked follows the backend's capability flags (``exact``,
``supports_causal``, ``supports_cross``, ``supports_causal_cross``, ``randomized``,
``position_based``). Backends that replace the whole layer (``replaces_layer``) are tested through
their kernel the same way when it has the standard ``forward``. A config whose ``_target_`` does not
import makes its tests fail, not skip.
"""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import pytest
import torch

from forecast.attention.base import AttentionBackend
from tests.attention.configs import ATTENTION_CONFIGS, load_backend

CONFIGS = [pytest.param(path, id=path.stem) for path in ATTENTION_CONFIGS]
B, H, L, E, D = 2, 2, 200, 8, 6  # D != E on purpose
LQ, LK, Q_OFFSET, K_STRIDE = 72, 100, 152, 2  # Informer decoder cross-attention geometry
PAD = 37  # appended padded keys


def standard_backend(path: Path) -> AttentionBackend:
    """The backend of ``path`` in eval mode; skip layer-type backends without the standard forward."""
    backend = load_backend(path).eval()
    params = inspect.signature(backend.forward).parameters
    if backend.replaces_layer and not {"causal", "key_padding_mask", "q_offset", "k_stride"} <= set(params):
        pytest.skip(f"{path.stem} replaces the layer and has no standard kernel forward")
    return backend


def qkv(lq: int = L, lk: int = L, dtype: torch.dtype = torch.float64, seed: int = 0) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(B, H, n, dim, generator=gen, dtype=dtype) for n, dim in ((lq, E), (lk, E), (lk, D))]


def tol(dtype: torch.dtype = torch.float64) -> dict[str, float]:
    """Agreement expected between two evaluations that must be equal up to rounding."""
    return {"atol": 1e-9, "rtol": 1e-9} if dtype == torch.float64 else {"atol": 1e-5, "rtol": 1e-5}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["fp32", "fp64"])
@pytest.mark.parametrize("path", CONFIGS)
def test_shape_layout_and_dtype(path: Path, dtype: torch.dtype) -> None:
    backend = standard_backend(path)
    q, k, v = qkv(dtype=dtype)
    out = backend(q, k, v)
    assert out.shape == (B, H, L, D) and out.dtype == dtype
    assert torch.isfinite(out).all()
    # The layout is (B, H, L, D): batch and head slices are independent problems.
    torch.testing.assert_close(backend(q[1:], k[1:], v[1:]), out[1:], **tol(dtype))
    if backend.supports_causal:
        out = backend(q, k, v, causal=True)
        assert out.shape == (B, H, L, D) and out.dtype == dtype and torch.isfinite(out).all()


@pytest.mark.parametrize("path", CONFIGS)
def test_gradients_reach_q_k_v(path: Path) -> None:
    backend = standard_backend(path).train()
    q, k, v = (t.requires_grad_() for t in qkv(dtype=torch.float32))
    weight = torch.randn(B, H, L, D, generator=torch.Generator().manual_seed(1))
    (backend(q, k, v) * weight).sum().backward()
    for name, t in (("q", q), ("k", k), ("v", v)):
        assert t.grad is not None and torch.isfinite(t.grad).all(), name
        assert t.grad.abs().sum() > 0, f"no gradient reaches {name}"


@pytest.mark.parametrize("path", CONFIGS)
def test_causal_output_ignores_the_future(path: Path) -> None:
    backend = standard_backend(path)
    if not backend.supports_causal:
        pytest.skip(f"{path.stem} is not causal")
    q, k, v = qkv()
    t = 70
    k2, v2 = k.clone(), v.clone()
    v2[:, :, t + 1:] = torch.randn_like(v2[:, :, t + 1:]) * 5
    # Randomized approximations may choose *which* rows are exact from all keys (ProbSparse, design
    # notes section 2): for them only the future values must not leak.
    if not backend.randomized:
        k2[:, :, t + 1:] = torch.randn_like(k2[:, :, t + 1:]) * 5
    before = backend(q, k, v, causal=True)[:, :, :t + 1]
    after = backend(q, k2, v2, causal=True)[:, :, :t + 1]
    torch.testing.assert_close(after, before, **tol())


@pytest.mark.parametrize("path", CONFIGS)
def test_causal_cross_ignores_the_future(path: Path) -> None:
    backend = standard_backend(path)
    if not (backend.supports_causal_cross and backend.supports_cross):
        pytest.skip(f"{path.stem} has no causal cross-attention")
    q, k, v = qkv(LQ, LK)
    cut = Q_OFFSET + 20  # query rows with time <= cut may not see keys with time > cut
    future = torch.arange(LK) * K_STRIDE > cut
    k2, v2 = k.clone(), v.clone()
    k2[:, :, future], v2[:, :, future] = k2[:, :, future] * 3 + 1, v2[:, :, future] * 3 + 1
    kw = {"causal": True, "q_offset": Q_OFFSET, "k_stride": K_STRIDE}
    rows = cut - Q_OFFSET + 1
    torch.testing.assert_close(backend(q, k2, v2, **kw)[:, :, :rows], backend(q, k, v, **kw)[:, :, :rows],
                               **tol())


def padded(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, with_queries: bool,
           seed: int) -> tuple[torch.Tensor, ...]:
    """Append PAD junk keys/values (and queries for self-attention-only backends)."""
    gen = torch.Generator().manual_seed(seed)
    junk = [torch.randn(*t.shape[:2], PAD, t.shape[-1], generator=gen, dtype=t.dtype) * 10 for t in (q, k, v)]
    qp = torch.cat([q, junk[0]], 2) if with_queries else q
    return qp, torch.cat([k, junk[1]], 2), torch.cat([v, junk[2]], 2)


@pytest.mark.parametrize("path", CONFIGS)
def test_padded_keys_never_count(path: Path) -> None:
    """Masked keys' contents never matter; for exact backends appending them changes nothing."""
    backend = standard_backend(path)
    q, k, v = qkv()
    real = torch.ones(B, L, dtype=torch.bool)
    real[0, 5:40:3] = False  # interior padding too
    kpm = torch.cat([real, torch.zeros(B, PAD, dtype=torch.bool)], 1)
    self_only = not backend.supports_cross
    qa, ka, va = padded(q, k, v, with_queries=self_only, seed=1)
    _, kb, vb = padded(q, k, v, with_queries=self_only, seed=2)
    keep = real[:, None, :, None]  # (B, 1, L, 1): other junk under the interior padding too
    kb[:, :, :L], vb[:, :, :L] = torch.where(keep, k, -k), torch.where(keep, v, 7.0)
    out_a = backend(qa, ka, va, key_padding_mask=kpm)[:, :, :L]
    torch.testing.assert_close(backend(qa, kb, vb, key_padding_mask=kpm)[:, :, :L], out_a, **tol())
    if backend.exact:
        torch.testing.assert_close(out_a, backend(q, k, v, key_padding_mask=real), **tol())


@pytest.mark.parametrize("path", CONFIGS)
def test_rows_without_keys_are_zero_not_nan(path: Path) -> None:
    backend = standard_backend(path)
    q, k, v = qkv()
    kpm = torch.ones(B, L, dtype=torch.bool)
    kpm[0] = False
    out = backend(q, k, v, key_padding_mask=kpm)
    assert torch.isfinite(out).all()
    if backend.exact:
        assert (out[0] == 0).all()


@pytest.mark.parametrize("path", CONFIGS)
def test_cross_attention_lengths_differ(path: Path) -> None:
    backend = standard_backend(path)
    if not backend.supports_cross:
        pytest.skip(f"{path.stem} does not support cross-attention")
    q, k, v = qkv(LQ, LK)
    out = backend(q, k, v, q_offset=Q_OFFSET, k_stride=K_STRIDE)
    assert out.shape == (B, H, LQ, D) and torch.isfinite(out).all()
    out_short_keys = backend(q, k[:, :, :30], v[:, :, :30], q_offset=Q_OFFSET, k_stride=K_STRIDE)
    assert out_short_keys.shape == (B, H, LQ, D) and torch.isfinite(out_short_keys).all()


@pytest.mark.parametrize("path", CONFIGS)
def test_seeded_backends_reproduce(path: Path) -> None:
    backend = standard_backend(path)
    if not backend.randomized:
        pytest.skip(f"{path.stem} draws no random numbers")
    q, k, v = qkv()
    twin = load_backend(path).train()
    first = load_backend(path).train()(q, k, v)
    torch.testing.assert_close(twin(q, k, v), first, **tol())  # same seed, same output
    torch.testing.assert_close(backend(q, k, v), backend(q, k, v), **tol())  # eval: deterministic
    torch.testing.assert_close(backend(q, k, v), load_backend(path).eval()(q, k, v), **tol())


ROLES = [  # (role, causal, cross, concatenated keys)
    ("encoder self-attention", False, False, False),
    ("decoder self-attention", True, False, False),
    ("cross-attention", False, True, False),
    ("causal cross-attention", True, True, False),
    ("InformerStack cross-attention", False, True, True),
]


@pytest.mark.parametrize("role, causal, cross, concatenated", ROLES, ids=[r[0] for r in ROLES])
@pytest.mark.parametrize("path", CONFIGS)
def test_check_role_refuses_with_a_working_alternative(path: Path, role: str, causal: bool, cross: bool,
                                                      concatenated: bool) -> None:
    backend = load_backend(path)
    kw = {"causal": causal, "cross": cross, "role": role, "concatenated_keys": concatenated}
    refuse = ((causal and not backend.supports_causal) or (cross and not backend.supports_cross)
              or (causal and cross and not backend.supports_causal_cross)
              or (concatenated and backend.position_based))
    if not refuse:
        backend.check_role(**kw)
        return
    with pytest.raises(ValueError) as info:
        backend.check_role(**kw)
    message = str(info.value)
    assert backend.backend_name() in message and role in message
    suggestion = re.search(r"use (.+?) (?:there|instead)", message)
    assert suggestion, f"refusal names no alternative: {message}"
    names = [n.strip() for n in re.split(r",| or ", suggestion.group(1)) if n.strip()]
    alternatives = [load_backend(name) for name in names]  # each named backend has a config
    fits = []
    for alt in alternatives:
        try:
            alt.check_role(**kw)
            fits.append(alt)
        except ValueError:
            pass
    assert fits, f"none of {names} can fill {role}"


def test_full_attention_warns_where_dropout_forces_the_dense_cpu_path() -> None:
    from forecast.attention.full import FullAttention

    q = torch.randn(1, 1, 1024, 4)
    with pytest.warns(UserWarning, match=r"\(B, H, 1024, 1024\) probabilities .* encoder_attention\.dropout=0"):
        FullAttention(dropout=0.05).train()(q, q, q)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FullAttention(dropout=0.0).train()(q, q, q)
        FullAttention(dropout=0.05).eval()(q, q, q)
