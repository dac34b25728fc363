"""LightningDataModule windowing any CSV time series."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import lightning as L
import numpy as np
from sklearn.preprocessing import StandardScaler
import torch.distributed as dist
from lightning.pytorch.overrides.distributed import UnrepeatedDistributedSampler
from torch.utils.data import DataLoader, DistributedSampler

from forecast.data.errors import DataError
from forecast.data.reader import FillMethod, read_series
from forecast.data.spec import DataSpec, Features
from forecast.data.splits import SPLITS, RowRange, n_windows, split_ranges
from forecast.data.time_features import infer_frequency, n_continuous_features, time_marks
from forecast.data.windows import WindowDataset, as_tensor


def _distributed() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


class ForecastDataModule(L.LightningDataModule):
    """Reads one CSV, splits it, scales it with training rows only and serves windows.

    Args:
        path: CSV file: a timestamp column plus numeric columns.
        target: the target column (``OT`` for ETT).
        features: ``M`` all columns to all, ``S`` target to target, ``MS`` all columns to target.
        timestamp_col: timestamp column name.
        columns: input columns to use for ``M``/``MS`` (default: every numeric column).
        seq_len: encoder window length.
        label_len: start-token length, the last ``label_len`` known steps fed to the decoder.
        pred_len: horizon.
        freq: pandas frequency (``h``, ``15min``, ``D``, ``B``, ``W``, ``MS`` ...); inferred if None.
        borders: ``[train_end, val_end, test_end]`` rows; ``None`` uses ``ratios``.
        ratios: train/val/test fractions when no borders are given.
        scale: standardise with training-row statistics.
        batch_size: training batch size (shuffled, last partial batch dropped).
        eval_batch_size: validation/test batch size (every window kept); default ``batch_size``.
        num_workers: DataLoader workers.
        fill: fill missing cells (``ffill`` or ``interpolate``) instead of refusing them.
        train_stride: step between training window origins (1 = every window).
        seed: shuffling seed of the distributed training sampler (DDP).

    The loaders bring their own distributed samplers (run the trainer with
    ``use_distributed_sampler=False``): shuffled shards for training, unpadded shards for
    validation and test.
    """

    def __init__(self, *, path: str, target: str = "OT", features: Features = "M", timestamp_col: str = "date",
                 columns: Sequence[str] | None = None, seq_len: int = 96, label_len: int = 48, pred_len: int = 24,
                 freq: str | None = None, borders: Sequence[int] | None = None,
                 ratios: Sequence[float] = (0.7, 0.1, 0.2), scale: bool = True, batch_size: int = 32,
                 eval_batch_size: int | None = None, num_workers: int = 0, fill: FillMethod | None = None,
                 train_stride: int = 1, seed: int = 0) -> None:
        super().__init__()
        if features not in ("M", "S", "MS"):
            raise DataError(f"data.features must be M, S or MS, got {features!r}")
        if min(seq_len, pred_len) < 1 or not 0 <= label_len <= seq_len:
            raise DataError(f"need seq_len >= 1, pred_len >= 1 and 0 <= label_len <= seq_len; got seq_len={seq_len}, "
                            f"label_len={label_len}, pred_len={pred_len}")
        self.path = Path(path)
        self.target, self.features, self.timestamp_col = target, features, timestamp_col
        self.columns = list(columns) if columns is not None else None
        self.seq_len, self.label_len, self.pred_len = seq_len, label_len, pred_len
        self.freq = freq
        self.borders = list(borders) if borders is not None else None
        self.ratios = list(ratios)
        self.scale = scale
        self.batch_size = batch_size
        self.eval_batch_size = eval_batch_size or batch_size
        self.num_workers = num_workers
        self.fill = fill
        self.train_stride = train_stride
        self.seed = seed
        self.spec: DataSpec | None = None
        self.datasets: dict[str, WindowDataset] = {}
        self.ranges: dict[str, RowRange] = {}
        self.index = None

    # ----------------------------------------------------------------------------------------- setup
    def setup(self, stage: str | None = None) -> None:
        """Read, validate, split and scale (idempotent)."""
        if self.spec is not None:
            return
        wanted = None
        if self.features == "S":
            wanted = [self.target]
        elif self.columns is not None:
            wanted = self.columns + ([self.target] if self.target not in self.columns else [])
        series = read_series(self.path, timestamp_col=self.timestamp_col, columns=wanted, fill=self.fill)
        frame = series.frame
        if self.target not in frame.columns:
            raise DataError(f"{self.path}: no target column {self.target!r} (columns: {', '.join(frame.columns)}); "
                            f"set data.target")
        freq = self.freq or infer_frequency(series.index, source=str(self.path))
        inputs = list(frame.columns)
        targets = [self.target] if self.features in ("S", "MS") else inputs
        values = frame.to_numpy(dtype=np.float64)  # (N, C_in)

        self.ranges = split_ranges(len(frame), seq_len=self.seq_len, borders=self.borders, ratios=self.ratios)
        for split in SPLITS:
            if n_windows(self.ranges[split], self.seq_len, self.pred_len) < 1:
                r = self.ranges[split]
                raise DataError(f"{self.path}: the {split} split has {r.end - r.start} rows, too few for one window "
                                f"of seq_len {self.seq_len} + pred_len {self.pred_len}; use a longer file, shorter "
                                f"windows or other borders/ratios")
        train = self.ranges["train"]
        if self.scale:
            scaler = StandardScaler().fit(values[train.start: train.end])
            mean, std = scaler.mean_, scaler.scale_
        else:
            mean, std = np.zeros(values.shape[1]), np.ones(values.shape[1])
        self.spec = DataSpec(timestamp_col=self.timestamp_col, input_columns=tuple(inputs),
                             target_columns=tuple(targets), features=self.features, freq=freq,
                             seq_len=self.seq_len, label_len=self.label_len, pred_len=self.pred_len,
                             mean=tuple(float(m) for m in mean), scale=tuple(float(s) for s in std))
        scaled = self.spec.scale_inputs(values).astype(np.float32)  # (N, C_in)
        self.index = series.index
        x = as_tensor(scaled)
        y = as_tensor(np.ascontiguousarray(scaled[:, self.spec.target_index]))  # (N, C_out)
        marks = as_tensor(time_marks(series.index, freq))  # (N, M)
        for split in SPLITS:
            r = self.ranges[split]
            self.datasets[split] = WindowDataset(x, y, marks, start=r.start, end=r.end, seq_len=self.seq_len,
                                                 label_len=self.label_len, pred_len=self.pred_len,
                                                 stride=self.train_stride if split == "train" else 1)

    # ------------------------------------------------------------------------------ sizes for models
    @property
    def n_inputs(self) -> int:
        return len(self._spec().input_columns)

    @property
    def n_targets(self) -> int:
        return len(self._spec().target_columns)

    @property
    def n_time_features(self) -> int:
        return n_continuous_features(self._spec().freq)

    def _spec(self) -> DataSpec:
        if self.spec is None:
            self.setup()
        assert self.spec is not None
        return self.spec

    def model_dims(self) -> dict[str, int]:
        """Data-derived sizes every forecaster takes as constructor arguments."""
        spec = self._spec()
        return {"enc_in": self.n_inputs, "c_out": self.n_targets, "n_time_features": self.n_time_features,
                "seq_len": spec.seq_len, "label_len": spec.label_len, "pred_len": spec.pred_len,
                "target_index": spec.target_index}

    # ---------------------------------------------------------------------------------------- loaders
    def train_dataloader(self) -> DataLoader:
        data = self.datasets["train"]
        sampler = DistributedSampler(data, shuffle=True, seed=self.seed) if _distributed() else None
        return DataLoader(data, batch_size=self.batch_size, shuffle=sampler is None, sampler=sampler,
                          drop_last=len(data) > self.batch_size,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)

    def ordered_train_dataloader(self) -> DataLoader:
        """Every training window once, in order, at the eval batch size, on every rank (closed-form fits)."""
        return DataLoader(self.datasets["train"], batch_size=self.eval_batch_size, shuffle=False)

    def _eval_loader(self, split: str) -> DataLoader:
        # Under DDP each rank takes every world-size-th window, unpadded: metrics (sums reduced
        # across ranks by torchmetrics) count every window exactly once.
        data = self.datasets[split]
        sampler = UnrepeatedDistributedSampler(data, shuffle=False) if _distributed() else None
        return DataLoader(data, batch_size=self.eval_batch_size, shuffle=False, sampler=sampler, drop_last=False,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)

    def val_dataloader(self) -> DataLoader:
        return self._eval_loader("val")

    def test_dataloader(self) -> DataLoader:
        return self._eval_loader("test")

    # ----------------------------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        return {"spec": self._spec().to_dict()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = DataSpec.from_dict(state_dict["spec"])
        if self.spec is not None and saved.input_columns != self.spec.input_columns:
            raise DataError(f"checkpoint was trained on columns {list(saved.input_columns)}, this data has "
                            f"{list(self.spec.input_columns)}")
