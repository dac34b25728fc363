"""Timestamps written as parts in columns of their own (YEAR, MO, DY, HR) joined into one."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from forecast.api import train
from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from tests.test_api import TINY

POWER_HEADER = ("-BEGIN HEADER-\nNASA/POWER CERES/MERRA2 Native Resolution Hourly Data\n"
                "Location: Latitude  40.7128   Longitude -74.006\n-END HEADER-\n")


def test_nasa_power_hours_in_parts_below_a_header_block(tmp_path: Path) -> None:
    stamps = pd.date_range("2020-01-01", periods=60, freq="h")
    csv = tmp_path / "POWER_Point_Hourly.csv"
    csv.write_text(POWER_HEADER + "YEAR,MO,DY,HR,T2M\n"
                   + "".join(f"{t.year},{t.month},{t.day},{t.hour},{i / 2}\n" for i, t in enumerate(stamps)))
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "h" and list(frame.columns) == ["T2M"] and frame["T2M"].iloc[3] == 1.5
    assert frame.index.equals(pd.DatetimeIndex(stamps, name="date", freq=None))
    assert panel.notes == (f"{csv}: detected a header block of 4 lines left out (-BEGIN HEADER- .. -END HEADER-), "
                           f"timestamps from columns 'YEAR', 'MO', 'DY', 'HR'",)


@pytest.mark.parametrize(("header", "cells", "freq"), [
    ("Year,Month,Day", lambda t: f"{t.year},{t.month},{t.day}", "D"),
    ("YEAR,DOY", lambda t: f"{t.year},{t.day_of_year}", "D"),
])
def test_days_in_parts(tmp_path: Path, header: str, cells, freq: str) -> None:
    days = pd.date_range("2020-12-20", periods=30, freq="D")
    csv = tmp_path / "days.csv"
    csv.write_text(f"{header},rain\n" + "".join(f"{cells(t)},{i}\n" for i, t in enumerate(days)))
    panel = read_panel(csv)
    assert panel.freq == freq and panel.series[0].frame.index.equals(pd.DatetimeIndex(days, name="date", freq=None))


def test_years_and_quarters_in_two_columns(tmp_path: Path) -> None:
    """statsmodels' macrodata.csv: ``"year","quarter",...``; a quarter is read as its first day."""
    quarters = pd.date_range("1959-01-01", periods=40, freq="QS")
    csv = tmp_path / "macrodata.csv"
    csv.write_text('"year","quarter","realgdp"\n' + "".join(f"{t.year},{t.quarter},{2700 + i}.5\n"
                                                          for i, t in enumerate(quarters)))
    panel = read_panel(csv)
    assert panel.freq == "QS-JAN" and panel.series[0].frame.index.equals(pd.DatetimeIndex(quarters, name="date",
                                                                                          freq=None))
    assert list(panel.series[0].frame.columns) == ["realgdp"] and panel.series[0].frame.realgdp.iloc[2] == 2702.5
    assert panel.notes == (f"{csv}: detected timestamps from columns 'year', 'quarter'",)


def test_a_column_of_years_alone(tmp_path: Path) -> None:
    """statsmodels' sunspots.csv (``"YEAR","SUNACTIVITY"``), and a panel of firms by year (grunfeld.csv); a column
    named year that counts 1, 2, ... is not read as years; one named like a
    timestamp that counts the rows from 1 (copper.csv's ``TIME``) does not hide the years."""
    csv = tmp_path / "sunspots.csv"
    csv.write_text('"YEAR","SUNACTIVITY"\n' + "".join(f"{1700 + i},{i % 11}\n" for i in range(60)))
    panel = read_panel(csv)
    years = pd.date_range("1700-01-01", periods=60, freq="YS")
    assert panel.freq == "YS-JAN" and panel.series[0].frame.index.equals(pd.DatetimeIndex(years, name="YEAR",
                                                                                          freq=None))
    assert panel.notes == (f"{csv}: detected timestamps from column 'YEAR', years (1700 .. 1759)",)
    assert panel.timestamp_col == "YEAR" and panel.dialect.written(years)[0] == "1700"  # forecasts: as written
    firms = tmp_path / "grunfeld.csv"
    firms.write_text("invest,firm,year\n" + "".join(f"{i}.5,{firm},{1935 + i}\n" for firm in ("GM", "IBM")
                                                     for i in range(20)))
    panel = read_panel(firms, id_col="firm")
    assert [s.series_id for s in panel.series] == ["GM", "IBM"] and panel.freq == "YS-JAN"
    counter = tmp_path / "counter.csv"
    counter.write_text("year,y\n" + "".join(f"{i + 1},{i}\n" for i in range(30)))
    with pytest.raises(DataError, match=r"no timestamp column 'date' \(columns: year, y\)"):
        read_panel(counter)
    copper = tmp_path / "copper.csv"  # statsmodels' copper.csv: a TIME column counting the rows beside YEAR
    copper.write_text('"YEAR","CONSUMPTION","TIME"\n' + "".join(f"{1951 + i},{3000 + i},{i + 1}\n" for i in range(25)))
    panel = read_panel(copper)
    assert panel.series[0].frame.index[0] == pd.Timestamp("1951-01-01") and panel.freq == "YS-JAN"
    assert panel.notes == (f"{copper}: detected timestamps from column 'YEAR', years (1951 .. 1975)",)
    copper.write_text('"YEAR","CONSUMPTION","TIME"\n' + "".join(f"{1951 + i},{3000 + i},{i + 5}\n" for i in range(25)))
    with pytest.raises(DataError, match=r"column 'TIME' holds numbers \(5 .. 29\), not dates"):
        read_panel(copper)  # counting from 5: it may be the timestamps; the user names them


