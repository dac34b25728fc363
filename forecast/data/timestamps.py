"""A CSV's timestamp column as one DatetimeIndex: ISO text, day- or month-first dates, an explicit format, Unix
times, UTC offsets, and local time with daylight saving (:class:`~forecast.data.dialect.Dialect`).

* Years: whole numbers 1000 .. 2999 in the timestamp column (``1960``, ``2011``, or ``1700.0`` as pandas
  writes a float column) are years (``format='%Y'``).
* Dates told by their shape: one number, year first, 8 digits ``20180131`` (``%Y%m%d``) or 6 digits ``201801``
  (``%Y%m``), every month and day in range; Excel's months ``Jan-05`` (``%b-%y``); ``1980M01`` (``%YM%m``);
  ``01.1980`` (``%m.%Y``) and ``1980.01`` (``%Y.%m``), two-digit months;
  quarters ``1990 Q1``, ``Q1 1990``, ``1990-Q1`` (each its first day); months ``1960m1``, ``1960M1`` (Stata, the
  IMF); ISO weeks ``2020-W02``, ``2020W02`` (each its Monday; ``2020-W02-3`` its Wednesday).
* ``24:00`` (``2020-01-01 24:00``, files of hours ending) is the midnight that ends its day: 00:00 of the next.
* Unix times: numbers in the timestamp column read as seconds, milliseconds, microseconds or nanoseconds
  since 1970-01-01 UTC when their size says which (``data.epoch_unit`` otherwise).
* Excel's serial days: numbers 20,000 .. 80,000 (1954 .. 2119; far below any Unix time) where a date cell lost
  its format, days since 1899-12-30 with the time of day as the fraction (``44927.5`` is 2023-01-01 12:00),
  naive, to the second.
* Day-first dates (``31/12/2016 23:00``): of the two orders, the one that parses every cell and gives
  increasing timestamps in every series; where both do, the one whose timestamps are evenly spaced in every
  series (``2/1/85`` in a file of month starts written month-first: ``1/1/85 .. 12/1/85, 1/1/86``); both or
  neither being so is refused, naming ``data.dayfirst``.
* Timestamps with UTC offsets (``2021-03-28T01:00:00+01:00`` then ``+02:00``) are converted to ``data.tz``
  (UTC when unset); without ``data.tz``, rows that all fall at one local time of day (dates) are read as the
  local times they name, naive.
* Naive timestamps with ``data.tz`` are local time there: the hour that repeats when clocks go back is
  resolved by the order of the rows, the hour skipped in spring must not occur; the index stays in that zone.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.data.hints import Hints
from forecast.data.regular import infer_freq, one_time_of_day

TIMESTAMP_NAMES = ("date", "timestamp", "time", "ds", "datetime", "time_period")  # any case; SDMX's TIME_PERIOD
# words that name a timestamp column, alone (Datum) or within a longer name (observation_date), any case
TIMESTAMP_WORDS = ("date", "dates", "datetime", "timestamp", "datum", "fecha", "zeitstempel")
# a UTC offset at a cell's end; one that follows a time of day (not the year of 02-Jan-2024 or 01-02-2024)
_OFFSET = re.compile(r"(?:Z|[+-]\d{2}:?\d{2})$")
_OFFSET_AFTER_TIME = re.compile(r"\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})$")
# zone abbreviations each of one UTC offset, as exports write them after the time (``2021-03-28 03:00 CEST``;
# MEZ and MESZ are CET and CEST in German); CST (US Central or China) and IST (India, Ireland or Israel) are not
ZONE_OFFSETS = {"WET": "+00:00", "WEST": "+01:00", "BST": "+01:00", "CET": "+01:00", "CEST": "+02:00", "MEZ": "+01:00",
                "MESZ": "+02:00", "EET": "+02:00", "EEST": "+03:00", "MSK": "+03:00", "EST": "-05:00",
                "EDT": "-04:00", "CDT": "-05:00", "MST": "-07:00", "MDT": "-06:00", "PST": "-08:00", "PDT": "-07:00",
                "AKST": "-09:00", "AKDT": "-08:00", "HST": "-10:00", "JST": "+09:00", "KST": "+09:00",
                "AWST": "+08:00", "ACST": "+09:30", "ACDT": "+10:30", "AEST": "+10:00", "AEDT": "+11:00",
                "NZST": "+12:00", "NZDT": "+13:00"}
_ZONE_AFTER_TIME = re.compile(r"^(?P<stamp>.*\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s*(?P<zone>[A-Za-z]{3,4})$")
_YEAR_FIRST = re.compile(r"^\d{4}[-/.]\d")
_YEAR = re.compile(r"^[12]\d{3}(\.0*)?$")  # a year alone: 1000 .. 2999, maybe written as a float (1700.0)
# dates told by their shape, each format with how the note names it: one number, year first, 8 digits (20180131)
# or 6 (201801), which no Unix time has; Excel's month format Mmm-yy (Jan-05 is January 2005, where pandas' own
# parser reads the 5th of January of year 1); the statistics offices' 1980M01; months written with a dot,
# 01.1980 (German exports) or 1980.01, every month two digits (a float column writes 1980.1 for October)
_SHAPED = {"%Y%m%d": (re.compile(r"^[12]\d{3}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(\.0*)?$"), "YYYYMMDD"),
           "%Y%m": (re.compile(r"^[12]\d{3}(0[1-9]|1[0-2])(\.0*)?$"), "YYYYMM"),
           "%b-%y": (re.compile(r"^[A-Za-z]{3}-\d{2}$"), "Mmm-yy"),
           "%YM%m": (re.compile(r"^[12]\d{3}M(0[1-9]|1[0-2])$"), "YYYYMmm"),
           "%m.%Y": (re.compile(r"^(0[1-9]|1[0-2])\.[12]\d{3}$"), "MM.YYYY"),
           "%Y.%m": (re.compile(r"^[12]\d{3}\.(0[1-9]|1[0-2])$"), "YYYY.MM")}
# quarters as statistics offices write them: 1990 Q1 (ONS), Q1 1990, 1990-Q1, Q1-1990
_QUARTER = re.compile(r"^(?:(?P<y1>\d{4})\s*[-:]?\s*[Qq](?P<q1>[1-4])|[Qq](?P<q2>[1-4])\s*-?\s*(?P<y2>\d{4}))$")
# months as Stata (1960m1) and IMF tables (1960M1) write them, the month with or without its leading zero
_MONTH = re.compile(r"^(?P<year>\d{4})[Mm](?P<month>0?[1-9]|1[0-2])$")
# ISO weeks as Eurostat and ISO 8601 write them: 2020W02, 2020-W02, 2020-W02-3 (the week's day, 1 Monday .. 7)
# months with a year of the century: year-month (98-12; 1-01, a tutorial's shampoo sales of years 1 to 3) or
# month-year (12-98, Excel's mm-yy)
_CENTURY_MONTH = {"%y-%m": re.compile(r"^\d{1,2}-(0[1-9]|1[0-2])$"), "%m-%y": re.compile(r"^(0?[1-9]|1[0-2])-\d{2}$")}
# a year and its quarter or month after a colon, as gretl and Stata's results write them: 1950:1, 1950:12
_COLON_PERIOD = re.compile(r"^(?P<year>\d{4}):(?P<period>\d{1,2})$")
_ISO_WEEK = re.compile(r"^(?P<year>\d{4})-?W(?P<week>\d{2})(?:-?(?P<day>[1-7]))?$")
_HOUR_24 = re.compile(r"(?<=[\d ]\s|\dT)24:00(?::00)?$")  # midnight written as the end of its day: 2020-01-01 24:00
_FIELDS = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.]")
# an interval, start and end (ENTSO-E's "01.01.2023 00:00 - 01.01.2023 01:00"): a dash with spaces around it
_INTERVAL = re.compile(r"^(?P<start>\S.*?\d)\s+[-\u2013]\s+\S.*\d$")
# each unit's numbers from 1973-03 to 2100-01 (1e8 s .. 4.1e9 s): the ranges are three orders of magnitude apart
_EPOCH = {unit: (1e8 * scale, 4.1e9 * scale) for unit, scale in (("s", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9))}
# Excel's serial day numbers (days since 1899-12-30) from 1954-10 to 2119-01
_EXCEL_DAYS, _EXCEL_ORIGIN = (2e4, 8e4), pd.Timestamp("1899-12-30")
_FORMAT_EXAMPLE = "'%d.%m.%Y %H:%M'"  # quoted as a Hydra override needs it
_UNIT_WORDS = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}


@dataclass(frozen=True)
class Parsed:
    """A parsed timestamp column.

    Attributes:
        stamps: the timestamps, (N,), tz-aware in ``dialect.tz`` (UTC for offsets and Unix times when unset)
            or naive.
        dialect: the dialect with ``dayfirst`` and ``epoch_unit`` settled where they mattered.
        detected: what was detected, for the reader's one-line note.
        order_hint: appended to an "unsorted" or "duplicate" refusal: the setting that may explain it.
    """

    stamps: pd.DatetimeIndex
    dialect: Dialect
    detected: tuple[str, ...] = ()
    order_hint: str = ""


_SEPARATORS = re.compile(r"[;,\t|]")  # in a column name: a header line split at the wrong separator


def _words(name: str) -> list[str]:
    """The words of a column name, lower case: ``observation_date``, ``Date/Time (LST)``, ``ObservationDate``."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)]


