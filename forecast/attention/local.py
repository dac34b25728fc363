"""Local (sliding-window) attention, blocked: memory O(L * (block + 2 * window)).

Query i (time ``q_offset + i``) attends key j (time ``j * k_stride``) iff
``-window <= t_q - t_k <= window`` (``0 <= t_q - t_k <= window`` when causal): an exact window in
time, the lucidrains ``exact_windowsize`` behaviour. Queries are cut into blocks of ``block_size``;
each block gathers the contiguous run of keys its band can reach (``index_select``, no dense mask)
and runs one masked softmax over them. Padding (queries to a block multiple, key slots outside
``[0, Lk)``) is always masked.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.sparse import (band_key_index, block_scores, dense_times, gather_keys, masked_softmax,
                                       pad_rows)


def band_attention(q: Tensor, k: Tensor, v: Tensor, *, lo: int, hi: int, block: int, scale: float,
                   key_padding_mask: Tensor | None, q_offset: int, k_stride: int) -> Tensor:
    """Softmax attention restricted to ``lo <= t_q - t_k <= hi``, one block of queries at a time.

    Shapes:
        q: (B, H, Lq, E); k: (B, H, Lk, E); v: (B, H, Lk, D); key_padding_mask: (B, Lk)
        -> (B, H, Lq, D).
    """
    b, h, lq, e = q.shape
    lk, d = k.shape[2], v.shape[-1]
    idx, q_time = band_key_index(lq, block, q_offset=q_offset, k_stride=k_stride, lo=lo, hi=hi,
                                 device=q.device)  # (nb, C), (nb, w)
    nb, n_slots = idx.shape
    in_range = (idx >= 0) & (idx < lk)  # (nb, C)
    idx = idx.clamp(0, lk - 1)
    delta = q_time[:, :, None] - (idx * k_stride)[:, None, :]  # (nb, w, C)
    allowed = (delta >= lo) & (delta <= hi) & in_range[:, None, :]  # (nb, w, C)
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, idx][:, None, :, None, :]  # (B, 1, nb, w, C)
    q_blocks = pad_rows(q, block).view(b, h, nb, block, e)  # (B, H, nb, w, E)
    scores = block_scores(q_blocks, gather_keys(k, idx), scale)  # (B, H, nb, w, C)
    probs = masked_softmax(scores, allowed)
    out = torch.matmul(probs, gather_keys(v, idx))  # (B, H, nb, w, D)
    return out.view(b, h, nb * block, d)[:, :, :lq]  # (B, H, Lq, D)


class LocalAttention(AttentionBackend):
    """Sliding-window softmax attention over keys within ``window`` time steps.

    Args:
        window: largest time distance attended on each side (causal: only the past side).
        block_size: queries per block; the keys gathered per block are ``block_size + 2*window``.
        scale: score scale; ``None`` means ``1/sqrt(E)``.
    """

    exact = True
    supports_causal = True
    supports_cross = True
    rowwise = True
    supports_causal_cross = True
    position_based = True

    def __init__(self, *, window: int = 64, block_size: int = 64, scale: float | None = None) -> None:
        super().__init__()
        if window < 0:
            raise ValueError(f"window must be >= 0, got {window}")
        if block_size < 1:
            raise ValueError(f"block_size must be >= 1, got {block_size}")
        self.window, self.block_size, self.scale = window, block_size, scale
        self.pad_multiple = block_size

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Attend each query to the keys within the window.

        Shapes:
            q: (B, H, Lq, E); k: (B, H, Lk, E); v: (B, H, Lk, D); key_padding_mask: (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(q.shape[-1])
        lo = 0 if causal else -self.window
        return band_attention(q, k, v, lo=lo, hi=self.window, block=self.block_size, scale=scale,
                              key_padding_mask=key_padding_mask, q_offset=q_offset, k_stride=k_stride)

    def pattern(self, lq: int, lk: int, *, causal: bool, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Test-only: the dense (Lq, Lk) mask the fast path computes."""
        delta = dense_times(lq, lk, q_offset, k_stride)  # (Lq, Lk)
        return (delta >= (0 if causal else -self.window)) & (delta <= self.window)
