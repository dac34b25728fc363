"""Evenly spaced timestamps: the frequency of a file, its gaps, and the rows that fill them.

A *gap* is a run of missing rows: the next timestamp lies on the frequency's grid, some steps later.
Anything else off the grid (a half-hour step in hourly data) is *irregular* and always refused, except a
logger's seconds: sub-daily timestamps within a tenth of their step of its grid are read on it
(:func:`snapped_to_step`).

Business days are a frequency too: ``B`` (Monday to Friday) or a fixed weekly pattern of observed days,
``C-SunMonTueWedThu`` (pandas' ``CustomBusinessDay`` with that weekmask). A daily series at one time of day
whose rows never fall on some weekday is recognised as such (:func:`business_days`). Its gaps of up to
:data:`HOLIDAY_RUN` days are *holidays*: the rows are the series' steps, nothing is added unless asked.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.data.errors import DataError
from forecast.data.hints import Hints


WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
CUSTOM_DAYS = "C-"  # C-<weekdays>: business days on a fixed weekly pattern (C-SunMonTueWedThu)
ON_GRID = 0.9  # the share of a series' rows with values on a grid for its rows with no values off it to be left out
HOLIDAY_RUN = 5  # the longest run of missing business days taken as holidays (a week), not as missing rows


@dataclass(frozen=True)
class Gap:
    """Rows missing before row ``row`` of a series.

    Attributes:
        row: 0-based row (of the series) right after the gap.
        line: its file line.
        after: the timestamp before the gap.
        missing: how many rows are missing.
    """

    row: int
    line: int
    after: pd.Timestamp
    missing: int


def offset(freq: str, *, source: str = "", hint: str = "") -> pd.DateOffset:
    """The pandas offset of ``freq`` (``C-<weekdays>``: business days on those weekdays), or a DataError naming it."""
    try:
        if str(freq).startswith(CUSTOM_DAYS):
            return pd.offsets.CustomBusinessDay(weekmask=str(freq)[len(CUSTOM_DAYS):])
        return to_offset(freq)
    except (ValueError, TypeError) as exc:
        where = f"{source}: " if source else ""
        raise DataError(f"{where}unknown frequency {freq!r}: use a pandas alias such as 'h', '15min', 'D', 'B', "
                        f"'W', 'MS'{'; ' + hint if hint else ''}") from exc


def is_business(freq: str | None) -> bool:
    """Whether ``freq`` is one business day (``B`` or ``C-<weekdays>``): its gaps may be holidays."""
    if freq is None:
        return False
    off = offset(freq)
    return isinstance(off, (pd.offsets.BusinessDay, pd.offsets.CustomBusinessDay)) and off.n == 1


def business_days(indexes: Sequence[pd.DatetimeIndex]) -> str | None:
    """``B`` or ``C-<weekdays>`` when the series are days on a fixed weekly pattern, else None.

    That is: every timestamp at the same time of day, a step of one day the most common, at least two weeks
    spanned, and some weekday never observed (the weekdays observed are the pattern).
    """
    indexes = [i for i in indexes if len(i) > 2]
    if not indexes:
        return None
    stamps = indexes[0].append(list(indexes[1:])) if len(indexes) > 1 else indexes[0]
    clock = stamps - stamps.normalize()
    if (clock != clock[0]).any() or max(i[-1] - i[0] for i in indexes) < pd.Timedelta(days=14):
        return None
    days = np.concatenate([np.round((i[1:].normalize() - i[:-1].normalize()) / pd.Timedelta(days=1))
                           for i in indexes])  # calendar days between consecutive rows, (N - 1,) summed
    values, counts = np.unique(days, return_counts=True)
    if len(values) == 0 or values[np.argmax(counts)] != 1:
        return None
    observed = sorted(set(int(d) for d in stamps.dayofweek))
    if len(observed) == 7:
        return None
    return "B" if observed == [0, 1, 2, 3, 4] else CUSTOM_DAYS + "".join(WEEKDAYS[d] for d in observed)


def infer_freq(index: pd.DatetimeIndex) -> str | None:
    """``pd.infer_freq`` as a string (None when irregular or shorter than 3)."""
    if len(index) < 3:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        freq = pd.infer_freq(index)
    return None if freq is None else str(getattr(freq, "freqstr", freq))


def one_time_of_day(stamps: pd.DatetimeIndex) -> bool:
    """Whether every timestamp is at the first one's time of day (their own zone's wall time)."""
    time_of_day = stamps - stamps.normalize()  # (N,) timedelta since each day's midnight
    return bool((time_of_day == time_of_day[0]).all()) if len(stamps) else True


def months_of_one_day(stamps: pd.DatetimeIndex) -> tuple[pd.DatetimeIndex, int] | None:
    """Naive timestamps that all fall on one day of their month, the 2nd to the 28th, at one time of day (a
    monthly series dated mid-month, ``2020-01-15``), as the first days of their months at midnight, and that
    day; None otherwise.

    pandas names no frequency of a month's 15th, so such a file would be refused as irregular; its rows are
    its months (``MS``), as a quarter written ``1990 Q1`` is its first day.
    """
    if len(stamps) < 3 or stamps.tz is not None:
        return None
    day = int(stamps[0].day)
    if not 2 <= day <= 28 or not (stamps.day == day).all() or not one_time_of_day(stamps):
        return None
    return pd.DatetimeIndex(stamps.to_period("M").to_timestamp(), name=stamps.name), day


def evenly_spaced(times: np.ndarray) -> bool:
    """Whether every interval between ``times`` (integers, (N,)) is the first one."""
    intervals = np.diff(times)
    return not len(intervals) or bool((intervals == intervals[0]).all())


def snapped_to_step(index: pd.DatetimeIndex) -> tuple[pd.DatetimeIndex, pd.Timedelta, np.ndarray] | None:
    """Sub-daily timestamps a logger wrote a few seconds off its step (``00:10:02``, ``00:20:03``): the grid they
    lie near, the step, and each timestamp's distance from its grid point, (N,) timedelta64[ns]; None when every
    interval is the same, the step is a day or more, none is off the grid, or fewer than 9 in 10 are within a
    tenth of the step of it.

    The step is the median interval, to the whole second (under a minute) or minute; the grid starts at the
    first timestamp to that unit.
    """
    if len(index) < 3 or evenly_spaced(index.asi8):
        return None
    intervals = np.diff(index.to_numpy()).astype("timedelta64[ns]").astype(np.int64)  # (N - 1,) ns
    median = pd.Timedelta(int(np.median(intervals)), unit="ns").round("s")
    if not pd.Timedelta(0) < median < pd.Timedelta(days=1):
        return None
    unit = "s" if median < pd.Timedelta(minutes=1) else "min"
    step = median.round(unit)
    origin = index[0].round(unit)
    slots = np.rint((index - origin) / step).astype(np.int64)  # each timestamp's step on the grid
    grid = pd.DatetimeIndex(origin + pd.to_timedelta(slots * step.value, unit="ns"), name=index.name)
    off = np.abs(np.asarray(index - grid, dtype="timedelta64[ns]"))  # (N,)
    near = off * 10 <= step
    if not off[near].any() or near.mean() < 0.9 or (np.diff(slots[near]) <= 0).any():
        return None
    return grid.as_unit(index.unit), step, off


#: the days of a month a monthly file is dated on, each with the offset that rolls a timestamp forward to one
MONTH_ANCHORS = {"MS": pd.offsets.MonthBegin(0), "ME": pd.offsets.MonthEnd(0), "BMS": pd.offsets.BMonthBegin(0),
                 "BME": pd.offsets.BMonthEnd(0)}


def calendar_months(indexes: Sequence[pd.DatetimeIndex]) -> str | None:
    """The frequency of series whose timestamps mostly fall at midnight on the first or the last (business) day
    of a month: their most common step in months, as the alias ``pd.infer_freq`` gives a regular run of it
    (``MS``, ``QS-JAN``, ``YS-JAN``, ``ME``, ``BME``, ``BQE-DEC`` ...); None otherwise. Of the four days, the one
    most timestamps fall on (a file dated on the last business day is mostly dated on month ends too).

    Months are 28 to 31 days long, so the most common step in time would not be a monthly one.
    """
    indexes = [index.tz_localize(None) for index in indexes]  # wall times: an hour repeated by DST rolls as any
    best, best_count = None, 0
    for anchor, roll in MONTH_ANCHORS.items():
        with warnings.catch_warnings():  # business offsets add element-wise, with a warning
            warnings.simplefilter("ignore")
            on_grid = [index[(index == index.normalize()) & (index + roll == index)] for index in indexes]
        count = sum(len(on) for on in on_grid)
        if count > best_count and all(2 * len(on) > len(index) for on, index in zip(on_grid, indexes)):
            best, best_count = (anchor, on_grid), count
    if best is None:
        return None
    anchor, on_grid = best
    steps = [np.diff(on.year * 12 + on.month) for on in on_grid if len(on) > 1]  # months between rows
    if not sum(len(step) for step in steps):
        return None
    values, counts = np.unique(np.concatenate(steps), return_counts=True)
    months = int(values[np.argmax(counts)])
    first = next(on[0] for on in on_grid if len(on))
    # enough of a regular run that its anchor is not ambiguous (Jan 31, Feb 29, Mar 31 2000 are also month ends)
    return infer_freq(pd.date_range(first, periods=24, freq=f"{months}{anchor}")) if months >= 1 else None


def resolve_frequency(indexes: Sequence[pd.DatetimeIndex], *, source: str, hints: Hints) -> str:
    """The frequency of one or more series: inferred from the first regular one, else their business days,
    their calendar months (:func:`calendar_months`) or their most common step.

    The most common step of a series with gaps is its frequency, so the gaps can then be named
    (or filled) by :func:`find_gaps` instead of refusing the whole file as irregular; it is named as a regular
    run of it would be (``D``, ``W-SUN``, ``h``), so the floors' season and profiles are a regular file's.

    Raises:
        DataError: fewer than 3 timestamps in every series.
    """
    for index in indexes:
        freq = infer_freq(index)
        if freq is not None:
            return freq
    calendar = business_days(indexes) or calendar_months(indexes)
    if calendar is not None:
        return calendar
    steps = [np.diff(index.to_numpy()) for index in indexes if len(index) > 1]  # timedelta64, (N - 1,) each
    if sum(len(s) for s in steps) < 2:
        raise DataError(f"{source}: need at least 3 timestamps to infer the frequency; {hints.freq}")
    values, counts = np.unique(np.concatenate(steps), return_counts=True)
    step = pd.Timedelta(values[np.argmax(counts)])
    first = next(index[0] for index in indexes if len(index) > 1)
    # the alias of a regular run of that step, as a file without gaps gets it: 'D' and 'W-SUN', not '24h' and '168h'
    return infer_freq(pd.date_range(first, periods=3, freq=step)) or str(to_offset(step).freqstr)


def inside_step(before: pd.DatetimeIndex, last: pd.DatetimeIndex, freq: str) -> np.ndarray:
    """Whether each of ``last`` lies inside the step of ``freq`` that starts at the same place of ``before``, as a
    download's last row dated the day it was made (a monthly price table's 2022-06-28 after 2022-06-01): (S,) bool.

    Shapes: before (S,), last (S,).
    """
    with warnings.catch_warnings():  # non-fixed offsets (B, MS) add element-wise, with a warning
        warnings.simplefilter("ignore")
        step_end = before + offset(freq)
    return np.asarray((last > before) & (last < step_end))


def find_gaps(index: pd.DatetimeIndex, freq: str, *, source: str, lines: np.ndarray, whose: str,
              hints: Hints) -> list[Gap]:
    """The gaps of a sorted, unique index at ``freq``.

    Args:
        index: the series' timestamps, (N,).
        freq: the frequency the timestamps must follow.
        source: the file, for messages.
        lines: the file line of every row, (N,).
        whose: how to name the frequency (``the model's frequency``, ``data.freq``).
        hints: remedies for the messages.

    Raises:
        DataError: a timestamp off the frequency's grid (one line naming the file line).
    """
    off = offset(freq, source=source)
    if len(index) < 2:
        return []
    if index.tz is None and isinstance(off, (pd.offsets.Tick, pd.offsets.Day)) \
            and bool((np.diff(index.to_numpy()) == pd.Timedelta(off).to_timedelta64()).all()):
        return []  # steps of one fixed length, none missed
    with warnings.catch_warnings():  # non-fixed offsets (B, MS) add element-wise, with a warning
        warnings.simplefilter("ignore")
        expected = index[:-1] + off
    bad = np.flatnonzero(np.asarray(index[1:] != expected)) + 1
    gaps = []
    for i in bad:
        i = int(i)
        grid = pd.date_range(index[i - 1], index[i], freq=off)
        if len(grid) < 3 or grid[0] != index[i - 1] or grid[-1] != index[i]:
            raise DataError(f"{source}: line {int(lines[i])}: timestamp {index[i]} follows {index[i - 1]}, but {whose} "
                            f"{freq!r} expects {expected[i - 1]}; timestamps must be evenly spaced: fill the gaps "
                            f"(e.g. resample) or trim the file{hints.resample}")
        gaps.append(Gap(row=i, line=int(lines[i]), after=index[i - 1], missing=len(grid) - 2))
    return gaps


def refuse_gap(gaps: Sequence[Gap], index: pd.DatetimeIndex, freq: str, *, source: str, whose: str,
               hints: Hints, series: str = "") -> None:
    """Raise the DataError for the first of ``gaps`` (a no-op without gaps)."""
    if not gaps:
        return
    g = gaps[0]
    expected = index[g.row - 1] + offset(freq)
    more = f" (and {len(gaps) - 1} more gap(s){series})" if len(gaps) > 1 else (f" ({series.strip()})" if series
                                                                                 else "")
    raise DataError(f"{source}: line {g.line}: timestamp {index[g.row]} follows {g.after}, but {whose} {freq!r} "
                    f"expects {expected}; {g.missing} row(s) missing{more}: pass {hints.fill_missing_dates} with "
                    f"{hints.fill} to add and fill them, or fill the gap in the file"
                    f"{_spring_hint(g, index, expected, hints)}")


def refuse_other_step(gaps: Sequence[Gap], index: pd.DatetimeIndex, freq: str, *, source: str, whose: str,
                      series: str = "", hints: Hints | None = None) -> None:
    """Raise the DataError for timestamps at a regular frequency of their own where no two neighbouring rows
    are ``freq`` apart (a daily file under ``data.freq=h``): every interval a gap is another step, not gaps. With
    ``hints``, the series is one of a panel whose others step by ``freq``: the remedy adds its missing steps."""
    if len(index) < 3 or len(gaps) < len(index) - 1:
        return
    own = infer_freq(index)
    if own is None:
        return
    if hints is not None:
        raise DataError(f"{source}: the timestamps{series} step by {own!r}, not by {freq!r} as the other series do "
                        f"(no two of its rows are {freq!r} apart): pass {hints.fill_missing_dates} with {hints.fill} "
                        f"to add its missing steps, or leave the series out of the file")
    raise DataError(f"{source}: the timestamps{series} step by {own!r}, not by {whose} {freq!r} (no two rows are "
                    f"{freq!r} apart): leave data.freq out to use the file's frequency, set data.freq={own}, or "
                    f"resample the file to {freq!r}")


def _spring_hint(gap: Gap, index: pd.DatetimeIndex, first_missing: pd.Timestamp, hints: Hints) -> str:
    """For naive timestamps that skip the hour from 02:00 on a Sunday (clocks going forward): the zone."""
    skipped = index[gap.row] - first_missing
    if index.tz is not None or skipped != pd.Timedelta(hours=1) or first_missing.hour != 2 \
            or first_missing.minute != 0 or first_missing.dayofweek != 6:
        return ""
    zone = hints.set("tz", "Europe/Berlin")
    return f"; if the file is in local time with daylight saving, pass {zone} (its zone)"


def off_the_grid(indexes: Sequence[pd.DatetimeIndex], empty: Sequence[np.ndarray], freq: str | None, *,
                 source: str, hints: Hints) -> tuple[list[np.ndarray], str] | None:
    """Of each series' rows with no values, those off the grid its rows with values keep (a dividend date between
    month starts, a weekend in a file of trading days), and the grid's frequency (``freq``, or
    :func:`resolve_frequency` of the rows with values); None where no such row is found or fewer than
    :data:`ON_GRID` of a series' rows with values lie on that grid (the frequency is then not the file's; the few
    off it are refused by :func:`find_gaps`, naming them).

    Args:
        indexes: each series' sorted timestamps, (N_s,).
        empty: each series' rows with no values, (N_s,) bool.
        freq: the frequency the timestamps must follow; None infers it from the rows with values.
    """
    kept = [index[~rows] for index, rows in zip(indexes, empty)]
    if freq is None:
        try:
            freq = resolve_frequency(kept, source=source, hints=hints)
        except DataError:
            return None
    off = offset(freq)
    drops, found = [], False
    for index, rows, values in zip(indexes, empty, kept):
        drop = np.zeros(len(index), dtype=bool)
        if rows.any() and len(values) > 1:
            grid = pd.date_range(values[0], values[-1], freq=off)
            if values.isin(grid).mean() < ON_GRID:
                return None
            if index[0] < values[0]:  # steps back from the first row with values, as far as the first row
                back = len(pd.date_range(index[0], values[0], freq=off)) + 1
                grid = grid.union(pd.date_range(end=values[0], periods=back, freq=off))
            if index[-1] > values[-1]:
                grid = grid.union(pd.date_range(values[-1], index[-1], freq=off))
            drop = rows & ~index.isin(grid)
            found = found or bool(drop.any())
        drops.append(drop)
    return (drops, freq) if found else None


def add_missing_rows(frame: pd.DataFrame, freq: str) -> pd.DataFrame:
    """``frame`` reindexed to every timestamp from its first to its last at ``freq`` (new rows all NaN)."""
    full = pd.date_range(frame.index[0], frame.index[-1], freq=offset(freq), name=frame.index.name)
    return frame.reindex(full)


def describe_gaps(found: Sequence[tuple[str | None, Gap]], *, limit: int = 3) -> str:
    """``1 row before line 22 (after 2016-07-24 07:00:00); ...`` for a note (the first ``limit`` gaps)."""
    parts = []
    for name, g in found[:limit]:
        who = f"series {name} " if name is not None else ""
        parts.append(f"{who}{g.missing} row{'s' if g.missing > 1 else ''} before line {g.line} (after {g.after})")
    if len(found) > limit:
        parts.append(f"{len(found) - limit} more")
    return "; ".join(parts)


def holiday_note(holidays: Sequence[tuple[str | None, Gap]], freq: str, *, source: str, hints: Hints,
                 limit: int = 3) -> str:
    """The note that counts the holidays (business days without a row) of every series and names the first."""
    off = offset(freq)
    days = []
    for _, g in holidays:
        days += list(pd.date_range(g.after, periods=g.missing + 1, freq=off)[1:])
    shown = ", ".join(str(d.date()) for d in days[:limit]) + (", ..." if len(days) > limit else "")
    return (f"{source}: {len(days)} holiday(s) (business days at {freq!r} without a row: {shown}); the rows are the "
            f"series' steps and forecasts continue on the next business days ({hints.fill_missing_dates} with "
            f"{hints.fill} adds them as rows instead)")