def is_timestamp_name(name: object) -> bool:
    """``name`` is date, timestamp, time, ds or datetime, in any case."""
    return isinstance(name, str) and name.strip().lower() in TIMESTAMP_NAMES


def named_like_timestamp(name: str) -> bool:
    """``name`` is a timestamp name (:func:`is_timestamp_name`) or holds a word of ``TIMESTAMP_WORDS``."""
    return is_timestamp_name(name) or (any(w in TIMESTAMP_WORDS for w in _words(name))
                                       and not _SEPARATORS.search(name))


# words of a column name that may count or name the rows' times (``elapsed_time``, ``unix_epoch``, ``t``)
_TIME_WORDS = frozenset({*TIMESTAMP_NAMES, *TIMESTAMP_WORDS, "t", "epoch", "unix", "period", "week", "minute", "min",
                         "second", "sec", "seconds", "minutes", "hours"})


def may_hold_times(name: str) -> bool:
    """``name`` is named like a timestamp (:func:`named_like_timestamp`) or holds a word that names a time or its
    unit: a column that may hold the rows' times in numbers."""
    return named_like_timestamp(name) or any(w in _TIME_WORDS for w in _words(name))


def find_timestamp_column(names: Sequence[str]) -> str | None:
    """The one column named date, timestamp, time, ds or datetime in any case; where none is, the one whose
    name holds a word of ``TIMESTAMP_WORDS`` (FRED's ``observation_date``, ``Date/Time (LST)``, ``Datum``), or of
    several such the one named UTC (Open Power System Data's ``utc_timestamp`` beside ``cet_cest_timestamp``);
    None when none or several are."""
    found = [n for n in names if is_timestamp_name(n)]
    if not found:
        found = [n for n in names if named_like_timestamp(n)]
        utc = [n for n in found if {"utc", "gmt"} & set(_words(n))]
        found = utc if len(found) > 1 and len(utc) == 1 else found
    return found[0] if len(found) == 1 else None


