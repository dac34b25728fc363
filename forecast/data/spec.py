"""What a trained model needs to know about its data: saved in every checkpoint."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

import numpy as np
import torch
from torch import Tensor

from forecast.data.dialect import Dialect

Features = Literal["M", "S", "MS"]
Scaler = Literal["series", "global"]


@dataclass(frozen=True)
class DataSpec:
    """Columns, frequency, window sizes and the training-rows scaler of a dataset.

    ``mean``/``scale`` are the scaler statistics of ``input_columns`` fitted on training rows only;
    the targets are a subset of the inputs (``target_index``).

    Without timestamps ``timestamp_col`` and ``freq`` are None (no calendar features). A file of many
    series (``id_col``) lists the series trained on (``series_ids``); with ``scaler="series"`` each
    has its own training-rows statistics (``series_mean``/``series_scale``, one tuple per series),
    and ``mean``/``scale`` are those of every series' training rows together.

    ``future_columns`` are the known-future inputs (``data.future_columns``): never among the input or
    target columns, scaled with their own training-rows statistics (``future_mean``/``future_scale``)
    and fed to the model as extra mark columns (``forecast.data.known_future``).

    ``dialect`` is how the training file was written (:class:`~forecast.data.dialect.Dialect`, the date order
    and epoch unit as settled, and a time-of-day column joined to ``timestamp_col``): files read for this model
    are read the same way.
    """

    timestamp_col: str | None
    input_columns: tuple[str, ...]
    target_columns: tuple[str, ...]
    features: Features
    freq: str | None
    seq_len: int
    label_len: int
    pred_len: int
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    header: bool = True
    id_col: str | None = None
    scaler: Scaler = "global"
    series_ids: tuple[str, ...] = ()
    series_mean: tuple[tuple[float, ...], ...] = ()
    series_scale: tuple[tuple[float, ...], ...] = ()
    future_columns: tuple[str, ...] = ()
    future_mean: tuple[float, ...] = ()
    future_scale: tuple[float, ...] = ()
    dialect: Dialect = field(default_factory=Dialect)

    @property
    def target_index(self) -> list[int]:
        return [self.input_columns.index(c) for c in self.target_columns]

    @property
    def target_mean(self) -> list[float]:
        """Training-row mean of each target column."""
        return [self.mean[i] for i in self.target_index]

    @property
    def target_scale(self) -> list[float]:
        """Training-row std of each target column."""
        return [self.scale[i] for i in self.target_index]

    def to_dict(self) -> dict[str, Any]:
        """Plain Python containers only (loads under ``torch.load(weights_only=True)``)."""
        d = asdict(self)
        d["dialect"] = self.dialect.to_dict()
        return {k: [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v
                for k, v in d.items()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "DataSpec":
        """Inverse of :meth:`to_dict` (a field missing from ``d`` gets its default)."""
        fields = dict(d)
        for key in ("input_columns", "target_columns", "mean", "scale", "series_ids", "future_columns", "future_mean",
                    "future_scale"):
            if key in fields:
                fields[key] = tuple(fields[key])
        for key in ("series_mean", "series_scale"):
            if key in fields:
                fields[key] = tuple(tuple(v) for v in fields[key])
        fields["dialect"] = Dialect.from_dict(fields.get("dialect"))
        return cls(**fields)

    def dialect_for(self, timestamp_col: str | None, encoding: str | None = None) -> Dialect:
        """How to read a file for this model whose timestamp column is ``timestamp_col``: as the training file,
        without its time-of-day column (``dialect.time_col``) when another timestamp column is named, in
        ``encoding`` where one is given."""
        dialect = self.dialect if timestamp_col == self.timestamp_col else replace(self.dialect, time_col=None)
        return dialect if encoding is None else replace(dialect, encoding=encoding)

    @cached_property
    def _series_at(self) -> dict[str, int]:
        """Each series id's position in :attr:`series_ids`."""
        return {name: i for i, name in enumerate(self.series_ids)}

    def has_scaler(self, series_id: str | None) -> bool:
        """Whether the statistics of ``series_id`` are known (always, unless scaled per series)."""
        return self.scaler != "series" or series_id in self._series_at

    def stats(self, series_id: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Mean and std of the input columns, (C_in,) each: the series' own under ``scaler="series"``.

        Raises:
            KeyError: per-series scaling and a series not trained on.
        """
        if self.scaler == "series" and self.series_ids and series_id is not None:
            i = self._series_at.get(series_id)
            if i is None:
                raise KeyError(series_id)
            return np.asarray(self.series_mean[i]), np.asarray(self.series_scale[i])
        return np.asarray(self.mean), np.asarray(self.scale)

    def scale_inputs(self, values: np.ndarray, series_id: str | None = None) -> np.ndarray:
        """(N, C_in) original units -> scaled."""
        mean, scale = self.stats(series_id)
        return (values - mean) / scale

    def scale_future(self, values: np.ndarray) -> np.ndarray:
        """(N, K) known-future columns in original units -> scaled with their training-rows statistics."""
        return (values - np.asarray(self.future_mean)) / np.asarray(self.future_scale)

    def unscale_targets(self, values: Tensor, series_id: str | None = None) -> Tensor:
        """(..., C_out) scaled targets -> original units."""
        mean, scale = (s[self.target_index] for s in self.stats(series_id))
        return values * torch.tensor(scale, dtype=values.dtype, device=values.device) \
            + torch.tensor(mean, dtype=values.dtype, device=values.device)
