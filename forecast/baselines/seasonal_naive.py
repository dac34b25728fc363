"""Seasonal naive forecast: the last full season, repeated over the horizon."""

from __future__ import annotations

from torch import Tensor

from forecast.baselines.base import Baseline
from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims


class SeasonalNaive(Baseline):
    """Repeats the last ``period`` input values of each target channel over the horizon.

    The forecast of horizon step ``t`` (0-based) is the input at ``seq_len - period + (t mod period)``.

    Args:
        dims: the data's sizes; ``seq_len`` must be >= period.
        period: season length in steps. ``forecast/conf/model/seasonal_naive.yaml`` derives it from
            ``data.freq`` (``${period_for:${data.freq}}``); it is None when ``data.freq`` is null
            (inferred), and then this raises asking for ``model.period``.

    Raises:
        ConfigError: no period, a period < 1, or a period longer than the input window.
    """

    def __init__(self, *, dims: DataDims, period: int | None = None) -> None:
        super().__init__(dims=dims)
        seq_len = self.seq_len
        if period is None:
            raise ConfigError("seasonal_naive needs a season length: data.freq is null (inferred) or has no "
                             "default season; set model.period=<steps>, e.g. model.period=24 for hourly data")
        if not 1 <= int(period) <= seq_len:
            raise ConfigError(f"model.period must be in [1, seq_len={seq_len}], got {period}; "
                             f"use a longer data.seq_len or a shorter period")
        self.period = int(period)

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        season = self.targets(x_enc)[:, -self.period:, :]  # (B, period, C_out)
        repeats = -(-self.pred_len // self.period)
        return season.repeat(1, repeats, 1)[:, : self.pred_len, :]  # (B, P, C_out)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, period={self.period}"