_STARTS, _ENDS = {"start", "begin", "from"}, {"end", "to", "until"}  # the words of an interval's two columns


def interval_columns(raw: pd.DataFrame) -> tuple[str, str] | None:
    """The two columns that bound each row's interval, its start and its end, named alike but for a word of each
    (``Start``, ``End``; ``period_start``, ``period_end``; ``datetime_from``, ``datetime_to``), their first cells
    dates; None where there are no such two."""
    def bound(words: set[str]) -> list[tuple[str, list[str]]]:
        named = [(str(c), _words(str(c))) for c in raw.columns]
        return [(c, [w for w in ws if w not in words]) for c, ws in named if len(set(ws) & words) == 1]
    starts, ends = bound(_STARTS), bound(_ENDS)
    if len(starts) != 1 or len(ends) != 1 or starts[0][1] != ends[0][1] or not len(raw):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = pd.to_datetime(raw[[starts[0][0], ends[0][0]]].iloc[0].astype(str).str.strip(), errors="coerce")
    return None if first.isna().any() else (starts[0][0], ends[0][0])


def _epoch_unit(numbers: pd.Series) -> str | None:
    """The unit every number falls in (1973 .. 2100), or None."""
    lo, hi = float(numbers.min()), float(numbers.max())
    units = [u for u, (a, b) in _EPOCH.items() if a <= lo and hi <= b]
    return units[0] if len(units) == 1 else None


def leading_epoch(raw: pd.DataFrame) -> bool:
    """In a file without a header: whether its first column holds Unix times, whole numbers rising row by row whose
    size says the unit (an exchange's candles: ``1704153600000,42283.58,...``)."""
    if not len(raw.columns) or len(raw) < 3:
        return False
    numbers = pd.to_numeric(raw[raw.columns[0]], errors="coerce")
    if numbers.isna().any() or not (numbers == numbers.round()).all():
        return False
    return bool((np.diff(numbers.to_numpy(dtype=np.float64)) > 0).all()) and _epoch_unit(numbers) is not None


def _increasing(stamps: pd.DatetimeIndex, groups: Sequence[np.ndarray]) -> bool:
    """No NaT, and every series' timestamps non-decreasing in row order, or every series' decreasing (a file
    written newest first)."""
    if stamps.isna().any():
        return False
    values = stamps.asi8
    steps = [np.diff(values[rows]) for rows in groups]
    return all(bool(np.all(d >= 0)) for d in steps) or all(bool(np.all(d < 0)) for d in steps)


def _evenly_spaced(stamps: pd.DatetimeIndex, groups: Sequence[np.ndarray]) -> bool:
    """Whether every series' timestamps, in row order or reversed, have a frequency pandas can name."""
    def named(index: pd.DatetimeIndex) -> bool:
        return infer_freq(index if index.is_monotonic_increasing else index[::-1]) is not None
    return all(named(stamps[rows]) for rows in groups)


def iso_weeks(text: pd.Series) -> pd.Series | None:
    """ISO weeks (``2020-W02``, ``2020W02``, ``2020-W02-3``) as the dates of their Monday (or the day written),
    ``YYYY-MM-DD`` text, NaN for a week its year lacks (``2021-W53``); None unless every cell is written so."""
    if not len(text) or not _ISO_WEEK.match(str(text.iloc[0]).strip()):
        return None
    parts = text.astype(str).str.strip().str.extract(_ISO_WEEK)
    if parts["year"].isna().any():
        return None
    iso = parts["year"] + "-W" + parts["week"] + "-" + parts["day"].fillna("1")
    dates = pd.to_datetime(iso, format="%G-W%V-%u", errors="coerce")
    weeks = dates.dt.isocalendar().week.astype("float64").to_numpy()  # 2021-W53 rolls over into 2022-W01
    return dates.dt.strftime("%Y-%m-%d").where(weeks == parts["week"].astype(int).to_numpy())


def quarter_starts(text: pd.Series) -> pd.Series | None:
    """Quarters (``1990Q1``, ``1990-Q1``, ``1990 Q1``, ``1990:Q1``, ``Q1 1990``) as their first days, ``YYYY-MM-01``
    text; None unless every cell is written so."""
    if not len(text) or not _QUARTER.match(str(text.iloc[0]).strip()):
        return None
    parts = text.astype(str).str.strip().str.extract(_QUARTER)
    if not parts.notna().sum(axis=1).eq(2).all():
        return None
    year, quarter = parts["y1"].fillna(parts["y2"]).astype(int), parts["q1"].fillna(parts["q2"]).astype(int)
    return year.astype(str) + "-" + (3 * quarter - 2).map("{:02d}".format) + "-01"


