"""A timestamp written in two columns, the date in one and the time of day in the next (``Date;Time`` /
``10/03/2004;18.00.00``, as in the UCI air quality file): found, and joined into one timestamp text.

A pair is found by its names and its cells: a column named like a date (``Date``, ``day``, ``Datum``, ``fecha``)
holding dates only, followed by one named like a time of day (``Time``, ``hour``, ``Zeit``, ``hora``) holding
times of day only. ``data.timestamp_col=[Date,Time]`` names the pair instead.

Times written with dots (``18.00.00``, ``18.00``) are rewritten with colons before the join, unless an
explicit ``data.date_format`` reads the joined text as it is; whole hours (``18``) become ``18:00``.
Hours 1 .. 24 (``7``, ``07:00``, ``24:00``) in a column named for them (``HE``, ``Hour Ending``) or
holding 24 and never 0 are hours ending, as grid operators write them: hour 1 is the hour from 00:00
to 01:00, stamped with its start (``00:00``). A day's numbered periods (``SETTLEMENT_PERIOD`` 1 .. 48, as
electricity markets settle half-hours) are stamped with their starts alike; on a day the clocks change (46 or 50
half-hours) they are placed in the time zone given (:func:`period_times`).
"""

from __future__ import annotations

import re
import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import as_text
from forecast.data.errors import DataError

DATE_NAMES = ("date", "day", "datum", "tag", "fecha", "dia", "jour", "data")  # any case
HOUR_ENDING_NAMES = ("he", "hour ending", "hour_ending", "hourending", "hour end", "hour_end")  # any case
TIME_NAMES = ("time", "hour", "zeit", "uhrzeit", "stunde", "hora", "heure", "ora",
              *HOUR_ENDING_NAMES)  # any case
HOUR_NAMES = ("hr", "hh")  # short names of an hour column, taken where a date column's dates repeat
PERIOD_NAMES = ("period", "settlement period", "settlement_period", "settlementperiod", "sp", "trading period",
                "trading_period", "tradingperiod", "tp", "opr_hr")  # any case: a column of a day's numbered periods
_PER_DAY = (24, 48, 96)  # a day's periods: hours, half-hours, quarter-hours
_PERIOD = re.compile(r"^\d{1,3}$")
_DATE_ONLY = re.compile(r"^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$")
_TIME_OF_DAY = re.compile(r"^\d{1,2}([:.]\d{2}){1,2}([.,]\d+)?$")
_DOTTED_TIME = re.compile(r"^\d{1,2}\.\d{2}(\.\d{2})?$")
_HOUR = re.compile(r"^\d{1,2}$")
_ENDING = re.compile(r"^\d{1,2}(:00){0,2}$")  # an hour ending: 7, 07:00, 24:00 or 24:00:00


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


def _whole_hours(cells: pd.Series, pattern: re.Pattern[str] = _HOUR) -> pd.Series | None:
    """The hour of every cell as an integer where every one matches ``pattern`` (a whole hour ``18``), else
    None."""
    text = cell_text(cells).str.strip()
    if len(text) == 0 or not bool(text.str.match(pattern).all()):
        return None
    return text.str.extract(r"^(\d{1,2})", expand=False).astype(int)


def _hours(cells: pd.Series) -> bool:
    """Whole hours 0 .. 23, or hours ending 1 .. 24."""
    hours = _whole_hours(cells)
    return hours is not None and (bool(hours.between(0, 23).all()) or bool(hours.between(1, 24).all()))


def hours_ending(cells: pd.Series) -> bool:
    """Hours 1 .. 24 (``7``, ``07:00``, ``24:00``) that end their hour: the column is named so (``HE``) or
    holds 24 and never 0."""
    hours = _whole_hours(cells, _ENDING)
    if hours is None or not bool(hours.between(1, 24).all()):
        return False
    return bare_name(cells.name) in HOUR_ENDING_NAMES or bool((hours == 24).any())


