"""Read and validate a CSV time series: one clear ``DataError`` line per problem.

Rows are reported as *file lines* (the header is line 1), so a user can jump straight to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
import pandas as pd

from forecast.data.errors import DataError

FillMethod = Literal["ffill", "interpolate"]


@dataclass(frozen=True)
class Series:
    """A validated series: a sorted, unique DatetimeIndex and float64 columns."""

    frame: pd.DataFrame
    extra_columns: tuple[str, ...] = field(default=())

    @property
    def index(self) -> pd.DatetimeIndex:
        return pd.DatetimeIndex(self.frame.index)


def _line(row: int) -> int:
    """File line of 0-based data row ``row`` (header is line 1)."""
    return row + 2


def read_series(path: str | Path, *, timestamp_col: str = "date", columns: Sequence[str] | None = None,
                fill: FillMethod | None = None, timestamp_hint: str = "set data.timestamp_col") -> Series:
    """Read ``path`` and validate it.

    Args:
        path: CSV file with a timestamp column and numeric columns.
        timestamp_col: name of the timestamp column.
        columns: the numeric columns required, in this order; ``None`` takes every other column.
            Columns present in the file but not required are ignored and listed in ``extra_columns``.
        fill: fill NaN/empty cells (``ffill`` then back-fill the head, or linear ``interpolate``);
            ``None`` refuses them.
        timestamp_hint: what to do when the timestamp column is missing (the training config key by
            default; ``forecast-predict`` names its own option).

    Raises:
        DataError: missing/unreadable file, missing timestamp column or data columns, unparsable or
            duplicate or unsorted timestamps, non-numeric or missing values.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found; check the path")
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"{path}: cannot read as CSV ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                        f"expected a comma-separated file with a header row") from exc
    if timestamp_col not in raw.columns:
        raise DataError(f"{path}: no timestamp column {timestamp_col!r} (columns: {', '.join(map(str, raw.columns))}); "
                        f"{timestamp_hint}")
    available = [c for c in raw.columns if c != timestamp_col]
    if columns is None:
        columns = available
        extra: tuple[str, ...] = ()
    else:
        missing = [c for c in columns if c not in raw.columns]
        if missing:
            raise DataError(f"{path}: missing column(s) {', '.join(missing)} that the model needs "
                            f"(file has: {', '.join(available)})")
        extra = tuple(c for c in available if c not in columns)
    if not columns:
        raise DataError(f"{path}: no numeric columns besides {timestamp_col!r}")
    if len(raw) == 0:
        raise DataError(f"{path}: the file has a header but no data rows")

    stamps = pd.to_datetime(raw[timestamp_col].str.strip(), errors="coerce", format="mixed")
    bad = np.flatnonzero(stamps.isna().to_numpy())
    if bad.size:
        r = int(bad[0])
        raise DataError(f"{path}: line {_line(r)}: cannot parse timestamp {raw[timestamp_col].iloc[r]!r} in column "
                        f"{timestamp_col!r}; use ISO format like 2016-07-01 00:00:00")
    stamps = pd.DatetimeIndex(stamps)
    dup = np.flatnonzero(np.asarray(stamps.duplicated()))
    if dup.size:
        r = int(dup[0])
        first = int(np.flatnonzero(stamps == stamps[r])[0])
        raise DataError(f"{path}: line {_line(r)}: duplicate timestamp {stamps[r]} (also on line {_line(first)}); "
                        f"remove or aggregate duplicates")
    back = np.flatnonzero(np.diff(stamps.asi8) < 0)
    if back.size:
        r = int(back[0]) + 1
        raise DataError(f"{path}: line {_line(r)}: timestamp {stamps[r]} comes before the previous row's "
                        f"{stamps[r - 1]}; sort the file by {timestamp_col!r}")

    data = {}
    for col in columns:
        text = raw[col].str.strip()
        values = pd.to_numeric(text, errors="coerce")
        nonnum = np.flatnonzero((values.isna() & (text != "") & ~text.str.lower().isin(["nan", "na", "null"])).to_numpy())
        if nonnum.size:
            r = int(nonnum[0])
            raise DataError(f"{path}: line {_line(r)}: column {col!r} has non-numeric value {raw[col].iloc[r]!r}; "
                            f"every data column must be numeric")
        data[col] = values.to_numpy(dtype=np.float64)
    frame = pd.DataFrame(data, index=stamps)
    frame.index.name = timestamp_col
    missing_cells = frame.isna().to_numpy()
    if missing_cells.any():
        if fill is None:
            r, c = (int(x[0]) for x in np.nonzero(missing_cells))
            raise DataError(f"{path}: line {_line(r)}: column {columns[c]!r} is empty or NaN; fill the gap or pass "
                            f"--fill ffill|interpolate")
        if fill == "ffill":
            frame = frame.ffill().bfill()
        elif fill == "interpolate":
            frame = frame.interpolate(method="linear", limit_direction="both")
        else:
            raise DataError(f"unknown fill method {fill!r}: use ffill or interpolate")
        if frame.isna().to_numpy().any():
            col = frame.columns[frame.isna().any()].tolist()[0]
            raise DataError(f"{path}: column {col!r} has no values at all to fill from")
    return Series(frame=frame, extra_columns=extra)
