"""The Monash forecasting archive's ``.tsf`` files (forecastingdata.org): ``@attribute``, ``@frequency``,
``@horizon``, ``@missing`` and ``@equallength`` lines, then ``@data`` and a series a line, its attributes and its
values joined by colons (``T1:1979-01-01 00-00-00:1149.87,1053.8,?,...``; ``?`` a missing value).

Read as a long table: a row a value, each attribute a column (the first ``string`` one names the series), the
steps timed from a ``date`` attribute at the file's frequency (``date``; no timestamps without one), and the file
line of each row's series, which messages name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from forecast.data.cells import ARROW_TEXT
from forecast.data.compressed import open_text
from forecast.data.errors import DataError
from forecast.data.year_table import VALUE

TSF = ".tsf"
TIMESTAMP = "date"  # the column of the times of its steps
# the archive's frequencies, as pandas steps
STEPS: dict[str, pd.DateOffset | pd.Timedelta] = {
    "yearly": pd.DateOffset(years=1), "quarterly": pd.DateOffset(months=3), "monthly": pd.DateOffset(months=1),
    "weekly": pd.Timedelta(weeks=1), "daily": pd.Timedelta(days=1), "hourly": pd.Timedelta(hours=1),
    "half_hourly": pd.Timedelta(minutes=30), "10_minutes": pd.Timedelta(minutes=10),
    "minutely": pd.Timedelta(minutes=1), "4_seconds": pd.Timedelta(seconds=4)}
_DATE_FORMAT = "%Y-%m-%d %H-%M-%S"  # how a date attribute is written


@dataclass(frozen=True)
class TsfTable:
    """A ``.tsf`` file as a long table.

    Attributes:
        cells: a row a value: the series' attributes (text), its step's time (``date``, where the file dates its
            series) and the value, as written (Arrow text).
        lines: the file line of each row's series, (rows,).
        id_col: the attribute naming the series.
        timestamp_col: ``date``, or None where the series have no dates.
    """

    cells: pd.DataFrame
    lines: np.ndarray
    id_col: str
    timestamp_col: str | None


def is_tsf(path: object) -> bool:
    """Whether ``path`` names a ``.tsf`` file."""
    return isinstance(path, (str, Path)) and Path(path).suffix.lower() == TSF


def read_tsf(path: Path, encoding: str = "utf-8") -> TsfTable:
    """The long table of the ``.tsf`` file ``path``: each series' values as Arrow text, its times as timestamps
    and its attributes repeated, gathered a series at a time.

    Raises:
        DataError: a missing file, no ``@data`` line, a date attribute that does not read as a date, a series of
            another number of attributes, a date attribute without a frequency the archive names, or a file of no
            series.
    """
    if not path.is_file():
        raise DataError(f"{path}: file not found; check the path")
    names: list[str] = []
    kinds: list[str] = []
    freq: str | None = None
    attributes: list[list[str]] = []  # each series' attribute cells
    values: list[pa.Array] = []  # each series' values, as written
    times: list[pd.DatetimeIndex] = []  # each series' step times, where the file dates its series
    lines: list[int] = []  # each series' line
    data = False
    with open_text(path, encoding) as f:
        for number, raw in enumerate(f, start=1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            if not data:
                words = text.split()
                if words[0].lower() == "@attribute" and len(words) == 3:
                    names.append(words[1])
                    kinds.append(words[2].lower())
                elif words[0].lower() == "@frequency":
                    freq = words[1].lower() if len(words) > 1 else None
                data = words[0].lower() == "@data"
                continue
            parts = text.split(":")
            if len(parts) != len(names) + 1:
                raise DataError(f"{path}: line {number}: {len(parts) - 1} attribute(s) before the values, but the "
                                f"file declares {len(names)} ({', '.join(names)}); write one field for each")
            attributes.append(parts[:-1])
            values.append(pa.array(parts[-1].split(","), pa.string()))
            times += [_times(dict(zip(names, parts)), names, kinds, freq, len(values[-1]), path, number)] \
                if "date" in kinds else []
            lines.append(number)
    if not data:
        raise DataError(f"{path}: no @data line: not a .tsf file of the Monash forecasting archive")
    if not lines:
        raise DataError(f"{path}: no series below the @data line")
    id_col = next((n for n, k in zip(names, kinds) if k == "string"), None)
    if id_col is None:
        raise DataError(f"{path}: no string attribute names the series; declare one (@attribute series_name "
                        f"string) first")
    sizes = np.array([len(v) for v in values])
    cells = pd.DataFrame({name: np.repeat(np.array([a[k] for a in attributes], dtype=object), sizes)
                          for k, (name, kind) in enumerate(zip(names, kinds)) if kind != "date"})
    if times:
        cells[TIMESTAMP] = np.concatenate([t.to_numpy() for t in times])
    cells[VALUE] = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(values, pa.string())), dtype=ARROW_TEXT)
    return TsfTable(cells, np.repeat(np.array(lines), sizes), id_col, TIMESTAMP if times else None)


def _times(attributes: dict[str, str], names: list[str], kinds: list[str], freq: str | None, steps: int,
           path: Path, number: int) -> pd.DatetimeIndex:
    """The times of a series' ``steps`` from its (first) date attribute at ``freq``."""
    dated = next(n for n, k in zip(names, kinds) if k == "date")
    start = pd.to_datetime(attributes[dated], format=_DATE_FORMAT, errors="coerce")
    if pd.isna(start):
        raise DataError(f"{path}: line {number}: {attributes[dated]!r} in attribute {dated!r} is no date "
                        f"written {_DATE_FORMAT.replace('%', '')}")
    if freq not in STEPS:
        raise DataError(f"{path}: @frequency {freq!r} is none the archive names ({', '.join(STEPS)}), so the dates "
                        f"of the series cannot be counted from their starts")
    step = STEPS[freq]
    return pd.DatetimeIndex([start + k * step for k in range(steps)]) if isinstance(step, pd.DateOffset) else \
        pd.date_range(start, periods=steps, freq=step)  # months and years each counted from the start (Jan 31, Mar 31)
