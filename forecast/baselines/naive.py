"""Naive forecast: the last observed value, repeated over the horizon."""

from __future__ import annotations

from torch import Tensor

from forecast.baselines.base import Baseline


class Naive(Baseline):
    """Repeats the last input value of each target channel (no parameters).

    Args: see :class:`Baseline`.
    """

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        last = self.targets(x_enc)[:, -1:, :]  # (B, 1, C_out)
        return last.expand(-1, self.pred_len, -1).clone()  # (B, P, C_out)
