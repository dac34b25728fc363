"""Columns that repeat a part of each row's timestamp: Environment Canada's ``Year``, ``Month``, ``Day`` beside
``Date/Time``, a report's ``Month`` of names (``Jan``) or ``Weekday`` (``Monday``, or a number under any of the
four usual conventions), an ISO ``Week``. They carry nothing the calendar features do not, so they are no series."""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import as_text, typed_number
from forecast.data.date_parts import MONTHS, PART_NAMES
from forecast.data.date_time import bare_name

_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS = {**{d: k for k, d in enumerate(_WEEKDAY_NAMES)}, **{d[:3]: k for k, d in enumerate(_WEEKDAY_NAMES)}}
# names of a column of weekdays or of week numbers, spaces, underscores, dots and dashes left out
_WEEKDAY_COLUMNS = frozenset({"weekday", "dayofweek", "dow", "wday", "weekdays", "dayname", "weekdayname"})
_WEEK_COLUMNS = frozenset({"week", "weeknum", "weeknumber", "wk", "isoweek", "weekofyear"})
_STAMP_PART = {"year": "year", "month": "month", "day": "day", "doy": "dayofyear", "hour": "hour",
               "quarter": "quarter"}  # the DatetimeIndex attribute of each date part


def _squeezed(name: str) -> str:
    """A name without spaces, underscores, dots and dashes: ``Day.Of.Week`` (R's names), ``day_of_week``."""
    return re.sub(r"[\s_.\-]", "", name)


def _part(name: object) -> str | None:
    """The part of a date a column's name names: a key of ``PART_NAMES``, ``weekday`` or ``week``; else None."""
    bare = bare_name(name)
    squeezed = _squeezed(bare)
    found = next((p for p, spelled in PART_NAMES.items() if squeezed in {_squeezed(n) for n in spelled}), None)
    if found is None and squeezed in _WEEKDAY_COLUMNS:
        return "weekday"
    return "week" if found is None and squeezed in _WEEK_COLUMNS else found


def _values(col: pd.Series, part: str) -> tuple[np.ndarray, bool] | None:
    """(N,) float: the column's numbers, or for months and weekdays their English names (any case, or their first
    three letters) as numbers (January 1, Monday 0), and whether they were names; None where a cell is neither."""
    if typed_number(col):
        return col.to_numpy(dtype=np.float64), False
    text = as_text(col).str.strip().str.lower()
    numbers = pd.to_numeric(text, errors="coerce")
    if numbers.notna().all():
        return numbers.to_numpy(dtype=np.float64), False
    names = MONTHS if part == "month" else _WEEKDAYS if part == "weekday" else None
    mapped = None if names is None else text.map(names)
    return None if mapped is None or mapped.isna().any() else (mapped.to_numpy(dtype=np.float64), True)


def _readings(stamps: pd.DatetimeIndex, part: str, named: bool) -> list[np.ndarray]:
    """(N,) arrays: the ways a column may write ``part`` of each timestamp. A weekday by name counts from Monday 0;
    by number from Monday or Sunday, at 0 or 1. A week is ISO's, or strftime's ``%U`` (from Sunday) or ``%W``."""
    if part == "weekday":
        monday = np.asarray(stamps.dayofweek, dtype=np.float64)
        sunday = (monday + 1) % 7
        return [monday] if named else [monday, monday + 1, sunday, sunday + 1]
    if part == "week":
        iso = np.asarray(stamps.isocalendar().week, dtype=np.float64)
        return [iso, *(pd.to_numeric(stamps.strftime(f)).to_numpy(dtype=np.float64) for f in ("%U", "%W"))]
    return [np.asarray(getattr(stamps, _STAMP_PART[part]), dtype=np.float64)]


def calendar_columns(raw: pd.DataFrame, columns: Sequence[str], stamps: pd.DatetimeIndex) -> list[str]:
    """The ``columns`` named as a part of a date (:data:`~forecast.data.date_parts.PART_NAMES`, a weekday, a week)
    whose every value is that part of its row's timestamp, written as a number or, for months and weekdays, a name."""
    found = []
    for col in columns:
        part = _part(col)
        read = None if part is None or not len(raw) else _values(raw[col], part)
        if read is not None and any(np.array_equal(read[0], way) for way in _readings(stamps, part, named=read[1])):
            found.append(str(col))
    return found


_UNIX_SCALE = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}  # nanoseconds in each unit of Unix time
_LOCAL_OFFSET = pd.Timedelta(hours=14).value  # the farthest a wall clock is from UTC, in nanoseconds
_FIRST_ROWS = 50  # rows looked at before a whole column
_SINCE = pd.Timestamp("1973-01-01").value  # Unix times are looked for after it (ns): near 1970, small numbers are too


def unix_time_columns(raw: pd.DataFrame, columns: Sequence[str], stamps: pd.DatetimeIndex) -> list[str]:
    """The ``columns`` of numbers that hold each row's time as Unix time (CryptoDataDownload's ``unix`` beside its
    ``date``; Binance's close time, the open's hour less a millisecond on): in one unit, every value within a step
    of its row's timestamp (and 14 hours, where the timestamps are a wall clock's); none for timestamps before 1973."""
    if len(stamps) < 3 or stamps.hasnans:
        return []
    ticks, per = stamps.asi8, _UNIX_SCALE[stamps.unit]  # (N,) units since 1970 (a wall clock's, where naive), ns each
    if ticks.min() < _SINCE // per:
        return []
    local = 0 if stamps.tz is not None else _LOCAL_OFFSET

    def near(values: np.ndarray, times: np.ndarray, slack: float) -> bool:  # in a unit, each value near its time
        return any(bool((np.abs(values * scale - times) <= slack).all()) for scale in _UNIX_SCALE.values())

    def numbers(col: pd.Series) -> np.ndarray:
        return pd.to_numeric(as_text(col).str.strip(), errors="coerce").to_numpy(dtype=np.float64)
    span = float(ticks.max() - ticks.min()) * per + local  # no step's slack is wider
    candidates = [col for col in columns  # the first rows first, as near as the whole span
                  if near(numbers(raw[col].iloc[:_FIRST_ROWS]), ticks[:_FIRST_ROWS] * float(per), span)]
    if not candidates:
        return []
    steps = np.diff(ticks)  # (N - 1,) in place from here: a long panel's stamps are many
    np.abs(steps, out=steps)
    slack = float(np.median(steps, overwrite_input=True)) * per + local  # a step, in ns
    del steps
    found = []
    for col in candidates:
        values = numbers(raw[col])
        if not np.isnan(values).any() and near(values, ticks * float(per), slack):
            found.append(str(col))
    return found
