"""The rebuild recipe stored in every checkpoint: resolved config, data spec and model sizes.

A checkpoint alone is enough to rebuild the model, the scaler, the column list, the frequency and
the window sizes (``forecast-predict`` needs nothing else). Reading it imports no Lightning, so a
forecast starts quickly; the callback that writes it is :mod:`forecast.training.recipe_checkpoint`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from forecast.core.forecaster import build_forecaster
from forecast.data.errors import DataError
from forecast.data.spec import DataSpec

RECIPE_KEY = "forecast_recipe"
# the model format this code rebuilds: a nest of forecasters (forecast/conf/model/*.yaml by _target_) around a
# plain Informer; load_checkpoint refuses any other format (a recipe without one is format 1)
RECIPE_FORMAT = 2
FLOORS_KEY = "floors"  # in the recipe: {"ridge": the ridge floor's state_dict}


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load a checkpoint written by ``forecast-train``.

    Raises:
        DataError: missing file, unreadable/corrupt file, a checkpoint without our recipe, or one of
            another model format than ``RECIPE_FORMAT``.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: checkpoint not found")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means a corrupt file
        raise DataError(f"{path}: not a readable checkpoint ({type(exc).__name__}); pass a .ckpt written by "
                        f"forecast-train") from exc
    if not isinstance(ckpt, dict) or RECIPE_KEY not in ckpt or "state_dict" not in ckpt:
        raise DataError(f"{path}: not a forecast checkpoint (no recipe inside); pass a .ckpt written by "
                        f"forecast-train")
    found = ckpt[RECIPE_KEY].get("format", 1)
    if found != RECIPE_FORMAT:
        raise DataError(f"{path}: written by an earlier version of forecast (model format {found}; this version "
                        f"reads format {RECIPE_FORMAT}); retrain it with forecast-train and the same settings")
    return ckpt


def build_model(recipe: dict[str, Any]) -> nn.Module:
    """Instantiate the model described by a recipe (untrained weights)."""
    return build_forecaster(recipe["config"]["model"], recipe["model_dims"])


def load_model(ckpt: dict[str, Any]) -> tuple[nn.Module, DataSpec]:
    """The trained model (eval mode) and its data spec from a loaded checkpoint."""
    recipe = ckpt[RECIPE_KEY]
    model = build_model(recipe)
    prefix = "net."
    state = {k[len(prefix):]: v for k, v in ckpt["state_dict"].items() if k.startswith(prefix)}
    model.load_state_dict(state)
    model.eval()
    return model, DataSpec.from_dict(recipe["spec"])
