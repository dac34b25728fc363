"""LightningDataModule windowing any CSV time series."""

from __future__ import annotations

import lightning as L
from lightning.pytorch.trainer.states import TrainerFn

from forecast.data.windowed import WindowedData


class ForecastDataModule(WindowedData, L.LightningDataModule):
    """:class:`~forecast.data.windowed.WindowedData` as a LightningDataModule: the same arguments, reading,
    windows and loaders; validation while a fit runs scores the round sample (:meth:`val_dataloader`), and
    the training stream's cursor travels in Lightning's checkpoints (:meth:`state_dict`)."""

    def _fitting(self) -> bool:
        trainer = getattr(self, "trainer", None)
        return trainer is not None and trainer.state.fn == TrainerFn.FITTING
