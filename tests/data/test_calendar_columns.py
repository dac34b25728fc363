"""Columns repeating a part of each row's timestamp (months and weekdays by name or number, ISO weeks) are no
series: left out with a note, so ``M`` forecasts only the measurements."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.calendar_columns import calendar_columns, unix_time_columns
from forecast.data.reader import read_panel

DAYS = pd.date_range("2020-12-20", periods=40, freq="D")  # across a new year: ISO week 53, then 1
MONDAY0 = np.asarray(DAYS.dayofweek)


@pytest.mark.parametrize("name,values", [
    ("Month", DAYS.strftime("%b")),
    ("month", DAYS.strftime("%B").str.upper()),
    ("mnth", DAYS.month),
    ("Weekday", DAYS.strftime("%A")),
    ("day_of_week", DAYS.strftime("%a").str.lower()),
    ("DayOfWeek", MONDAY0),                      # pandas: Monday 0
    ("weekday", (MONDAY0 + 1) % 7),              # R's, JavaScript's and the UCI bike-sharing file's: Sunday 0
    ("DOW", MONDAY0 + 1),                        # ISO: Monday 1
    ("wday", (MONDAY0 + 1) % 7 + 1),             # Excel's WEEKDAY and lubridate: Sunday 1
    ("Day.Of.Week", (MONDAY0 + 1) % 7 + 1),      # R's names: dots for spaces
    ("Day.of.year", DAYS.dayofyear),
    ("Week", DAYS.isocalendar().week.to_numpy()),
    ("week_number", DAYS.strftime("%U").astype(int)),
])
def test_a_column_repeating_a_calendar_part_is_found(name: str, values) -> None:
    raw = pd.DataFrame({name: np.asarray(values), "sales": np.arange(40.0)})
    assert calendar_columns(raw, [name, "sales"], DAYS) == [name]


@pytest.mark.parametrize("name,values", [
    ("Weekday", np.roll(DAYS.strftime("%A"), 1)),     # a day off: not the rows' weekdays
    ("DayOfWeek", (MONDAY0 + 2) % 7),               # no convention numbers Wednesday 0
    ("Month", np.arange(40.0)),                     # a measurement named Month
    ("Week", np.ones(40)),
    ("Weekday", np.where(np.arange(40) == 3, "holiday", DAYS.strftime("%A"))),
])
def test_a_column_not_repeating_its_part_stays(name: str, values) -> None:
    raw = pd.DataFrame({name: np.asarray(values), "sales": np.arange(40.0)})
    assert calendar_columns(raw, [name, "sales"], DAYS) == []


def test_a_report_with_month_and_weekday_names_reads_its_measurement(tmp_path: Path) -> None:
    csv = tmp_path / "report.csv"
    pd.DataFrame({"Date": DAYS.strftime("%Y-%m-%d"), "Month": DAYS.strftime("%b"), "Weekday": DAYS.strftime("%A"),
                  "DayOfWeek": MONDAY0, "Sales": np.arange(40.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns) == ["Sales"]
    assert panel.notes == (f"{csv}: detected timestamps in column 'Date', column(s) repeating the timestamps' parts "
                           f"left out ('Month', 'Weekday', 'DayOfWeek')",)
    kept = read_panel(csv, keep=["DayOfWeek"])  # the target, named: taken even where it repeats a part
    assert list(kept.series[0].frame.columns) == ["DayOfWeek", "Sales"]


def test_columns_of_the_timestamps_as_unix_times_are_left_out(tmp_path: Path) -> None:
    """CryptoDataDownload's ``unix`` (ms) beside its ``date`` (UTC, newest first); a count near 1.7e9 that is no
    time stays."""
    hours = pd.date_range("2023-01-01", periods=48, freq="h")[::-1]
    csv = tmp_path / "Binance_BTCUSDT_1h.csv"
    frame = pd.DataFrame({"unix": hours.as_unit("ms").asi8, "date": hours.strftime("%Y-%m-%d %H:%M:%S"),
                          "close": np.arange(48.0), "volume": 1.7e9 + np.arange(48.0)})
    csv.write_text("https://www.CryptoDataDownload.com\n" + frame.to_csv(index=False))
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns) == ["close", "volume"]
    assert panel.notes[0].endswith("column(s) of the timestamps as Unix times left out ('unix')")


def test_an_exchanges_close_time_is_a_unix_time_of_the_row() -> None:
    """Binance's klines: open time, ..., close time an hour less a millisecond on."""
    hours = pd.date_range("2024-01-01", periods=30, freq="h", tz="UTC")
    opened = hours.as_unit("ms").asi8
    raw = pd.DataFrame({"1": np.arange(30.0), "6": opened + 3_599_999, "7": opened / 1000.0 + 7200 * 24})
    assert unix_time_columns(raw, ["1", "6", "7"], hours) == ["6"]  # "7" is two days off
    assert unix_time_columns(raw, ["6"], hours.tz_localize(None) - pd.Timedelta(hours=5)) == ["6"]  # a wall clock
