"""Calendar features per frequency."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.hints import TRAIN
from forecast.data.regular import find_gaps, resolve_frequency
from forecast.data.time_features import (
    Calendars, future_index, n_continuous_features, n_time_marks, time_marks,
)


@pytest.mark.parametrize("freq,n_cont", [("s", 6), ("min", 5), ("15min", 5), ("h", 4), ("D", 3), ("B", 3),
                                          ("W", 2), ("MS", 1), ("ME", 1)])
def test_shapes_and_ranges_per_frequency(freq: str, n_cont: int) -> None:
    index = pd.date_range("2021-01-01", periods=50, freq=freq)
    marks = time_marks(index, freq)
    assert n_continuous_features(freq) == n_cont
    assert marks.shape == (50, n_time_marks(freq)) == (50, n_cont + 5)
    assert marks.dtype == np.float32
    assert np.all(marks[:, :n_cont] >= -0.5) and np.all(marks[:, :n_cont] <= 0.5)
    cal = marks[:, n_cont:]
    np.testing.assert_array_equal(cal[:, 0], index.month)
    np.testing.assert_array_equal(cal[:, 3], index.hour)
    np.testing.assert_array_equal(cal[:, 4], index.minute)


def test_hourly_features_match_their_definition() -> None:
    index = pd.DatetimeIndex(["2016-07-01 13:00"])
    hour, dow, dom, doy = time_marks(index, "h")[0, :4]
    assert hour == pytest.approx(13 / 23 - 0.5)
    assert dow == pytest.approx(4 / 6 - 0.5)  # Friday
    assert dom == pytest.approx(0 / 30 - 0.5)
    assert doy == pytest.approx((183 - 1) / 365 - 0.5)


@pytest.mark.parametrize("freq", ["h", "15min", "D", "B", "W-SUN", "MS"])
def test_frequency_is_inferred_and_continued(freq: str) -> None:
    index = pd.date_range("2020-01-01", periods=40, freq=freq)
    inferred = resolve_frequency([index], source="x.csv", hints=TRAIN)
    future = future_index(index[-1], inferred, 5)
    expected = pd.date_range("2020-01-01", periods=45, freq=freq)[40:]
    assert list(future) == list(expected)


def test_irregular_spacing_names_the_line() -> None:
    index = pd.DatetimeIndex(list(pd.date_range("2020-01-01", periods=10, freq="h")) + [pd.Timestamp("2020-01-01 09:30")])
    freq = resolve_frequency([index], source="x.csv", hints=TRAIN)  # the most common step
    assert freq == "h"
    with pytest.raises(DataError, match=r"x.csv: line 12: timestamp 2020-01-01 09:30:00 follows 2020-01-01 09:00:00, "
                                        r"but the inferred frequency 'h' expects 2020-01-01 10:00:00; timestamps must "
                                        r"be evenly spaced"):
        find_gaps(index, freq, source="x.csv", lines=np.arange(len(index)) + 2, whose="the inferred frequency",
                  hints=TRAIN)


@pytest.mark.parametrize("freq", ["MS", "ME", "QS-JAN", "QS-FEB", "QE-DEC", "YS-JAN", "YE-DEC", "BME", "BMS",
                                  "BQE-DEC"])
def test_calendar_months_with_a_missing_period_keep_their_frequency_and_name_the_gap(freq: str) -> None:
    regular = pd.date_range("1990-01-01", periods=40, freq=freq)
    index = regular.delete(20)  # months are 28-31 days: no step in time is the most common one by far
    inferred = resolve_frequency([index], source="x.csv", hints=TRAIN)
    assert inferred == pd.infer_freq(regular)
    gaps = find_gaps(index, inferred, source="x.csv", lines=np.arange(len(index)) + 2, whose="data.freq", hints=TRAIN)
    assert [(g.row, g.line, g.missing) for g in gaps] == [(20, 22, 1)]


def test_a_row_off_the_monthly_grid_is_named_on_the_monthly_grid() -> None:
    months = pd.date_range("1990-01-01", periods=30, freq="MS")
    index = pd.DatetimeIndex(sorted([*months, pd.Timestamp("1990-02-05")]))  # a dividend date between month starts
    freq = resolve_frequency([index], source="x.csv", hints=TRAIN)
    assert freq == "MS"
    with pytest.raises(DataError, match=r"x.csv: line 4: timestamp 1990-02-05 00:00:00 follows 1990-02-01 00:00:00, "
                                        r"but data.freq 'MS' expects 1990-03-01 00:00:00; timestamps must be evenly"):
        find_gaps(index, freq, source="x.csv", lines=np.arange(len(index)) + 2, whose="data.freq", hints=TRAIN)


@pytest.mark.parametrize("freq", ["D", "W-SUN", "W-WED", "h", "30min"])
def test_a_fixed_step_with_a_gap_is_named_as_a_regular_file_of_it(freq: str) -> None:
    regular = pd.date_range("2020-01-01", periods=90, freq=freq)
    index = regular.delete(31)  # days: three month starts among 89 days, not taken for months
    assert resolve_frequency([index], source="x.csv", hints=TRAIN) == pd.infer_freq(regular) == freq


def test_gaps_are_counted_on_the_grid() -> None:
    index = pd.date_range("2020-01-01", periods=20, freq="h").delete([5, 6, 12])
    gaps = find_gaps(index, "h", source="x.csv", lines=np.arange(len(index)) + 2, whose="data.freq", hints=TRAIN)
    assert [(g.row, g.line, g.missing) for g in gaps] == [(5, 7, 2), (10, 12, 1)]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("freq", ["D", "h", "15min"])
def test_gaps_are_found_in_timestamps_of_any_unit(unit: str, freq: str) -> None:
    regular = pd.date_range("2020-01-01", periods=20, freq=freq).as_unit(unit)
    assert find_gaps(regular, freq, source="x.csv", lines=np.arange(20) + 2, whose="data.freq", hints=TRAIN) == []
    index = regular.delete([5, 6, 12])
    gaps = find_gaps(index, freq, source="x.csv", lines=np.arange(len(index)) + 2, whose="data.freq", hints=TRAIN)
    assert [(g.row, g.line, g.missing) for g in gaps] == [(5, 7, 2), (10, 12, 1)]


def test_no_timestamps_no_calendar() -> None:
    assert n_continuous_features(None) == 0
    marks = time_marks(pd.RangeIndex(7), None)
    assert marks.shape == (7, 5) and not marks.any()
    assert list(future_index(9, None, 3)) == [10, 11, 12]


def test_unknown_frequency_is_refused() -> None:
    with pytest.raises(DataError, match="unknown frequency 'fortnightly'"):
        n_continuous_features("fortnightly")


@pytest.mark.parametrize(("freq", "tz"), [("h", None), ("D", "Europe/Berlin"), (None, None)])
def test_calendars_give_each_index_its_own_marks(freq: str | None, tz: str | None) -> None:
    """Indexes met again get the marks computed the first time, as copies; other indexes their own."""
    calendars = Calendars(freq, size=2)
    if freq is None:
        first, second = pd.RangeIndex(0, 30), pd.RangeIndex(5, 35)
    else:
        first = pd.date_range("2021-03-20", periods=30, freq=freq, tz=tz)
        second = first + pd.Timedelta(hours=1) if freq == "h" else first.tz_convert("UTC")
    for index in (first, second, first, second):
        marks = calendars.marks(index)
        np.testing.assert_array_equal(marks, time_marks(index, freq))
        marks[:] = -9.0  # the caller's copy
    np.testing.assert_array_equal(calendars.marks(first), time_marks(first, freq))
    calendars.marks(pd.RangeIndex(100, 130) if freq is None else first + pd.Timedelta(days=40))  # a third: cleared
    np.testing.assert_array_equal(calendars.marks(second), time_marks(second, freq))
