"""Atrous (dilated) attention: each query attends the keys of its residue class, O(L^2 / r).

Query i (time ``t_q = q_offset + i``) attends key j (time ``t_k = j * k_stride``) iff
``(t_q - t_k) mod r == 0`` (and ``t_k <= t_q`` when causal): bojone's ``AtrousSelfAttention``
generalised to time differences. The fast path regroups ``(B, H, L, E) -> (B, H, r, L/r, E)`` so
that every group is an ordinary (dense, small) attention problem; the score memory is
``Lq * Lk / r``, sub-quadratic only if r grows with L. Without padding (and for causal only when
aligned) each group runs through fused SDPA, which keeps memory O(L). Padding to a multiple of r is masked (the
bojone code leaves it unmasked and pads a whole extra group when ``L % r == 0``).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.sparse import dense_times, masked_softmax, residue_groups, ungroup


class AtrousAttention(AttentionBackend):
    """Dilated softmax attention over the keys whose time differs by a multiple of ``dilation``.

    Args:
        dilation: the rate r; ``1`` is full attention.
        scale: score scale; ``None`` means ``1/sqrt(E)``.
    """

    exact = True
    supports_causal = True
    supports_cross = True
    rowwise = True
    supports_causal_cross = True
    position_based = True

    def __init__(self, *, dilation: int = 2, scale: float | None = None) -> None:
        super().__init__()
        if dilation < 1:
            raise ValueError(f"dilation must be >= 1, got {dilation}")
        self.dilation, self.scale = dilation, scale
        self.pad_multiple = dilation

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Attend each query to the keys of its residue class.

        Shapes:
            q: (B, H, Lq, E); k: (B, H, Lk, E); v: (B, H, Lk, D); key_padding_mask: (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        lq = q.shape[2]
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(q.shape[-1])
        qg, kg, vg, q_time, k_index, key_ok = residue_groups(q, k, v, self.dilation, q_offset=q_offset,
                                                             k_stride=k_stride)
        b, h, r, nq, e = qg.shape
        aligned = q_offset == 0 and k_stride == 1 and lq == k.shape[2]
        if key_padding_mask is None and bool(key_ok.all()) and (aligned or not causal):
            # every group is a plain (causal) attention problem: fused SDPA, O(L) memory
            out = F.scaled_dot_product_attention(qg.reshape(b, h * r, nq, e), kg.reshape(b, h * r, -1, e),
                                                 vg.reshape(b, h * r, -1, vg.shape[-1]), is_causal=causal,
                                                 scale=scale)  # (B, H*r, nq, D)
            return ungroup(out.view(b, h, r, nq, -1), lq)  # (B, H, Lq, D)
        allowed = key_ok[:, None, :]  # (r, 1, nk)
        if causal:
            allowed = allowed & ((k_index * k_stride)[:, None, :] <= q_time[:, :, None])  # (r, nq, nk)
        if key_padding_mask is not None:
            allowed = allowed & key_padding_mask[:, k_index][:, None, :, None, :]  # (B, 1, r, nq|1, nk)
        scores = torch.matmul(qg, kg.transpose(-1, -2)) * scale  # (B, H, r, nq, nk)
        out = torch.matmul(masked_softmax(scores, allowed), vg)  # (B, H, r, nq, D)
        return ungroup(out, lq)  # (B, H, Lq, D)

    def pattern(self, lq: int, lk: int, *, causal: bool, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Test-only: the dense (Lq, Lk) mask the fast path computes."""
        delta = dense_times(lq, lk, q_offset, k_stride)  # (Lq, Lk)
        allowed = delta % self.dilation == 0
        return allowed & (delta >= 0) if causal else allowed
