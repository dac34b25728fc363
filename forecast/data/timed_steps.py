"""Timestamps for a file of steps (``data.start`` with ``data.freq``): the rows of a file without times, or the step
columns of a table of series by steps (the M5 competition's ``d_1 .. d_1913``), timed from a first time at a
frequency, so that they get a calendar (time features, seasonal floors)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.errors import DataError
from forecast.data.hints import Hints
from forecast.data.period_table import PeriodTable
from forecast.data.regular import offset
from forecast.data.timestamps import find_timestamp_column
from forecast.data.year_table import YearTable

TIMES = "date"  # the column of times made where no timestamp column is named


def first_time(start: str, freq: str | None, *, path: Path | str, hints: Hints) -> pd.Timestamp:
    """``start`` as a time, where ``freq`` steps from it.

    Raises:
        DataError: no frequency, or a start that is no time.
    """
    if freq is None:
        raise DataError(f"{path}: {hints.set('start', start)} times the steps from it at a frequency: also set "
                        f"data.freq (D, h, 15min, MS ...)")
    try:
        return pd.Timestamp(str(start))
    except (ValueError, TypeError):
        raise DataError(f"{path}: {hints.set('start', start)} is not a time; write it as 2011-01-29 or "
                        f"'2011-01-29 00:00'") from None


def refuse_times(table: YearTable | PeriodTable | None, names: Sequence[str], timestamp_col: object, *,
                 path: Path | str, hints: Hints) -> None:
    """Refuse ``data.start`` for a file that has times of its own: a table of years or periods, or a column of
    timestamps (``timestamp_col``, or one named like a date)."""
    if table is not None and not (isinstance(table, PeriodTable) and table.steps):
        has = table.describe()
    else:
        named = timestamp_col if isinstance(timestamp_col, str) and timestamp_col in names else None
        found = named or (find_timestamp_column(list(names)) if table is None else None)
        if found is None:
            return
        has = f"timestamps in column {found!r}"
    raise DataError(f"{path}: data.start times a file of steps, and this one has {has}: leave data.start out")


def timed_table(table: PeriodTable, start: pd.Timestamp, freq: str) -> PeriodTable:
    """A table of series by steps whose step columns start at ``start`` and follow each other at ``freq``."""
    return replace(table, starts=tuple(pd.date_range(start, periods=len(table.periods), freq=offset(freq))))


def timed_rows(raw: pd.DataFrame, name: str, series: np.ndarray | None, start: pd.Timestamp, freq: str
               ) -> pd.DataFrame:
    """``raw`` with a column ``name`` of times: each series' rows (``series``: each row's series, (N,) int; None:
    one series), in file order, from ``start`` at ``freq``."""
    if series is None:
        position = np.arange(len(raw))  # (N,)
    else:
        position = pd.Series(series).groupby(series, sort=False).cumcount().to_numpy()  # (N,)
    times = pd.date_range(start, periods=int(position.max()) + 1 if len(raw) else 0, freq=offset(freq))
    return raw.assign(**{name: times[position]})
