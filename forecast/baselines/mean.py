"""Window-mean forecast: the input window's mean, repeated over the horizon."""

from __future__ import annotations

from torch import Tensor

from forecast.baselines.base import Baseline


class WindowMean(Baseline):
    """Predicts the mean of the input window of each target channel (no parameters).

    Args: see :class:`Baseline`.
    """

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        mean = self.targets(x_enc).mean(dim=1, keepdim=True)  # (B, 1, C_out)
        return mean.expand(-1, self.pred_len, -1).clone()  # (B, P, C_out)
