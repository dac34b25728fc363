"""Any CSV or Parquet time series read, split, scaled and served as windows, without Lightning
(:class:`forecast.data.datamodule.ForecastDataModule` is this as a LightningDataModule)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Mapping, Sequence

import numpy as np
import pandas as pd
import torch.distributed as dist

from forecast.data.date_time import check_pair
from forecast.data.dialect import dialect_from_settings
from forecast.data.errors import DataError
from forecast.data.far_values import FarValues, code_notes
from forecast.data.hints import TRAIN
from forecast.data.known_future import check_future_columns, with_known
from forecast.data.reader import DATAFRAME, FillMethod, Series, read_panel
from forecast.data.spec import DataSpec, Features, Scaler
from forecast.data.series_ids import id_name
from forecast.data.splits import SPLITS, RowRange, fits_every_split, n_windows, split_ranges, windows_that_fit
from forecast.data.surround import row_counters
from forecast.data.time_features import n_continuous_features, time_marks
from forecast.data.index import WindowIndex, fixed_sample, one_each, sampled_series, stride_under_cap
from forecast.data.row_marks import calendar_marks
from forecast.data.season import calendar_step, period_for
from forecast.data.sampler import OrderedIds, StreamLoader, WindowStream
from forecast.data.settings import check_settings
from forecast.data.windows import as_tensor, eval_batch_windows


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


FILE_REMEDY = "a longer file or other borders/ratios"  # for a file too short for its windows


def _name(value: Any) -> str | None:
    """A column name from the config (``data.target=3`` arrives as an int)."""
    return None if value is None else str(value)


def _moments(rows: np.ndarray, scale: bool) -> tuple[np.ndarray, np.ndarray]:
    """Mean and std (ddof 0) of training rows, (C,) each, as ``StandardScaler`` gives them: a constant
    column (variance within rounding of 0) gets std 1; ``scale`` False gives 0 and 1."""
    if not scale or rows.shape[1] == 0:
        return np.zeros(rows.shape[1]), np.ones(rows.shape[1])
    n, eps = len(rows), np.finfo(np.float64).eps
    mean, var = rows.mean(axis=0), rows.var(axis=0)
    std = np.sqrt(var)
    std[var <= n * eps * var + (n * mean * eps) ** 2] = 1.0
    return mean, std


def _shown(names: Sequence[str], most: int = 5) -> str:
    """The first ``most`` of ``names`` quoted, ``...`` after them where there are more."""
    return ", ".join(repr(c) for c in names[:most]) + (", ..." if len(names) > most else "")


def _rank_world() -> tuple[int, int]:
    """This process and the number of processes (0, 1 without DDP)."""
    return (dist.get_rank(), dist.get_world_size()) if _distributed() else (0, 1)


Column = Annotated[str | int, "a column name"]
TimestampColumn = Annotated[str | int | Sequence[str] | None, "a column name or a list [date, time]"]
# what WindowedData.setup makes: the read, split and scaled data and the windows over it
SET_UP = ("spec", "slices", "index", "datasets", "every_train_window", "fit_ids", "round_val", "round_val_ids",
          "eval_strides", "eval_drawn", "ranges", "read_seconds")
# how the file is written: checked by forecast.data.dialect, in its own words
DIALECT_KEYS = ("sep", "decimal", "thousands", "na_values", "dayfirst", "date_format", "epoch_unit", "tz",
                "encoding")


class WindowedData:
    """Reads one CSV or Parquet file, splits it, scales it with training rows only and serves windows.

    A file may hold many series (``id_col``): one model trains on the windows of every series, no
    window crosses two series, and each series is split by time on its own (``borders``/``ratios``
    apply to each series' rows). Series too short for a window in every split are skipped with a
    note.

    Args:
        path: CSV or Parquet file: numeric columns, with a timestamp column unless ``timestamp_col`` is None;
            or a DataFrame of the same columns (:func:`forecast.api.train` passes one), named ``<DataFrame>``.
        target: the column to forecast (``S``, ``MS``; with ``M`` every column is forecast and this one named);
            None: the file's one value column, or with ``M`` every column of a file of several.
        features: ``M`` all columns to all, ``S`` target to target, ``MS`` all columns to target.
        timestamp_col: timestamp column name; None reads rows as consecutive steps (no calendar features);
            a list ``[Date, Time]`` joins a date column and a time-of-day column into one timestamp
            (:mod:`forecast.data.date_time`; such a pair is also detected).
        columns: input columns to use for ``M``/``MS`` (default: every numeric column).
        seq_len: encoder window length.
        label_len: start-token length, the last ``label_len`` known steps fed to the decoder.
        pred_len: horizon.
        freq: pandas frequency (``h``, ``15min``, ``D``, ``B``, ``W``, ``MS`` ...); inferred if None.
            Timestamps are checked against it either way.
        borders: ``[train_end, val_end, test_end]`` rows (of each series); ``None`` uses ``ratios``.
        ratios: train/val/test fractions when no borders are given.
        scale: standardise with training-row statistics.
        batch_size: training windows per step and process, drawn by a seeded stream of passes over every
            training window (:class:`~forecast.data.sampler.WindowStream`; a pass's partial last batch dropped).
        eval_batch_size: validation/test batch size (every window kept); None: as many windows as hold
            :func:`~forecast.data.windows.eval_batch_windows` steps, at least ``batch_size``, so that a long
            horizon's evaluation batch takes no more memory than a short one's.
        num_workers: DataLoader workers.
        fill: fill missing cells (empty, NaN, infinite; ``ffill`` or ``interpolate``) instead of refusing them.
        train_stride: step between training window origins (1 = every window).
        eval_stride: step between validation and test window origins (1 = every window, as the
            papers score); the floors are scored on the same windows.
        seed: seed of the training stream and of the validation sample.
        header: the file's first line names the columns; False names them ``0 … n-1``; None: detected (a first
            line of values is no header).
        id_col: the column naming each row's series (many series in one file), or None; a list of columns names
            the series together (one id column, ``store + item``).
        scaler: with ``id_col``: ``series`` scales each series with its own training rows, ``global``
            all series with the training rows of all.
        fill_missing_dates: add the rows missing from the timestamps at the frequency (filled by ``fill``)
            instead of refusing the gaps.
        future_columns: known-future inputs (``forecast.data.known_future``): columns whose values over the
            horizon are known when forecasting. They leave the input and target channels and enter the
            time marks, scaled with their training rows; a single name counts as a list of one. Not with
            ``id_col``.
        sep, decimal, thousands, na_values, dayfirst, date_format, epoch_unit, tz, encoding: how the file is written
            (:class:`~forecast.data.dialect.Dialect`; None detects where the file makes it clear).
        resample: aggregate readings at irregular or repeated times into steps of this frequency
            (:mod:`forecast.data.resample`); None: each row is one step.
        start: the time of the first step of a file without timestamps: with ``freq``, its steps are timed from
            it and get a calendar (:mod:`forecast.data.timed_steps`).
        agg: how a step's readings are aggregated (``mean`` when None; ``sum``, ..., or ``{column: how}``).
        val_max_windows: most validation windows scored after each training round: a fixed seeded
            sample when there are more (None: every one).
        eval_max_windows: most windows the final validation and test score: a file with more scores them
            at the smallest stride (above ``eval_stride``) that stays under it and shares no factor with the
            season of ``freq`` (:func:`~forecast.data.index.stride_under_cap`; None: every window). Where that
            stride would leave one window a series (a panel of nearly as many series, or more), each series
            scores one window at an origin drawn from ``seed``, and a panel of more series ``eval_max_windows``
            of them, drawn (:func:`~forecast.data.index.sampled_series`).
        fit_max_windows: most training windows the closed-form fits (the floors, a floor inside the model)
            take: a file with more fits them on a fixed sample of that many, drawn from ``seed`` (None: every
            window).
        fit_max_rows: most regression rows (windows x target channels) of the closed-form fits: a wide file
            fits on a fixed sample of ``fit_max_rows // targets`` windows when that is fewer (None: no cap).

    Windows are integer ids over one float32 copy of the values (:class:`~forecast.data.index.WindowIndex`);
    a batch is one gather. The loaders bring their own distributed sharding (run the trainer with
    ``use_distributed_sampler=False``): each process takes its slice of every global training batch, and
    unpadded shards of the validation and test windows.
    """

    def __init__(self, *, path: Annotated[str | Path | pd.DataFrame, "a file path"], target: Column | None = None,
                 features: Features = "M",
                 timestamp_col: TimestampColumn = "date", columns: Sequence[str] | None = None, seq_len: int = 96,
                 label_len: int = 48, pred_len: int = 24,
                 freq: Annotated[str | None, "a pandas frequency such as h, 15min, D"] = None,
                 borders: Annotated[Sequence[int] | None, "a list [train_end, val_end, test_end]"] = None,
                 ratios: Annotated[Sequence[float], "a list [train, val, test] of fractions"] = (0.7, 0.1, 0.2),
                 scale: bool = True, batch_size: int = 32, eval_batch_size: int | None = None, num_workers: int = 0,
                 fill: FillMethod | None = None, train_stride: int = 1, seed: int = 0, header: bool | None = None,
                 id_col: Column | Sequence[str] | None = None, scaler: Scaler = "series",
                 fill_missing_dates: bool = False,
                 eval_stride: int = 1,
                 future_columns: Annotated[Sequence[str] | str | None, "a list of column names"] = None,
                 val_max_windows: int | None = 4096, eval_max_windows: int | None = 10_000,
                 fit_max_windows: int | None = 200_000, fit_max_rows: int | None = 2_000_000,
                 sep: str | None = None, decimal: str | None = None,
                 thousands: str | None = None, na_values: Sequence[str] | str | None = None,
                 dayfirst: bool | None = None, date_format: str | None = None, epoch_unit: str | None = None,
                 tz: str | None = None, encoding: str | None = None,
                 resample: Annotated[str | None, "a pandas frequency such as h, 15min, D"] = None,
                 start: Annotated[str | None, "a time such as 2011-01-29"] = None,
                 agg: Annotated[str | Mapping[str, str] | None, "mean, sum, median, min, max, first, last or "
                                "count, or {column: sum}"] = None) -> None:
        super().__init__()
        check_settings(WindowedData.__init__, {k: v for k, v in locals().items()
                                                     if k not in ("self", "__class__", *DIALECT_KEYS)})
        self.dialect = dialect_from_settings(sep=sep, decimal=decimal, thousands=thousands, na_values=na_values,
                                             dayfirst=dayfirst, date_format=date_format, epoch_unit=epoch_unit, tz=tz,
                                             encoding=encoding)
        if min(seq_len, pred_len) < 1 or not 0 <= label_len <= seq_len:
            raise DataError(f"need seq_len >= 1, pred_len >= 1 and 0 <= label_len <= seq_len; got seq_len={seq_len}, "
                            f"label_len={label_len}, pred_len={pred_len}")
        for key, value in (("batch_size", batch_size), ("train_stride", train_stride), ("eval_stride", eval_stride),
                           ("val_max_windows", val_max_windows), ("eval_max_windows", eval_max_windows),
                           ("fit_max_windows", fit_max_windows), ("fit_max_rows", fit_max_rows)):
            if value is not None and value < 1:
                raise DataError(f"data.{key} must be at least 1, got {value}; set data.{key}=<a positive integer>")
        self.frame = path if isinstance(path, pd.DataFrame) else None
        self.path = Path(DATAFRAME) if self.frame is not None else Path(path)
        self.target, self.features = _name(target), features
        self.timestamp_col: str | tuple[str, str] | None = (
            check_pair(timestamp_col) if isinstance(timestamp_col, Sequence) and not isinstance(timestamp_col, str)
            else _name(timestamp_col))
        self.columns = [str(c) for c in columns] if columns is not None else None
        self.seq_len, self.label_len, self.pred_len = seq_len, label_len, pred_len
        self.freq = freq
        self.borders = list(borders) if borders is not None else None
        self.ratios = list(ratios)
        self.scale = scale
        self.batch_size = batch_size
        self.eval_batch_size = eval_batch_size or eval_batch_windows(seq_len, label_len, pred_len, at_least=batch_size)
        self.num_workers = num_workers
        self.fill = fill
        self.train_stride = train_stride
        self.eval_stride = eval_stride
        self.seed = seed
        self.header, self.scaler = header, scaler
        listed = isinstance(id_col, Sequence) and not isinstance(id_col, str)  # columns that name series together
        self.id_col = id_name([str(c) for c in id_col]) if listed else _name(id_col)
        self.fill_missing_dates = fill_missing_dates
        self.resample, self.agg, self.start = resample, agg, start
        self.val_max_windows, self.eval_max_windows = val_max_windows, eval_max_windows
        self.fit_max_windows, self.fit_max_rows = fit_max_windows, fit_max_rows
        self.round_cap: int | None = None  # set_round: most steps in a training round (None: an epoch) ...
        self.round_min, self.round_passes = 1, 1  # ... fewest, and most passes a round repeats to reach them
        self._stream: WindowStream | None = None  # the training stream of the running fit
        self._resume_drawn = 0  # its cursor in the checkpoint a fit resumes from
        named = [future_columns] if isinstance(future_columns, str) else list(future_columns or [])
        self.future_columns = check_future_columns(named, target=self.target, id_col=self.id_col)
        self.spec: DataSpec | None = None
        self.datasets: dict[str, WindowIndex] = {}  # train (train_stride), val and test (eval_strides)
        self.every_train_window: WindowIndex | None = None  # stride 1, for closed-form fits ...
        self.fit_ids: np.ndarray | None = None  # ... which take these of its windows, (F,)
        self.eval_strides: dict[str, int] = {}  # the stride of the val and test windows scored in the end
        self.eval_drawn: dict[str, bool] = {}  # whether they are one window of each of some series, drawn
        self.round_val: WindowIndex | None = None  # validation windows at eval_stride, of which ...
        self.round_val_ids: np.ndarray | None = None  # ... these are scored every round, (V,)
        self.ranges: dict[str, RowRange] = {}
        self.slices: list[SeriesRows] = []
        self.index: pd.Index | None = None
        self.read_seconds = 0.0  # wall time of setup

    # ----------------------------------------------------------------------------------------- setup
    def setup(self, stage: str | None = None) -> None:
        """Read, validate, split and scale (idempotent)."""
        if self.spec is not None:
            return
        started = time.perf_counter()
        wanted = None
        if self.features == "S" and self.target is not None:
            wanted = [self.target] + self.future_columns
        elif self.columns is not None:
            wanted = [c for c in self.columns if c not in self.future_columns]
            wanted += ([self.target] if self.target not in wanted and self.target is not None else [])
            wanted += self.future_columns
        source = self.path if self.frame is None else self.frame
        panel = read_panel(source, timestamp_col=self.timestamp_col, columns=wanted, id_col=self.id_col,
                           header=self.header, fill=self.fill, freq=self.freq,
                           fill_missing_dates=self.fill_missing_dates,
                           keep=[c for c in (self.target, *self.future_columns) if c is not None],
                           resample=self.resample, agg=self.agg, hints=TRAIN, dialect=self.dialect,
                           steps_without_timestamps=True, start=self.start)
        for note in panel.notes:
            print(f"note: {note}", file=sys.stderr)
        self.header = panel.header
        if panel.id_col is not None and self.id_col is None:  # a folder of files, or a table of series by periods
            if self.future_columns:
                raise DataError(f"{self.path}: data.future_columns needs one series; the data holds "
                                f"{len(panel.series)}: pass a file of one")
            self.id_col = panel.id_col
        read = list(panel.series[0].frame.columns)
        missing = [c for c in self.future_columns if c not in read]
        if missing:
            raise DataError(f"{self.path}: no column {missing[0]!r} for data.future_columns (columns: "
                            f"{', '.join(read)}); set data.future_columns")
        inputs = [c for c in read if c not in self.future_columns]
        if self.target is not None and self.target not in inputs:
            raise DataError(f"{self.path}: no target column {self.target!r} (columns: {', '.join(inputs)}); "
                            f"set data.target")
        counters = row_counters([s.read_rows for s in panel.series], [c for c in inputs if c != self.target]) \
            if self.columns is None and len(inputs) > 1 else []
        if counters and len(counters) < len(inputs):
            inputs = [c for c in inputs if c not in counters]
            print(f"note: {self.source}: column(s) counting the rows left out "
                  f"({', '.join(repr(c) for c in counters)}: each row 1 more than the last, the row's position); "
                  f"data.columns=[...] keeps them", file=sys.stderr)
        if self.target is None:
            self.target = self._one_target(inputs)
        targets = [self.target] if self.features in ("S", "MS") and self.target is not None else inputs
        kept = self._usable(panel.series)
        names = list(kept[0].frame.columns)
        at_inputs, at_known = [names.index(c) for c in inputs], [names.index(c) for c in self.future_columns]
        tables = [s.frame.to_numpy(dtype=np.float64) for s in kept]  # (N_s, columns read) each
        inputs_only = at_inputs == list(range(len(names)))  # no known columns: the tables are the inputs as they lie
        values = [t if inputs_only else t[:, at_inputs] for t in tables]  # (N_s, C_in) each
        known = [t[:, at_known] for t in tables]  # (N_s, K) each
        del tables
        offsets = np.cumsum([0] + [len(v) for v in values])
        self.slices = [SeriesRows(s.series_id, int(o), len(v), self._ranges(len(v)))
                       for s, o, v in zip(kept, offsets, values)]
        train_rows = [v[:sl.ranges["train"].end] for v, sl in zip(values, self.slices)]  # views, (N_s, C_in) each
        inputs, targets, values = self._without_constant(inputs, targets, values, train_rows)
        train_rows = [v[:sl.ranges["train"].end] for v, sl in zip(values, self.slices)]
        mean, std = self._fit_scaler(train_rows)
        per_series = [_moments(rows, self.scale) for rows in train_rows] \
            if self.id_col is not None and self.scaler == "series" else []
        del train_rows
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
        # (N, C_in) float32, every series one after another, scaled with its own statistics or the pooled ones
        scaled = np.empty((int(offsets[-1]), len(inputs)), dtype=np.float32)
        codes = [] if self.dialect.na_values else code_notes(inputs, values, self.source)
        for note in codes:
            print(f"note: {note}", file=sys.stderr)
        far = FarValues(inputs, name_codes=self.id_col is None)
        for i, (v, sl) in enumerate(zip(values, self.slices)):
            m, d = per_series[i] if per_series else (self.spec.mean, self.spec.scale)
            scaled[sl.offset: sl.offset + sl.rows] = (v - np.asarray(m)) / np.asarray(d)
            if self.scale:
                trained = sl.ranges["train"].end
                far.add(v[trained:], scaled[sl.offset + trained: sl.offset + sl.rows])
        del values
        for note in far.notes(self.source):
            print(f"note: {note}", file=sys.stderr)
        self.index = kept[0].index.append([s.index for s in kept[1:]]) if len(kept) > 1 else kept[0].index
        freq, known = panel.freq, np.concatenate(known)  # (N, K)
        del panel, kept  # the values are scaled: the panel's frames go before the marks are made
        x = as_tensor(scaled)
        target_index = self.spec.target_index
        # every input a target (features M): the targets are the inputs themselves, not a second copy
        y = x if target_index == list(range(len(inputs))) else as_tensor(np.ascontiguousarray(scaled[:, target_index]))
        # (N, M): elementwise in the timestamps, so a panel's are stored once per date where it has no known inputs
        marks = calendar_marks(self.index, freq) if known.shape[1] == 0 else \
            as_tensor(with_known(time_marks(self.index, freq), self.spec.scale_future(known)))

        def windows(split: str, stride: int) -> WindowIndex:
            return WindowIndex(x, y, marks, starts=[sl.offset + sl.ranges[split].start for sl in self.slices],
                               ends=[sl.offset + sl.ranges[split].end for sl in self.slices], seq_len=self.seq_len,
                               label_len=self.label_len, pred_len=self.pred_len, stride=stride)

        self.datasets["train"] = windows("train", self.train_stride)
        # closed-form fits (floors, a floor inside the model) are cheap: they take every training window
        # whatever stride the gradient steps use, up to fit_max_windows (then a fixed seeded sample of them:
        # a regular stride can fall on one phase of a season, every window of a daily panel a Monday)
        self.every_train_window = self.datasets["train"] if self.train_stride == 1 else windows("train", 1)
        self.fit_ids = fixed_sample(len(self.every_train_window), self._fit_cap(len(target_index)), self.seed)
        self.round_val = windows("val", self.eval_stride)
        self.round_val_ids = fixed_sample(len(self.round_val), self.val_max_windows, self.seed)
        for stream, split in enumerate(("val", "test")):
            every = self.round_val if split == "val" else windows(split, self.eval_stride)
            self.eval_strides[split] = stride_under_cap(every, self.eval_max_windows, period_for(freq))
            if one_each(every, self.eval_max_windows, self.eval_strides[split]):  # drawn origins, or series
                self.eval_strides[split] = every.stride
                self.eval_drawn[split] = True
                self.datasets[split] = sampled_series(every, min(every.n_series, self.eval_max_windows or 0),
                                                      self.seed, stream)
                continue
            self.datasets[split] = every if self.eval_strides[split] == self.eval_stride \
                else every.with_stride(self.eval_strides[split])
        if self.id_col is None:
            self.ranges = self.slices[0].ranges
        self.read_seconds = time.perf_counter() - started

    def take_setup(self, other: "WindowedData") -> None:
        """Take what ``other``'s :meth:`setup` made (built from the same settings: one ``cfg.data``), so that
        this one serves the same windows without reading the file again."""
        if other.spec is None:
            raise ValueError("take_setup needs data that is set up")
        for name in SET_UP:
            setattr(self, name, getattr(other, name))

    def _fit_cap(self, targets: int) -> int | None:
        """Most training windows of the closed-form fits: ``fit_max_windows``, fewer for a wide file
        (one regression row per window and target channel, at most ``fit_max_rows``)."""
        if self.fit_max_rows is None:
            return self.fit_max_windows
        by_rows = max(1, self.fit_max_rows // targets)
        return by_rows if self.fit_max_windows is None else min(self.fit_max_windows, by_rows)

    def _ranges(self, rows: int) -> dict[str, RowRange]:
        return split_ranges(rows, seq_len=self.seq_len, borders=self.borders, ratios=self.ratios)

    def _one_target(self, inputs: Sequence[str]) -> str | None:
        """The column to forecast where ``data.target`` is not set: the file's one value column; None (every column
        forecast) for ``M`` on a file of several.

        Raises:
            DataError: ``S`` or ``MS`` on a file of several value columns, which one to forecast unsaid.
        """
        if len(inputs) == 1:
            print(f"note: {self.source}: forecasting column {inputs[0]!r}, the one value column",
                  file=sys.stderr)
            return inputs[0]
        if self.features == "M":
            return None
        shown = ", ".join(inputs[:12]) + (f", … ({len(inputs)} in all)" if len(inputs) > 12 else "")
        raise DataError(f"{self.path}: data.features={self.features} forecasts one column, and data.target is not "
                        f"set; add data.target=COLUMN, one of {shown}")

    def _usable(self, series: Sequence[Series]) -> list[Series]:
        """The series with a window in every split; a single series that has none is refused naming the split."""
        if self.id_col is None:
            ranges = self._ranges(len(series[0].frame))
            for split in SPLITS:
                if n_windows(ranges[split], self.seq_len, self.pred_len) < 1:
                    r = ranges[split]
                    raise DataError(f"{self.path}: the {split} split has {r.end - r.start} rows, too few for one "
                                    f"window of seq_len {self.seq_len} + pred_len {self.pred_len}; use "
                                    f"{self._fitting_windows(len(series[0].frame), FILE_REMEDY)}")
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
                            f"{len(longest.frame)} rows; use "
                            f"{self._fitting_windows(len(longest.frame), 'longer series')}")
        if short:
            shown = ", ".join(short[:10]) + (f" and {len(short) - 10} more" if len(short) > 10 else "")
            print(f"note: {self.path}: skipping {len(short)} of {len(series)} series too short for a window of "
                  f"seq_len {self.seq_len} + pred_len {self.pred_len} in every split ({splits}): {shown}",
                  file=sys.stderr)
        return kept

    def _fitting_windows(self, n_rows: int, other: str) -> str:
        """The remedy for a series of ``n_rows`` too short for the windows: the shorter windows it holds in every
        split (:func:`~forecast.data.splits.windows_that_fit`), or ``other``."""
        fit = windows_that_fit(n_rows, seq_len=self.seq_len, label_len=self.label_len, pred_len=self.pred_len,
                               borders=self.borders, ratios=self.ratios)
        if fit is None:
            return other
        return f"data.seq_len={fit[0]} data.label_len={fit[1]} data.pred_len={fit[2]}, or {other}"

    def _without_constant(self, inputs: list[str], targets: list[str], values: list[np.ndarray],
                          train_rows: Sequence[np.ndarray]) -> tuple[list[str], list[str], list[np.ndarray]]:
        """The inputs, targets and values, (N_s, C_in) each, without the columns other than the target that hold one
        value in every training row of every series (``train_rows``, (N_s, C_in) each) where the reader chose the
        columns: nothing to learn, and as targets their easy forecasts would lower the scores of the rest. Where
        ``data.columns`` named them they stay, named in a note."""
        low = np.min([rows.min(axis=0) for rows in train_rows], axis=0)  # (C_in,)
        high = np.max([rows.max(axis=0) for rows in train_rows], axis=0)
        constant = [c for c, lo, hi in zip(inputs, low, high) if lo == hi]
        unnamed = [c for c in constant if c != self.target] if self.columns is None else []
        if unnamed and len(unnamed) < len(inputs):
            at = [i for i, c in enumerate(inputs) if c not in unnamed]
            print(f"note: {self.source}: {len(unnamed)} column(s) holding one value in every training row left out "
                  f"({_shown(unnamed)}); data.columns=[...] keeps them", file=sys.stderr)
            return [inputs[i] for i in at], [c for c in targets if c not in unnamed], [v[:, at] for v in values]
        if constant and len(inputs) > 1:
            scored = [c for c in constant if c in targets]
            also = f"; {len(scored)} of them forecast and scored, lowering test/mse" if scored else ""
            print(f"note: {self.source}: {len(constant)} column(s) hold one value in every training row "
                  f"({_shown(constant)}){also}; data.columns=[...] leaves them out", file=sys.stderr)
        return inputs, targets, values

    def _fit_scaler(self, train_rows: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Mean and std (ddof 0; 1 for a constant column) of the stacked training rows, (C,) each."""
        return _moments(np.concatenate(train_rows), self.scale)

    # ------------------------------------------------------------------------------ sizes for models
    @property
    def source(self) -> Path | str:
        """How notes name the data: the file, or "the data" for a DataFrame."""
        return self.path if self.frame is None else "the data"

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
                "pred_len": spec.pred_len, "target_index": spec.target_index,
                "calendar_step": calendar_step(spec.freq)}

    # ---------------------------------------------------------------------------------------- loaders
    def set_round(self, round_cap: int | None, round_min: int = 1, round_passes: int = 1) -> None:
        """Most optimiser steps in a training round (a Lightning epoch; None makes a round a whole pass), and
        the fewest, reached by repeating a shorter pass up to ``round_passes`` times (:class:`WindowStream`)."""
        self.round_cap, self.round_min, self.round_passes = round_cap, round_min, round_passes

    def train_stream(self, world: int | None = None) -> WindowStream:
        """The seeded stream of training batches (this process's part of each global batch); ``world``
        processes in place of the running ones (to plan before they start)."""
        rank, world = _rank_world() if world is None else (0, world)
        return WindowStream(len(self.datasets["train"]), self.batch_size, seed=self.seed, round_cap=self.round_cap,
                            round_min=self.round_min, round_passes=self.round_passes,
                            rank=rank, world=world)

    def train_dataloader(self) -> StreamLoader:
        """One round of seeded batches per iteration, resumable at any batch: the cursor is saved in every
        checkpoint (:meth:`state_dict`), and a resumed fit continues from it."""
        self._stream = self.train_stream()
        self._stream.load_state_dict({"drawn": self._resume_drawn})
        return StreamLoader(self.datasets["train"], self._stream, num_workers=self.num_workers)

    def _loader(self, data: WindowIndex, ids: np.ndarray, *, shard: bool) -> StreamLoader:
        rank, world = _rank_world() if shard else (0, 1)
        return StreamLoader(data, OrderedIds(ids, self.eval_batch_size, rank=rank, world=world),
                            num_workers=self.num_workers if shard else 0)

    def ordered_dataloader(self, split: str) -> StreamLoader:
        """The windows of ``split`` once, in order, at the eval batch size, on every process (not its shard):
        closed-form fits, the floors, choices and calibrations made on the whole split. For ``train``
        every window up to ``fit_max_windows`` (``train_stride`` thins the gradient steps only); for ``val``
        and ``test`` the windows the final metrics score (every ``eval_strides[split]``-th)."""
        if split == "train":
            return self._loader(self.every_train_window, self.fit_ids, shard=False)
        return self._loader(self.datasets[split], np.arange(len(self.datasets[split])), shard=False)

    def ordered_train_dataloader(self) -> StreamLoader:
        """Every training window once, in order (:meth:`ordered_dataloader` of ``train``)."""
        return self.ordered_dataloader("train")

    def round_val_dataloader(self) -> StreamLoader:
        """The validation windows scored after every training round (at most ``val_max_windows``, a fixed
        seeded sample), in order, on every process."""
        return self._loader(self.round_val, self.round_val_ids, shard=False)

    def _fitting(self) -> bool:
        """Whether a training fit is running (the LightningDataModule asks its trainer)."""
        return False

    def val_dataloader(self) -> StreamLoader:
        """While fitting, the round sample (:meth:`round_val_dataloader`); otherwise the final validation
        windows. Under DDP each process takes every world-size-th window, unpadded: the metrics (sums
        reduced across processes by torchmetrics) count every window once."""
        if self._fitting():
            return self._loader(self.round_val, self.round_val_ids, shard=True)
        return self._loader(self.datasets["val"], np.arange(len(self.datasets["val"])), shard=True)

    def test_dataloader(self) -> StreamLoader:
        return self._loader(self.datasets["test"], np.arange(len(self.datasets["test"])), shard=True)

    def describe_windows(self) -> dict[str, Any]:
        """What the metrics score, for ``metrics.json``: windows and strides of each split, whether the final ones are
        one window of each series at a drawn origin (``val_drawn``, ``test_drawn``), the series read
        (``series_read``) and those with a window scored (``val_series``, ``test_series``)."""
        scored = {split: int(np.count_nonzero(np.diff(self.datasets[split].win_offsets))) for split in ("val", "test")}
        return {"train_windows": len(self.datasets["train"]), "train_stride": self.train_stride,
                "fit_windows": len(self.fit_ids),
                "round_val_windows": len(self.round_val_ids), "val_windows": len(self.datasets["val"]),
                "val_stride": self.eval_strides["val"], "test_windows": len(self.datasets["test"]),
                "test_stride": self.eval_strides["test"], "val_drawn": self.eval_drawn.get("val", False),
                "test_drawn": self.eval_drawn.get("test", False), "series_read": len(self.slices),
                "val_series": scored["val"], "test_series": scored["test"]}

    # ----------------------------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The data's spec and the training stream's cursor (global batches drawn)."""
        return {"spec": self._spec().to_dict(), "train_batches_drawn": self._stream.drawn if self._stream else 0}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self._resume_drawn = int(state_dict.get("train_batches_drawn", 0))
        saved = DataSpec.from_dict(state_dict["spec"])
        if self.spec is not None and saved.input_columns != self.spec.input_columns:
            raise DataError(f"checkpoint was trained on columns {list(saved.input_columns)}, this data has "
                            f"{list(self.spec.input_columns)}")
