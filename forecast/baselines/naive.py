"""Naive forecast: the last observed value, repeated over the horizon."""

from __future__ import annotations

from typing import Any, Sequence

from torch import Tensor

from forecast.baselines.base import Baseline


class Naive(Baseline):
    """Repeats the last input value of each target channel (no parameters).

    Args:
        enc_in: input channels (unused).
        c_out: predicted channels.
        n_time_features: time-feature columns (unused).
        seq_len: input window length.
        label_len: start-token length (unused).
        pred_len: horizon.
        target_index: positions of the predicted channels among the inputs.
        encoder_attention: unused (filled by the attention config group).
        decoder_attention: unused.
        cross_attention: unused.
    """

    def __init__(self, *, enc_in: int, c_out: int, n_time_features: int, seq_len: int, label_len: int,
                 pred_len: int, target_index: Sequence[int], encoder_attention: Any = None,
                 decoder_attention: Any = None, cross_attention: Any = None) -> None:
        super().__init__(seq_len=seq_len, pred_len=pred_len, target_index=target_index, c_out=c_out)

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        last = self.targets(x_enc)[:, -1:, :]  # (B, 1, C_out)
        return last.expand(-1, self.pred_len, -1).clone()  # (B, P, C_out)
