"""Dense float64 masked-softmax attention: the ground truth every backend is checked against.

Only tests may build dense L x L scores.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def dense_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, *,
                    scale: float | None = None) -> Tensor:
    """softmax(q k^T * scale, masked) v in float64; rows with no allowed key output 0.

    Shapes: q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D), mask broadcastable to
    (B, H, Lq, Lk) with True = may attend -> (B, H, Lq, D) float64.
    """
    q, k, v = q.double(), k.double(), v.double()
    scale = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = torch.einsum("bhqe,bhke->bhqk", q, k) * scale  # (B, H, Lq, Lk)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    probs = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    return torch.einsum("bhqk,bhkd->bhqd", probs, v)


def causal_pattern(lq: int, lk: int, q_offset: int = 0, k_stride: int = 1) -> Tensor:
    """Key time <= query time (query i at q_offset + i, key j at j * k_stride). Shape (Lq, Lk)."""
    return (torch.arange(lk) * k_stride)[None, :] <= (torch.arange(lq) + q_offset)[:, None]
