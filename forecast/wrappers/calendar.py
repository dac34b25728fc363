"""Calendar profile: the training mean of each time-of-day, time-of-week or month-of-year slot, per channel.

A closed-form cousin of CycleNet's residual cycle forecasting (Lin et al., NeurIPS 2024): the profile
is removed from the input window and restored on the forecast, so the model forecasts what the
calendar does not explain. The slot of a step comes from the integer calendar fields that every mark
row carries (``forecast.data.time_features``: ``[month, day, weekday, hour, minute]`` last), so the profile
lines up with any file of the same frequency, not with row numbers, and needs no extra input.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Literal, Sequence

import torch
from torch import Tensor, nn

from forecast.data.batch import window_count
from forecast.data.season import MINUTES_PER_DAY
from forecast.data.time_features import CALENDAR_FIELDS
from forecast.core.errors import ConfigError

Period = Literal["day", "week", "year"]
# positions of the calendar fields, counted from the end of a mark row (they come last)
_MONTH, _WEEKDAY, _HOUR, _MINUTE = (CALENDAR_FIELDS.index(f) - len(CALENDAR_FIELDS)
                                    for f in ("month", "weekday", "hour", "minute"))
_DAYS = {"day": 1, "week": 7}  # days a day or week profile spans; a year profile's slots are months 1..12 (0 unused)


class CalendarProfile(nn.Module):
    """Per-channel mean of each calendar slot over the training windows, fitted in closed form.

    Slots are ``step``-minute spans of the day (``day``) or of the week (``week``): hourly data at ``step``
    60 has 24 (or 168) of them, 15-minute data at ``step`` 15 has 96 (or 672), and at ``step`` 1 every minute
    is a slot, of which hourly data fills 24 (or 168). A ``year`` profile's slots are months of the year
    (monthly data fills 12, quarterly data the 4 months its quarters start on). The profile is a frozen
    parameter (saved in the checkpoint, never touched by an optimiser); ``seen`` marks the slots training
    filled, and only those count in ``n_params`` (:meth:`unused_parameters`). A slot that training never
    saw keeps 0, the training mean on the scaled data.

    Args:
        n_channels: input channels (C_in).
        period: ``day``, ``week`` or ``year``.
        step: minutes per slot of a day or week profile, a divisor of a day (the data's step:
            :func:`forecast.data.season.calendar_step`); a year profile ignores it.

    Raises:
        ConfigError: an unknown period, or a step that does not divide a day.
    """

    def __init__(self, n_channels: int, period: Period, step: int = 1) -> None:
        super().__init__()
        if period not in (*_DAYS, "year"):
            raise ConfigError(f"period must be day, week or year, got {period!r}")
        if not (isinstance(step, int) and step >= 1 and MINUTES_PER_DAY % step == 0):
            raise ConfigError(f"a calendar profile's step must be a whole number of minutes that divides a day "
                              f"(1, 15, 60, ...), got {step!r}")
        self.period = period
        self.step = step
        self.slots_per_day = MINUTES_PER_DAY // step
        n_slots = 13 if period == "year" else _DAYS[period] * self.slots_per_day
        self.profile = nn.Parameter(torch.zeros(n_slots, n_channels), requires_grad=False)
        self.register_buffer("seen", torch.zeros(n_slots, dtype=torch.bool))

    def n_fitted(self) -> int:
        """Values the profile holds for the slots training saw (slots seen x channels)."""
        return int(self.seen.sum()) * self.profile.shape[1]

    def unused_parameters(self) -> int:
        """Values of the slots training never saw: left out of ``n_params``
        (:func:`~forecast.core.parameters.count_parameters`)."""
        return self.profile.numel() - self.n_fitted()

    def slots(self, marks: Tensor) -> Tensor:
        """Calendar slot of every step.

        Shapes: marks (..., M) with the calendar fields ``[month, day, weekday, hour, minute]`` last
        -> (...,) int64.
        """
        if self.period == "year":
            return marks[..., _MONTH].round().long()
        slot = (marks[..., _HOUR] * 60 + marks[..., _MINUTE]).round().long() // self.step  # (...,) of the day
        if self.period == "week":
            slot = slot + marks[..., _WEEKDAY].round().long() * self.slots_per_day
        return slot

    def forward(self, marks: Tensor) -> Tensor:
        """The profile at each step. Shapes: marks (B, L, M) -> (B, L, C_in)."""
        return self.profile[self.slots(marks)]

    def at_horizon(self, x_mark_dec: Tensor, pred_len: int, target_index: Sequence[int]) -> Tensor:
        """The profile of the target channels over the horizon, the last ``pred_len`` rows of the decoder marks.

        Shapes: x_mark_dec (B, T + P, M) -> (B, P, C_out).
        """
        horizon = x_mark_dec[:, x_mark_dec.shape[1] - pred_len:]  # (B, P, M)
        return self(horizon)[..., list(target_index)]

    @torch.no_grad()
    def fit(self, batches: Iterable[Any]) -> int:
        """Set the profile to the mean of each slot over every input step of ``batches``.

        Args:
            batches: ``Batch`` tuples (``x_enc``, ``x_mark_enc``) of the training windows.

        Returns:
            The number of slots seen.
        """
        n_slots, n_channels = self.profile.shape
        sums = torch.zeros(n_slots, n_channels, dtype=torch.float64)
        counts = torch.zeros(n_slots, dtype=torch.float64)
        for batch in batches:
            slot = self.slots(batch.x_mark_enc.cpu()).reshape(-1)  # (B*L,)
            values = batch.x_enc.cpu().reshape(-1, n_channels).double()  # (B*L, C_in)
            sums.index_add_(0, slot, values)
            counts.index_add_(0, slot, torch.ones_like(slot, dtype=torch.float64))
        self.profile.copy_((sums / counts.clamp(min=1)[:, None]).to(self.profile))
        self.seen.copy_(counts > 0)
        return int(self.seen.sum())

    def residuals(self, batches: Iterable[Any], target_index: Sequence[int]) -> "Residuals":
        """``batches`` with the profile removed from inputs and targets, re-iterable (closed-form fits)."""
        return Residuals(self, batches, target_index)

    def extra_repr(self) -> str:
        step = "" if self.period == "year" else f", step={self.step}min"
        return f"period={self.period}{step}, slots={self.profile.shape[0]}, channels={self.profile.shape[1]}"


class Residuals:
    """Batches with a calendar profile removed from ``x_enc`` and ``y``; every pass re-reads ``batches``.

    Shapes: x_enc (B, S, C_in) and y (B, P, C_out) keep their shapes.
    """

    def __init__(self, profile: CalendarProfile, batches: Iterable[Any], target_index: Sequence[int]) -> None:
        self.profile, self.batches, self.index = profile, batches, list(target_index)

    def window_count(self) -> int:
        """The number of windows, those of ``batches`` (:func:`~forecast.data.batch.window_count`)."""
        return window_count(self.batches)

    def __iter__(self) -> Iterator[Any]:
        for batch in self.batches:
            horizon = self.profile.at_horizon(batch.x_mark_dec, batch.y.shape[1], self.index)  # (B, P, C_out)
            yield batch._replace(x_enc=batch.x_enc - self.profile(batch.x_mark_enc), y=batch.y - horizon)