def century_months(text: pd.Series, groups: Sequence[np.ndarray]) -> tuple[pd.Series, str] | None:
    """Cells written ``YY-MM`` or ``MM-YY``, one digit where the other field has two (``98-12``, ``1-01``,
    ``12-98``), as the first days of those months (``YYYY-MM-DD`` text, years read as ``%y`` does: ``1`` is 2001,
    ``98`` 1998) and the order read (``year-month``); None unless every cell is written so and exactly one order
    gives months that rise in row order in every series."""
    if not len(text) or not re.match(r"^\d{1,2}-\d{1,2}$", str(text.iloc[0])):
        return None
    found = []
    for fmt, pattern in _CENTURY_MONTH.items():
        if not text.str.match(pattern).all():
            continue
        two = text.str.replace(r"^(\d)-", r"0\1-", regex=True).str.replace(r"-(\d)$", r"-0\1", regex=True)
        months = pd.DatetimeIndex(pd.to_datetime(two, format=fmt, errors="coerce"))
        if not months.isna().any() and all(bool(np.all(np.diff(months.asi8[rows]) > 0)) for rows in groups):
            found.append((pd.Series(months.strftime("%Y-%m-%d"), index=text.index), fmt))
    if len(found) != 1:
        return None
    months, fmt = found[0]
    return months, "year-month" if fmt == "%y-%m" else "month-year"


def _order_the_fields_say(text: pd.Series) -> bool | None:
    """True when a first date field exceeds 12 (day-first), False when a second one does, else None."""
    heads = pd.Series(text.str.slice(0, 6).unique())  # the two fields and their separators: at most 6 characters
    fields = heads.str.extract(_FIELDS).dropna().astype(int)
    if fields.empty:
        return None
    if (fields[0] > 12).any():
        return True
    if (fields[1] > 12).any():
        return False
    return None


def _to_datetime(text: pd.Series, *, repeated: bool = False, **kwargs: object) -> pd.DatetimeIndex:
    """``pd.to_datetime`` of the cells, NaT where one does not parse; ``24:00`` is the midnight that ends its day.
    Where the cells are ``repeated`` (a panel's series share their timestamps), each distinct cell is parsed once:
    pandas' own cache looks at the first rows, which in a file sorted by series all differ."""
    ends = _day_ends(text)
    if ends is not None:
        text = text.where(~ends, text.str.replace(_HOUR_24, "00:00", regex=True))
    codes, cells = pd.factorize(text, use_na_sentinel=False) if repeated else (None, text)  # (N,), (distinct,)
    with warnings.catch_warnings():  # "could not infer format": parsed element-wise, checked by the caller
        warnings.simplefilter("ignore")
        try:
            stamps = pd.DatetimeIndex(pd.to_datetime(cells, errors="coerce", **kwargs))
        except ValueError as exc:  # a bad format directive; unparsable cells are NaT
            raise DataError(f"data.date_format {kwargs.get('format')!r}: not a date format ({exc}); use strftime "
                            f"codes such as '%d.%m.%Y %H:%M'") from exc
    stamps = stamps if codes is None else stamps[codes]  # (N,)
    if ends is None:
        return stamps
    shifted = stamps.to_series().reset_index(drop=True)
    shifted[ends.to_numpy()] += pd.DateOffset(days=1)
    return pd.DatetimeIndex(shifted)


def _day_ends(text: pd.Series) -> pd.Series | None:
    """(N,) bool: the cells whose time is ``24:00`` (``2020-01-01 24:00``, hour-ending files); None where none is."""
    maybe = text.str.endswith(("24:00", "24:00:00"), na=False)  # a quick look first: 00:24:00 ends so too
    if not maybe.any():
        return None
    ends = maybe.copy()
    ends[maybe] = text[maybe].str.contains(_HOUR_24, regex=True, na=False)  # the few candidates only
    return ends if ends.any() else None


def _refuse_unparsed(stamps: pd.DatetimeIndex, raw: pd.Series, *, col: str, source: str, line: np.ndarray,
                     how: str, hints: Hints) -> None:
    bad = np.flatnonzero(np.asarray(stamps.isna()))
    if bad.size:
        r = int(bad[0])
        if pd.isna(raw.iloc[r]) or not str(raw.iloc[r]).strip():
            raise DataError(f"{source}: line {line[r]}: no timestamp in column {col!r}; write the row's time, or "
                            f"remove the row")
        raise DataError(f"{source}: line {line[r]}: cannot parse timestamp {raw.iloc[r]!r} in column {col!r}{how}; "
                        f"use ISO format like 2016-07-01 00:00:00, or pass {hints.set('date_format', _FORMAT_EXAMPLE)}"
                        f" with the file's format")


