"""A trained model plus everything it needs about its data, rebuilt from a checkpoint alone.

The checkpoint's recipe gives the columns, the frequency, the window sizes and the *training-rows*
scaler; inputs are scaled with it (never refitted on the new file, the reference's
``Dataset_Pred`` bug) and forecasts are unscaled with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import Tensor, nn

from forecast.data.errors import DataError
from forecast.data.reader import FillMethod, Series, read_series
from forecast.data.spec import DataSpec
from forecast.data.time_features import future_index, time_marks
from forecast.data.windows import WindowDataset, as_tensor
from forecast.predict.checkpoint import resolve_checkpoint, resolve_device
from forecast.predict.validate import check_frequency, check_length
from forecast.training.floors import RIDGE, ridge_from_state
from forecast.training.recipe import FLOORS_KEY, RECIPE_KEY, load_checkpoint, load_model


@dataclass
class Forecaster:
    """A model in eval mode with its data spec and training config.

    Attributes:
        model: ``model(x_enc, x_mark_enc, x_mark_dec) -> (B, pred_len, C_out)`` scaled.
        spec: columns, frequency, window sizes and scaler of the training data.
        config: the resolved training configuration.
        checkpoint: the ``.ckpt`` file loaded.
        device: where the model runs.
        ridge_floor: the run's ridge floor rebuilt from the checkpoint (on CPU, eval mode), for the
            backtest; None for a checkpoint written before floors were stored.
    """

    model: nn.Module
    spec: DataSpec
    config: dict[str, Any]
    checkpoint: Path
    device: torch.device
    ridge_floor: nn.Module | None = None

    @classmethod
    def load(cls, path: str | Path, *, device: str = "cpu") -> "Forecaster":
        """Load a ``.ckpt`` file or a run directory's best checkpoint.

        Raises:
            DataError: no checkpoint, a corrupt or foreign file, or a recipe that no longer builds.
        """
        dev = resolve_device(device)
        ckpt_path = resolve_checkpoint(path)
        ckpt = load_checkpoint(ckpt_path)
        recipe = ckpt[RECIPE_KEY]
        stored = (recipe.get(FLOORS_KEY) or {}).get(RIDGE)
        try:
            model, spec = load_model(ckpt)
            ridge = None if stored is None else ridge_from_state(recipe["model_dims"], stored)
        except Exception as exc:  # noqa: BLE001 - any rebuild failure means the checkpoint is unusable
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise DataError(f"{ckpt_path}: cannot rebuild the model from the checkpoint's recipe "
                            f"({type(exc).__name__}: {first[:200]}); was it written by another version?") from exc
        model.to(dev)
        return cls(model=model, spec=spec, config=recipe.get("config", {}), checkpoint=ckpt_path, device=dev,
                   ridge_floor=ridge)

    @property
    def target(self) -> str:
        """The column to plot: the training target when predicted, else the last predicted column."""
        target = (self.config.get("data") or {}).get("target")
        return target if target in self.spec.target_columns else self.spec.target_columns[-1]

    # ------------------------------------------------------------------------------------- reading
    def read(self, path: str | Path, *, fill: FillMethod | None = None, timestamp_col: str | None = None,
             min_rows: int | None = None, what: str = "the model's input window (seq_len)") -> Series:
        """Read and validate a CSV against the training data's columns and frequency.

        Args:
            path: the CSV.
            fill: fill missing cells instead of refusing them.
            timestamp_col: the file's timestamp column (default: the training one).
            min_rows: rows required (default ``seq_len``).
            what: what needs ``min_rows``, for the message.

        Raises:
            DataError: any problem with the file (one line naming the file, line and column).
        """
        spec = self.spec
        series = read_series(path, timestamp_col=timestamp_col or spec.timestamp_col,
                             columns=list(spec.input_columns), fill=fill,
                             timestamp_hint="pass --timestamp-col NAME")
        check_frequency(series.index, spec.freq, source=str(path))
        check_length(len(series.frame), spec.seq_len if min_rows is None else min_rows, source=str(path),
                     what=what if min_rows is not None else f"the model's input window (seq_len {spec.seq_len})")
        return series

    def scaled(self, series: Series) -> np.ndarray:
        """Inputs scaled with the checkpoint's scaler, float32, (N, C_in)."""
        values = series.frame[list(self.spec.input_columns)].to_numpy(dtype=np.float64)
        return np.ascontiguousarray(self.spec.scale_inputs(values).astype(np.float32))

    # ----------------------------------------------------------------------------------- predicting
    @torch.no_grad()
    def predict(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """One forward pass. Shapes: (B, S, C_in), (B, S, M), (B, L+P, M) -> (B, P, C_out) scaled, on CPU."""
        self.model.eval()
        dev = self.device
        return self.model(x_enc.to(dev), x_mark_enc.to(dev), x_mark_dec.to(dev)).float().cpu()

    def forecast(self, series: Series) -> pd.DataFrame:
        """Forecast the ``pred_len`` steps after the file's last timestamp.

        Returns:
            Frame with the timestamp column then the predicted columns, in original units.
        """
        spec = self.spec
        x = self.scaled(series)[-spec.seq_len:]  # (S, C_in)
        history = series.index[-spec.seq_len:]
        future = future_index(history[-1], spec.freq, spec.pred_len)
        marks = as_tensor(time_marks(history.append(future), spec.freq))  # (S + P, M)
        pred = self.predict(as_tensor(x)[None], marks[None, :spec.seq_len],
                            marks[None, spec.seq_len - spec.label_len:])  # (1, P, C_out)
        values = spec.unscale_targets(pred[0].double()).numpy()  # (P, C_out)
        frame = pd.DataFrame(values, columns=list(spec.target_columns))
        frame.insert(0, series.frame.index.name or spec.timestamp_col, future)
        return frame

    def windows(self, series: Series, *, start: int, end: int, stride: int = 1) -> WindowDataset:
        """Every ``stride``-th window of the file whose rows lie in ``[start, end)`` (start includes the look-back)."""
        spec = self.spec
        x = as_tensor(self.scaled(series))  # (N, C_in)
        y = x[:, spec.target_index].contiguous()  # (N, C_out)
        marks = as_tensor(time_marks(series.index, spec.freq))  # (N, M)
        if stride < 1:
            raise DataError(f"--every must be >= 1, got {stride}")
        return WindowDataset(x, y, marks, start=start, end=end, seq_len=spec.seq_len, label_len=spec.label_len,
                             pred_len=spec.pred_len, stride=stride)
