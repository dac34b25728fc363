"""Timestamps written as parts in columns of their own (``YEAR,MO,DY,HR``: NASA POWER; ``Year,Month,Day``;
``year,quarter``: statsmodels' macrodata; a column of years alone; the first columns of a file without a header:
SILSO's sunspot numbers), joined into one timestamp column."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import as_text

# each part's column names (any case) and its range
PART_NAMES = {"year": ("year", "yr", "yyyy"), "month": ("month", "mo", "mon", "mm", "mnth"), "day": ("day", "dy", "dd"),
              "doy": ("doy", "day_of_year", "dayofyear"), "hour": ("hour", "hr", "hh"), "quarter": ("quarter", "qtr"),
              "week": ("week", "wk", "week_of_year", "weekofyear")}
_RANGES = {"year": (1, 9999), "month": (1, 12), "day": (1, 31), "doy": (1, 366), "hour": (0, 23), "quarter": (1, 4),
           "week": (1, 53)}
YEARS = (1000, 2999)  # the range of a column of years alone (a column named year counting 1, 2, ... is no date)
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
MONTHS = {**{m: k + 1 for k, m in enumerate(_MONTH_NAMES)}, **{m[:3]: k + 1 for k, m in enumerate(_MONTH_NAMES)},
          "sept": 9}  # a month's English name or its abbreviation (any case) -> its number
# the parts that make a timestamp, finest first
_SHAPES = (("year", "month", "day", "hour"), ("year", "doy", "hour"), ("year", "month", "day"), ("year", "doy"),
           ("year", "week"), ("year", "month"), ("year", "quarter"), ("year", "period"))
# the U.S. Bureau of Labor Statistics' periods in a column named Period: months M01 .. M12 (M13: the year's
# average), quarters Q01 .. Q04, half years S01, S02, the year A01
_PERIOD = re.compile(r"^(?:M(?P<m>0[1-9]|1[0-3])|Q0(?P<q>[1-4])|S0(?P<s>[12])|A01)$")
SUMMARY_PERIOD = "M13"


@dataclass(frozen=True)
class DateParts:
    """The columns that hold the parts of each row's timestamp.

    Attributes:
        columns: ``{part: column}`` for the parts found (year, month, day or day of year, hour).
    """

    columns: dict[str, str]

    def timestamps(self, raw: pd.DataFrame) -> pd.Series:
        """Each row's timestamp, (N,) datetime64 (NaT where the parts make no date: 31 February)."""
        part = {name: _period_months(raw[col]) if name == "period" else _numbers(raw[col])
                for name, col in self.columns.items()}
        if "period" in part:
            part["month"] = part.pop("period")
        if "quarter" in part:
            part["month"] = 3 * part.pop("quarter") - 2  # a quarter is read as its first month
        if "week" in part:
            return week_starts(part["year"], part["week"])
        if "doy" in part:
            days = pd.to_datetime(pd.DataFrame({"year": part["year"], "month": 1, "day": 1}), errors="coerce")
            stamps = days + pd.to_timedelta(part["doy"] - 1, unit="D")
        else:
            stamps = pd.to_datetime(pd.DataFrame({"year": part["year"], "month": part.get("month", np.ones(len(raw))),
                                                  "day": part.get("day", np.ones(len(raw)))}), errors="coerce")
        if "hour" in part:
            stamps = stamps + pd.to_timedelta(part["hour"], unit="h")
        return stamps

    def summaries(self, raw: pd.DataFrame) -> np.ndarray:
        """(N,) bool: the rows of a year's average (BLS's period ``M13``), which are no step of the series."""
        if "period" not in self.columns:
            return np.zeros(len(raw), dtype=bool)
        return (as_text(raw[self.columns["period"]]).str.strip() == SUMMARY_PERIOD).to_numpy()

    def note(self) -> str:
        names = [repr(c) for c in self.columns.values()]
        return f"timestamps from column{'s' if len(names) > 1 else ''} {', '.join(names)}"


def week_starts(years: np.ndarray, weeks: np.ndarray) -> pd.Series:
    """(N,) datetime64: the first day of each year's week, weeks of 7 days numbered from the one that holds 4 January
    (at least four of its days in the year): ISO's, from Monday; where ISO's years lack a week written (53), the
    epidemiological weeks of the U.S. CDC (MMWR) and WHO, from Sunday; NaT where neither has it."""
    iso = _weeks_from(years, weeks, 0)
    if iso.notna().all():
        return iso
    sundays = _weeks_from(years, weeks, 6)
    return sundays if sundays.notna().all() else iso


