"""A timestamp written in two columns, the date in one and the time of day in the next (``Date;Time`` /
``10/03/2004;18.00.00``, as in the UCI air quality file): found, and joined into one timestamp text.

A pair is found by its names and its cells: a column named like a date (``Date``, ``day``, ``Datum``, ``fecha``)
holding dates only, followed by one named like a time of day (``Time``, ``hour``, ``Zeit``, ``hora``) holding
times of day only. ``data.timestamp_col=[Date,Time]`` names the pair instead.

Times written with dots (``18.00.00``, ``18.00``) are rewritten with colons before the join, unless an
explicit ``data.date_format`` reads the joined text as it is; whole hours (``18``) become ``18:00``.
"""

from __future__ import annotations

import re
from typing import Sequence

import pandas as pd

from forecast.data.cells import as_text
from forecast.data.errors import DataError

DATE_NAMES = ("date", "day", "datum", "tag", "fecha", "dia", "jour", "data")  # any case
TIME_NAMES = ("time", "hour", "zeit", "uhrzeit", "stunde", "hora", "heure", "ora")  # any case
_DATE_ONLY = re.compile(r"^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$")
_TIME_OF_DAY = re.compile(r"^\d{1,2}([:.]\d{2}){1,2}([.,]\d+)?$")
_DOTTED_TIME = re.compile(r"^\d{1,2}\.\d{2}(\.\d{2})?$")
_HOUR = re.compile(r"^\d{1,2}$")


def cell_text(cells: pd.Series) -> pd.Series:
    """A column's cells as text (:func:`~forecast.data.cells.as_text`, missing cells empty); a typed column of
    naive timestamps that are all midnights (a date stored as a timestamp, as Parquet and pandas store dates)
    as ``YYYY-MM-DD``."""
    if pd.api.types.is_datetime64_dtype(cells):
        known = cells.dropna()
        if bool((known == known.dt.normalize()).all()):
            return cells.dt.strftime("%Y-%m-%d").fillna("")
    return as_text(cells).fillna("")


def _all(cells: pd.Series, pattern: re.Pattern[str]) -> bool:
    text = cell_text(cells).str.strip()
    return len(text) > 0 and bool(text.str.match(pattern).all())


def _hours(cells: pd.Series) -> bool:
    """Whole hours 0 .. 23."""
    text = cell_text(cells).str.strip()
    return bool(text.str.match(_HOUR).all()) and bool(text.astype(int).between(0, 23).all())


def is_time_of_day(cells: pd.Series) -> bool:
    """Every cell is a time of day: ``18:00``, ``18:00:00``, ``18.00.00`` or a whole hour ``0 .. 23``."""
    return len(cells) > 0 and (_all(cells, _TIME_OF_DAY) or _hours(cells))


def _named(a: str, b: str) -> bool:
    return a.strip().lower() in DATE_NAMES and b.strip().lower() in TIME_NAMES


def named_date_time_pair(names: Sequence[str]) -> tuple[str, str] | None:
    """The first neighbouring columns named like a date and a time of day, whatever they hold."""
    return next(((a, b) for a, b in zip(names, names[1:]) if _named(a, b)), None)


def find_date_time_pair(raw: pd.DataFrame, date_col: str | None = None) -> tuple[str, str] | None:
    """The one pair of neighbouring columns named like a date and a time of day that hold dates and times of
    day; with ``date_col``, only the pair that starts with it. None when there is none or more than one."""
    names = list(raw.columns)
    pairs = [(a, b) for a, b in zip(names, names[1:])
             if (a == date_col and b.strip().lower() in TIME_NAMES if date_col is not None else _named(a, b))
             and is_time_of_day(raw[b]) and _all(raw[a], _DATE_ONLY)]
    return pairs[0] if len(pairs) == 1 else None


def join_date_time(dates: pd.Series, times: pd.Series, *, keep_text: bool = False) -> pd.Series:
    """``date time`` per row, cells stripped; times with dots (``18.00.00``) get colons and whole hours
    ``:00`` unless ``keep_text`` (an explicit format reads the text as it is); typed cells as :func:`cell_text`."""
    dates, time = cell_text(dates), cell_text(times).str.strip()
    if not keep_text:
        time = time.where(~time.str.match(_DOTTED_TIME), time.str.replace(".", ":", regex=False))
        time = time.where(~time.str.match(_HOUR), time + ":00")
    return dates.str.strip() + " " + time


def check_pair(value: Sequence[object]) -> tuple[str, str]:
    """A configured ``[date, time]`` pair of column names, as two strings."""
    names = [str(v) for v in value]
    if len(names) != 2 or names[0] == names[1]:
        raise DataError(f"data.timestamp_col must be a column name or a list [date, time] of two columns, got "
                        f"{list(value)!r}; set data.timestamp_col=[Date,Time]")
    return names[0], names[1]
