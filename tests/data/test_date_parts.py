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
