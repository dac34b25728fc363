"""ProbSparse self-attention (Informer, Zhou et al. AAAI 2021), in O(L log L) memory.

Only the ``u = factor * ceil(ln Lq)`` "active" queries with the largest sparsity measure attend to
all keys exactly; the other ("lazy") queries output an aggregate of V. The measure of query i is
``max_j s_ij - sum_j s_ij / Lk`` over ``U = factor * ceil(ln Lk)`` keys sampled (with replacement)
per query, shared by the whole batch and every head: the reference implementation's formula.
Memory is O(L log L): the sampled scores are computed in query chunks (see ``sampled_scores``),
K is never expanded to Lq x Lk and no dense mask is built.

Deviations from the reference code, all deliberate:
* sampling uses this module's own seeded generator; in eval mode it is re-seeded on every call,
  so inference is a deterministic function of weights and input (the reference re-samples at
  random on every forward, eval included);
* attention dropout is applied to the active rows' probabilities (the reference creates a dropout
  module and never calls it; set ``dropout: 0.0`` to match it);
* the causal lazy aggregate is a configurable ``cumsum`` (reference, grows with t) or ``cummean``
  (the fix, default), accumulated in float32.
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor

from forecast.attention.base import AttentionBackend, SampleStream, check_layout


def sample_count(factor: int, length: int) -> int:
    """``factor * ceil(ln length)``, capped at ``length`` (both the key samples and the top-u)."""
    return min(length, factor * math.ceil(math.log(max(length, 1)))) if length > 1 else length


class ProbSparseAttention(AttentionBackend):
    """ProbSparse attention.

    Args:
        factor: the sampling factor c (Informer ``--factor``, 5 by default; 3 for ETTh1-24).
        lazy: causal lazy-query output: ``cumsum`` of V (reference) or ``cummean`` (fix).
        dropout: dropout on the active rows' attention probabilities.
        seed: seed of the key sampling.
        scale: score scale; ``None`` means ``1/sqrt(E)``.
        query_chunk: queries whose sampled keys are gathered at once (bounds peak memory).
    """

    exact = False
    supports_causal = True
    supports_cross = True
    supports_causal_cross = False
    randomized = True

    def __init__(self, *, factor: int = 5, lazy: Literal["cumsum", "cummean"] = "cummean",
                 dropout: float = 0.0, seed: int = 0, scale: float | None = None, query_chunk: int = 128) -> None:
        super().__init__()
        if factor < 1:
            raise ValueError(f"factor must be >= 1, got {factor}")
        if lazy not in ("cumsum", "cummean"):
            raise ValueError(f"lazy must be 'cumsum' or 'cummean', got {lazy!r}")
        self.factor = factor
        self.lazy = lazy
        self.dropout = torch.nn.Dropout(dropout)
        self.seed = seed
        self.scale = scale
        if query_chunk < 1:
            raise ValueError(f"query_chunk must be >= 1, got {query_chunk}")
        self.query_chunk = query_chunk
        self.samples = SampleStream(seed)
        self.last_top: Tensor | None = None  # indices of the active queries of the last call (B, H, u)


    def sample_keys(self, lq: int, lk: int) -> Tensor:
        """Key indices sampled per query, with replacement. Shape (Lq, U), on CPU.

        Under ``torch.compile`` training draws them from the default generator (seeded by the run's
        seed), because a ``torch.Generator`` cannot enter a compiled graph: each layer would break
        into pieces there. Eager training and all evaluation use this module's own seeded stream.
        """
        n = sample_count(self.factor, lk)
        if self.training and torch.compiler.is_compiling():
            return torch.randint(lk, (lq, n))
        return torch.randint(lk, (lq, n), generator=self.samples.generator(self.training))

    @torch.no_grad()
    def sampled_scores(self, q: Tensor, k: Tensor, idx: Tensor) -> Tensor:
        """Dot products of each query with its own sampled keys, computed in query chunks.

        Two exact kernels, picked by which materialises fewer bytes per query: when
        ``Lk <= U * E`` a chunk's scores against all keys (chunk x Lk, a BLAS matmul) are formed and
        the sampled columns gathered; otherwise the sampled keys themselves are gathered
        (chunk x U x E). Either way the block is bounded by ``query_chunk`` and only the
        (B, H, Lq, U) result persists. The scores only choose the active queries (top-k indices),
        so no gradient flows through them and autograd saves nothing here.

        Shapes: q (B, H, Lq, E), k (B, H, Lk, E), idx (Lq, U) -> (B, H, Lq, U).
        """
        b, h, lq, e = q.shape
        lk = k.shape[2]
        n_samples = idx.shape[1]
        dense_rows = lk <= n_samples * e
        out = q.new_empty(b, h, lq, n_samples)
        for start in range(0, lq, self.query_chunk):
            stop = min(lq, start + self.query_chunk)
            q_chunk = q[:, :, start:stop]  # (B, H, chunk, E)
            if dense_rows:
                scores = torch.matmul(q_chunk, k.transpose(-2, -1))  # (B, H, chunk, Lk)
                out[:, :, start:stop] = scores.gather(-1, idx[start:stop].expand(b, h, -1, -1))
            else:
                rows = idx[start:stop].reshape(-1)  # (chunk * U,)
                k_sample = k.index_select(2, rows).view(b, h, stop - start, n_samples, e)  # (B, H, chunk, U, E)
                out[:, :, start:stop] = torch.einsum("bhqe,bhque->bhqu", q_chunk, k_sample)
        return out

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1,
                sampled: Tensor | None = None, top: Tensor | None = None) -> Tensor:
        """Shapes: q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D) -> (B, H, Lq, D).

        ``sampled`` (Lq, U) and ``top`` (B, H, u) may be injected by tests to pin the randomness.
        """
        check_layout(q, k, v)
        b, h, lq, e = q.shape
        lk = k.shape[2]
        if causal and (lq != lk or q_offset != 0 or k_stride != 1):
            raise ValueError("ProbSparse causal attention needs aligned self-attention (Lq == Lk, "
                             "q_offset 0, k_stride 1); use full for causal cross-attention")
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(e)
        valid = key_padding_mask  # (B, Lk) or None

        if top is None:
            idx = (self.sample_keys(lq, lk) if sampled is None else sampled).to(q.device)  # (Lq, U)
            s_sample = self.sampled_scores(q, k, idx)  # (B, H, Lq, U)
            if valid is None:
                measure = s_sample.amax(-1) - s_sample.sum(-1) / lk  # (B, H, Lq)
            else:
                ok = valid[:, idx][:, None]  # (B, 1, Lq, U)
                n_valid = valid.sum(-1).clamp(min=1)[:, None, None]  # (B, 1, 1)
                measure = (s_sample.masked_fill(~ok, float("-inf")).amax(-1)
                           - s_sample.masked_fill(~ok, 0.0).sum(-1) / n_valid)
            n_top = sample_count(self.factor, lq)
            top = measure.topk(n_top, dim=-1, sorted=False).indices  # (B, H, u)
        self.last_top = top
        n_top = top.shape[-1]

        q_top = q.gather(2, top[..., None].expand(b, h, n_top, e))  # (B, H, u, E)
        scores = torch.matmul(q_top, k.transpose(-2, -1)) * scale  # (B, H, u, Lk)
        if causal:
            future = torch.arange(lk, device=q.device)[None, None, None, :] > top[..., None]  # (B, H, u, Lk)
            scores = scores.masked_fill(future, float("-inf"))
        if valid is not None:
            scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        attn = self.dropout(torch.softmax(scores, dim=-1).nan_to_num(0.0))
        out_top = torch.matmul(attn, v)  # (B, H, u, D)

        context = self.lazy_context(v, causal=causal, key_padding_mask=valid, lq=lq)  # (B, H, Lq, D)
        return context.scatter(2, top[..., None].expand(b, h, n_top, v.shape[-1]), out_top.to(context.dtype))

    def lazy_context(self, v: Tensor, *, causal: bool, key_padding_mask: Tensor | None, lq: int) -> Tensor:
        """Output of the lazy queries. Shape (B, H, Lq, D)."""
        b, h, lk, d = v.shape
        if key_padding_mask is not None:
            v = v.masked_fill(~key_padding_mask[:, None, :, None], 0.0)
        if not causal:
            if key_padding_mask is None:
                mean = v.mean(dim=2, keepdim=True)  # (B, H, 1, D)
            else:
                count = key_padding_mask.sum(-1).clamp(min=1)[:, None, None, None]  # (B, 1, 1, 1)
                mean = v.sum(dim=2, keepdim=True) / count
            return mean.expand(b, h, lq, d).clone()
        acc = v.to(torch.promote_types(v.dtype, torch.float32)).cumsum(dim=2)  # (B, H, L, D), >= fp32 (fp16 overflow)
        if self.lazy == "cummean":
            if key_padding_mask is None:
                count = torch.arange(1, lk + 1, device=v.device, dtype=acc.dtype)[None, None, :, None]
            else:
                count = key_padding_mask.to(acc.dtype).cumsum(-1).clamp(min=1)[:, None, :, None]
            acc = acc / count
        return acc.to(v.dtype)
