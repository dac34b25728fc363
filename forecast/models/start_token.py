"""The decoder input of the generative decoder: built here and nowhere else."""

from __future__ import annotations

import torch
from torch import Tensor


def decoder_input(x_enc: Tensor, *, label_len: int, pred_len: int) -> Tensor:
    """Start token (the last ``label_len`` known steps) followed by ``pred_len`` zero placeholders.

    Shapes: x_enc (B, seq_len, C) -> (B, label_len + pred_len, C).
    """
    b, seq_len, c = x_enc.shape
    if label_len > seq_len:
        raise ValueError(f"label_len ({label_len}) cannot exceed seq_len ({seq_len})")
    known = x_enc[:, seq_len - label_len:, :]  # (B, T, C)
    placeholder = x_enc.new_zeros(b, pred_len, c)  # (B, P, C)
    return torch.cat([known, placeholder], dim=1)  # (B, T + P, C)
