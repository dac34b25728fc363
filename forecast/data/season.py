"""The season of a pandas frequency: how many steps a day, a week or a year of it holds."""

from __future__ import annotations

import math

from pandas.tseries import offsets
from pandas.tseries.frequencies import to_offset

# Steps per day of the sub-daily offsets; the season of sub-daily data is one day.
_PER_DAY = {offsets.Hour: 24, offsets.Minute: 1440, offsets.Second: 86400}
_MONTHS = (offsets.MonthBegin, offsets.MonthEnd, offsets.BusinessMonthBegin, offsets.BusinessMonthEnd)
_QUARTERS = (offsets.QuarterBegin, offsets.QuarterEnd)
_MONTHLY = _MONTHS + _QUARTERS  # their steps line up with a month-of-year calendar profile
# Season of the daily and coarser offsets (unit multiple 1 only): a week, a year, a year of quarters.
_COARSE = ((offsets.Day, 7), (offsets.BusinessDay, 5), (offsets.Week, 52),
           (_MONTHS, 12), (_QUARTERS, 4))
# The calendar profiles there are (forecast.wrappers.calendar): the slots of a day, of a week, of a year.
PROFILE_PERIODS = ("day", "week", "year")
MINUTES_PER_DAY = 24 * 60


def period_for(freq: str | None) -> int | None:
    """Default season length of a pandas frequency string, or None when unknown / not given.

    Sub-daily data has a daily season: ``h`` -> 24, ``15min`` -> 96, ``2h`` -> 12; daily -> 7 (a week),
    business-day -> 5, weekly -> 52, monthly -> 12, quarterly -> 4. Multiples of daily or coarser
    units (``2D``), yearly data and multiples that do not divide a day give None.
    """
    if freq is None:
        return None
    try:
        off = to_offset(str(freq))
    except (ValueError, TypeError):
        return None
    for kind, per_day in _PER_DAY.items():
        if type(off) is kind:
            return per_day // off.n if per_day % off.n == 0 else None
    for kind, period in _COARSE:
        if isinstance(off, kind):
            return period if off.n == 1 else None
    return None


def profiles_for(freq: str | None) -> list[str]:
    """The calendar profiles a pandas frequency can hold (``forecast.wrappers.calendar``): ``["day", "week"]``
    for sub-daily data whose steps divide a day (``h``, ``30min``), ``["week"]`` for daily and business-day
    data, ``["year"]`` for monthly and quarterly data, none otherwise (weekly, yearly, irregular multiples,
    or a frequency not given)."""
    period = period_for(freq)
    if period is None:
        return []
    off = to_offset(str(freq))
    if any(type(off) is kind for kind in _PER_DAY):
        return ["day", "week"]
    if isinstance(off, _MONTHLY):
        return ["year"]
    return ["week"] if isinstance(off, (offsets.Day, offsets.BusinessDay)) else []


def calendar_step(freq: str | None) -> int:
    """Minutes in one slot of a day or week calendar profile (``forecast.wrappers.calendar``) for data at
    ``freq``: the step in minutes where it divides a day (``h`` -> 60, ``15min`` -> 15), else its greatest common
    divisor with a day (``7min`` -> 1, ``90min`` -> 90 ... ``D``, ``W`` and business days -> 1440); 1 (minutes)
    where the frequency is not given, is under a minute or has no fixed length (months, quarters: their profile's
    slots are months)."""
    if freq is None:
        return 1
    try:
        off = to_offset(str(freq))
    except (ValueError, TypeError):
        return 1
    if isinstance(off, offsets.BusinessDay):
        return MINUTES_PER_DAY
    try:
        nanos = off.nanos
    except ValueError:  # months, quarters, years
        return 1
    minutes, rest = divmod(int(nanos), 60 * 10**9)
    return math.gcd(minutes, MINUTES_PER_DAY) if minutes >= 1 and rest == 0 else 1
