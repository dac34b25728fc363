"""LightningDataModule windowing any CSV time series."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import lightning as L
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
import torch.distributed as dist
from lightning.pytorch.overrides.distributed import UnrepeatedDistributedSampler
from torch.utils.data import DataLoader, DistributedSampler

from forecast.data.dialect import dialect_from_settings
from forecast.data.errors import DataError
from forecast.data.hints import TRAIN
from forecast.data.known_future import check_future_columns, with_known
from forecast.data.reader import DATAFRAME, FillMethod, Series, read_panel
from forecast.data.spec import DataSpec, Features, Scaler
from forecast.data.splits import SPLITS, RowRange, fits_every_split, n_windows, split_ranges
from forecast.data.time_features import n_continuous_features, time_marks
from forecast.data.windows import ConcatWindows, WindowDataset, as_tensor


def _distributed() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


@dataclass(frozen=True)
class SeriesRows:
    """Where one series lies in the shared arrays: rows ``[offset, offset + rows)``, and its splits.

    Attributes:
        series_id: the series' id (None for a file of one series).
        offset: its first row in the shared arrays.
        rows: its length.
        ranges: its train/val/test row ranges, relative to its first row.
    """

    series_id: str | None
    offset: int
    rows: int
    ranges: dict[str, RowRange]


def _check_setting(key: str, value: Any, kind: type | tuple[type, ...], what: str, *, none: bool = False) -> None:
    """Refuse a wrongly typed ``data.<key>`` with one line (bool is no int here)."""
    if value is None and none:
        return
    ok = isinstance(value, kind) and not (isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple)
                                                                                   else (kind,)))
    if not ok:
        raise DataError(f"data.{key} must be {what}{' or null' if none else ''}, got {value!r}; "
                        f"set data.{key}=<{what}>")


def _name(value: Any) -> str | None:
    """A column name from the config (``data.target=3`` arrives as an int)."""
    return None if value is None else str(value)


class ForecastDataModule(L.LightningDataModule):
    """Reads one CSV, splits it, scales it with training rows only and serves windows.

    A file may hold many series (``id_col``): one model trains on the windows of every series, no
    window crosses two series, and each series is split by time on its own (``borders``/``ratios``
    apply to each series' rows). Series too short for a window in every split are skipped with a
    note.

    Args:
        path: CSV file: numeric columns, with a timestamp column unless ``timestamp_col`` is None; or a
            DataFrame of the same columns (:func:`forecast.api.train` passes one), named ``<DataFrame>``.
        target: the target column (``OT`` for ETT).
        features: ``M`` all columns to all, ``S`` target to target, ``MS`` all columns to target.
        timestamp_col: timestamp column name; None reads rows as consecutive steps (no calendar features).
        columns: input columns to use for ``M``/``MS`` (default: every numeric column).
        seq_len: encoder window length.
        label_len: start-token length, the last ``label_len`` known steps fed to the decoder.
        pred_len: horizon.
        freq: pandas frequency (``h``, ``15min``, ``D``, ``B``, ``W``, ``MS`` ...); inferred if None.
            Timestamps are checked against it either way.
        borders: ``[train_end, val_end, test_end]`` rows (of each series); ``None`` uses ``ratios``.
        ratios: train/val/test fractions when no borders are given.
        scale: standardise with training-row statistics.
        batch_size: training batch size (shuffled, last partial batch dropped).
        eval_batch_size: validation/test batch size (every window kept); default ``batch_size``.
        num_workers: DataLoader workers.
        fill: fill missing cells (empty, NaN, infinite; ``ffill`` or ``interpolate``) instead of refusing them.
        train_stride: step between training window origins (1 = every window).
        eval_stride: step between validation and test window origins (1 = every window, as the
            papers score); the floors are scored on the same windows.
        seed: shuffling seed of the distributed training sampler (DDP).
        header: the file's first line names the columns; False names them ``0 … n-1``.
        id_col: the column naming each row's series (many series in one file), or None.
        scaler: with ``id_col``: ``series`` scales each series with its own training rows, ``global``
            all series with the training rows of all.
        fill_missing_dates: add the rows missing from the timestamps at the frequency (filled by ``fill``)
            instead of refusing the gaps.
        future_columns: known-future inputs (``forecast.data.known_future``): columns whose values over the
            horizon are known when forecasting. They leave the input and target channels and enter the
            time marks, scaled with their training rows; a single name counts as a list of one. Not with
            ``id_col``.
        sep, decimal, thousands, na_values, dayfirst, date_format, epoch_unit, tz: how the file is written
            (:class:`~forecast.data.dialect.Dialect`; None detects where the file makes it clear).

    The loaders bring their own distributed samplers (run the trainer with
    ``use_distributed_sampler=False``): shuffled shards for training, unpadded shards for
    validation and test.
    """

    def __init__(self, *, path: str | Path | pd.DataFrame, target: str = "OT", features: Features = "M",
                 timestamp_col: str | None = "date",
                 columns: Sequence[str] | None = None, seq_len: int = 96, label_len: int = 48, pred_len: int = 24,
                 freq: str | None = None, borders: Sequence[int] | None = None,
                 ratios: Sequence[float] = (0.7, 0.1, 0.2), scale: bool = True, batch_size: int = 32,
                 eval_batch_size: int | None = None, num_workers: int = 0, fill: FillMethod | None = None,
                 train_stride: int = 1, seed: int = 0, header: bool = True, id_col: str | None = None,
                 scaler: Scaler = "series", fill_missing_dates: bool = False, eval_stride: int = 1,
                 future_columns: Sequence[str] | str | None = None, sep: str | None = None,
                 decimal: str | None = None, thousands: str | None = None,
                 na_values: Sequence[str] | str | None = None, dayfirst: bool | None = None,
                 date_format: str | None = None, epoch_unit: str | None = None, tz: str | None = None) -> None:
        super().__init__()
        self.dialect = dialect_from_settings(sep=sep, decimal=decimal, thousands=thousands, na_values=na_values,
                                             dayfirst=dayfirst, date_format=date_format, epoch_unit=epoch_unit, tz=tz)
        for key, value in (("seq_len", seq_len), ("label_len", label_len), ("pred_len", pred_len),
                           ("batch_size", batch_size), ("num_workers", num_workers), ("train_stride", train_stride),
                           ("eval_stride", eval_stride), ("seed", seed)):
            _check_setting(key, value, int, "an integer")
        _check_setting("eval_batch_size", eval_batch_size, int, "an integer", none=True)
        for key, value in (("scale", scale), ("header", header), ("fill_missing_dates", fill_missing_dates)):
            _check_setting(key, value, bool, "true or false")
        _check_setting("path", path, (str, Path, pd.DataFrame), "a file path")
        _check_setting("freq", freq, str, "a pandas frequency such as h, 15min, D", none=True)
        _check_setting("borders", borders, Sequence, "a list [train_end, val_end, test_end]", none=True)
        _check_setting("ratios", ratios, Sequence, "a list [train, val, test] of fractions")
        if isinstance(borders, str) or isinstance(ratios, str):
            raise DataError(f"data.{'borders' if isinstance(borders, str) else 'ratios'} must be a list, "
                            f"got {borders if isinstance(borders, str) else ratios!r}")
        if features not in ("M", "S", "MS"):
            raise DataError(f"data.features must be M, S or MS, got {features!r}")
        if fill not in (None, "ffill", "interpolate"):
            raise DataError(f"data.fill must be ffill, interpolate or null, got {fill!r}")
        if scaler not in ("series", "global"):
            raise DataError(f"data.scaler must be series or global, got {scaler!r}")
        if min(seq_len, pred_len) < 1 or not 0 <= label_len <= seq_len:
            raise DataError(f"need seq_len >= 1, pred_len >= 1 and 0 <= label_len <= seq_len; got seq_len={seq_len}, "
                            f"label_len={label_len}, pred_len={pred_len}")
        self.frame = path if isinstance(path, pd.DataFrame) else None
        self.path = Path(DATAFRAME) if self.frame is not None else Path(path)
        self.target, self.features, self.timestamp_col = _name(target), features, _name(timestamp_col)
        self.columns = [str(c) for c in columns] if columns is not None else None
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
        self.eval_stride = eval_stride
        self.seed = seed
        self.header, self.id_col, self.scaler = header, _name(id_col), scaler
        self.fill_missing_dates = fill_missing_dates
        _check_setting("future_columns", future_columns, (Sequence, str), "a list of column names", none=True)
        named = [future_columns] if isinstance(future_columns, str) else list(future_columns or [])
        self.future_columns = check_future_columns(named, target=self.target, id_col=self.id_col)
        self.spec: DataSpec | None = None
        self.datasets: dict[str, WindowDataset | ConcatWindows] = {}
        self.every_train_window: WindowDataset | ConcatWindows | None = None  # stride 1, for closed-form fits
        self.ranges: dict[str, RowRange] = {}
        self.slices: list[SeriesRows] = []
        self.index: pd.Index | None = None

    # ----------------------------------------------------------------------------------------- setup
    def setup(self, stage: str | None = None) -> None:
        """Read, validate, split and scale (idempotent)."""
        if self.spec is not None:
            return
        wanted = None
        if self.features == "S":
            wanted = [self.target] + self.future_columns
        elif self.columns is not None:
            wanted = [c for c in self.columns if c not in self.future_columns]
            wanted += ([self.target] if self.target not in wanted else []) + self.future_columns
        source = self.path if self.frame is None else self.frame
        panel = read_panel(source, timestamp_col=self.timestamp_col, columns=wanted, id_col=self.id_col,
                           header=self.header, fill=self.fill, freq=self.freq,
                           fill_missing_dates=self.fill_missing_dates, hints=TRAIN, dialect=self.dialect)
        for note in panel.notes:
            print(f"note: {note}", file=sys.stderr)
        read = list(panel.series[0].frame.columns)
        missing = [c for c in self.future_columns if c not in read]
        if missing:
            raise DataError(f"{self.path}: no column {missing[0]!r} for data.future_columns (columns: "
                            f"{', '.join(read)}); set data.future_columns")
        inputs = [c for c in read if c not in self.future_columns]
        if self.target not in inputs:
            raise DataError(f"{self.path}: no target column {self.target!r} (columns: {', '.join(inputs)}); "
                            f"set data.target")
        targets = [self.target] if self.features in ("S", "MS") else inputs
        kept = self._usable(panel.series)
        values = [s.frame[inputs].to_numpy(dtype=np.float64) for s in kept]  # (N_s, C_in) each
        known = [s.frame[self.future_columns].to_numpy(dtype=np.float64) for s in kept]  # (N_s, K) each
        offsets = np.cumsum([0] + [len(v) for v in values])
        self.slices = [SeriesRows(s.series_id, int(o), len(v), self._ranges(len(v)))
                       for s, o, v in zip(kept, offsets, values)]
        mean, std = self._fit_scaler([v[:sl.ranges["train"].end] for v, sl in zip(values, self.slices)])
        per_series = [self._fit_scaler([v[:sl.ranges["train"].end]]) for v, sl in zip(values, self.slices)] \
            if self.id_col is not None and self.scaler == "series" else []
        future_mean, future_std = self._fit_scaler([k[:sl.ranges["train"].end] for k, sl in zip(known, self.slices)])
        floats = lambda a: tuple(float(x) for x in a)  # noqa: E731
        self.spec = DataSpec(timestamp_col=panel.timestamp_col, input_columns=tuple(inputs),
                             target_columns=tuple(targets), features=self.features, freq=panel.freq,
                             seq_len=self.seq_len, label_len=self.label_len, pred_len=self.pred_len,
                             mean=floats(mean), scale=floats(std), header=self.header, id_col=self.id_col,
                             scaler=self.scaler if self.id_col is not None else "global",
                             series_ids=tuple(str(s.series_id) for s in kept) if self.id_col is not None else (),
                             series_mean=tuple(floats(m) for m, _ in per_series),
                             series_scale=tuple(floats(d) for _, d in per_series),
                             future_columns=tuple(self.future_columns), future_mean=floats(future_mean),
                             future_scale=floats(future_std), dialect=panel.dialect)
        scaled = np.concatenate([self.spec.scale_inputs(v, s.series_id) for v, s in zip(values, kept)])
        scaled = np.ascontiguousarray(scaled.astype(np.float32))  # (N, C_in), every series one after another
        self.index = kept[0].index.append([s.index for s in kept[1:]]) if len(kept) > 1 else kept[0].index
        x = as_tensor(scaled)
        y = as_tensor(np.ascontiguousarray(scaled[:, self.spec.target_index]))  # (N, C_out)
        marks = as_tensor(np.concatenate([with_known(time_marks(s.index, panel.freq), self.spec.scale_future(k))
                                          for s, k in zip(kept, known)]))  # (N, M): calendar and known-future

        def windows(split: str, stride: int) -> WindowDataset | ConcatWindows:
            parts = [WindowDataset(x, y, marks, start=sl.offset + sl.ranges[split].start,
                                   end=sl.offset + sl.ranges[split].end, seq_len=self.seq_len,
                                   label_len=self.label_len, pred_len=self.pred_len, stride=stride)
                     for sl in self.slices]
            return parts[0] if self.id_col is None else ConcatWindows(parts)

        for split in SPLITS:
            self.datasets[split] = windows(split, self.train_stride if split == "train" else self.eval_stride)
        # closed-form fits (floors, a floor inside the model) are cheap: they take every training window
        # whatever stride the gradient steps use
        self.every_train_window = self.datasets["train"] if self.train_stride == 1 else windows("train", 1)
        if self.id_col is None:
            self.ranges = self.slices[0].ranges

    def _ranges(self, rows: int) -> dict[str, RowRange]:
        return split_ranges(rows, seq_len=self.seq_len, borders=self.borders, ratios=self.ratios)

    def _usable(self, series: Sequence[Series]) -> list[Series]:
        """The series with a window in every split; a single series that has none is refused naming the split."""
        if self.id_col is None:
            ranges = self._ranges(len(series[0].frame))
            for split in SPLITS:
                if n_windows(ranges[split], self.seq_len, self.pred_len) < 1:
                    r = ranges[split]
                    raise DataError(f"{self.path}: the {split} split has {r.end - r.start} rows, too few for one "
                                    f"window of seq_len {self.seq_len} + pred_len {self.pred_len}; use a longer file, "
                                    f"shorter windows or other borders/ratios")
            return list(series)
        fits = [fits_every_split(len(s.frame), seq_len=self.seq_len, pred_len=self.pred_len, borders=self.borders,
                                 ratios=self.ratios) for s in series]
        kept = [s for s, ok in zip(series, fits) if ok]
        short = [str(s.series_id) for s, ok in zip(series, fits) if not ok]
        splits = f"data.borders {self.borders}" if self.borders is not None else f"data.ratios {self.ratios}"
        if not kept:
            longest = max(series, key=lambda s: len(s.frame))
            raise DataError(f"{self.path}: no series is long enough for a window of seq_len {self.seq_len} + pred_len "
                            f"{self.pred_len} in every split ({splits}); the longest, {longest.series_id}, has "
                            f"{len(longest.frame)} rows; use shorter windows or longer series")
        if short:
            shown = ", ".join(short[:10]) + (f" and {len(short) - 10} more" if len(short) > 10 else "")
            print(f"note: {self.path}: skipping {len(short)} of {len(series)} series too short for a window of "
                  f"seq_len {self.seq_len} + pred_len {self.pred_len} in every split ({splits}): {shown}",
                  file=sys.stderr)
        return kept

    def _fit_scaler(self, train_rows: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Mean and std (ddof 0; 1 for a constant column) of the stacked training rows, (C,) each."""
        rows = np.concatenate(train_rows)
        if not self.scale or rows.shape[1] == 0:
            return np.zeros(rows.shape[1]), np.ones(rows.shape[1])
        scaler = StandardScaler().fit(rows)
        return scaler.mean_, scaler.scale_

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

    @property
    def n_future(self) -> int:
        return len(self._spec().future_columns)

    def _spec(self) -> DataSpec:
        if self.spec is None:
            self.setup()
        assert self.spec is not None
        return self.spec

    def model_dims(self) -> dict[str, int]:
        """Data-derived sizes every forecaster takes as constructor arguments."""
        spec = self._spec()
        return {"enc_in": self.n_inputs, "c_out": self.n_targets, "n_time_features": self.n_time_features,
                "n_future": self.n_future, "seq_len": spec.seq_len, "label_len": spec.label_len,
                "pred_len": spec.pred_len, "target_index": spec.target_index}

    # ---------------------------------------------------------------------------------------- loaders
    def train_dataloader(self) -> DataLoader:
        data = self.datasets["train"]
        sampler = DistributedSampler(data, shuffle=True, seed=self.seed) if _distributed() else None
        return DataLoader(data, batch_size=self.batch_size, shuffle=sampler is None, sampler=sampler,
                          drop_last=len(data) > self.batch_size,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)

    def ordered_dataloader(self, split: str) -> DataLoader:
        """The windows of ``split`` once, in order, at the eval batch size, on every rank (not its shard):
        closed-form fits, the floors, choices and calibrations made on the whole split. For ``train``
        every window (``train_stride`` thins the gradient steps only); for ``val`` and ``test`` the
        windows the metrics score (every ``eval_stride``-th)."""
        data = self.every_train_window if split == "train" else self.datasets[split]
        return DataLoader(data, batch_size=self.eval_batch_size, shuffle=False)

    def ordered_train_dataloader(self) -> DataLoader:
        """Every training window once, in order (:meth:`ordered_dataloader` of ``train``)."""
        return self.ordered_dataloader("train")

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