@pytest.mark.parametrize("month", ["%b", "%B", "%b."])
def test_a_year_and_the_months_name(month: str, tmp_path: Path) -> None:
    """``Year,Month,y`` with ``Jan``, ``January`` or ``Jan.``: each row its month's first day."""
    months = pd.date_range("2000-01-01", periods=30, freq="MS")
    csv = tmp_path / "named_months.csv"
    csv.write_text("Year,Month,y\n" + "".join(f"{t.year},{t.strftime(month)},{i}\n" for i, t in enumerate(months)))
    panel = read_panel(csv)
    assert panel.freq == "MS" and panel.series[0].frame.index.equals(pd.DatetimeIndex(months, name="date", freq=None))
    assert panel.notes == (f"{csv}: detected timestamps from columns 'Year', 'Month'",)
    csv.write_text("Year,Month,y\n2000,Jan,1\n2000,Febr,2\n2000,Mar,3\n")
    with pytest.raises(DataError, match=r"no timestamp column 'date' \(columns: Year, Month, y\)"):
        read_panel(csv)  # a name that is no month's: the column is no part of a date


def test_a_file_without_a_header_dated_by_its_first_columns(tmp_path: Path) -> None:
    """SILSO's daily and monthly sunspot numbers: ``year;month;day;decimal year;value;...`` without a header; the
    first columns are read as the date where they make dates rising row by row."""
    days = pd.date_range("1818-01-01", periods=40, freq="D")
    daily = tmp_path / "SN_d_tot_V2.0.csv"
    daily.write_text("".join(f"{t.year};{t.month:02d};{t.day:02d};{t.year + t.day_of_year / 365:.3f};{i:4d};"
                             f"{-1.0:5.1f}\n" for i, t in enumerate(days)))
    panel = read_panel(daily, header=False)
    assert panel.freq == "D" and panel.series[0].frame.index.equals(pd.DatetimeIndex(days, name="date", freq=None))
    assert list(panel.series[0].frame.columns) == ["3", "4", "5"] and panel.series[0].frame["4"].iloc[7] == 7.0
    assert panel.notes == (f"{daily}: detected semicolon-separated columns, timestamps from columns '0', '1', '2'",)
    months = pd.date_range("1749-01-01", periods=30, freq="MS")
    monthly = tmp_path / "SN_m_tot_V2.0.csv"
    monthly.write_text("".join(f"{t.year};{t.month:02d};{t.year + (t.month - 0.5) / 12:8.3f};{i:6.1f}\n"
                               for i, t in enumerate(months)))
    assert read_panel(monthly, header=False).freq == "MS"
    codes = tmp_path / "codes.csv"  # numbers in range that make no rising dates: not dates
    codes.write_text("".join(f"{2000 + i % 3},{1 + i % 12},{i}.5\n" for i in range(30)))
    with pytest.raises(DataError, match="no timestamp column 'date'"):
        read_panel(codes, header=False)


