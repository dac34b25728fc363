"""A learned residual over a closed-form floor: training starts exactly at the floor."""

from __future__ import annotations

from typing import Any, Iterable

import torch
from torch import Tensor

from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims, ForecasterFactory
from forecast.wrappers.base import Wrapper


class FloorResidual(Wrapper):
    """``floor(window) + net(window)``: the floor is fitted in closed form, the net learns what it misses.

    The net's output is zeroed when it is built (:meth:`~forecast.core.forecaster.Forecaster.zero_output_`),
    so before any gradient step the forecast is the floor's, exactly; with ``keep_start`` the training
    layer keeps that start unless an epoch beats it on validation.

    Args:
        floor: factory of the floor, any forecaster with a closed-form fit (e.g.
            ``forecast.baselines.ridge.RidgeFloor`` with its own options).
        net: factory of the residual forecaster; it must be able to start from a zero forecast (an
            Informer, or an ``InstanceNorm(restore_mean=False)`` around one).
        show_floor: give the net the floor's forecast as its prior, where the net reads one
            (``takes_prior``: the Informer, in its decoder's horizon placeholders); see :meth:`forward`.
        dims: the data's sizes, given to both.
    """

    def __init__(self, *, floor: ForecasterFactory, net: ForecasterFactory, show_floor: bool = False,
                 dims: DataDims) -> None:
        super().__init__()
        self.floor = floor(dims=dims)
        self.net = net(dims=dims)
        self.net.zero_output_()
        self.show_floor = show_floor

    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """Fit the floor, then any closed-form part of the net; returns the rows of the last fit."""
        rows = self.floor.fit_closed_form(batches)
        inner = self.net.fit_closed_form(batches)
        return rows if inner is None else inner

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """The floor's choice on validation (a ``BestFloor`` picks its floor), then the net's."""
        self.floor.select_on_validation(batches)
        self.net.select_on_validation(batches)

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in), x_mark_enc (B, seq_len, M), x_mark_dec (B, T + P, M) -> (B, P, C_out).

        The floor runs outside any autocast (bf16-mixed): its forecast is the bulk of the output and
        its closed-form weights were fitted for float32, so it stays in float32; the net autocasts.
        Without gradients, a net whose output is exactly zero (the start, before any step) is not run: the
        forecast is the floor's, the same bits either way. With ``show_floor``, a net that reads a prior
        forecast (``takes_prior``) is given the floor's: it learns what to add to a forecast it sees. Without
        it the net has to work out the floor's forecast from the window before it can correct it, and when the
        floor is the best linear fit (a ridge) what it leaves is uncorrelated with every linear feature of the
        window, so early gradients barely move the net.
        """
        with torch.autocast(device_type=x_enc.device.type, enabled=False):
            floor = self.floor(x_enc.float(), x_mark_enc.float(), x_mark_dec.float())  # (B, P, C_out)
        if not torch.is_grad_enabled() and self.net.output_is_zero():
            return floor
        if self.show_floor and self.net.takes_prior():
            return floor + self.net(x_enc, x_mark_enc, x_mark_dec, prior=floor.detach())
        return floor + self.net(x_enc, x_mark_enc, x_mark_dec)

    def zero_output_(self) -> None:
        raise ConfigError("a floor residual forecasts the floor plus the net, so it cannot start from zero; "
                          "nest the floor residual outermost")

    def output_is_zero(self) -> bool:
        """False: the floor's forecast is added."""
        return False
