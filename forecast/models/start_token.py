"""The decoder input of the generative decoder: built here and nowhere else."""

from __future__ import annotations

import torch
from torch import Tensor


def decoder_input(x_enc: Tensor, *, label_len: int, pred_len: int, placeholder: Tensor | None = None) -> Tensor:
    """Start token (the last ``label_len`` known steps) followed by ``pred_len`` placeholders: zeros, as the
    paper's, or ``placeholder`` where given (a forecast of the horizon, e.g. a floor's).

    Shapes: x_enc (B, seq_len, C), placeholder (B, P, C) or None -> (B, label_len + pred_len, C).
    """
    b, seq_len, c = x_enc.shape
    if label_len > seq_len:
        raise ValueError(f"label_len ({label_len}) cannot exceed seq_len ({seq_len})")
    known = x_enc[:, seq_len - label_len:, :]  # (B, T, C)
    if placeholder is None:
        placeholder = x_enc.new_zeros(b, pred_len, c)  # (B, P, C)
    elif placeholder.shape != (b, pred_len, c):
        raise ValueError(f"placeholder must be of shape {(b, pred_len, c)}, got {tuple(placeholder.shape)}")
    return torch.cat([known, placeholder.to(known.dtype)], dim=1)  # (B, T + P, C)
