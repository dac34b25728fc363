"""Boolean masks, True meaning "may attend". The only place dense masks are built.

Dense masks are O(Lq * Lk): the fast paths never use them for long inputs. They serve the full
(SDPA) backend for the cases ``is_causal`` cannot express, and the tests' dense references.
"""

from __future__ import annotations

import torch
from torch import Tensor


def query_times(lq: int, q_offset: int = 0, device: torch.device | str | None = None) -> Tensor:
    """Times of the queries: ``q_offset + i``. Shape (Lq,)."""
    return torch.arange(lq, device=device) + q_offset


def key_times(lk: int, k_stride: int = 1, device: torch.device | str | None = None) -> Tensor:
    """Times of the keys: ``j * k_stride``. Shape (Lk,)."""
    return torch.arange(lk, device=device) * k_stride


def causal_mask(lq: int, lk: int, *, q_offset: int = 0, k_stride: int = 1,
                device: torch.device | str | None = None) -> Tensor:
    """Key time <= query time. Shape (Lq, Lk)."""
    return key_times(lk, k_stride, device)[None, :] <= query_times(lq, q_offset, device)[:, None]


def combine_masks(pattern: Tensor | None, key_padding_mask: Tensor | None) -> Tensor | None:
    """AND a (Lq, Lk) pattern with a (B, Lk) key-padding mask into a broadcastable (B|1, 1, Lq, Lk) mask."""
    if pattern is None and key_padding_mask is None:
        return None
    mask = None if pattern is None else pattern[None, None]  # (1, 1, Lq, Lk)
    if key_padding_mask is not None:
        kpm = key_padding_mask[:, None, None, :]  # (B, 1, 1, Lk)
        mask = kpm if mask is None else (mask & kpm)
    return mask