def decimal_years(numbers: pd.Series) -> tuple[pd.DatetimeIndex, str] | None:
    """Years with the fraction of a year that has passed (R's ``time()`` of a monthly series, as Rdatasets writes
    it: ``1949``, ``1949.08333333333``): the first days of their months, and what they are (``months``), where
    every number lies in 1000 .. 2999 and its fraction is a whole number of half years, quarters or months, some
    not 0; None otherwise."""
    values = numbers.to_numpy(dtype=np.float64)
    if not len(values) or values.min() < 1000 or values.max() >= 3000:
        return None
    years = np.floor(values + 1e-6)
    fraction = values - years  # (N,) in [-1e-6, 1)
    for per_year, what in ((2, "half years"), (4, "quarters"), (12, "months")):
        steps = fraction * per_year
        if np.abs(steps - np.round(steps)).max() < 1e-4 and np.round(steps).any():
            months = years.astype(np.int64) * 12 + np.round(steps).astype(np.int64) * (12 // per_year)
            try:
                stamps = pd.to_datetime({"year": months // 12, "month": months % 12 + 1, "day": 1})
            except ValueError:  # out of pandas' bounds (before 1677)
                return None
            return pd.DatetimeIndex(stamps), what
    return None


def _epoch(text: pd.Series, *, col: str, dialect: Dialect, source: str, line: np.ndarray,
           hints: Hints) -> Parsed | None:
    """Unix times, when ``epoch_unit`` is given or every cell is a number; None otherwise."""
    if dialect.epoch_unit is None and (not len(text) or pd.to_numeric(text.iloc[:1], errors="coerce").isna().any()):
        return None  # the first cell is no number: dates, not a column of numbers to read whole
    numbers = pd.to_numeric(text, errors="coerce")
    if dialect.epoch_unit is None and (dialect.date_format is not None or numbers.isna().any()):
        return None
    if numbers.isna().any():
        r = int(np.flatnonzero(numbers.isna().to_numpy())[0])
        raise DataError(f"{source}: line {line[r]}: timestamp {text.iloc[r]!r} in column {col!r} is not a number, but "
                        f"data.epoch_unit={dialect.epoch_unit} reads the column as Unix times; give every row a number "
                        f"or leave data.epoch_unit out")
    unit = dialect.epoch_unit or _epoch_unit(numbers)
    if unit is None and _EXCEL_DAYS[0] <= float(numbers.min()) and float(numbers.max()) <= _EXCEL_DAYS[1]:
        days = pd.to_timedelta(numbers.to_numpy(dtype=np.float64), unit="D")
        return Parsed(pd.DatetimeIndex(_EXCEL_ORIGIN + days).round("s"), dialect,
                      (f"Excel's serial days ({text.iloc[0]} is {_EXCEL_ORIGIN + days[0]:%Y-%m-%d %H:%M})",))
    fractional = decimal_years(numbers) if unit is None and dialect.epoch_unit is None else None
    if fractional is not None:
        stamps, what = fractional
        return Parsed(stamps, dialect, (f"years with their fraction passed ({text.iloc[0]} .. {text.iloc[-1]}), read "
                                        f"as {what} ({text.iloc[-1]} is {stamps[-1]:%Y-%m-%d})",))
    if unit is None:
        raise DataError(f"{source}: column {col!r} holds numbers ({text.iloc[0]} .. {text.iloc[-1]}), not dates; if "
                        f"they are Unix times pass {hints.set('epoch_unit', 's')} (or ms, us, ns), else name the "
                        f"timestamp column ({hints.timestamp})")
    try:
        stamps = pd.DatetimeIndex(pd.to_datetime(numbers, unit=unit, utc=True)).tz_convert(dialect.tz or "UTC")
    except (ValueError, OverflowError) as exc:  # OutOfBoundsDatetime is a ValueError
        raise DataError(f"{source}: column {col!r}: the numbers {text.iloc[0]} .. {text.iloc[-1]} are no dates as "
                        f"{_UNIT_WORDS[unit]} since 1970; set data.epoch_unit to their unit (s, ms, us, ns)") from exc
    detected = () if dialect.epoch_unit else (f"Unix times in {_UNIT_WORDS[unit]} "
                                              f"(read as {dialect.tz or 'UTC'})",)
    return Parsed(stamps, replace(dialect, epoch_unit=unit), detected)


def _with_offsets(text: pd.Series, has: np.ndarray, *, col: str, dialect: Dialect, source: str, line: np.ndarray,
                  hints: Hints, repeated: bool) -> Parsed:
    """Timestamps that carry UTC offsets, converted to one zone (``repeated``: the cells repeat,
    :func:`_to_datetime`)."""
    if not has.all():
        r = int(np.flatnonzero(~has)[0])
        with_one = int(np.flatnonzero(has)[0])
        raise DataError(f"{source}: line {line[r]}: timestamp {text.iloc[r]!r} in column {col!r} has no UTC offset, "
                        f"but line {line[with_one]} has one ({text.iloc[with_one]!r}); give every timestamp an "
                        f"offset or none")
    stamps = _to_datetime(text, repeated=repeated, utc=True, format=dialect.date_format or "mixed")
    _refuse_unparsed(stamps, text, col=col, source=source, line=line, how="", hints=hints)
    written = text.str.extract(f"({_OFFSET.pattern})")[0]  # each cell's offset as written
    offsets = sorted(set(written))
    shown = ", ".join(offsets[:3]) + (" ..." if len(offsets) > 3 else "")
    if dialect.tz is None:
        local = _local_dates(stamps, written)
        if local is not None:
            return Parsed(local, dialect, (_local_note(f"timestamps with UTC offsets ({shown})", local),))
    return Parsed(stamps.tz_convert(dialect.tz or "UTC"), dialect,
                  (f"timestamps with UTC offsets ({shown}), read as {dialect.tz or 'UTC'}",))


def _local_note(what: str, local: pd.DatetimeIndex) -> str:
    """The note for zoned timestamps read as the local dates they name."""
    return f"{what}, all at {local[0]:%H:%M} local time: read as the local dates they name (data.tz=ZONE reads them " \
           f"in a zone)"


def _local_dates(stamps: pd.DatetimeIndex, written: pd.Series) -> pd.DatetimeIndex | None:
    """The local times, naive, of timestamps with UTC offsets that all fall at one local time of day and not all
    at UTC (dates, or a daily reading, written by a zone-aware export: ``2020-03-29 00:00:00+02:00``); else None.

    In UTC such a file would be a day earlier than the dates it names (``2020-03-28 22:00``), and an hour off its
    grid on each side of a change of offset.

    Shapes: stamps (N,) in UTC, written (N,) the offset text of each (``+02:00``, ``-0500``, ``Z``).
    """
    digits = written.str.replace(":", "").str.extract(r"([+-])(\d{2})(\d{2})")  # Z: no match, offset 0
    sign = np.where(digits[0] == "-", -1, 1)
    minutes = sign * (digits[1].astype(float).fillna(0) * 60 + digits[2].astype(float).fillna(0)).to_numpy()
    if not minutes.any():
        return None
    local = stamps.tz_localize(None) + pd.to_timedelta(minutes, unit="min")
    return local if one_time_of_day(local) else None


def _naive(text: pd.Series, groups: Sequence[np.ndarray], *, col: str, dialect: Dialect, source: str,
           line: np.ndarray, hints: Hints) -> Parsed:
    """Timestamps without offsets: a format, year-first text, or day/month-first dates (detected)."""
    repeated = len(groups) > 1
    if dialect.date_format is not None:
        stamps = _to_datetime(text, repeated=repeated, format=dialect.date_format)
        _refuse_unparsed(stamps, text, col=col, source=source, line=line,
                         how=f" with data.date_format {dialect.date_format!r}", hints=hints)
        return Parsed(stamps, dialect)
    if text.str.match(_YEAR_FIRST).all():
        stamps = _to_datetime(text, repeated=repeated, format="mixed")
        _refuse_unparsed(stamps, text, col=col, source=source, line=line, how="", hints=hints)
        return Parsed(stamps, dialect)
    if dialect.dayfirst is not None:
        stamps = _to_datetime(text, repeated=repeated, dayfirst=dialect.dayfirst)
        _refuse_unparsed(stamps, text, col=col, source=source, line=line,
                         how=f" {'day' if dialect.dayfirst else 'month'}-first", hints=hints)
        flip = hints.set("dayfirst", str(not dialect.dayfirst).lower())
        return Parsed(stamps, dialect, order_hint=f" (dates read {'day' if dialect.dayfirst else 'month'}-first; "
                                                  f"{flip} reads them the other way)")
    parses = {first: _to_datetime(text, repeated=repeated, dayfirst=first) for first in (False, True)}
    good = [first for first, stamps in parses.items() if _increasing(stamps, groups)]
    both_full = not parses[False].isna().any() and not parses[True].isna().any()
    if both_full and parses[False].equals(parses[True]):
        said = _order_the_fields_say(text)
        detected = ("day-first dates",) if said else ()
        return Parsed(parses[False], replace(dialect, dayfirst=said), detected)
    even = [first for first in good if _evenly_spaced(parses[first], groups)] if len(good) == 2 else []
    if len(good) == 1 or len(even) == 1:
        first, why = (good[0], "increasing") if len(good) == 1 else (even[0], "evenly spaced")
        differ = np.asarray(parses[False] != parses[True]) | np.asarray(parses[False].isna() | parses[True].isna())
        i = int(np.argmax(differ))  # the first cell the two orders read apart
        return Parsed(parses[first], replace(dialect, dayfirst=first),
                      (f"{'day' if first else 'month'}-first dates ({text.iloc[i]} is {parses[first][i]}: the only "
                       f"order giving {why} timestamps)",))
    if len(good) == 2:
        raise DataError(f"{source}: the dates in column {col!r} ({text.iloc[0]} .. {text.iloc[-1]}) increase read "
                        f"day-first and month-first; pass {hints.set('dayfirst', 'true')} or "
                        f"{hints.set('dayfirst', 'false')}")
    full = [first for first in (False, True) if not parses[first].isna().any()]
    if not full:  # the first cell neither order reads (31/02/2021), else the first the order reading more misses
        neither = np.asarray(parses[False].isna() & parses[True].isna())  # (N,)
        if neither.any():
            _refuse_unparsed(pd.DatetimeIndex(np.where(neither, np.datetime64("NaT", "ns"), np.datetime64(0, "ns"))),
                             text, col=col, source=source, line=line, how="", hints=hints)
        more = bool(parses[True].isna().sum() < parses[False].isna().sum())  # day-first reads more cells
        _refuse_unparsed(parses[more], text, col=col, source=source, line=line,
                         how=f" read {'day' if more else 'month'}-first as the other rows", hints=hints)
    first = full[0]
    flip = hints.set("dayfirst", str(not first).lower())
    return Parsed(parses[first], replace(dialect, dayfirst=first),
                  order_hint=f" (dates read {'day' if first else 'month'}-first; if they are "
                             f"{'month' if first else 'day'}-first pass {flip})")


def _localize(parsed: Parsed, groups: Sequence[np.ndarray], *, col: str, source: str, line: np.ndarray) -> Parsed:
    """Naive local timestamps in ``parsed.dialect.tz``, each series on its own (the repeated hour by row order)."""
    tz = parsed.dialect.tz
    assert tz is not None
    naive = parsed.stamps
    utc = np.empty(len(naive), dtype=naive.dtype)  # the instants, naive UTC
    for rows in groups:
        try:
            part = naive[rows].tz_localize(tz, ambiguous="infer", nonexistent="NaT")
        except Exception as exc:  # noqa: BLE001 - pytz/zoneinfo raise several kinds for an ambiguous hour
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DataError(f"{source}: the timestamps in column {col!r} cannot be placed in {tz} ({text}): the hour "
                            f"repeated when clocks go back must appear twice, in order; fix the rows around it or "
                            f"write the timestamps with UTC offsets") from exc
        skipped = np.flatnonzero(np.asarray(part.isna()))
        if skipped.size:
            r = int(rows[skipped[0]])
            raise DataError(f"{source}: line {line[r]}: timestamp {naive[r]} does not exist in {tz} (the clocks skip "
                            f"that hour); remove the row or fix its time")
        utc[rows] = part.tz_convert("UTC").tz_localize(None).to_numpy()
    return replace(parsed, stamps=pd.DatetimeIndex(utc).tz_localize("UTC").tz_convert(tz))


def typed_timestamps(values: pd.Series, groups: Sequence[np.ndarray], *, col: str, dialect: Dialect, source: str,
                     line: np.ndarray) -> Parsed:
    """A timestamp column stored as timestamps (Parquet, a DataFrame): aware ones converted to ``dialect.tz``
    (UTC when unset; without it, ones that all fall at one local time of day, dates, are read as the local times
    they name, naive, as text with offsets is), naive ones local time in ``dialect.tz`` when it is set.

    Raises:
        DataError: a missing timestamp, or local times that do not exist or repeat out of order in ``tz``.
    """
    stamps = pd.DatetimeIndex(values)
    bad = np.flatnonzero(np.asarray(stamps.isna()))
    if bad.size:
        raise DataError(f"{source}: line {line[int(bad[0])]}: empty timestamp in column {col!r}; give every row its "
                        f"timestamp")
    if stamps.tz is not None:
        local = stamps.tz_localize(None)  # the wall times of their own zone
        if dialect.tz is None and one_time_of_day(local) and (local != stamps.tz_convert(None)).any():
            return Parsed(local, dialect, (_local_note(f"timestamps in zone {stamps.tz}", local),))
        return Parsed(stamps.tz_convert(dialect.tz or "UTC"), dialect)
    parsed = Parsed(stamps, dialect)
    return parsed if dialect.tz is None else _localize(parsed, groups, col=col, source=source, line=line)


def _offset_after_time(text: pd.Series) -> np.ndarray:
    """Which cells end in a UTC offset that follows a time of day, (N,) bool: the cheap end match on every cell,
    the time before it only on the cells that end so."""
    has = np.array(text.str.contains(_OFFSET), dtype=bool)  # a copy: the second look writes into it
    if has.any():
        has[has] = text[has].str.contains(_OFFSET_AFTER_TIME).to_numpy(dtype=bool)
    return has


def zone_offsets(text: pd.Series) -> tuple[pd.Series, list[str]] | None:
    """Timestamps each ending in a zone abbreviation of one UTC offset after its time of day (``CET``, ``CEST``:
    :data:`ZONE_OFFSETS`) with that offset written instead (``+01:00``), and the abbreviations in the order they
    come; None unless every cell is written so."""
    if not len(text) or _ZONE_AFTER_TIME.match(str(text.iloc[0])) is None:
        return None
    parts = text.str.extract(_ZONE_AFTER_TIME)
    zones = parts["zone"].str.upper()
    offsets = zones.map(ZONE_OFFSETS)
    if not bool(offsets.notna().all()):
        return None
    return parts["stamp"].str.strip() + offsets, list(pd.unique(zones))


def interval_starts(text: pd.Series) -> pd.Series | None:
    """The starts of cells written as intervals, ``start - end`` (stripped), when every cell is one; else None."""
    if not len(text) or not _INTERVAL.match(str(text.iloc[0])):
        return None
    starts = text.str.extract(_INTERVAL)["start"]
    return starts if bool(starts.notna().all()) else None


def parse_timestamps(text: pd.Series, groups: Sequence[np.ndarray], *, col: str, dialect: Dialect, source: str,
                     line: np.ndarray, hints: Hints) -> Parsed:
    """Parse a timestamp column (cells stripped).

    Args:
        text: the column's cells, (N,).
        groups: the rows of each series, in time order.
        col: the column, for messages.
        dialect: the reading options (``dayfirst``, ``date_format``, ``epoch_unit``, ``tz``).
        source: the file, for messages.
        line: the file line of every row, (N,).
        hints: the remedies messages name.

    Raises:
        DataError: an unparsable cell, numbers of no clear epoch unit, offsets on some rows only, dates that
            increase in both orders, or local times that do not exist or repeat out of order in ``tz``.
    """
    written: tuple[str, ...] = ()
    starts = interval_starts(text) if dialect.epoch_unit is None else None
    interval = () if starts is None else (f"intervals read as their starts ({text.iloc[0]} ..)",)
    text = text if starts is None else starts
    if dialect.epoch_unit is None and dialect.date_format in (None, "%Y") and len(text) and _YEAR.match(text.iloc[0]) \
            and text.str.match(_YEAR).all():  # the first cell first: one match, not a column's
        if dialect.date_format is None:
            written = (f"years ({text.iloc[0]} .. {text.iloc[-1]})",)
            dialect = replace(dialect, date_format="%Y")
        text = text.str.replace(r"\.0*$", "", regex=True)  # 1700.0 -> 1700
    if dialect.epoch_unit is None and dialect.date_format in (None, *_SHAPED) and not written:
        shaped = next((f for f, (pattern, _) in _SHAPED.items()  # the first cell first: one match, not a column's
                       if dialect.date_format in (None, f) and len(text) and pattern.match(text.iloc[0])
                       and text.str.match(pattern).all()), None)
        if shaped is not None:
            if dialect.date_format is None:
                written = (f"dates written {_SHAPED[shaped][1]} ({text.iloc[0]} .. {text.iloc[-1]})",)
                dialect = replace(dialect, date_format=shaped)
            text = text.str.replace(r"\.0*$", "", regex=True)  # 20180131.0 -> 20180131
    starts = quarter_starts(text) if dialect.date_format is None and dialect.epoch_unit is None else None
    if starts is not None:
        written += (f"quarters ({text.iloc[0]} .. {text.iloc[-1]})",)
        text = starts
    if dialect.date_format is None and dialect.epoch_unit is None and len(text) and _COLON_PERIOD.match(text.iloc[0]):
        parts = text.str.extract(_COLON_PERIOD)
        if parts.notna().all(axis=None):  # quarters where no period is above 4, else months
            period = parts["period"].astype(int)
            per_year = 4 if period.max() <= 4 else 12
            if period.min() >= 1 and period.max() <= per_year:
                month = period * (12 // per_year) - (12 // per_year - 1)
                written += (f"{'quarters' if per_year == 4 else 'months'} after a colon ({text.iloc[0]} .. "
                            f"{text.iloc[-1]})",)
                text = parts["year"] + "-" + month.map("{:02d}".format) + "-01"
    if dialect.date_format is None and dialect.epoch_unit is None and len(text) and _MONTH.match(text.iloc[0]):
        parts = text.str.extract(_MONTH)  # a cell that is no month: NaN, refused by its line
        months = pd.DatetimeIndex(pd.to_datetime(parts["year"] + "-" + parts["month"].str.zfill(2) + "-01"))
        _refuse_unparsed(months, text, col=col, source=source, line=line, how=" as a month (1960m1 .. 1960m12)",
                         hints=hints)
        written += (f"months ({text.iloc[0]} .. {text.iloc[-1]})",)
        text = pd.Series(months.strftime("%Y-%m-%d"), index=text.index)
    century = century_months(text, groups) if dialect.date_format is None and dialect.epoch_unit is None else None
    if century is not None:
        months, order = century
        written += (f"months written {order}, years of the century ({text.iloc[0]} .. {text.iloc[-1]}: "
                    f"{months.iloc[0][:7]} .. {months.iloc[-1][:7]})",)
        text = months
    if _day_ends(text) is not None:
        written += ("midnight written 24:00, read as 00:00 of the next day",)
    weeks = iso_weeks(text) if dialect.date_format is None and dialect.epoch_unit is None else None
    if weeks is not None:
        _refuse_unparsed(pd.DatetimeIndex(pd.to_datetime(weeks)), text, col=col, source=source, line=line,
                         how=" as an ISO week (a week its year has)", hints=hints)
        written += (f"ISO weeks ({text.iloc[0]} .. {text.iloc[-1]}), each its Monday or the day written",)
        text = weeks
    epoch = _epoch(text, col=col, dialect=dialect, source=source, line=line, hints=hints)
    if epoch is not None:
        return epoch
    zoned = zone_offsets(text) if dialect.date_format is None else None
    if zoned is not None:
        text, zones = zoned
        written += (f"time zone abbreviations read as their UTC offsets ({', '.join(zones[:4])})",)
    has = _offset_after_time(text)
    if has.any():
        parsed = _with_offsets(text, has, col=col, dialect=dialect, source=source, line=line, hints=hints,
                               repeated=len(groups) > 1)
        return replace(parsed, detected=interval + written + parsed.detected)
    parsed = _naive(text, groups, col=col, dialect=dialect, source=source, line=line, hints=hints)
    parsed = replace(parsed, detected=interval + written + parsed.detected)
    return parsed if dialect.tz is None else _localize(parsed, groups, col=col, source=source, line=line)
