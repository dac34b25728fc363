"""Calendar features of a timestamp index, driven by the series' frequency.

Every step gets ``M = n_continuous(freq) + 5`` mark columns:

* ``timeF`` continuous features (GluonTS style), each scaled to [-0.5, 0.5], finest unit first:
  seconds: second, minute, hour, day-of-week, day-of-month, day-of-year;
  minutes: minute, hour, day-of-week, day-of-month, day-of-year;
  hours: hour, day-of-week, day-of-month, day-of-year;
  days / business days: day-of-week, day-of-month, day-of-year;
  weeks: day-of-month, week-of-year;  months, quarters, years: month-of-year.
* five integer calendar fields ``[month, day, weekday, hour, minute]`` (stored as floats) for the
  ``fixed`` and ``learned`` temporal embeddings.

The model picks the columns its embedding needs, so the data never depends on the model's choice.

A series without timestamps (``freq=None``: rows are consecutive steps) has no calendar: zero
``timeF`` columns, and the five calendar fields are all 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.tseries import offsets

from forecast.data.errors import DataError
from forecast.data.regular import offset

CALENDAR_FIELDS = ("month", "day", "weekday", "hour", "minute")
CALENDAR_SIZES = (13, 32, 7, 24, 60)


def _unit(freq: str) -> str:
    """Map a pandas frequency string (or ``C-<weekdays>``) to the coarse unit that decides the feature set."""
    off = offset(freq)
    if isinstance(off, (offsets.Second, offsets.Milli, offsets.Micro, offsets.Nano)):
        return "second"
    if isinstance(off, offsets.Minute):
        return "minute"
    if isinstance(off, offsets.Hour):
        return "hour"
    if isinstance(off, (offsets.Day, offsets.BusinessDay, offsets.CustomBusinessDay)):
        return "day"
    if isinstance(off, offsets.Week):
        return "week"
    if isinstance(off, (offsets.MonthBegin, offsets.MonthEnd, offsets.BusinessMonthBegin,
                        offsets.BusinessMonthEnd, offsets.SemiMonthBegin, offsets.SemiMonthEnd)):
        return "month"
    if isinstance(off, (offsets.QuarterBegin, offsets.QuarterEnd, offsets.YearBegin, offsets.YearEnd)):
        return "month"
    raise DataError(f"unsupported frequency {freq!r}: use seconds, minutes, hours, days, business days, "
                    f"weeks, months, quarters or years")


_FEATURES = {
    "second": ("second", "minute", "hour", "dayofweek", "dayofmonth", "dayofyear"),
    "minute": ("minute", "hour", "dayofweek", "dayofmonth", "dayofyear"),
    "hour": ("hour", "dayofweek", "dayofmonth", "dayofyear"),
    "day": ("dayofweek", "dayofmonth", "dayofyear"),
    "week": ("dayofmonth", "weekofyear"),
    "month": ("monthofyear",),
}


def _feature(index: pd.DatetimeIndex, name: str) -> np.ndarray:
    if name == "second":
        return index.second / 59.0 - 0.5
    if name == "minute":
        return index.minute / 59.0 - 0.5
    if name == "hour":
        return index.hour / 23.0 - 0.5
    if name == "dayofweek":
        return index.dayofweek / 6.0 - 0.5
    if name == "dayofmonth":
        return (index.day - 1) / 30.0 - 0.5
    if name == "dayofyear":
        return (index.dayofyear - 1) / 365.0 - 0.5
    if name == "weekofyear":
        return (index.isocalendar().week.to_numpy(dtype=np.float64) - 1) / 52.0 - 0.5
    if name == "monthofyear":
        return (index.month - 1) / 11.0 - 0.5
    raise KeyError(name)


def n_continuous_features(freq: str | None) -> int:
    """Number of ``timeF`` columns for ``freq`` (0 without timestamps, ``freq=None``)."""
    return 0 if freq is None else len(_FEATURES[_unit(freq)])


def n_time_marks(freq: str | None) -> int:
    """Total mark columns per step: continuous features plus the five calendar fields."""
    return n_continuous_features(freq) + len(CALENDAR_FIELDS)


def time_marks(index: pd.Index, freq: str | None) -> np.ndarray:
    """Marks for every timestamp. Shape (len(index), n_time_marks(freq)), float32.

    Without timestamps (``freq=None``, ``index`` the row steps) every mark is 0, shape (len(index), 5).
    """
    if freq is None:
        return np.zeros((len(index), len(CALENDAR_FIELDS)), dtype=np.float32)
    index = pd.DatetimeIndex(index)
    names = _FEATURES[_unit(freq)]
    out = np.empty((len(index), len(names) + len(CALENDAR_FIELDS)), dtype=np.float32)  # (N, n_time_marks)
    for j, name in enumerate(names):  # one column at a time: a float64 column is the only copy
        out[:, j] = np.asarray(_feature(index, name), dtype=np.float64)
    for j, field in enumerate((index.month, index.day, index.dayofweek, index.hour, index.minute)):
        out[:, len(names) + j] = np.asarray(field, dtype=np.float64)
    return out


class Calendars:
    """The :func:`time_marks` of indexes at one frequency, each distinct index computed once: the series of a panel
    mostly share their timestamps (a forecast's look-back and horizon, a backtest's rows). At most ``size`` are kept.
    """

    def __init__(self, freq: str | None, size: int = 256) -> None:
        self.freq = freq
        self.size = size
        self._known: dict[tuple[str, bytes], np.ndarray] = {}

    def marks(self, index: pd.Index) -> np.ndarray:
        """``time_marks(index, freq)``, a copy of its own. Shape (len(index), n_time_marks(freq)), float32."""
        stamps = index.asi8 if isinstance(index, pd.DatetimeIndex) else np.asarray(index, dtype=np.int64)
        key = (str(index.dtype), stamps.tobytes())
        found = self._known.get(key)
        if found is None:
            if len(self._known) >= self.size:
                self._known.clear()
            found = self._known[key] = time_marks(index, self.freq)
        return found.copy()


def future_index(last: pd.Timestamp | int, freq: str | None, periods: int) -> pd.Index:
    """The ``periods`` timestamps that follow ``last`` at ``freq``, in ``last``'s time zone (business days: the
    next ones on the weekly pattern); without timestamps (``freq=None``, ``last`` a step number) the steps
    that follow it."""
    if freq is None:
        return pd.RangeIndex(int(last) + 1, int(last) + 1 + periods, name="step")
    return pd.date_range(start=last, periods=periods + 1, freq=offset(freq))[1:]