def day_periods(cells: pd.Series) -> int | None:
    """How many periods a day has (24, 48 or 96) where the column is named for a day's numbered periods
    (``SETTLEMENT_PERIOD``) and holds whole numbers from 1 up to about that many (50 half-hours on the day the
    clocks go back); None otherwise."""
    if bare_name(cells.name) not in PERIOD_NAMES:
        return None
    numbers = _whole_hours(cells, _PERIOD)
    if numbers is None or int(numbers.min()) < 1:
        return None
    top = int(numbers.max())
    return next((n for n in _PER_DAY if n - n // 12 <= top <= n + n // 12), None)


def period_times(dates: pd.Series, periods: pd.Series, per_day: int, tz: str | None) -> pd.Series:
    """The start of every period (``HH:MM``) of ``per_day`` in a day; with ``tz``, on a day the clocks change
    there (as many periods as the day's length holds, or fewer on the file's first or last day), the local time
    the period starts at, counted from the day's midnight in real time: the hour repeated or skipped as the zone
    has it. ``dates`` are the cells as text, each read month- or day-first as the periods fit it."""
    step = 1440 // per_day
    numbers = _period_numbers(periods)
    minutes = ((numbers - 1) * step).to_numpy(dtype=np.int64, copy=True)
    if tz is not None:
        longest = _last_periods(dates, numbers)
        ends = {longest.index[0], longest.index[-1]}  # days a file may hold in part
        odd = (longest != per_day) | longest.index.isin(list(ends))  # a day of per_day periods is no change
        for day, top in longest[odd].items():
            start = _midnight(str(day), tz, int(top) * step, part=day in ends)
            if start is None:
                continue
            rows = (dates == day).to_numpy()
            wall = (start + pd.to_timedelta(minutes[rows], unit="min")).tz_convert(tz).tz_localize(None)
            minutes[rows] = (wall - start.tz_localize(None)).total_seconds().to_numpy() // 60
    return pd.Series([f"{m // 60:02d}:{m % 60:02d}" for m in minutes.astype(int)], index=periods.index)


def changed_days(dates: pd.Series, periods: pd.Series, per_day: int) -> pd.Series:
    """The largest period of each day (text of ``dates``, in the file's order) that holds more than ``per_day``, or
    fewer where it is neither the file's first day nor its last (which it may hold in part)."""
    longest = _last_periods(dates, _period_numbers(periods))
    inner = np.ones(len(longest), dtype=bool)
    inner[[0, -1]] = False
    return longest[(longest > per_day) | ((longest < per_day) & inner)]


def _period_numbers(periods: pd.Series) -> pd.Series:
    """The numbers of a column that :func:`day_periods` reads as a day's periods, (N,)."""
    numbers = _whole_hours(periods, _PERIOD)
    assert numbers is not None
    return numbers


def _last_periods(dates: pd.Series, numbers: pd.Series) -> pd.Series:
    """The largest period ``numbers`` of each day of ``dates`` (text), the days in the file's order."""
    return numbers.groupby(dates.to_numpy(), sort=False).max()


def _midnight(day: str, tz: str, length: int, *, part: bool) -> pd.Timestamp | None:
    """The local midnight beginning ``day`` (read month-first, else day-first) in ``tz`` where the clocks change
    that day and it lasts ``length`` minutes there, or, where the file holds the day in ``part``, at least that;
    None where neither reading's day does."""
    for dayfirst in (False, True):
        with warnings.catch_warnings():  # a date pandas reads only one way warns of the other: it is tried too
            warnings.simplefilter("ignore")
            date = pd.to_datetime(day, dayfirst=dayfirst, errors="coerce")
        if pd.isna(date):
            continue
        start = date.normalize().tz_localize(tz, nonexistent="shift_forward")
        end = (date.normalize() + pd.Timedelta(days=1)).tz_localize(tz, nonexistent="shift_forward")
        lasts = (end - start) // pd.Timedelta(minutes=1)
        if lasts != 1440 and (lasts == length or (part and length < lasts)):
            return start
    return None


def is_time_of_day(cells: pd.Series) -> bool:
    """Every cell is a time of day: ``18:00``, ``18:00:00``, ``18.00.00``, a whole hour ``0 .. 23`` or an hour
    ending ``1 .. 24``."""
    return len(cells) > 0 and (_all(cells, _TIME_OF_DAY) or _hours(cells))


def dates_and_times(dates: Sequence[str], times: Sequence[str]) -> bool:
    """Whether every one of ``dates`` is a date alone (``2020-01-31``) and every one of ``times`` a time of day."""
    return all(_DATE_ONLY.match(str(d).strip()) for d in dates) and all(_TIME_OF_DAY.match(str(t).strip())
                                                                         for t in times)


_ANGLED = re.compile(r"^<(.+)>$")  # a name in angle brackets: ``<DATE>``
_UNIT = re.compile(r"\s*[(\[][^()\[\]]*[)\]]$")  # a format or unit after a name: ``Date (MM/DD/YYYY)``


def bare_name(name: object) -> str:
    """A column's name in lower case without the format or unit in brackets after it (``Time (HH:MM)``:
    ``time``) or the angle brackets around it (MetaTrader's ``<TIME>``)."""
    return _ANGLED.sub(r"\1", _UNIT.sub("", str(name).strip()).strip()).lower()


def _named(a: str, b: str) -> bool:
    return bare_name(a) in DATE_NAMES and bare_name(b) in TIME_NAMES


def named_date_time_pair(names: Sequence[str]) -> tuple[str, str] | None:
    """The first neighbouring columns named like a date and a time of day, whatever they hold."""
    return next(((a, b) for a, b in zip(names, names[1:]) if _named(a, b)), None)


def find_date_time_pair(raw: pd.DataFrame, date_col: str | None = None) -> tuple[str, str] | None:
    """The one pair of neighbouring columns named like a date and a time of day that hold dates and times of
    day; with ``date_col``, only the pair that starts with it, or, where its dates repeat, it and the one column
    anywhere named like a time of day or an hour (``hr``) that holds times of day (the UCI bike-sharing file's
    ``dteday`` and ``hr``). None when there is none or more than one."""
    names = list(raw.columns)
    pairs = [(a, b) for a, b in zip(names, names[1:])
             if (a == date_col and bare_name(b) in TIME_NAMES if date_col is not None else _named(a, b))
             and is_time_of_day(raw[b]) and _all(raw[a], _DATE_ONLY)]
    pairs += [(a, b) for a, b in zip(names, names[1:]) if a == date_col and day_periods(raw[b]) is not None
              and _dates_alone(raw[a])] if date_col is not None and not pairs else []
    named = [b for b in names if b != date_col and bare_name(b) in (*TIME_NAMES, *HOUR_NAMES)]
    if not pairs and named and date_col in names and bool(raw[date_col].duplicated().any()) \
            and _all(raw[date_col], _DATE_ONLY):
        pairs = [(date_col, b) for b in named if is_time_of_day(raw[b])]
    return pairs[0] if len(pairs) == 1 else None


def _dates_alone(cells: pd.Series) -> bool:
    """Every cell is a date without a time of day, as written (``2021-01-31``, ``31-JAN-2021``)."""
    text = cell_text(cells).str.strip()
    if not len(text) or text.str.contains(":", regex=False).any():
        return False
    parsed = pd.to_datetime(text.drop_duplicates().head(50), errors="coerce", format="mixed")
    return bool(parsed.notna().all()) and bool((parsed == parsed.dt.normalize()).all())


def join_date_time(dates: pd.Series, times: pd.Series, *, keep_text: bool = False, tz: str | None = None
                   ) -> pd.Series:
    """``date time`` per row, cells stripped; times with dots (``18.00.00``) get colons, whole hours
    ``:00``, hours ending (:func:`hours_ending`) the start of their hour and a day's numbered periods
    (:func:`day_periods`) theirs (:func:`period_times`, in ``tz``), unless ``keep_text`` (an explicit format
    reads the text as it is); typed cells as :func:`cell_text`."""
    per_day = None if keep_text else day_periods(times)
    if per_day is not None:
        days = cell_text(dates).str.strip()
        return days + " " + period_times(days, times, per_day, tz)
    if not keep_text and hours_ending(times):
        starts = (_whole_hours(times, _ENDING) - 1).astype(str).str.zfill(2)  # hour 1 starts at 00:00
        return cell_text(dates).str.strip() + " " + starts + ":00"
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
