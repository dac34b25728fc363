"""ProbSparse: exactness when every query is active, lazy rows, top-u selection, memory, seeding."""

from __future__ import annotations

import math

import pytest
import torch

from forecast.attention.full import FullAttention
from forecast.attention.prob import ProbSparseAttention, sample_count
from tests.attention.memory import loglog_slope, peak_bytes
from tests.attention.reference import causal_pattern, dense_attention


def qkv(b=2, h=3, lq=40, lk=40, e=8, d=8, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(b, h, lq, e, generator=g, dtype=dtype), torch.randn(b, h, lk, e, generator=g, dtype=dtype),
            torch.randn(b, h, lk, d, generator=g, dtype=dtype))


@pytest.mark.parametrize("length,expected", [(48, 20), (72, 25), (96, 25), (336, 30), (720, 35), (1440, 40), (3, 3)])
def test_counts_follow_factor_times_ceil_ln(length: int, expected: int) -> None:
    assert sample_count(5, length) == expected


@pytest.mark.parametrize("causal", [False, True])
def test_every_query_active_equals_full_attention(causal: bool) -> None:
    q, k, v = qkv(dtype=torch.float32)
    prob = ProbSparseAttention(factor=100).eval()  # u = 100 * ceil(ln 40) >= 40
    out = prob(q, k, v, causal=causal)
    ref = FullAttention()(q, k, v, causal=causal)
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-5)


def test_cross_attention_every_query_active_equals_full() -> None:
    q, k, v = qkv(lq=30, lk=17, dtype=torch.float32)
    out = ProbSparseAttention(factor=100).eval()(q, k, v)
    torch.testing.assert_close(out, FullAttention()(q, k, v), rtol=0, atol=1e-5)


@pytest.mark.parametrize("causal,lazy", [(False, "cumsum"), (True, "cumsum"), (True, "cummean")])
def test_active_rows_are_exact_and_lazy_rows_are_the_aggregate(causal: bool, lazy: str) -> None:
    q, k, v = qkv()
    b, h, length = 2, 3, 40
    top = torch.stack([torch.randperm(length, generator=torch.Generator().manual_seed(i))[:7]
                       for i in range(b * h)]).view(b, h, 7)
    out = ProbSparseAttention(lazy=lazy).eval()(q, k, v, causal=causal, top=top)
    dense = dense_attention(q, k, v, causal_pattern(length, length) if causal else None)
    if not causal:
        lazy_ref = v.mean(dim=2, keepdim=True).expand_as(v)
    elif lazy == "cumsum":
        lazy_ref = torch.stack([v[:, :, : t + 1].sum(2) for t in range(length)], dim=2)
    else:
        lazy_ref = torch.stack([v[:, :, : t + 1].mean(2) for t in range(length)], dim=2)
    active = torch.zeros(b, h, length, dtype=torch.bool)
    active.scatter_(2, top, True)
    expected = torch.where(active[..., None], dense, lazy_ref)
    torch.testing.assert_close(out, expected, rtol=0, atol=1e-10)


def test_exhaustive_sampling_selects_the_top_u_of_the_dense_measure() -> None:
    q, k, v = qkv(lq=30, lk=30)
    prob = ProbSparseAttention(factor=2).eval()
    every_key = torch.arange(30).repeat(30, 1)  # (Lq, U = Lk)
    prob(q, k, v, sampled=every_key)
    scores = torch.einsum("bhqe,bhke->bhqk", q, k)
    measure = scores.amax(-1) - scores.sum(-1) / 30
    u = sample_count(2, 30)
    expected = measure.topk(u, dim=-1).indices.sort(-1).values
    assert torch.equal(prob.last_top.sort(-1).values, expected)


def test_key_padding_keeps_valid_outputs() -> None:
    q, k, v = qkv(lk=40)
    pad_k = torch.cat([k, torch.randn(2, 3, 9, 8, dtype=k.dtype)], dim=2)
    pad_v = torch.cat([v, torch.randn(2, 3, 9, 8, dtype=v.dtype)], dim=2)
    mask = torch.zeros(2, 49, dtype=torch.bool)
    mask[:, :40] = True
    prob = ProbSparseAttention(factor=100).eval()
    torch.testing.assert_close(prob(q, pad_k, pad_v, key_padding_mask=mask), prob(q, k, v), rtol=0, atol=1e-10)


def test_seed_makes_sampling_reproducible_and_eval_deterministic() -> None:
    q, k, v = qkv(dtype=torch.float32)
    a, b = ProbSparseAttention(seed=3), ProbSparseAttention(seed=3)
    torch.testing.assert_close(a(q, k, v), b(q, k, v))  # training mode: same seed, same draws
    a.eval()
    first = a(q, k, v)
    torch.testing.assert_close(a(q, k, v), first)  # eval: every call re-seeded
    assert not torch.equal(ProbSparseAttention(seed=4).eval()(q, k, v), first)


@pytest.mark.parametrize("b,h", [(1, 1), (1, 4), (3, 1)])
def test_singleton_batch_and_head_dimensions(b: int, h: int) -> None:
    q, k, v = qkv(b=b, h=h, dtype=torch.float32)
    assert ProbSparseAttention()(q, k, v, causal=True).shape == (b, h, 40, 8)


@pytest.mark.parametrize("causal", [False, True])
def test_peak_memory_grows_like_l_log_l(causal: bool) -> None:
    lengths = [512, 1024, 2048]
    peaks = []
    for length in lengths:
        q, k, v = qkv(b=1, h=2, lq=length, lk=length, e=16, d=16, dtype=torch.float32)
        prob = ProbSparseAttention(query_chunk=16).eval()  # gathered keys: a small constant block
        peaks.append(peak_bytes(lambda: prob(q, k, v, causal=causal)))
    slope = loglog_slope(lengths, peaks)
    l_log_l = loglog_slope(lengths, [n * math.ceil(math.log(n)) for n in lengths])
    assert slope < 1.3, (slope, peaks)
    assert abs(slope - l_log_l) < 0.2
    q, k, v = qkv(b=1, h=2, lq=2048, lk=2048, e=16, d=16, dtype=torch.float32)
    dense = peak_bytes(lambda: dense_attention(q, k, v))
    assert peaks[-1] < dense / 10  # an order of magnitude below the dense path at L = 2048
