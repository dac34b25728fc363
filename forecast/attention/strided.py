"""Strided "Sparse Transformer" attention (Child et al. 2019), merged head: local + atrous in ONE softmax.

With stride l, query time ``t_q`` attends key time ``t_k`` iff, with ``d = t_q - t_k``:

* local part: ``|d| < l`` (causal: ``0 <= d < l``), and
* atrous part: ``d mod l == 0`` (causal: ``d >= 0``), minus the keys the local part already holds
  (only ``d == 0``), so every (query, key) pair is counted exactly once (bojone's
  ``SparseSelfAttention`` counts the diagonal twice).

The local part runs blocked (blocks of l queries, memory ``L * 3l``), the atrous part on residue
groups (memory ``L^2 / l``). The two score sets stay in their own layouts and share one softmax: a
joint row maximum and a joint normaliser, exactly softmax over the concatenation. With ``l ~ sqrt(L)``
(the default ``stride: null``) memory and time grow as ``L^1.5``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.sparse import (band_key_index, block_scores, dense_times, gather_keys, pad_rows,
                                       real_length, residue_groups, ungroup)


class StridedAttention(AttentionBackend):
    """Merged-head strided sparse attention.

    Args:
        stride: l, the local window length and the atrous stride; ``None`` picks
            ``ceil(sqrt(key time span))`` per call (the paper's ``l ~ sqrt(n)``), counting keys up to
            the last real one (trailing padding does not change the pattern).
        scale: score scale; ``None`` means ``1/sqrt(E)``.
    """

    exact = True
    supports_causal = True
    supports_cross = True
    rowwise = True
    supports_causal_cross = True
    position_based = True

    def __init__(self, *, stride: int | None = None, scale: float | None = None) -> None:
        super().__init__()
        if stride is not None and stride < 1:
            raise ValueError(f"stride must be >= 1 or None, got {stride}")
        self.stride, self.scale = stride, scale

    def stride_for(self, lk: int, k_stride: int = 1) -> int:
        """The stride l used for ``lk`` (real) keys ``k_stride`` time steps apart."""
        return self.stride if self.stride is not None else max(1, math.ceil(math.sqrt(lk * k_stride)))

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Attend each query to its local window and its strided column, in one softmax.

        Shapes:
            q: (B, H, Lq, E); k: (B, H, Lk, E); v: (B, H, Lk, D); key_padding_mask: (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        b, h, lq, e = q.shape
        lk, d = k.shape[2], v.shape[-1]
        n = self.stride_for(real_length(key_padding_mask, lk), k_stride)
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(e)
        lo, hi = (0 if causal else 1 - n), n - 1  # local band of time differences
        lq_pad = math.ceil(lq / n) * n

        # Local part: blocks of n queries against the run of keys their band reaches.
        idx, q_time = band_key_index(lq, n, q_offset=q_offset, k_stride=k_stride, lo=lo, hi=hi,
                                     device=q.device)  # (nb, C), (nb, n)
        nb = idx.shape[0]
        in_range = (idx >= 0) & (idx < lk)
        idx = idx.clamp(0, lk - 1)
        delta = q_time[:, :, None] - (idx * k_stride)[:, None, :]  # (nb, n, C)
        ok_loc = (delta >= lo) & (delta <= hi) & in_range[:, None, :]  # (nb, n, C)
        if key_padding_mask is not None:
            ok_loc = ok_loc & key_padding_mask[:, idx][:, None, :, None, :]  # (B, 1, nb, n, C)
        q_blocks = pad_rows(q, n).view(b, h, nb, n, e)  # (B, H, nb, n, E)
        s_loc = block_scores(q_blocks, gather_keys(k, idx), scale)  # (B, H, nb, n, C)

        # Atrous part: residue groups, without the pairs the local band holds.
        qg, kg, vg, g_time, k_index, key_ok = residue_groups(q, k, v, n, q_offset=q_offset, k_stride=k_stride)
        delta = g_time[:, :, None] - (k_index * k_stride)[:, None, :]  # (n, nq, nk)
        ok_atr = key_ok[:, None, :] & ~((delta >= lo) & (delta <= hi))  # (n, nq, nk)
        if causal:
            ok_atr = ok_atr & (delta >= 0)
        if key_padding_mask is not None:
            ok_atr = ok_atr & key_padding_mask[:, k_index][:, None, :, None, :]  # (B, 1, n, nq, nk)
        s_atr = torch.matmul(qg, kg.transpose(-1, -2)) * scale  # (B, H, n, nq, nk)

        # One softmax over both parts: joint row max and joint normaliser (rows in token order).
        low = torch.finfo(s_loc.dtype).min
        s_loc = s_loc.masked_fill(~ok_loc, low)
        s_atr = s_atr.masked_fill(~ok_atr, low)
        m_loc = s_loc.amax(-1).reshape(b, h, lq_pad)  # (B, H, Lq')
        m_atr = s_atr.amax(-1).transpose(2, 3).reshape(b, h, lq_pad)  # (B, H, Lq')
        row_max = torch.maximum(m_loc, m_atr).detach()  # (B, H, Lq'); any constant per row is exact
        w_loc = torch.exp(s_loc - row_max.view(b, h, nb, n, 1)).masked_fill(~ok_loc, 0.0)  # (B, H, nb, n, C)
        w_atr = torch.exp(s_atr - row_max.view(b, h, -1, n).transpose(2, 3)[..., None])  # (B, H, n, nq, nk)
        w_atr = w_atr.masked_fill(~ok_atr, 0.0)  # (B, H, n, nq, nk)
        norm = (w_loc.sum(-1).reshape(b, h, lq_pad)  # (B, H, Lq')
                + w_atr.sum(-1).transpose(2, 3).reshape(b, h, lq_pad))  # (B, H, Lq')
        num = (torch.matmul(w_loc, gather_keys(v, idx)).reshape(b, h, lq_pad, d)  # (B, H, Lq', D)
               + ungroup(torch.matmul(w_atr, vg), lq_pad))  # (B, H, Lq', D)
        # norm >= 1 on every row with a key (its maximum contributes exp(0)); empty rows have num == 0.
        out = num / norm.clamp(min=1.0)[..., None]  # (B, H, Lq', D)
        return out[:, :, :lq]

    def pattern(self, lq: int, lk: int, *, causal: bool, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Test-only: the dense (Lq, Lk) mask the fast path computes."""
        n = self.stride_for(lk, k_stride)
        delta = dense_times(lq, lk, q_offset, k_stride)  # (Lq, Lk)
        local = (delta < n) & (delta > (-1 if causal else -n))
        strided = (delta % n == 0) & ((delta >= 0) if causal else True)
        return local | strided
