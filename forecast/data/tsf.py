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

from forecast.data.compressed import open_text
from forecast.data.errors import DataError

TSF = ".tsf"
VALUE = "value"  # the column of a long table's values
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
        cells: a row a value: the series' attributes, its step's time (``date``, where the file dates its series)
            and the value, as text.
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
    """The long table of the ``.tsf`` file ``path``.

    Raises:
        DataError: a missing file, no ``@data`` line, an attribute of a series that does not read as its type, a
            series of another number of attributes, a date attribute without a frequency the archive names, or a
            file of no series.
    """
    if not path.is_file():
        raise DataError(f"{path}: file not found; check the path")
    names: list[str] = []
    kinds: list[str] = []
    freq: str | None = None
    columns: dict[str, list[object]] = {}
    lines: list[np.ndarray] = []
    data = False
    with open_text(path, encoding) as f:
        for number, raw in enumerate(f, start=1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            if not data:
                word = text.split()[0].lower()
                if word == "@attribute" and len(text.split()) == 3:
                    names.append(text.split()[1])
                    kinds.append(text.split()[2].lower())
                elif word == "@frequency":
                    freq = text.split()[1].lower() if len(text.split()) > 1 else None
                elif word == "@data":
                    data = True
                    columns = {name: [] for name in [*names, TIMESTAMP, VALUE]}
                continue
            parts = text.split(":")
            if len(parts) != len(names) + 1:
                raise DataError(f"{path}: line {number}: {len(parts) - 1} attribute(s) before the values, but the "
                                f"file declares {len(names)} ({', '.join(names)}); write one field for each")
            values = parts[-1].split(",")
            for name, kind, cell in zip(names, kinds, parts):
                columns[name] += [cell] * len(values)
            columns[TIMESTAMP] += _times(dict(zip(names, parts)), names, kinds, freq, len(values), path, number)
            columns[VALUE] += values
            lines.append(np.full(len(values), number))
    if not data:
        raise DataError(f"{path}: no @data line: not a .tsf file of the Monash forecasting archive")
    if not lines:
        raise DataError(f"{path}: no series below the @data line")
    id_col = next((n for n, k in zip(names, kinds) if k == "string"), None)
    if id_col is None:
        raise DataError(f"{path}: no string attribute names the series; declare one (@attribute series_name "
                        f"string) first")
    dated = "date" in kinds
    cells = pd.DataFrame({n: columns[n] for n, k in zip(names, kinds) if k != "date"} |
                         ({TIMESTAMP: columns[TIMESTAMP]} if dated else {}) | {VALUE: columns[VALUE]})
    return TsfTable(cells, np.concatenate(lines), id_col, TIMESTAMP if dated else None)


def _times(attributes: dict[str, str], names: list[str], kinds: list[str], freq: str | None, steps: int,
           path: Path, number: int) -> list[object]:
    """The times of a series' ``steps`` from its date attribute at ``freq`` (ISO text); empty cells where the file
    declares no date attribute."""
    dated = [n for n, k in zip(names, kinds) if k == "date"]
    if not dated:
        return [""] * steps
    start = pd.to_datetime(attributes[dated[0]], format=_DATE_FORMAT, errors="coerce")
    if pd.isna(start):
        raise DataError(f"{path}: line {number}: {attributes[dated[0]]!r} in attribute {dated[0]!r} is no date "
                        f"written {_DATE_FORMAT.replace('%', '')}")
    if freq not in STEPS:
        raise DataError(f"{path}: @frequency {freq!r} is none the archive names ({', '.join(STEPS)}), so the dates "
                        f"of the series cannot be counted from their starts")
    step = STEPS[freq]
    stamps = pd.DatetimeIndex([start + k * step for k in range(steps)]) if isinstance(step, pd.DateOffset) else \
        pd.date_range(start, periods=steps, freq=step)  # months and years each counted from the start (Jan 31, Mar 31)
    return list(stamps.strftime("%Y-%m-%d %H:%M:%S"))
