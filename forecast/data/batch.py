"""The batch every forecaster consumes."""

from __future__ import annotations

from typing import NamedTuple

from torch import Tensor


class Batch(NamedTuple):
    """One window (or a collated batch of windows).

    Shapes (batched):
        x_enc: (B, seq_len, C_in) scaled inputs.
        x_mark_enc: (B, seq_len, M) time marks of the inputs.
        x_mark_dec: (B, label_len + pred_len, M) time marks of the start token and the horizon.
        y: (B, pred_len, C_out) scaled targets (empty ``(B, pred_len, 0)`` when the future is unknown).
    """

    x_enc: Tensor
    x_mark_enc: Tensor
    x_mark_dec: Tensor
    y: Tensor
