"""DLinear (Zeng et al., AAAI 2023): moving-average decomposition + two linear maps over time."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from forecast.baselines.base import Baseline
from forecast.core.forecaster import DataDims


class MovingAverageDecomposition(nn.Module):
    """Splits a series into a moving-average trend and the seasonal remainder.

    The average runs over ``kernel_size`` steps of a series padded at both ends by repeating its first
    and last values, so the trend has the input's length and ``seasonal + trend == x`` exactly.

    Args:
        kernel_size: moving-average window (DLinear: 25).
    """

    def __init__(self, *, kernel_size: int = 25) -> None:
        super().__init__()
        if kernel_size < 1:
            raise ValueError(f"kernel_size must be >= 1, got {kernel_size}")
        self.kernel_size = kernel_size

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Decompose.

        Shapes:
            x: (B, L, C).
            returns: seasonal (B, L, C), trend (B, L, C).
        """
        front = (self.kernel_size - 1) // 2
        back = self.kernel_size - 1 - front
        padded = torch.cat([x[:, :1].expand(-1, front, -1), x, x[:, -1:].expand(-1, back, -1)], dim=1)
        trend = F.avg_pool1d(padded.transpose(1, 2), kernel_size=self.kernel_size, stride=1)  # (B, C, L)
        trend = trend.transpose(1, 2)  # (B, L, C)
        return x - trend, trend


class TimeLinear(nn.Module):
    """A linear map over the time axis, shared by all channels or one per channel.

    Args:
        seq_len: input length.
        pred_len: output length.
        channels: channel count (used when ``individual``).
        individual: one map per channel instead of one shared map.
    """

    def __init__(self, *, seq_len: int, pred_len: int, channels: int, individual: bool) -> None:
        super().__init__()
        shape = (channels, pred_len, seq_len) if individual else (pred_len, seq_len)
        bound = seq_len ** -0.5  # nn.Linear's default uniform range
        self.weight = nn.Parameter(torch.empty(shape).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(shape[:-1]).uniform_(-bound, bound))
        self.individual = individual

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, C) -> (B, P, C)."""
        if self.individual:
            return torch.einsum("blc,cpl->bpc", x, self.weight) + self.bias.transpose(0, 1)  # (B, P, C)
        return torch.einsum("blc,pl->bpc", x, self.weight) + self.bias[:, None]  # (B, P, C)


class DLinear(Baseline):
    """DLinear: ``linear_s(seasonal) + linear_t(trend)`` of each target channel's input window.

    Channels are forecast independently from their own history; for ``MS`` only the target channel
    is used.

    Args:
        dims: the data's sizes.
        kernel_size: moving-average window of the decomposition.
        individual: one pair of linear maps per channel instead of one shared pair.
    """

    def __init__(self, *, dims: DataDims, kernel_size: int = 25, individual: bool = False) -> None:
        super().__init__(dims=dims)
        seq_len, pred_len, c_out = self.seq_len, self.pred_len, len(self.target_index)
        self.decomposition = MovingAverageDecomposition(kernel_size=kernel_size)
        self.seasonal = TimeLinear(seq_len=seq_len, pred_len=pred_len, channels=c_out, individual=individual)
        self.trend = TimeLinear(seq_len=seq_len, pred_len=pred_len, channels=c_out, individual=individual)

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        seasonal, trend = self.decomposition(self.targets(x_enc))  # (B, L, C_out) each
        return self.seasonal(seasonal) + self.trend(trend)  # (B, P, C_out)

    @torch.no_grad()
    def zero_output_(self) -> None:
        """Zero both linear maps: the forecast is exactly 0 until training moves it (a residual over a floor)."""
        for linear in (self.seasonal, self.trend):
            linear.weight.zero_()
            linear.bias.zero_()

    def output_is_zero(self) -> bool:
        """Whether both linear maps are all zeros, so the forecast is exactly 0."""
        return not any(linear.weight.any() or linear.bias.any() for linear in (self.seasonal, self.trend))
