"""LogSparse attention (Li et al., NeurIPS 2019): a local window plus power-of-two hops, by index gather.

With ``d = t_q - t_k`` (query i at ``q_offset + i``, key j at ``j * k_stride``), a query attends
the keys with ``d`` in ``D = {0, ..., window-1} U {2^m : m >= 0}`` (the paper's "itself and i - 2^m",
plus its local window); non-causal uses ``|d|`` in D. A row therefore holds at most
``window + ceil(log2 L)`` keys, and ``ceil(log2 L)`` stacked layers reach every earlier step
(any d < L is a sum of at most ceil(log2 L) distinct powers of two). The explicit formula above is
the specification; it fixes flow-forecast's off-by-one at the restart boundary and has no restart.

The fast path builds an (Lq, S) index table of the allowed keys (S = |D|, O(window + log L)),
gathers ``K`` and ``V`` into (B, H, Lq, S, E) with ``index_select`` and runs one masked softmax per
row: memory O(L * S * E), no dense mask.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor
from torch.utils.checkpoint import checkpoint

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.sparse import dense_times, masked_softmax, real_length


def gathered_attention(q: Tensor, k: Tensor, v: Tensor, idx: Tensor, allowed: Tensor, scale: float) -> Tensor:
    """Softmax attention of each query over its own gathered key slots.

    Shapes: q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D), idx (Lq, S), allowed broadcastable
    to (B, H, Lq, S) -> (B, H, Lq, D).
    """
    b, h, lq, e = q.shape
    n_slots, d = idx.shape[1], v.shape[-1]
    k_rows = k.index_select(2, idx.reshape(-1)).view(b, h, lq, n_slots, e)  # (B, H, Lq, S, E)
    v_rows = v.index_select(2, idx.reshape(-1)).view(b, h, lq, n_slots, d)  # (B, H, Lq, S, D)
    scores = torch.einsum("bhqe,bhqse->bhqs", q, k_rows) * scale  # (B, H, Lq, S)
    return torch.einsum("bhqs,bhqsd->bhqd", masked_softmax(scores, allowed), v_rows)  # (B, H, Lq, D)


class LogSparseAttention(AttentionBackend):
    """LogSparse attention with a local window.

    Args:
        window: most recent time steps attended densely (1 = only the query's own step, the
            paper's pure log pattern); ``None`` uses ``ceil(log2 key time span)`` (keys up to the
            last real one), the reference implementation's ``log_l``.
        scale: score scale; ``None`` means ``1/sqrt(E)``.
        query_chunk: queries whose key/value slots are gathered at once (bounds peak memory; in
            training each chunk is checkpointed, so the gathers are recomputed in backward).
    """

    exact = True
    supports_causal = True
    supports_cross = True
    rowwise = True
    supports_causal_cross = True
    position_based = True

    def __init__(self, *, window: int | None = None, scale: float | None = None, query_chunk: int = 256) -> None:
        super().__init__()
        if window is not None and window < 1:
            raise ValueError(f"window must be >= 1 or None, got {window}")
        if query_chunk < 1:
            raise ValueError(f"query_chunk must be >= 1, got {query_chunk}")
        self.window, self.scale, self.query_chunk = window, scale, query_chunk

    def window_for(self, lk: int, k_stride: int = 1) -> int:
        """The local window used for ``lk`` keys ``k_stride`` time steps apart."""
        return self.window if self.window is not None else max(1, math.ceil(math.log2(max(lk * k_stride, 2))))

    def offsets(self, lq: int, lk: int, *, causal: bool, q_offset: int = 0, k_stride: int = 1,
                real_lk: int | None = None) -> list[int]:
        """The allowed time differences ``t_q - t_k``, distinct, covering every pair of these lengths.

        ``real_lk`` (keys up to the last real one) sets the default window, so trailing padding does not
        change the pattern.
        """
        span = max(abs(q_offset + lq - 1), abs(q_offset - (lk - 1) * k_stride), 1)
        window = self.window_for(lk if real_lk is None else real_lk, k_stride)
        hops = {2 ** m for m in range(span.bit_length()) if 2 ** m <= span}
        base = set(range(min(window, span + 1))) | hops
        return sorted(base if causal else base | {-x for x in base})

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Attend each query to its window and its power-of-two hops.

        Shapes:
            q: (B, H, Lq, E); k: (B, H, Lk, E); v: (B, H, Lk, D); key_padding_mask: (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        b, h, lq, e = q.shape
        lk, d = k.shape[2], v.shape[-1]
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(e)
        real_lk = real_length(key_padding_mask, lk)
        offsets = torch.tensor(self.offsets(lq, lk, causal=causal, q_offset=q_offset, k_stride=k_stride,
                                            real_lk=real_lk),
                               device=q.device)  # (S,)
        key_time = (q_offset + torch.arange(lq, device=q.device))[:, None] - offsets[None, :]  # (Lq, S)
        idx = torch.div(key_time, k_stride, rounding_mode="floor")  # (Lq, S)
        allowed = (key_time % k_stride == 0) & (idx >= 0) & (idx < lk)  # (Lq, S)
        idx = idx.clamp(0, lk - 1)
        if key_padding_mask is not None:
            allowed = allowed & key_padding_mask[:, idx][:, None]  # (B, 1, Lq, S)
        out = q.new_empty(b, h, lq, d)
        for start in range(0, lq, self.query_chunk):
            rows = slice(start, min(lq, start + self.query_chunk))
            ok = allowed[..., rows, :]
            if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
                # recompute the gathered keys/values in backward instead of saving (chunk, S, E) per chunk
                out[:, :, rows] = checkpoint(gathered_attention, q[:, :, rows], k, v, idx[rows], ok, scale,
                                             use_reentrant=False)
            else:
                out[:, :, rows] = gathered_attention(q[:, :, rows], k, v, idx[rows], ok, scale)
        return out

    def pattern(self, lq: int, lk: int, *, causal: bool, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Test-only: the dense (Lq, Lk) mask the fast path computes."""
        delta = dense_times(lq, lk, q_offset, k_stride)  # (Lq, Lk)
        window = self.window_for(lk, k_stride)
        dist = delta if causal else delta.abs()
        power = (dist > 0) & ((dist & (dist - 1)) == 0)
        return (dist >= 0) & ((dist < window) | power)
