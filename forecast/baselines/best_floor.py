"""The closed-form floors of a series, and the one of them that validates best."""

from __future__ import annotations

import logging
from typing import Any, Iterable, Mapping

import torch
from torch import Tensor, nn

from forecast.baselines.base import Baseline
from forecast.baselines.ridge import RidgeFloor
from forecast.baselines.mean import WindowMean
from forecast.baselines.naive import Naive
from forecast.baselines.seasonal_naive import SeasonalNaive
from forecast.core.forecaster import DataDims, ForecasterFactory

log = logging.getLogger("forecast")
RIDGE = "ridge"


def candidate_floors(dims: DataDims, period: int | None,
                     ridge: ForecasterFactory = RidgeFloor) -> dict[str, nn.Module]:
    """The floors, unfitted: ``naive``, ``mean``, ``seasonal_naive`` (left out when ``period`` is None
    or longer than ``seq_len``) and ``ridge`` (``ridge(dims=dims)``, alpha 1 by default).

    Args:
        dims: the data's sizes.
        period: the season length in steps.
        ridge: factory of the ridge floor, with its options.
    """
    floors: dict[str, nn.Module] = {"naive": Naive(dims=dims), "mean": WindowMean(dims=dims)}
    if period is not None and 1 <= period <= int(dims["seq_len"]):
        floors["seasonal_naive"] = SeasonalNaive(dims=dims, period=period)
    floors[RIDGE] = ridge(dims=dims)
    return floors


@torch.no_grad()
def floor_errors(floors: Mapping[str, nn.Module], batches: Iterable[Any]) -> dict[str, tuple[float, float]]:
    """MSE and MAE of each floor over every element of every window of ``batches`` (float64 sums).

    Returns:
        ``{floor: (mse, mae)}``.
    """
    squared = {name: 0.0 for name in floors}
    absolute = {name: 0.0 for name in floors}
    count = 0
    for batch in batches:
        count += batch.y.numel()
        for name, floor in floors.items():
            diff = (floor(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec) - batch.y).double()  # (B, P, C_out)
            squared[name] += float(diff.square().sum())
            absolute[name] += float(diff.abs().sum())
    if count == 0:
        raise ValueError("no windows to score the floors on")
    return {name: (squared[name] / count, absolute[name] / count) for name in floors}


class BestFloor(Baseline):
    """Forecasts with whichever floor has the lowest validation MSE: naive, window mean, seasonal naive or ridge.

    The ridge floor is fitted on the training windows (:meth:`fit_closed_form`); the choice is made on
    the validation windows (:meth:`select_on_validation`) and kept in the checkpoint (``choice``).
    Until then it forecasts with the ridge floor. On a random walk repeating the last value can beat
    a regression fitted on the training months; on a series with a daily shape the ridge wins.

    Args:
        dims: the data's sizes.
        ridge: factory of the ridge candidate, with its options (``RidgeFloor`` at alpha 1 when None).
        period: season length of the seasonal-naive candidate in steps; None leaves it out
            (``forecast/conf/model/best_floor.yaml`` derives it from ``data.freq``).
    """

    def __init__(self, *, dims: DataDims, ridge: ForecasterFactory | None = None, period: int | None = None) -> None:
        super().__init__(dims=dims)
        self.candidates = nn.ModuleDict(candidate_floors(dims, period, ridge or RidgeFloor))
        self.names = list(self.candidates)
        self.register_buffer("choice", torch.tensor(self.names.index(RIDGE)))

    @property
    def chosen(self) -> str:
        """The name of the floor that forecasts."""
        return self.names[int(self.choice)]

    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """Fit the ridge candidate on the training windows; returns its regression rows."""
        return self.candidates[RIDGE].fit_closed_form(batches)

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """Choose the candidate with the lowest MSE over the validation windows (ties: the earlier one)."""
        errors = floor_errors(self.candidates, batches)
        best = min(self.names, key=lambda name: errors[name][0])
        self.choice.fill_(self.names.index(best))
        log.info("best floor on validation: %s (%s)", best,
                 ", ".join(f"{name} {mse:.4f}" for name, (mse, _) in errors.items()))

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in), marks (B, seq_len, M), (B, T + P, M) -> (B, pred_len, C_out)."""
        return self.candidates[self.chosen](x_enc, x_mark_enc, x_mark_dec)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, candidates={self.names}, chosen={self.chosen}"
