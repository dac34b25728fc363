"""The Lightning callback that adds the rebuild recipe (:mod:`forecast.training.recipe`) to every checkpoint."""

from __future__ import annotations

from typing import Any

import lightning as L
import torch

from forecast.data.spec import DataSpec
from forecast.training.recipe import FLOORS_KEY, RECIPE_FORMAT, RECIPE_KEY


class RecipeCheckpoint(L.Callback):
    """Adds the recipe (plain containers only) to every checkpoint Lightning saves.

    Args:
        config: the resolved run configuration.
        spec: the data spec.
        model_dims: data-derived constructor arguments of the model.
        floors: the fitted floors' states (``Floors.checkpoint_state()``: plain tensors), stored under
            ``floors`` so ``forecast-predict --rolling`` can rebuild the ridge floor; None stores none.
    """

    def __init__(self, *, config: dict[str, Any], spec: DataSpec, model_dims: dict[str, Any],
                 floors: dict[str, dict[str, torch.Tensor]] | None = None) -> None:
        self.recipe: dict[str, Any] = {"format": RECIPE_FORMAT, "config": config, "spec": spec.to_dict(),
                                       "model_dims": model_dims}
        if floors is not None:
            self.recipe[FLOORS_KEY] = floors

    def on_save_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule,
                           checkpoint: dict[str, Any]) -> None:
        checkpoint[RECIPE_KEY] = self.recipe
