"""The run's data read before Lightning is imported, so that bad data is refused in seconds."""

from __future__ import annotations

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from forecast.data.windowed import WindowedData

DATAMODULE = "forecast.data.datamodule.ForecastDataModule"
WINDOWED = "forecast.data.windowed.WindowedData"


def read_first(data: DictConfig) -> WindowedData | None:
    """``data`` (a run's ``cfg.data``) read, validated, split and scaled as the
    :class:`~forecast.data.datamodule.ForecastDataModule` it names would be, by its Lightning-free base; None
    where ``data`` names another class. The run's datamodule then takes it
    (:meth:`~forecast.data.windowed.WindowedData.take_setup`).

    Raises:
        DataError: the file cannot be used, in the words the datamodule would use.
    """
    if data.get("_target_") != DATAMODULE:
        return None
    windowed = instantiate(OmegaConf.merge(data, {"_target_": WINDOWED}))
    windowed.setup("fit")
    return windowed
