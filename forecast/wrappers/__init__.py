"""Add-ons that wrap any forecaster and keep its contract: each owns the ``net`` it wraps.

* :class:`~forecast.wrappers.instance_norm.InstanceNorm`: reversible instance normalisation (RevIN).
* :class:`~forecast.wrappers.channel_independent.ChannelIndependent`: every channel its own univariate series.
* :class:`~forecast.wrappers.floor_residual.FloorResidual`: a learned residual over a closed-form floor.
* :class:`~forecast.wrappers.calendar_residual.CalendarResidual`: the calendar profile
  (:class:`~forecast.wrappers.calendar.CalendarProfile`) removed from the window and restored on the forecast.

Nothing here imports ``forecast.models``: a wrapper knows the forecaster it wraps only by the contract
(``forecast.core.forecaster``).
"""
