"""The horizon's known-future values (``forecast-predict --future future.csv``), checked against the history.

``future.csv`` holds the timestamps of the horizon (the ``pred_len`` steps after the history's last
row, at the model's frequency) and the checkpoint's known-future columns; other columns are ignored,
rows after the first ``pred_len`` too. Every problem is refused with one line naming the file, the
line or column and what to do.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from forecast.data.dialect import Dialect, check_encoding
from forecast.data.errors import DataError
from forecast.data.reader import DATAFRAME, FillMethod, Series, lineless, read_panel
from forecast.data.spec import DataSpec
from forecast.data.time_features import future_index
from forecast.spelling import CLI, Spelling


def read_future(path: str | Path | pd.DataFrame, spec: DataSpec, history: Series, *, timestamp_col: str | None,
                header: bool = True, fill: FillMethod | None = None, dialect: Dialect | None = None,
                encoding: str | None = None, spelling: Spelling = CLI) -> np.ndarray:
    """The known-future columns over the horizon that follows ``history``, in original units.

    Args:
        path: the future CSV, or a DataFrame of its columns.
        spec: the checkpoint's data spec (its ``future_columns``, frequency and ``pred_len``).
        history: the series being forecast (its last timestamp or step).
        timestamp_col: the timestamp column of both files; None when the model has no timestamps (the
            future file's rows are then the steps after the history's, in order).
        header: whether the file has a header row.
        fill: fill empty, NaN and infinite cells instead of refusing them (``--fill``).
        dialect: how the file is written (default: as the training file, the checkpoint's).
        encoding: the file's text encoding (default: the training run's ``data.encoding``, else detected).
        spelling: whose remedies the reader's messages give (``--fill ffill|interpolate``, ``fill=...``).

    Returns:
        (pred_len, K) float64.

    Raises:
        DataError: a missing or unreadable file, a missing column, a bad value, too few rows, or
            timestamps that do not continue the history at the model's frequency.
    """
    columns = list(spec.future_columns)
    if encoding is not None:
        check_encoding(encoding, key=spelling.name("encoding"))
    panel = read_panel(path, timestamp_col=timestamp_col, columns=columns, header=header, fill=fill, freq=spec.freq,
                       model_freq=spec.freq is not None, hints=spelling.hints,
                       dialect=spec.dialect_for(timestamp_col, encoding) if dialect is None else dialect)
    frame = panel.series[0].frame
    first_line = 2 if header else 1
    source, path = path, DATAFRAME if isinstance(path, pd.DataFrame) else path
    if len(frame) < spec.pred_len:
        raise DataError(f"{path}: {len(frame)} data rows, but the horizon needs pred_len {spec.pred_len} rows of "
                        f"{', '.join(columns)}; give one row per forecast step")
    if timestamp_col is not None:
        expected = future_index(history.index[-1], spec.freq, spec.pred_len)
        given = frame.index[: spec.pred_len]
        off = np.flatnonzero(given != expected)
        if off.size:
            r = int(off[0])
            at = f"row {r}" if lineless(source) else f"line {r + first_line}"
            raise DataError(f"{path}: {at}: timestamp {given[r]} does not continue the history (its "
                            f"last row is {history.index[-1]}, so forecast step {r + 1} is {expected[r]} at frequency "
                            f"{spec.freq!r}); give the {spec.pred_len} timestamps after the history's last one")
    return frame[columns].to_numpy(dtype=np.float64)[: spec.pred_len]


def known_columns(series: Series, spec: DataSpec) -> np.ndarray:
    """The series' known-future columns, scaled with the checkpoint's statistics, (N, K) float64."""
    if not spec.future_columns:  # (N, 0): no selection of no columns (a pandas call a series)
        return np.zeros((len(series.frame), 0))
    return spec.scale_future(series.frame[list(spec.future_columns)].to_numpy(dtype=np.float64))


def check_future_given(spec: DataSpec, given: bool, *, source: str, spelling: Spelling = CLI) -> None:
    """Refuse known-future values for a model trained without them, and their absence for one trained with them.

    Args:
        spec: the checkpoint's data spec.
        given: whether future values were given.
        source: the checkpoint, for the message.
        spelling: how the message says to give them and to backtest (``--future FILE``, ``future=``).

    Raises:
        DataError: one line saying which and what to do.
    """
    columns = list(spec.future_columns)
    if given and not columns:
        raise DataError(f"{source}: this model was trained without known-future columns (data.future_columns), so "
                        f"it has no use for {spelling.future}; leave it out")
    if columns and not given:
        raise DataError(f"{source}: this model was trained with the known-future column(s) {', '.join(columns)}: pass "
                        f"{spelling.future} with the horizon's {spec.pred_len} timestamps and their values (a "
                        f"backtest, {spelling.backtest}, takes them from the input file)")
