"""The closed-form floors of a run: naive, window mean, seasonal naive and the ridge floor, on the run's own windows.

A model's ``test/mse`` means little alone: on ETTh1 a closed-form ridge regression fitted in a second
gets 0.31 where a trained Informer gets 0.51. :func:`evaluate_floors` fits and scores those floors on
exactly the validation and test windows the model is scored on, so every run reports them beside its
own numbers, and :func:`standing` words where the model stands.

MSE and MAE are those of :class:`forecast.training.task.ForecastTask`: the mean over every element of
every window of the scaled values (accumulated here in float64), so a floor's numbers equal what
``forecast-train model=linear`` (or ``naive``, ``mean``, ``seasonal_naive``) reports on the same data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

import torch
from hydra.utils import instantiate
from omegaconf import OmegaConf
from torch import Tensor, nn

from forecast.baselines.best_floor import RIDGE, FittedFloor, candidate_floors, fitted_floors, floor_errors
from forecast.baselines.ridge import RidgeFloor
from forecast.data.season import period_for, profiles_for
from forecast.core.forecaster import DataDims
from forecast.core.standing import LEVEL, relative_change, score
from forecast.runtime import CONF_DIR
from forecast.wrappers.calendar_residual import CalendarResidual

#: the ridge floor of every run: the one ``model=linear`` builds, from its config file
RIDGE_FLOOR = instantiate(OmegaConf.load(CONF_DIR / "model" / "linear.yaml"))
SPLITS = ("val", "test")


@dataclass(frozen=True)
class Floors:
    """Scores of the floors and what predict needs to rebuild the ridge floor.

    Attributes:
        metrics: ``{floor: {"val/mse", "val/mae", "test/mse", "test/mae"}}``; floors ``naive``,
            ``mean``, ``seasonal_naive`` (when the frequency has a season that fits the window) and
            ``ridge``.
        ridge_state: the fitted ridge floor's ``state_dict`` (``weight`` (seq_len, P), ``bias`` (P,)).
        seconds: wall time of the fit and both evaluations.
        fitted: the floors fitted on the training windows (the ridge and the profiles), for a model's
            :class:`~forecast.baselines.best_floor.BestFloor` to take rather than fit again.
    """

    metrics: dict[str, dict[str, float]]
    ridge_state: dict[str, Tensor]
    seconds: float
    fitted: dict[str, FittedFloor]

    def test_mse(self) -> dict[str, float]:
        """``{floor: test/mse}``."""
        return {name: m["test/mse"] for name, m in self.metrics.items()}

    def checkpoint_state(self) -> dict[str, dict[str, Tensor]]:
        """What a checkpoint's recipe stores under ``floors``: ``{"ridge": state_dict}``, plain tensors."""
        return {RIDGE: {k: v.detach().cpu().clone() for k, v in self.ridge_state.items()}}


def build_floors(dims: DataDims, freq: str | None) -> dict[str, nn.Module]:
    """The floors, unfitted (:func:`~forecast.baselines.best_floor.candidate_floors`), the seasonal
    naive's period and the calendar profiles from ``freq``, the ridge of :data:`RIDGE_FLOOR`, the cross-channel
    ridge where the data has the channels for it."""
    return candidate_floors(dims, period_for(freq), RIDGE_FLOOR, profiles_for(freq), CalendarResidual, cross=True)


def ridge_from_state(dims: DataDims, state: Mapping[str, Tensor]) -> RidgeFloor:
    """The ridge floor rebuilt from a stored ``state_dict`` (eval mode)."""
    ridge = RIDGE_FLOOR(dims=dims)
    ridge.load_state_dict(dict(state))
    return ridge.eval()


def evaluate_floors(datamodule: Any, dims: DataDims, freq: str | None) -> Floors:
    """Fit the ridge floor and the profiles on every training window, then score every floor on every
    validation and test window.

    The global random state is left as it was (iterating a DataLoader draws a seed from it), so a
    run's model starts from the same weights with or without its floors.

    Args:
        datamodule: a set-up ``ForecastDataModule`` (``ordered_dataloader(split)``).
        dims: ``datamodule.model_dims()``.
        freq: the series' frequency (``datamodule.spec.freq``), for the seasonal naive's period.
    """
    started = time.perf_counter()
    floors = build_floors(dims, freq)
    with torch.random.fork_rng(devices=[]):
        training = datamodule.ordered_dataloader("train")
        fitted = {name: FittedFloor(floors[name], floors[name].fit_closed_form(training))
                  for name in fitted_floors(floors)}
        scores = {split: floor_errors(floors, datamodule.ordered_dataloader(split)) for split in SPLITS}
    metrics = {name: {f"{split}/{metric}": scores[split][name][i] for split in SPLITS
                      for i, metric in enumerate(("mse", "mae"))} for name in floors}
    return Floors(metrics=metrics, ridge_state=floors[RIDGE].state_dict(),
                  seconds=time.perf_counter() - started, fitted=fitted)


def _percent(fraction: float) -> str:
    """0.652 -> ``65%``, 0.031 -> ``3.1%``, 0.00042 -> ``0.042%``."""
    p = abs(fraction) * 100
    return f"{p:.0f}%" if p >= 10 else f"{p:.2g}%"


def standing(test_mse: float, floors: Mapping[str, float], *, level: float = LEVEL) -> str:
    """Where a model's test MSE stands against the floors, for the run's closing line.

    Names the ridge floor and the naive forecast (and the best floor when it is neither), then the
    model's distance to the best floor (lowest test MSE): ``ridge floor 0.3096, naive 1.2220: 65%
    worse than the ridge floor``; ``...: 3.1% better than the best floor, ridge``. A model within
    ``level`` (relative) of the best floor is ``level with`` it: a run of the floor itself
    (``model=linear``) reads ``level with the ridge floor``.

    Args:
        test_mse: the model's test MSE.
        floors: ``{floor: test MSE}``; empty gives ``""``.
        level: relative difference under which the model and the best floor are level.
    """
    if not floors:
        return ""
    best = min(floors, key=lambda name: floors[name])
    shown = [n for n in (RIDGE, "naive") if n in floors] + ([best] if best not in (RIDGE, "naive") else [])
    named = ", ".join(f"{'ridge floor' if n == RIDGE else n} {score(floors[n])}" for n in shown)
    floor = floors[best]
    which = "the ridge floor" if best == RIDGE else f"the best floor, {best}"
    change = relative_change(test_mse, floor)
    if abs(change) <= level:
        verdict = f"level with {which}"
    elif change > 0:
        verdict = f"{_percent(change)} worse than {which}"
    else:  # better than every floor: name the best one even when it is the ridge floor
        verdict = f"{_percent(change)} better than the best floor, {best}"
    return f"{named}: {verdict}"
