"""The calendar profile around any forecaster: the net forecasts what the calendar does not explain."""

from __future__ import annotations

from typing import Any, Iterable

from torch import Tensor

from forecast.wrappers.calendar import CalendarProfile, Period
from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims, ForecasterFactory
from forecast.wrappers.base import Wrapper


class CalendarResidual(Wrapper):
    """Removes the calendar profile from the window, forecasts the rest, restores the profile on the horizon.

    The profile (``forecast.wrappers.calendar.CalendarProfile``: the training mean of each time-of-day,
    time-of-week or month-of-year slot per channel) is fitted in closed form first; the wrapped forecaster's own
    closed-form parts are then fitted on the windows without it.

    Args:
        net: factory of the wrapped forecaster.
        period: ``day``, ``week`` or ``year``; None for no profile (the wrapper then passes everything through, so
            a preset with a profile runs without one: ``model=informer_plus model.period=null``).
        dims: the data's sizes.

    Raises:
        ConfigError: a profile for data without timestamps (no time features), or an unknown period.
    """

    def __init__(self, *, net: ForecasterFactory, period: Period | None = "day", dims: DataDims) -> None:
        super().__init__()
        if period is not None and dims["n_time_features"] == 0:
            raise ConfigError("the calendar profile reads each step's time of day from its timestamp, and this "
                              "data has none (data.timestamp_col=null); drop the profile (model.period=null, or "
                              "model=linear instead of linear_profile)")
        self.profile = (CalendarProfile(dims["enc_in"], period, int(dims.get("calendar_step", 1)))
                        if period is not None else None)
        self.target_index = [int(i) for i in dims["target_index"]]
        self.pred_len = dims["pred_len"]
        self.net = net(dims=dims)

    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """Fit the profile, then the net's closed-form parts on the windows without it.

        Returns:
            Rows of the net's fit, or the profile's slots seen when the net has nothing closed-form.
        """
        if self.profile is None:
            return self.net.fit_closed_form(batches)
        slots = self.profile.fit(batches)
        inner = self.net.fit_closed_form(self.profile.residuals(batches, self.target_index))
        return slots if inner is None else inner

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """The net's choice on the validation windows without the profile."""
        if self.profile is None:
            self.net.select_on_validation(batches)
            return
        self.net.select_on_validation(self.profile.residuals(batches, self.target_index))

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in), x_mark_enc (B, seq_len, M), x_mark_dec (B, T + P, M) -> (B, P, C_out)."""
        if self.profile is None:
            return self.net(x_enc, x_mark_enc, x_mark_dec)
        x = x_enc - self.profile(x_mark_enc)  # (B, seq_len, C_in)
        seasonal = self.profile.at_horizon(x_mark_dec, self.pred_len, self.target_index)  # (B, P, C_out)
        return self.net(x, x_mark_enc, x_mark_dec) + seasonal

    def zero_output_(self) -> None:
        if self.profile is None:
            self.net.zero_output_()
            return
        raise ConfigError("a calendar residual adds the profile back, so it cannot start from zero; put the "
                          "calendar residual outside the floor residual")

    def output_is_zero(self) -> bool:
        """Zero where the net's is and no profile is added back."""
        return self.profile is None and self.net.output_is_zero()