def _weeks_from(years: np.ndarray, weeks: np.ndarray, first_weekday: int) -> pd.Series:
    """(N,) datetime64: the first day of week ``weeks`` of ``years``, weeks starting on ``first_weekday`` (Monday
    0), week 1 the one holding 4 January; NaT for a week the year lacks."""
    def week_one(y: np.ndarray) -> pd.Series:
        fourth = pd.to_datetime(pd.DataFrame({"year": y, "month": 1, "day": 4}), errors="coerce")
        return fourth - pd.to_timedelta((fourth.dt.weekday - first_weekday) % 7, unit="D")
    stamps = week_one(years) + pd.to_timedelta(7 * (weeks - 1), unit="D")
    return stamps.where(stamps < week_one(years + 1))


def _numbers(col: pd.Series) -> np.ndarray:
    """(N,) float: the column's numbers, or the months it names (``January``, ``Jan``); NaN where neither."""
    values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
    if np.isnan(values).all() and len(col):
        values = col.astype(str).str.strip().str.rstrip(".").str.casefold().map(MONTHS).to_numpy(dtype=float)
    return values


def _period_months(col: pd.Series) -> np.ndarray:
    """(N,) float: the first month of each BLS period (``M03`` 3, ``Q02`` 4, ``S02`` 7, ``A01`` 1); NaN for ``M13``
    and cells that are no period."""
    text = as_text(col).str.strip()
    parts = text.str.extract(_PERIOD)
    months = pd.to_numeric(parts["m"], errors="coerce")
    months = months.where(months != 13)
    months = months.fillna(3 * pd.to_numeric(parts["q"], errors="coerce") - 2)
    months = months.fillna(6 * pd.to_numeric(parts["s"], errors="coerce") - 5)
    return months.mask(text == "A01", 1.0).to_numpy(dtype=float)


def _periods(col: pd.Series) -> bool:
    """Every cell is a BLS period, and some cell one of a step (not ``M13`` alone)."""
    text = as_text(col).str.strip()
    return bool(len(text)) and bool(text.str.match(_PERIOD).all()) and bool((text != SUMMARY_PERIOD).any())


def _whole_in(col: pd.Series, low: int, high: int) -> bool:
    values = _numbers(col)
    return bool(len(values) and np.isfinite(values).all() and (values == np.round(values)).all()
                and (values >= low).all() and (values <= high).all())


def leading_date_parts(raw: pd.DataFrame) -> DateParts | None:
    """In a file without a header: the first columns when they hold whole years (:data:`YEARS`), months and maybe
    days in range (SILSO's sunspot files: ``1818;01;01;1818.001;  -1;...``, ``1749;01;1749.042;  96.7;...``) that
    make dates rising row by row, or the first column alone where its years rise by one a row (statsmodels'
    ``sunspots_yearly.dat``: ``1700   5``); None otherwise."""
    columns = list(raw.columns)
    if len(columns) < 2 or not _whole_in(raw[columns[0]], *YEARS):
        return None
    if len(columns) < 3 or not _whole_in(raw[columns[1]], *_RANGES["month"]):  # years alone, one a row
        years = _numbers(raw[columns[0]])
        return DateParts({"year": columns[0]}) if len(years) > 2 and bool((np.diff(years) == 1).all()) else None
    parts = {"year": columns[0], "month": columns[1]}
    if len(columns) > 3 and _whole_in(raw[columns[2]], *_RANGES["day"]):
        parts["day"] = columns[2]
    found = DateParts(parts)
    stamps = found.timestamps(raw)
    return found if stamps.notna().all() and stamps.is_monotonic_increasing and stamps.is_unique else None


def find_date_parts(raw: pd.DataFrame, names_taken: Sequence[str | None]) -> DateParts | None:
    """The date parts ``raw``'s columns hold (a year and a month, quarter, day or day of year, and maybe an hour,
    each in one column of whole numbers in its range, months maybe by name, named as ``PART_NAMES`` says; or a year
    and BLS's ``Period``), the finest shape first; or a column of years (:data:`YEARS`) where no other part is named;
    None where there are none. ``names_taken``: columns that are something else (an id column)."""
    key = {str(c): str(c).strip().casefold() for c in raw.columns if c not in names_taken}
    found: dict[str, str] = {}
    for part, spelled in PART_NAMES.items():
        cols = [c for c, k in key.items() if k in spelled]
        if len(cols) == 1 and _whole_in(raw[cols[0]], *_RANGES[part]):
            found[part] = cols[0]
    periods = [c for c, k in key.items() if k == "period"]
    if "year" in found and len(periods) == 1 and _periods(raw[periods[0]]):
        found["period"] = periods[0]
    for shape in _SHAPES:
        if all(part in found for part in shape):
            return DateParts({part: found[part] for part in shape})
    spelled_parts = {k for part, spelled in PART_NAMES.items() if part != "year" for k in spelled}
    if list(found) == ["year"] and not spelled_parts & set(key.values()) and _whole_in(raw[found["year"]], *YEARS):
        return DateParts({"year": found["year"]})  # years alone, no other part named
    return None