def test_a_file_without_a_header_dated_by_a_first_column_of_years(tmp_path: Path) -> None:
    """statsmodels' ``sunspots_yearly.dat`` (``1700   5``): years rising by one a row; a gap or a column that counts
    from 1 is no such column."""
    yearly = tmp_path / "sunspots_yearly.dat"
    yearly.write_text("".join(f"{1700 + i}  {(i * 7) % 40:3d}\n" for i in range(30)))
    panel = read_panel(yearly, header=False)
    years = pd.date_range("1700-01-01", periods=30, freq="YS")
    assert panel.freq == "YS-JAN" and panel.series[0].frame.index.equals(pd.DatetimeIndex(years, name="date",
                                                                                          freq=None))
    assert list(panel.series[0].frame.columns) == ["1"] and panel.series[0].frame["1"].iloc[2] == 14.0
    assert panel.notes == (f"{yearly}: detected whitespace-separated columns, timestamps from column '0'",)
    for first in ([1700, 1701, 1703] + list(range(1704, 1731)), list(range(1, 31))):
        other = tmp_path / "other.csv"
        other.write_text("".join(f"{y},{i}.5\n" for i, y in enumerate(first)))
        with pytest.raises(DataError, match="no timestamp column 'date'"):
            read_panel(other, header=False)


def _weeks(tmp_path: Path, weeks: list[tuple[int, int]]) -> Path:
    """CDC's ILINet layout: a title line, ``REGION TYPE,REGION,YEAR,WEEK,% WEIGHTED ILI``."""
    csv = tmp_path / "ILINet.csv"
    csv.write_text("PERCENTAGE OF VISITS FOR INFLUENZA-LIKE-ILLNESS REPORTED BY SENTINEL PROVIDERS\n"
                   "REGION TYPE,REGION,YEAR,WEEK,% WEIGHTED ILI\n"
                   + "".join(f"National,X,{y},{w},{1 + k / 100:.2f}\n" for k, (y, w) in enumerate(weeks)))
    return csv


def test_a_year_and_its_weeks(tmp_path: Path) -> None:
    """ISO weeks from Monday where the years have every week written (2020 has 53); where ISO's do not (2008 has
    52), the epidemiological weeks of CDC's MMWR from Sunday (2008 has 53)."""
    iso = [(2020, w) for w in range(40, 54)] + [(2021, w) for w in range(1, 11)]
    panel = read_panel(_weeks(tmp_path, iso))
    frame = panel.series[0].frame
    assert frame.index[0] == pd.Timestamp("2020-09-28") and frame.index[13] == pd.Timestamp("2020-12-28")
    assert frame.index[14] == pd.Timestamp("2021-01-04") and panel.freq == "W-MON"
    assert list(frame.columns) == ["% WEIGHTED ILI"] and "timestamps from columns 'YEAR', 'WEEK'" in panel.notes[0]
    mmwr = [(2008, w) for w in range(40, 54)] + [(2009, w) for w in range(1, 11)]
    panel = read_panel(_weeks(tmp_path, mmwr))
    frame = panel.series[0].frame
    assert frame.index[13] == pd.Timestamp("2008-12-28") and frame.index[14] == pd.Timestamp("2009-01-04")
    assert panel.freq == "W-SUN"
    with pytest.raises(DataError, match=r"line 4: columns 'YEAR', 'WEEK' make no date \(2021-53\)"):
        read_panel(_weeks(tmp_path, [(2021, 52), (2021, 53), (2022, 1)]))


def test_parts_that_make_no_date_are_refused_naming_the_line(tmp_path: Path) -> None:
    csv = tmp_path / "feb.csv"
    csv.write_text("Year,Month,Day,rain\n2021,2,27,1\n2021,2,28,1\n2021,2,31,1\n")
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == f"{csv}: line 4: columns 'Year', 'Month', 'Day' make no date (2021-2-31); correct the row"


def test_a_model_trained_on_parts_forecasts_a_new_file_of_parts(tmp_path: Path) -> None:
    months = pd.date_range("1990-01-01", periods=240, freq="MS")
    csv = tmp_path / "co2.csv"
    csv.write_text("year,month,co2\n" + "".join(f"{t.year},{t.month},{350 + i / 10 + (t.month % 6)}\n"
                                                for i, t in enumerate(months)))
    settings = ["data.target=co2", *TINY[1:4], "trainer.max_epochs=0", "logger=none", "plot=false"]
    run = train(data=csv, overrides=settings, run_dir=tmp_path / "run", threads=1)
    history = tmp_path / "history.csv"
    history.write_text("\n".join(csv.read_text().splitlines()[:101]) + "\n")  # the first 100 months
    future = run.load().predict(history)
    assert future["date"].tolist() == list(pd.date_range("1998-05-01", periods=6, freq="MS"))
