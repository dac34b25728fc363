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
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset
from pandas.tseries import offsets

from forecast.data.errors import DataError

CALENDAR_FIELDS = ("month", "day", "weekday", "hour", "minute")
CALENDAR_SIZES = (13, 32, 7, 24, 60)


def _unit(freq: str) -> str:
    """Map a pandas frequency string to the coarse unit that decides the feature set."""
    try:
        off = to_offset(freq)
    except (ValueError, TypeError) as exc:
        raise DataError(f"unknown frequency {freq!r}: use a pandas alias such as 'h', '15min', 'D', 'B', "
                        f"'W', 'MS'") from exc
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


def n_continuous_features(freq: str) -> int:
    """Number of ``timeF`` columns for ``freq``."""
    return len(_FEATURES[_unit(freq)])


def n_time_marks(freq: str) -> int:
    """Total mark columns per step: continuous features plus the five calendar fields."""
    return n_continuous_features(freq) + len(CALENDAR_FIELDS)


def time_marks(index: pd.DatetimeIndex, freq: str) -> np.ndarray:
    """Marks for every timestamp. Shape (len(index), n_time_marks(freq)), float32."""
    index = pd.DatetimeIndex(index)
    cont = [np.asarray(_feature(index, name), dtype=np.float64) for name in _FEATURES[_unit(freq)]]
    cal = [index.month, index.day, index.dayofweek, index.hour, index.minute]
    cols = cont + [np.asarray(c, dtype=np.float64) for c in cal]
    return np.stack(cols, axis=1).astype(np.float32)


def infer_frequency(index: pd.DatetimeIndex, *, source: str) -> str:
    """The pandas frequency of a regular timestamp index, or a DataError naming ``source``."""
    if len(index) < 3:
        raise DataError(f"{source}: need at least 3 timestamps to infer the frequency; set data.freq")
    freq = pd.infer_freq(index)
    if freq is None:
        diffs = pd.Series(index[1:] - index[:-1])
        common = diffs.mode().iloc[0]
        bad = int(np.flatnonzero(diffs.to_numpy() != common.to_numpy())[0]) + 1
        raise DataError(f"{source}: timestamps are irregularly spaced (row {bad + 1}: {index[bad]} follows "
                        f"{index[bad - 1]}, most steps are {common}); fill the gaps or set data.freq")
    return freq


def future_index(last: pd.Timestamp, freq: str, periods: int) -> pd.DatetimeIndex:
    """The ``periods`` timestamps that follow ``last`` at ``freq``."""
    return pd.date_range(start=last, periods=periods + 1, freq=freq)[1:]
