"""Tables of years by months or quarters (``Year,Jan,...,Dec``) read as one series in time order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.api import train
from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from forecast.data.year_table import find_year_table
from tests.test_api import TINY

MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def table(years: range, first: float = 0.0) -> pd.DataFrame:
    """Year, Jan .. Dec holding first + 0, 1, 2, ... in time order, and an annual mean."""
    values = first + np.arange(len(years) * 12, dtype=float).reshape(-1, 12)
    frame = pd.DataFrame(values, columns=MONTHS)
    frame.insert(0, "Year", list(years))
    frame["Annual"] = values.mean(axis=1)
    return frame


def test_a_table_of_years_by_months_is_one_monthly_series_without_the_unreported_months(tmp_path: Path) -> None:
    frame = table(range(1990, 2000)).astype(object)
    frame.iloc[-1, 7:13] = "***"  # Jul .. Dec of the last year not reported yet
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    panel = read_panel(path)
    series = panel.series[0].frame
    assert panel.freq == "MS" and list(series.columns) == ["value"]
    assert series.index.equals(pd.date_range("1990-01-01", "1999-06-01", freq="MS", name="date"))
    assert np.array_equal(series["value"].to_numpy(), np.arange(114, dtype=float))
    assert panel.notes == (f"{path}: detected a table of years by months (Year, Jan .. Dec), read as one monthly "
                           "series 'value' (1990-01 .. 1999-06), column(s) 'Annual' left out, 6 empty month(s) "
                           "before the first value or after the last left out",)


def test_quarters_in_a_semicolon_file_with_decimal_commas(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("YEAR;Q1;Q2;Q3;Q4\n2001;1,5;2,5;3,5;4,5\n2002;5,5;6,5;7,5;\n")
    panel = read_panel(path)
    series = panel.series[0].frame
    assert panel.freq == "QS-JAN"
    assert series.index.equals(pd.DatetimeIndex(pd.date_range("2001-01-01", periods=7, freq="QS"), name="date",
                                                freq=None))
    assert series["value"].tolist() == [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]


def test_a_panel_of_year_tables_is_a_series_for_each_id(tmp_path: Path) -> None:
    a, b = table(range(2000, 2003)), table(range(2001, 2004), first=100.0)
    a.insert(0, "station", "A")
    b.insert(0, "station", "B")
    path = tmp_path / "p.csv"
    pd.concat([a, b]).rename(columns=dict(zip(MONTHS, pd.date_range("2000-01-01", periods=12, freq="MS")
                                                   .strftime("%B")))).to_csv(path, index=False)
    panel = read_panel(path, id_col="station")
    assert [s.series_id for s in panel.series] == ["A", "B"]
    assert panel.series[1].frame.index[0] == pd.Timestamp("2001-01-01")
    assert np.array_equal(panel.series[1].frame["value"].to_numpy(), 100.0 + np.arange(36))
    assert "a monthly series for each station 'value'" in panel.notes[0]


def test_a_bad_cell_is_named_by_its_line_and_month(tmp_path: Path) -> None:
    frame = table(range(1990, 1995)).astype(object)
    frame.loc[2, "Mar"] = "x"
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(DataError) as info:
        read_panel(path)
    assert str(info.value).startswith(f"{path}: line 4: column 'Mar' has non-numeric value 'x'; ")


@pytest.mark.parametrize("columns", [["Year", *MONTHS[:11]],                      # a month short
                                     ["Year", *MONTHS[1:], MONTHS[0]],            # out of calendar order
                                     ["Year", "date", *MONTHS]])                  # has a timestamp column
def test_tables_that_are_not_years_by_months(columns: list[str]) -> None:
    raw = pd.DataFrame([[2000 + i] + [1.0] * (len(columns) - 1) for i in range(3)], columns=columns)
    assert find_year_table(raw, timestamp_col="date", id_col=None) is None
    years = pd.DataFrame([[2000.5] + [1.0] * 12], columns=["Year", *MONTHS])  # a year that is no whole number
    assert find_year_table(years, timestamp_col="date", id_col=None) is None
    assert find_year_table(table(range(2000, 2002)), timestamp_col=None, id_col=None) is None  # rows as steps


def test_a_model_trained_on_a_year_table_forecasts_the_months_after_it(tmp_path: Path) -> None:
    t = np.arange(20 * 12)
    values = 10 + np.sin(2 * np.pi * t / 12) + 0.01 * t
    frame = pd.DataFrame(values.reshape(-1, 12).round(4), columns=MONTHS)
    frame.insert(0, "Year", range(2000, 2020))
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    settings = ["data.target=value", *TINY[1:4], "trainer.max_epochs=0", "logger=none", "plot=false"]
    run = train(data=path, overrides=settings, run_dir=tmp_path / "run", threads=1)
    history = frame.iloc[:10].astype(object)
    history.iloc[-1, 6:] = ""  # Jun .. Dec of 2009 not reported
    history.to_csv(tmp_path / "h.csv", index=False)
    future = run.load().predict(tmp_path / "h.csv")
    assert future["date"].tolist() == list(pd.date_range("2009-06-01", periods=6, freq="MS"))
    assert list(future.columns) == ["date", "value"]
