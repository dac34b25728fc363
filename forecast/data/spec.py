"""What a trained model needs to know about its data: saved in every checkpoint."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import torch
from torch import Tensor

Features = Literal["M", "S", "MS"]


@dataclass(frozen=True)
class DataSpec:
    """Columns, frequency, window sizes and the training-rows scaler of a dataset.

    ``mean``/``scale`` are the scaler statistics of ``input_columns`` fitted on training rows only;
    the targets are a subset of the inputs (``target_index``).
    """

    timestamp_col: str
    input_columns: tuple[str, ...]
    target_columns: tuple[str, ...]
    features: Features
    freq: str
    seq_len: int
    label_len: int
    pred_len: int
    mean: tuple[float, ...]
    scale: tuple[float, ...]

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
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "DataSpec":
        fields = dict(d)
        for key in ("input_columns", "target_columns", "mean", "scale"):
            fields[key] = tuple(fields[key])
        return cls(**fields)

    def scale_inputs(self, values: np.ndarray) -> np.ndarray:
        """(N, C_in) original units -> scaled."""
        return (values - np.asarray(self.mean)) / np.asarray(self.scale)

    def unscale_targets(self, values: Tensor) -> Tensor:
        """(..., C_out) scaled targets -> original units."""
        mean = torch.tensor(self.target_mean, dtype=values.dtype, device=values.device)
        scale = torch.tensor(self.target_scale, dtype=values.dtype, device=values.device)
        return values * scale + mean
