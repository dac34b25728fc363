"""Exports as sources write them: FRED's ``observation_date``, a row of units under the header, long format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from forecast.data.timestamps import find_timestamp_column


def test_a_column_named_with_the_word_date_is_the_timestamp_column(tmp_path: Path) -> None:
    csv = tmp_path / "INDPRO.csv"
    dates = pd.date_range("2000-01-01", periods=30, freq="MS")
    pd.DataFrame({"observation_date": dates.strftime("%Y-%m-%d"), "INDPRO": np.arange(30.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.timestamp_col == "observation_date" and panel.freq == "MS"
    assert panel.notes == (f"{csv}: detected timestamps in column 'observation_date'",)
    assert find_timestamp_column(["Date/Time (LST)", "Temp (°C)"]) == "Date/Time (LST)"
    assert find_timestamp_column(["ObservationDate", "v"]) == "ObservationDate"
    assert find_timestamp_column(["Datum", "Temp"]) == "Datum"
    assert find_timestamp_column(["start_date", "end_date", "v"]) is None  # two: the user names one
    assert find_timestamp_column(["date", "update_date"]) == "date"  # the exact name first
    assert find_timestamp_column(["date;HUFL;OT"]) is None  # a header split at the wrong separator


def test_rows_of_units_under_the_header_are_left_out_and_lines_keep_their_numbers(tmp_path: Path) -> None:
    csv = tmp_path / "logger.csv"
    rows = "".join(f"2020-01-01 {h:02d}:00,{10 + h / 4:.2f},{50 + h}\n" for h in range(24))
    csv.write_text("date,temp,rh\n,degC,%\n,Avg,Smp\n" + rows)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "h" and len(frame) == 24 and frame["rh"].tolist() == [50.0 + h for h in range(24)]
    assert panel.notes == (f"{csv}: detected 2 row(s) of labels under the header left out ('degC', '%', 'Avg', "
                           f"'Smp')",)
    csv.write_text("date,temp\n,degC\n2020-01-01,1\n2020-01-02,x\n2020-01-03,2\n")
    with pytest.raises(DataError, match=r"logger.csv: line 4: column 'temp' has non-numeric value 'x'"):
        read_panel(csv)


def test_labels_that_are_data_are_not_left_out(tmp_path: Path) -> None:
    csv = tmp_path / "ids.csv"
    csv.write_text("id,date,v\nA,2020-01-01,1\nA,2020-01-02,2\nA,2020-01-03,3\n")
    assert len(read_panel(csv, id_col="id").series[0].frame) == 3
    csv.write_text("a,b\nx,y\nz,w\n")  # no row below with a number: nothing is taken for labels
    with pytest.raises(DataError, match=r"line 2: column 'a' has non-numeric value 'x'"):
        read_panel(csv, timestamp_col=None)


def test_a_long_file_read_without_its_id_column_names_the_column_of_series_numbers(tmp_path: Path) -> None:
    """Station numbers may be measurements: they name the series only when passed, and the refusal names them."""
    csv = tmp_path / "long.csv"
    dates = np.repeat(pd.date_range("2020-01-01", periods=20, freq="D").strftime("%Y-%m-%d"), 2)
    pd.DataFrame({"date": dates, "station": [101, 102] * 20, "value": np.arange(40.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 3: duplicate timestamp 2020-01-01 00:00:00 (also on line 2, with another "
                              f"'station'); remove or aggregate duplicates; if column 'station' names each row's "
                              f"series (long format), pass data.id_col=station")
    assert [s.series_id for s in read_panel(csv, id_col="station").series] == ["101", "102"]


def test_a_long_files_column_of_labels_names_its_series(tmp_path: Path) -> None:
    """pandas' ``melt`` writes ``date,variable,value``: the labels with the timestamps name each row once."""
    csv = tmp_path / "long.csv"
    dates = np.repeat(pd.date_range("2020-01-01", periods=20, freq="D").strftime("%Y-%m-%d"), 2)
    pd.DataFrame({"date": dates, "variable": ["a", "b"] * 20, "value": np.arange(40.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.id_col == "variable" and [s.series_id for s in panel.series] == ["a", "b"]
    np.testing.assert_array_equal(panel.series[1].frame["value"].to_numpy(), np.arange(1.0, 40.0, 2.0))
    assert ("series named by column 'variable' (long format: its labels with the timestamps name each row once)"
            in panel.notes[0])


def test_a_small_table_above_a_blank_line_is_left_out(tmp_path: Path) -> None:
    csv = tmp_path / "open-meteo.csv"
    stamps = pd.date_range("2024-01-01", periods=48, freq="h")
    csv.write_text("latitude,longitude,elevation,utc_offset_seconds,timezone,timezone_abbreviation\n"
                   "52.52,13.419998,38.0,0,GMT,GMT\n\n"
                   "time,temperature_2m (°C),relative_humidity_2m (%)\n"
                   + "".join(f"{t:%Y-%m-%dT%H:%M},{i / 2},{50 + i}\n" for i, t in enumerate(stamps)))
    panel = read_panel(csv)
    assert panel.freq == "h" and list(panel.series[0].frame.columns) == ["temperature_2m (°C)",
                                                                         "relative_humidity_2m (%)"]
    assert panel.series[0].frame.index[0] == stamps[0] and len(panel.series[0].frame) == 48
    assert panel.notes[0].startswith(f"{csv}: detected a table of its own above a blank line left out "
                                     f"(latitude,longitude,elevation,")
    csv.write_text("date,v\n2020-01-01,1\n\n2020-01-02,2\n2020-01-03,3\n")  # a blank line inside the table
    assert read_panel(csv).series[0].frame["v"].tolist() == [1.0, 2.0, 3.0]


def test_a_station_line_above_the_header_is_left_out(tmp_path: Path) -> None:
    """A TMY3 file (pvlib's ``723170TYA.CSV``): the station's number, name and place on the first line, then the
    header, dates and times named with their formats, hours ending 01:00 .. 24:00."""
    hours = pd.date_range("1988-01-01", periods=24 * 15, freq="h")  # past the 12th: month-first
    csv = tmp_path / "723170TYA.CSV"
    ending = hours + pd.Timedelta(hours=1)
    csv.write_text('723170,"GREENSBORO PIEDMONT TRIAD INT",NC,-5.0,36.100,-79.950,273\n'
                   "Date (MM/DD/YYYY),Time (HH:MM),GHI (W/m^2),Dry-bulb (C)\n"
                   + "".join(f"{t - pd.Timedelta(minutes=1):%m/%d/%Y},{24 if t.hour == 0 else t.hour:02d}:00,{i},"
                             f"{i / 10}\n" for i, t in enumerate(ending)))
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "h" and frame.index.equals(pd.DatetimeIndex(hours, name="date", freq=None))
    assert list(frame.columns) == ["GHI (W/m^2)", "Dry-bulb (C)"] and frame["Dry-bulb (C)"].iloc[30] == 3.0
    assert panel.notes[0].startswith(f'{csv}: detected 1 line(s) of another number of fields above the header left '
                                     f'out (723170,"GREENSBORO PIEDMONT TRIAD INT",NC,-5.0,36.100,-79.95...)')
    assert "hours 1 .. 24 in column 'Time (HH:MM)' read as hours ending" in panel.notes[0]


def test_a_loggers_toa5_file_and_a_title_are_left_out_above_the_header(tmp_path: Path) -> None:
    """Campbell Scientific's TOA5: a line of 8 fields above a header of 4, units and the kind of each value
    under it; a title of one field above a header of three."""
    stamps = pd.date_range("2020-01-01 01:00", periods=50, freq="h")
    csv = tmp_path / "CR1000_Hourly.dat.csv"
    csv.write_text('"TOA5","Station","CR1000","12345","CR1000.Std.22","CPU:prog.CR1","1234","Hourly"\n'
                   '"TIMESTAMP","RECORD","AirTC_Avg","RH"\n"TS","RN","Deg C","%"\n"","","Avg","Smp"\n'
                   + "".join(f'"{t}",{i},{i / 4},{80 + i % 7}\n' for i, t in enumerate(stamps)))
    panel = read_panel(csv)
    assert panel.freq == "h" and panel.series[0].frame.index[0] == stamps[0]
    assert panel.series[0].frame["AirTC_Avg"].iloc[4] == 1.0 and len(panel.series[0].frame) == 50
    assert '1 line(s) of another number of fields above the header left out ("TOA5","Station",' in panel.notes[0]
    months = pd.date_range("2020-01-01", periods=30, freq="MS")
    csv.write_text("Monthly sales report\ndate,sales,returns\n" + "".join(f"{t:%Y-%m-%d},{i},{2 * i}\n"
                                                                        for i, t in enumerate(months)))
    panel = read_panel(csv)  # a title above the header
    assert panel.freq == "MS" and list(panel.series[0].frame.columns) == ["sales", "returns"]
    assert panel.notes == (f"{csv}: detected 1 line(s) of another number of fields above the header left out "
                           f"(Monthly sales report)",)


def test_a_header_of_another_width_than_its_rows_is_no_line_above_it(tmp_path: Path) -> None:
    """Rows ending in a separator the header lacks: the header is the header, and the empty field at the end of
    every row is left out (pandas would read the dates as its index and shift the names)."""
    csv = tmp_path / "trailing.csv"
    csv.write_text("date,v\n" + "".join(f"2020-01-{d:02d},{d},\n" for d in range(1, 29)))
    panel = read_panel(csv)
    assert panel.series[0].frame["v"].tolist()[:3] == [1.0, 2.0, 3.0] and panel.freq == "D"
    assert not any("above the header" in note for note in panel.notes)
    assert panel.notes == (f"{csv}: detected an empty field at the end of every row, which the header does not name, "
                           f"left out",)


def test_columns_holding_one_label_in_every_row_are_left_out(tmp_path: Path) -> None:
    csv = tmp_path / "ghcn.csv"
    frame = pd.DataFrame({"STATION": "USW00094728", "NAME": "NY CITY CENTRAL PARK, NY US",
                          "DATE": pd.date_range("2020-01-01", periods=40).strftime("%Y-%m-%d"),
                          "PRCP": np.arange(40) / 10, "TMAX": np.arange(40) % 30})
    frame.to_csv(csv, index=False)
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns) == ["PRCP", "TMAX"]
    assert panel.notes == (f"{csv}: detected timestamps in column 'DATE', column(s) holding one label in every row "
                           f"left out ('STATION': 'USW00094728', 'NAME': 'NY CITY CENTRAL PARK, NY US')",)
    two = pd.concat([frame, frame.assign(STATION="USW00014732", NAME="NEWARK LIBERTY INTL AIRPORT, NJ US")])
    two.to_csv(csv, index=False)  # two stations' rows: a long file, each station's name labels its series
    panel = read_panel(csv)
    assert panel.id_col == "STATION" and [s.series_id for s in panel.series] == ["USW00094728", "USW00014732"]
    assert list(panel.series[1].frame.columns) == ["PRCP", "TMAX"]
    assert panel.notes[0].endswith("column(s) labelling each series left out ('NAME': NY CITY CENTRAL PARK, NY US, "
                                   "NEWARK LIBERTY INTL AIRPORT, NJ US)")
    frame.loc[20:, "STATION"] = "USW00014732"  # a label that changes is no data: refused without a marks hint
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 2: column 'STATION' has non-numeric value 'USW00094728'; every data "
                              f"column must be numeric; leave the column out: data.columns=[the columns to use]")


def test_google_trends_a_first_column_of_weeks_and_a_bound_written_as_less_than(tmp_path: Path) -> None:
    csv = tmp_path / "multiTimeline.csv"
    weeks = pd.date_range("2019-01-06", periods=30, freq="W-SUN")
    values = [str(i % 90 + 5) if i != 5 else "<1" for i in range(30)]
    csv.write_text("Category: All categories\n\nWeek,python: (Worldwide)\n"
                   + "".join(f"{w:%Y-%m-%d},{v}\n" for w, v in zip(weeks, values)))
    bounded = read_panel(csv)  # a share under 1: half of it (tests/data/test_bounds.py)
    assert bounded.series[0].frame["python: (Worldwide)"].iloc[5] == 0.5
    panel = read_panel(csv, dialect=Dialect(na_values=("<1",)))
    assert panel.timestamp_col == "Week" and panel.freq == "W-SUN" and len(panel.series[0].frame) == 30
    assert panel.series[0].frame["python: (Worldwide)"].iloc[5] == 10.0  # between 9 and 11, declared missing
    assert panel.notes[0] == (f"{csv}: detected a table of its own above a blank line left out (Category: All "
                              f"categories), timestamps in the first column, 'Week'")


def test_intervals_are_read_as_their_starts(tmp_path: Path) -> None:
    csv = tmp_path / "entsoe.csv"
    starts = pd.date_range("2023-10-20", periods=24 * 20, freq="h", tz="Europe/Berlin")
    csv.write_text('"MTU (CET/CEST)","Actual Total Load [MW] - BZN|DE-LU"\n'
                   + "".join(f'"{a:%d.%m.%Y %H:%M} - {b:%d.%m.%Y %H:%M}","{40000 + i}"\n'
                             for i, (a, b) in enumerate(zip(starts, starts + pd.Timedelta("1h")))))
    with pytest.raises(DataError, match=r"line 221: duplicate timestamp 2023-10-29 02:00:00 .* pass data.tz="):
        read_panel(csv)  # the hour the clocks go back, twice: local time
    panel = read_panel(csv, dialect=Dialect(tz="Europe/Berlin"))
    assert panel.series[0].frame.index.equals(pd.DatetimeIndex(starts, name="MTU (CET/CEST)"))
    assert "intervals read as their starts (20.10.2023 00:00 - 20.10.2023 01:00 ..), day-first dates" in panel.notes[0]


def test_a_year_after_a_dash_is_no_utc_offset(tmp_path: Path) -> None:
    csv = tmp_path / "nse.csv"  # 02-Jan-2024, as India's exchanges write dates
    days = pd.bdate_range("2024-01-02", periods=30)
    csv.write_text("Date,Close\n" + "".join(f"{d:%d-%b-%Y},{100 + i}\n" for i, d in enumerate(days)))
    panel = read_panel(csv)
    assert panel.series[0].frame.index.equals(pd.DatetimeIndex(days, name="Date", freq=None))
    assert panel.notes == (f"{csv}: detected timestamps in column 'Date', business days (B)",)


def test_a_total_row_and_notes_below_the_data_are_left_out(tmp_path: Path) -> None:
    months = pd.date_range("2020-01-01", periods=24, freq="MS")
    csv = tmp_path / "sales.csv"
    csv.write_text("Month,Sales\n" + "".join(f"{m:%Y-%m},{100 + i}\n" for i, m in enumerate(months))
                   + f"Total,{sum(range(100, 124))}\n\nSource: Office of Statistics\n")
    panel = read_panel(csv)
    assert panel.series[0].frame["Sales"].tolist() == [100.0 + i for i in range(24)]
    assert panel.notes == (f"{csv}: detected 2 row(s) below the data left out ('Total', 'Source: Office of "
                           f"Statistics'), timestamps in the first column, 'Month'",)
    csv.write_text("id,date,v\n" + "".join(f"{s},2020-01-{d:02d},{d}\n" for s in "AB" for d in range(1, 11)))
    assert [len(s.frame) for s in read_panel(csv, id_col="id").series] == [10, 10]  # ids without digits are data


def test_a_workbook_json_a_header_alone_and_an_empty_year_table_are_refused(tmp_path: Path) -> None:
    import zipfile

    book = tmp_path / "book.xlsx"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(DataError) as err:
        read_panel(book)
    assert str(err.value) == (f"{book}: a spreadsheet workbook (Excel), not a CSV file; save the sheet as CSV, or "
                              f"read it with pandas.read_excel and pass the DataFrame to the Python API (forecast.api)")
    old = tmp_path / "old.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    with pytest.raises(DataError, match=r"old.xls: a spreadsheet workbook \(Excel\), not a CSV file; "):
        read_panel(old)
    for name, text in [("records.json", '[{"date": "2020-01-01", "v": 1}]'), ("lines.jsonl", '{"date": "2020-01-01"}'),
                       ("columns.json", '\ufeff {\n  "date": ["2020-01-01"]}')]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(DataError) as err:
            read_panel(tmp_path / name)
        assert str(err.value) == (f"{tmp_path / name}: JSON, not a table of columns; write it as CSV, or read it "
                                  f"with pandas.read_json and pass the DataFrame to the Python API (forecast.api)")
    bracketed = tmp_path / "bracketed.csv"  # SQL Server's bracketed names are a table
    bracketed.write_text("[date],[v]\n" + "".join(f"2020-01-{d:02d},{d}\n" for d in range(1, 11)))
    assert read_panel(bracketed, timestamp_col="[date]").series[0].frame["[v]"].tolist() == list(range(1, 11))
    header = tmp_path / "header.csv"
    header.write_text("date,v\n")
    with pytest.raises(DataError, match=r"header.csv: the file has a header but no data rows$"):
        read_panel(header)
    empty = tmp_path / "years.csv"
    empty.write_text("Year," + ",".join(pd.date_range("2020-01-01", periods=12, freq="MS").strftime("%b"))
                     + "\n2020" + "," * 12 + "\n")
    with pytest.raises(DataError, match=r"years.csv: a table of years by months \(Year, Jan .. Dec\) with no value "
                                        r"in any month; fill in the values$"):
        read_panel(empty)


def test_a_printed_table_of_years_by_months_with_a_title_rules_and_notes(tmp_path: Path) -> None:
    """NOAA's monthly sunspot numbers as text: a title and a rule above the header, a rule under it, a blank line
    after each year, the last year partly written, a rule and notes below; the line numbers stay the file's."""
    rng = np.random.default_rng(0)
    values = np.round(rng.uniform(0, 200, (12, 12)), 1)
    rows = [f"{1749 + y}  " + " ".join(f"{v:5.1f}" for v in values[y]) + "\n\n" for y in range(11)]
    rows.append("1760  " + " ".join(f"{v:5.1f}" for v in values[11, :6]) + "\n")
    months = " ".join(f"{m:>5}" for m in ("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()))
    text = ("                          MONTHLY MEAN SUNSPOT NUMBERS\n" + "=" * 79 + "\n"
            f"Year  {months}\n" + "-" * 79 + "\n" + "".join(rows) + "-" * 79 + "\n"
            "No observations were available during February 1824.\n\nNote:  Data are preliminary after Dec 08.\n")
    path = tmp_path / "sunspots_monthly.dat"
    path.write_text(text)
    panel = read_panel(path)
    series = panel.series[0]
    assert series.index.equals(pd.date_range("1749-01-01", "1760-06-01", freq="MS", name="date"))
    np.testing.assert_allclose(series.frame["value"], np.concatenate([values[:11].ravel(), values[11, :6]]))
    assert panel.notes[0].startswith(f"{path}: detected whitespace-separated columns, 2 line(s) of another number "
                                     f"of fields above the header left out (MONTHLY MEAN SUNSPOT NUMBERS), 3 row(s) "
                                     f"below the data left out (")
    path.write_text(text.replace(f"1750  {values[1, 0]:5.1f}", "1750    abc", 1))
    with pytest.raises(DataError, match=r"line 7: .*'abc'"):
        read_panel(path)


def test_a_text_table_dated_by_year_and_month_columns_with_repeated_names(tmp_path: Path) -> None:
    """NOAA CPC's El Niño indices: ``YR MON NINO1+2 ANOM NINO3 ANOM``, the columns padded with spaces."""
    months = pd.date_range("1950-01-01", periods=36, freq="MS")
    path = tmp_path / "elnino.dat"
    path.write_text(" YR   MON  NINO1+2  ANOM   NINO3    ANOM\n" + "".join(
        f"{d.year}  {d.month:2d}   {23 + i / 10:5.2f}   {-1 + i / 50:5.2f}   {24 + i / 20:5.2f}   {i / 40:5.2f}\n"
        for i, d in enumerate(months)))
    panel = read_panel(path)
    assert panel.series[0].index.equals(pd.DatetimeIndex(months, name="date")) and panel.freq == "MS"
    assert list(panel.series[0].frame.columns) == ["NINO1+2", "ANOM", "NINO3", "ANOM.1"]
    assert panel.notes == (f"{path}: detected whitespace-separated columns, timestamps from columns 'YR', 'MON'",)


def test_a_rule_under_a_csv_header_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "ruled.csv"
    path.write_text("date,load\n----------,-----\n" + "".join(f"2020-01-{d:02d},{d}\n" for d in range(1, 29)))
    panel = read_panel(path)
    assert panel.series[0].frame["load"].tolist()[:3] == [1.0, 2.0, 3.0] and panel.freq == "D"
    path.write_text(path.read_text().replace("2020-01-05,5", "2020-01-05,five"))
    with pytest.raises(DataError, match=r"ruled.csv: line 7: column 'load' has non-numeric value 'five'"):
        read_panel(path)


def test_iso_weeks_are_their_mondays(tmp_path: Path) -> None:
    """ISO 8601's ``2020-W02`` and Eurostat's ``2020W02`` (``TIME_PERIOD;OBS_VALUE``, decimal commas); a week its
    year lacks is refused on its line."""
    mondays = pd.date_range("2020-12-07", periods=40, freq="W-MON")  # through 2020-W53 into 2021
    path = tmp_path / "weekly.csv"
    path.write_text("week,y\n" + "".join(f"{d:%G-W%V},{i}\n" for i, d in enumerate(mondays)))
    panel = read_panel(path)
    assert panel.series[0].index.equals(pd.DatetimeIndex(mondays, name="week")) and panel.freq == "W-MON"
    assert panel.notes == (f"{path}: detected timestamps in the first column, 'week', ISO weeks (2020-W50 .. "
                           f"2021-W36), each its Monday or the day written",)
    eurostat = tmp_path / "estat.csv"
    eurostat.write_text("TIME_PERIOD;OBS_VALUE\n" + "".join(f"{d:%G}W{d:%V};{i},5\n" for i, d in enumerate(mondays)))
    series = read_panel(eurostat).series[0]
    assert series.index.equals(pd.DatetimeIndex(mondays, name="TIME_PERIOD"))
    np.testing.assert_allclose(series.frame["OBS_VALUE"], np.arange(40) + 0.5)
    path.write_text("week,y\n" + "".join(f"2021-W{k:02d},{k}\n" for k in range(40, 54)))
    with pytest.raises(DataError) as err:
        read_panel(path, timestamp_col="week")
    assert str(err.value).startswith(f"{path}: line 15: cannot parse timestamp '2021-W53' in column 'week' as an "
                                     f"ISO week (a week its year has)")


def test_an_sdmx_csv_export_reads_its_values(tmp_path: Path) -> None:
    """Eurostat's SDMX-CSV: labels that repeat on every row, the time in ``TIME_PERIOD``, the value in ``OBS_VALUE``
    and a flag on a few values (``p``, provisional) in ``OBS_FLAG``; one series a country with ``data.id_col=geo``."""
    months = pd.date_range("2015-01-01", periods=40, freq="MS")
    path = tmp_path / "prc_hicp_midx.csv"
    path.write_text("DATAFLOW,LAST UPDATE,freq,unit,geo,TIME_PERIOD,OBS_VALUE,OBS_FLAG\n" + "".join(
        f"ESTAT:PRC_HICP_MIDX(1.0),23/01/24 23:00:00,M,I15,{geo},{d:%Y-%m},{100 + i / 4:.2f},{'p' if i > 36 else ''}\n"
        for geo in ("DE", "FR") for i, d in enumerate(months)))
    panel = read_panel(path, id_col="geo")
    assert [s.series_id for s in panel.series] == ["DE", "FR"] and panel.freq == "MS"
    assert list(panel.series[0].frame.columns) == ["OBS_VALUE"]
    np.testing.assert_allclose(panel.series[1].frame["OBS_VALUE"], 100 + np.arange(40) / 4)
    assert panel.notes[0].endswith("column(s) of flags or remarks on the values left out ('OBS_FLAG')")


def test_flag_columns_beside_their_values_are_left_out(tmp_path: Path) -> None:
    """NOAA's daily summaries (``TMAX``, ``TMAX_ATTRIBUTES`` = ``,,W,2400``) and Environment Canada's (``Max Temp
    (°C)``, ``Max Temp Flag``, and ``Year``, ``Month``, ``Day`` repeating ``Date/Time``); a text column not named
    as a flag but holding a few codes is left out as categories."""
    days = pd.date_range("2020-01-01", periods=40, freq="D")
    flags = [",,W,2400", "T,,W,2400", ",,7,0700", ",,W,"]
    path = tmp_path / "ghcnd.csv"
    path.write_text('"STATION","DATE","PRCP","PRCP_ATTRIBUTES","TMAX","TMAX_ATTRIBUTES"\n' + "".join(
        f'"USW00013881","{d:%Y-%m-%d}","{i % 7 / 10}","{flags[i % 4]}","{20 + i % 5}","{flags[(i + 1) % 4]}"\n'
        for i, d in enumerate(days)))
    panel = read_panel(path)
    assert list(panel.series[0].frame.columns) == ["PRCP", "TMAX"]
    assert "column(s) of flags or remarks on the values left out ('PRCP_ATTRIBUTES', 'TMAX_ATTRIBUTES')" \
        in panel.notes[0]
    canada = tmp_path / "en_climate_daily.csv"
    canada.write_text('"Date/Time","Year","Month","Day","Max Temp (°C)","Max Temp Flag","Min Temp (°C)","Min Temp '
                      'Flag"\n' + "".join(f'"{d:%Y-%m-%d}","{d.year}","{d.month:02d}","{d.day:02d}","{5 + i % 3}",'
                                          f'"{"E" if i % 9 == 0 else ""}","{i % 4 - 2}","{"M" if i % 3 else ""}"\n'
                                          for i, d in enumerate(days)))
    panel = read_panel(canada)
    assert list(panel.series[0].frame.columns) == ["Max Temp (°C)", "Min Temp (°C)"]
    assert panel.notes == (f"{canada}: detected timestamps in column 'Date/Time', column(s) of flags or remarks on the "
                           f"values left out ('Max Temp Flag', 'Min Temp Flag'), column(s) repeating the timestamps' "
                           f"parts left out ('Year', 'Month', 'Day')",)
    assert list(read_panel(canada, columns=["Month", "Max Temp (°C)"]).series[0].frame.columns) == \
        ["Month", "Max Temp (°C)"]  # named: kept
    path.write_text(path.read_text().replace("TMAX_ATTRIBUTES", "SOURCE"))
    panel = read_panel(path)
    assert list(panel.series[0].frame.columns) == ["PRCP", "TMAX"]
    assert "column(s) of categories left out ('SOURCE': ,,7,0700, ,,W,, ,,W,2400, T,,W,2400)" in panel.notes[0]


def test_a_column_of_remarks_on_a_few_days_is_left_out(tmp_path: Path) -> None:
    """A logger's ``comment`` column, empty but on three days of 200 (``sensor cleaned``)."""
    remarks = {5: "sensor cleaned", 90: "power cut in the morning", 150: "recalibrated"}
    path = tmp_path / "level.csv"
    path.write_text("date,level,comment\n" + "".join(f"{d:%Y-%m-%d},{i % 9 / 4},{remarks.get(i, '')}\n" for i, d in
                                                     enumerate(pd.date_range("2020-01-01", periods=200, freq="D"))))
    panel = read_panel(path)
    assert list(panel.series[0].frame.columns) == ["level"]
    assert panel.notes == (f"{path}: detected column(s) of flags or remarks on the values left out ('comment')",)


def test_metatraders_angled_names_and_a_headerless_file_of_unix_times(tmp_path: Path) -> None:
    """MetaTrader's export (``<DATE>\\t<TIME>\\t<OPEN>...``, ``2024.01.02\\t01:00:00``) and an exchange's candles
    without a header, the first column Unix milliseconds."""
    hours = pd.date_range("2024-01-02", periods=40, freq="h")
    path = tmp_path / "EURUSD_H1.csv"
    path.write_text("<DATE>\t<TIME>\t<OPEN>\t<CLOSE>\n" + "".join(
        f"{h:%Y.%m.%d}\t{h:%H:%M:%S}\t{1.1 + i / 1e4:.5f}\t{1.1 + i / 1e4:.5f}\n" for i, h in enumerate(hours)))
    panel = read_panel(path)
    assert panel.series[0].index.equals(pd.DatetimeIndex(hours, name="<DATE>")) and panel.freq == "h"
    assert list(panel.series[0].frame.columns) == ["<OPEN>", "<CLOSE>"]
    candles = tmp_path / "BTCUSDT-1h.csv"
    candles.write_text("".join(f"{int(h.timestamp()) * 1000},{40000 + i},{12.5 + i}\n" for i, h in enumerate(hours)))
    panel = read_panel(candles, header=False)
    assert panel.series[0].index.equals(pd.DatetimeIndex(hours.tz_localize("UTC"), name="date"))
    assert panel.notes == (f"{candles}: detected timestamps in the first column, '0', Unix times in milliseconds "
                           f"(read as UTC)",)
    candles.write_text("".join(f"{i + 1},{40000 + i},{12.5 + i}\n" for i in range(40)))  # a row number: no time
    with pytest.raises(DataError, match=r"no timestamp column 'date' \(columns: 0, 1, 2\)"):
        read_panel(candles, header=False)


def test_intervals_in_a_start_and_an_end_column_are_their_starts(tmp_path: Path) -> None:
    """An electricity supplier's half hours (``Consumption (kwh), Start, End``, offsets written) and
    ``period_start,period_end``; a ``from,to`` pair of currencies is no interval."""
    starts = pd.date_range("2023-01-01", periods=48, freq="30min", tz="UTC")
    path = tmp_path / "consumption.csv"
    path.write_text("Consumption (kwh), Start, End\n" + "".join(
        f"{i % 7 / 10:.3f}, {t.isoformat()}, {(t + pd.Timedelta('30min')).isoformat()}\n" for i, t in enumerate(starts)))
    panel = read_panel(path)
    assert panel.series[0].index.equals(pd.DatetimeIndex(starts, name="Start")) and panel.freq == "30min"
    assert list(panel.series[0].frame.columns) == ["Consumption (kwh)"]
    assert panel.notes[0].startswith(f"{path}: detected intervals from column 'Start' to 'End', each read as its start")
    local = starts.tz_localize(None)
    path.write_text("period_start,period_end,load\n" + "".join(
        f"{t},{t + pd.Timedelta('30min')},{i}\n" for i, t in enumerate(local)))
    assert read_panel(path).series[0].index.equals(pd.DatetimeIndex(local, name="period_start"))
    path.write_text("from,to,rate\n" + "".join(f"USD,EUR,{0.9 + i / 100}\n" for i in range(10)))
    with pytest.raises(DataError, match=r"no timestamp column 'date' \(columns: from, to, rate\)"):
        read_panel(path)


def test_columns_with_no_value_are_left_out_but_the_target(tmp_path: Path) -> None:
    """Meteostat's hourly export: ``snow`` and ``tsun`` empty on every row; an empty target is refused."""
    hours = pd.date_range("2023-01-01", periods=60, freq="h")
    path = tmp_path / "meteostat.csv"
    path.write_text("time,temp,snow,wspd,tsun\n" + "".join(f"{h:%Y-%m-%d %H:%M:%S},{i / 10},,{10 + i % 3},\n"
                                                             for i, h in enumerate(hours)))
    panel = read_panel(path)
    assert list(panel.series[0].frame.columns) == ["temp", "wspd"]
    assert panel.notes == (f"{path}: detected timestamps in column 'time', column(s) with no value in any row left "
                           f"out ('snow', 'tsun')",)
    with pytest.raises(DataError, match=r"column 'snow' is empty or NaN on every row"):
        read_panel(path, keep=["snow"])
    with pytest.raises(DataError, match=r"meteostat.csv: column 'snow' is empty or NaN on every row"):
        ForecastDataModule(path=str(path), target="snow", features="MS", seq_len=8, label_len=4, pred_len=2,
                           timestamp_col="time").setup()


BLS_FACTS = ("Series Id:           CUUR0000SA0\nNot Seasonally Adjusted\nSeries Title:        All items in U.S. city "
             "average, all urban consumers, not seasonally adjusted\nArea:                U.S. city average\n"
             "Item:                All items\nBase Period:         1982-84=100\nYears:               2015 to 2019\n\n\n")


def test_a_bls_download_is_dated_by_its_year_and_period(tmp_path: Path) -> None:
    """The Bureau of Labor Statistics' CSV: the series' facts above a header that ends in a comma, ``Year`` and
    ``Period`` (``M01`` .. ``M12``, and ``M13`` for a year's average, which is no month), the id on every row."""
    csv = tmp_path / "SeriesReport.csv"
    rows = []
    for year in range(2015, 2020):
        rows += [f"CUUR0000SA0,{year},M{m:02d},{230 + (year - 2015) * 12 + m}.5" for m in range(1, 13)]
        rows.append(f"CUUR0000SA0,{year},M13,{236 + (year - 2015) * 12}.0")
    csv.write_text(BLS_FACTS + "Series id,Year,Period,Value,\n" + "\n".join(rows) + "\n")
    panel = read_panel(csv)
    frame = panel.series[0].frame
    months = pd.date_range("2015-01-01", periods=60, freq="MS")
    assert panel.freq == "MS" and frame.index.equals(pd.DatetimeIndex(months, name="date", freq=None))
    assert list(frame.columns) == ["Value"] and frame["Value"].iloc[12] == 243.5  # January 2016, after an M13
    assert panel.notes == (f"{csv}: detected 9 line(s) of another number of fields above the header left out (Series "
                           f"Id:           CUUR0000SA0), 1 empty unnamed column(s) left out ('Unnamed: 4'), 5 row(s) of "
                           f"a year's average (period M13) left out, timestamps from columns 'Year', 'Period', column(s) "
                           f"holding one label in every row left out ('Series id': 'CUUR0000SA0')",)
    csv.write_text(BLS_FACTS + "Series id,Year,Period,Value,\n" + "\n".join(rows).replace("248.5", "-") + "\n")
    with pytest.raises(DataError, match=r"SeriesReport.csv: line 29: column 'Value' has non-numeric value '-'"):
        read_panel(csv)  # 2016-06, below a year's average: its line in the file
    quarters = "".join(f"LNS14000000Q,{1959 + i // 4},Q0{i % 4 + 1},{5 + i / 10:.1f}\n" for i in range(20))
    csv.write_text(BLS_FACTS + "Series id,Year,Period,Value,\n" + quarters)
    panel = read_panel(csv)
    assert panel.freq == "QS-JAN" and panel.series[0].frame.index[[0, -1]].tolist() == [
        pd.Timestamp("1959-01-01"), pd.Timestamp("1963-10-01")]


def test_a_downloads_last_row_dated_inside_the_last_step_is_left_out_with_a_note(tmp_path: Path) -> None:
    csv = tmp_path / "prices.csv"
    months = pd.date_range("2021-01-01", periods=18, freq="MS")
    dates = [*months.strftime("%Y-%m-%d"), "2022-06-28"]  # the month so far, as a monthly price download ends
    pd.DataFrame({"Date": dates, "close": np.arange(19.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "MS" and frame.index[-1] == pd.Timestamp("2022-06-01")
    assert frame["close"].tolist() == list(np.arange(18.0))
    assert panel.notes == (f"{csv}: detected timestamps in column 'Date', the last row inside the step of 'MS' that "
                           f"the row before starts, a part of a step, left out (line 20, 2022-06-28 00:00:00)",)
    weeks = pd.date_range("2022-01-03", periods=12, freq="W-MON")  # weekly rows on Mondays, the last on a Wednesday
    pd.DataFrame({"Date": [*weeks.strftime("%Y-%m-%d"), "2022-03-23"], "close": np.arange(13.0)}).to_csv(csv,
                                                                                                    index=False)
    assert read_panel(csv).series[0].frame.index[-1] == weeks[-1]


def test_a_last_row_on_the_next_step_or_past_it_is_not_a_part_of_a_step(tmp_path: Path) -> None:
    csv = tmp_path / "prices.csv"
    months = pd.date_range("2021-01-01", periods=18, freq="MS")
    pd.DataFrame({"Date": months.strftime("%Y-%m-%d"), "close": np.arange(18.0)}).to_csv(csv, index=False)
    assert len(read_panel(csv).series[0].frame) == 18  # every row on the grid: nothing left out
    dates = [*months.strftime("%Y-%m-%d"), "2022-07-15"]  # past the next step: a gap, not a part of the last step
    pd.DataFrame({"Date": dates, "close": np.arange(19.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 20: timestamp 2022-07-15 00:00:00 follows 2022-06-01 00:00:00, but the "
                                        r"inferred frequency 'MS' expects 2022-07-01 00:00:00"):
        read_panel(csv)


def test_a_panels_series_each_lose_a_last_row_inside_their_last_step(tmp_path: Path) -> None:
    csv = tmp_path / "panel.csv"
    hours = pd.date_range("2024-01-01", periods=30, freq="h").strftime("%Y-%m-%d %H:%M").tolist()
    frame = pd.concat([pd.DataFrame({"id": "a", "time": [*hours, "2024-01-02 05:20"], "v": np.arange(31.0)}),
                       pd.DataFrame({"id": "b", "time": hours, "v": np.arange(30.0)}),
                       pd.DataFrame({"id": "c", "time": [*hours, "2024-01-02 05:45"], "v": np.arange(31.0)})])
    frame.to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="time", id_col="id")
    assert [len(s.frame) for s in panel.series] == [30, 30, 30]
    assert panel.notes[0].endswith("2 series' last rows inside the step of 'h' that the row before starts, a part of "
                                   "a step, left out (line 32, 2024-01-02 05:20:00)")


def test_a_typical_year_file_going_back_a_few_years_at_a_month_is_named_as_such(tmp_path: Path) -> None:
    csv = tmp_path / "tmy.csv"
    hours = [*pd.date_range("2001-01-30", "2001-01-31 23:00", freq="h"), *pd.date_range("1995-02-01", periods=24,
                                                                                        freq="h")]
    pd.DataFrame({"date": [h.strftime("%Y-%m-%d %H:%M") for h in hours], "temp": np.arange(72.0)}).to_csv(csv,
                                                                                                       index=False)
    with pytest.raises(DataError, match=r"tmy.csv: line 50: timestamp 1995-02-01 00:00:00 comes before the previous "
                                        r"row's 2001-01-31 23:00:00; it goes on from that day in another year \(1995\): "
                                        r"a typical-year file \(TMY\) joins months of different years; give every row "
                                        r"one year to read it as one year$"):
        read_panel(csv)
    hours[48:] = pd.date_range("2001-01-20", periods=24, freq="h")  # back ten days in the same year: sorted
    pd.DataFrame({"date": [h.strftime("%Y-%m-%d %H:%M") for h in hours], "temp": np.arange(72.0)}).to_csv(csv,
                                                                                                       index=False)
    with pytest.raises(DataError, match=r"tmy.csv: line 2: timestamp 2001-01-30 00:00:00 follows 2001-01-20 "
                                        r"23:00:00, but the inferred frequency 'h' expects 2001-01-21 00:00:00"):
        read_panel(csv)  # read in time order: ten days missing


def test_a_title_below_the_data_with_more_fields_is_left_out(tmp_path: Path) -> None:
    """The Melbourne temperatures as tutorials ship them: the title repeated below a blank line, its commas making
    more fields than the rows have; a longer row amid the data is still refused."""
    days = pd.date_range("1981-01-01", periods=30, freq="D")
    title = "Daily minimum temperatures in Melbourne, Australia, 1981-1990"
    rows = "".join(f'"{d:%Y-%m-%d}",{10 + i % 7}.5\n' for i, d in enumerate(days))
    csv = tmp_path / "daily-minimum-temperatures.csv"
    csv.write_text(f'"Date","{title}"\n{rows}\n{title}\n')
    panel = read_panel(csv)
    assert panel.series[0].frame[title].tolist() == [10 + i % 7 + 0.5 for i in range(30)]
    assert panel.notes == (f"{csv}: detected 1 line(s) of more fields below the data left out "
                           f"({title[:60]!r}), timestamps in column 'Date'",)
    csv.write_text(f'"Date","{title}"\n{rows}\n{title}\n\n\n')  # blank lines after the title
    again = read_panel(csv)
    pd.testing.assert_frame_equal(again.series[0].frame, panel.series[0].frame)
    assert again.notes == panel.notes
    lines = rows.splitlines(keepends=True)
    csv.write_text(f'"Date","{title}"\n' + "".join(lines[:8]) + "1981-01-09,1,2\n" + "".join(lines[9:]))
    with pytest.raises(DataError, match=r"cannot read as CSV \(Error tokenizing data. C error: Expected 2 fields in "
                                        r"line 10, saw 3\)"):
        read_panel(csv)


def test_readings_marked_doubtful_by_a_question_mark_are_read_as_their_numbers(tmp_path: Path) -> None:
    """DataMarket's Melbourne temperatures write three winter readings ``?0.2``; a ``?`` alone is UCI's missing
    cell, and a ``?`` before a word is no number."""
    days = pd.date_range("1982-07-01", periods=30, freq="D")
    cells = [f"{5 + i % 4}.5" for i in range(30)]
    cells[19:21] = ["?0.2", "?-0.8"]
    csv = tmp_path / "temps.csv"
    csv.write_text('"Date","Temp"\n' + "".join(f'"{d:%Y-%m-%d}",{c}\n' for d, c in zip(days, cells)))
    panel = read_panel(csv)
    expected = [5 + i % 4 + 0.5 for i in range(30)]
    expected[19:21] = [0.2, -0.8]
    assert panel.series[0].frame["Temp"].tolist() == expected
    assert panel.notes[0].endswith("2 reading(s) marked doubtful by a '?' before them (?0.2) read as their numbers "
                                   "in column 'Temp'")
    cells[5] = "?"
    csv.write_text('"Date","Temp"\n' + "".join(f'"{d:%Y-%m-%d}",{c}\n' for d, c in zip(days, cells)))
    assert read_panel(csv, fill="interpolate").series[0].frame["Temp"].iloc[[5, 19]].tolist() == [6.5, 0.2]
    cells[5] = "?high"
    csv.write_text('"Date","Temp"\n' + "".join(f'"{d:%Y-%m-%d}",{c}\n' for d, c in zip(days, cells)))
    with pytest.raises(DataError, match=r"line 7: column 'Temp' has non-numeric value '\?high'"):
        read_panel(csv)


@pytest.mark.parametrize("sep, decimal", [(",", "."), (";", ",")])
def test_a_header_repeated_where_files_were_joined_is_left_out(sep: str, decimal: str, tmp_path: Path) -> None:
    """``cat jan.csv feb.csv > all.csv``: February's header inside the data, left out; lines named as in the file."""
    hours = pd.date_range("2021-01-31", periods=48, freq="h")
    frame = pd.DataFrame({"date": hours.strftime("%Y-%m-%d %H:%M:%S"), "load": np.arange(48) + 0.5})
    csv = tmp_path / "all.csv"
    halves = [frame.iloc[:24].to_csv(index=False, sep=sep, decimal=decimal),
              frame.iloc[24:].to_csv(index=False, sep=sep, decimal=decimal)]
    csv.write_text("".join(halves))
    panel = read_panel(csv)
    assert panel.series[0].frame["load"].tolist() == list(np.arange(48) + 0.5)
    assert panel.series[0].index.equals(pd.DatetimeIndex(hours, name="date", freq=None))
    assert f"1 row(s) repeating the header left out (line 26: files joined end to end)" in panel.notes[0]
    frame.loc[30, "load"] = np.nan
    csv.write_text("".join([halves[0], frame.iloc[24:].to_csv(index=False, sep=sep, decimal=decimal)]))
    with pytest.raises(DataError, match=r"line 33: column 'load' is empty or NaN"):
        read_panel(csv)


def test_an_unquoted_separator_in_the_first_row_is_refused_not_shifted(tmp_path: Path) -> None:
    """``2021-01-01,1.2,sensor check, ok``: pandas would take the dates for row names and read 'value' as the
    dates; R's row names, a field more on every row, are still read."""
    days = pd.date_range("2021-01-01", periods=30, freq="D").strftime("%Y-%m-%d")
    csv = tmp_path / "log.csv"
    csv.write_text("date,value,comment\n" + "".join(f"{d},{k}.5,{'sensor check, ok' if k == 0 else ''}\n"
                                                    for k, d in enumerate(days)))
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 2 has 4 fields where the header names 3, line 3 has 3; quote the cells "
                              f"that hold the separator (','), or name every column in the header")
    csv.write_text('"date","value"\n' + "".join(f'"{k + 1}","{d}",{k}.5\n' for k, d in enumerate(days)))
    panel = read_panel(csv)
    assert panel.series[0].frame["value"].tolist() == [k + 0.5 for k in range(30)]

def test_months_written_with_a_year_of_the_century(tmp_path: Path) -> None:
    """The shampoo sales as tutorials ship them (``"1-01",266.0`` .. ``"3-12",646.9``: months of years 1 to 3) and
    two-digit years across a century (``98-11`` .. ``99-02``); month-year cells (``01-05`` .. ``12-05``, ``01-06``),
    which go back read year-month; neither where both orders rise."""
    csv = tmp_path / "shampoo.csv"
    body = "".join(f'"{k // 12 + 1}-{k % 12 + 1:02d}",{100.0 + k}\n' for k in range(36))
    csv.write_text(f'"Month","Sales of shampoo over a three year period"\n{body}')
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "MS" and frame.index[0] == pd.Timestamp("2001-01-01") and len(frame) == 36
    assert frame.index[-1] == pd.Timestamp("2003-12-01") and frame.iloc[-1, 0] == 135.0
    assert panel.notes[0].endswith("months written year-month, years of the century (1-01 .. 3-12: 2001-01 .. "
                                   "2003-12)")
    csv.write_text("month,sales\n" + "".join(f"{m},{k}\n" for k, m in enumerate(["98-11", "98-12", "99-01", "99-02"])))
    assert read_panel(csv).series[0].frame.index[2] == pd.Timestamp("1999-01-01")
    csv.write_text("month,sales\n" + "".join(f"{k % 12 + 1:02d}-{5 + k // 12:02d},{k}\n" for k in range(14)))
    panel = read_panel(csv)  # month-year: 01-05 .. 12-05, 01-06, 02-06
    assert panel.series[0].frame.index[12] == pd.Timestamp("2006-01-01") and panel.freq == "MS"
    assert panel.notes[0].endswith("months written month-year, years of the century (01-05 .. 02-06: 2005-01 .. "
                                   "2006-02)")
    csv.write_text("month,sales\n01-01,1\n01-02,2\n01-03,3\n")  # both orders rise: neither is taken
    with pytest.raises(DataError, match=r"\(01-01 .. 01-03\) increase read day-first and month-first"):
        read_panel(csv)


def test_a_title_alone_below_the_data_is_left_out(tmp_path: Path) -> None:
    """The airline passengers as tutorials ship them: the value column's title, with digits (``Jan 49 ? Dec 60``),
    repeated alone below a blank line; a last row of a date and no values is a month not yet reported."""
    months = pd.date_range("1949-01-01", periods=24, freq="MS")
    title = "International airline passengers: monthly totals in thousands. Jan 49 ? Dec 60"
    csv = tmp_path / "international-airline-passengers.csv"
    body = "".join(f'"{m:%Y-%m}",{112 + i}\n' for i, m in enumerate(months))
    csv.write_text(f'"Month","{title}"\n{body}\n"{title}"\n')
    panel = read_panel(csv)
    assert panel.series[0].frame[title].tolist() == [112.0 + i for i in range(24)]
    assert panel.notes == (f"{csv}: detected 1 row(s) below the data left out ({title[:40]!r}), timestamps in the "
                           f"first column, 'Month'",)
    csv.write_text(f'"Month","{title}"\n{body}"1951-01",\n')  # a month not yet reported: left out
    panel = read_panel(csv)
    assert len(panel.series[0].frame) == 24 and panel.notes[0].endswith(
        f"1 row(s) at the end without values in {title!r} (not yet reported) left out (from line 26)")


def test_the_utc_column_of_two_timestamp_columns_is_the_timestamps(tmp_path: Path) -> None:
    """Open Power System Data's ``utc_timestamp,cet_cest_timestamp,...``: the UTC column is read, the local one
    left out; a third column of dates is left out too."""
    hours = pd.date_range("2015-01-01", periods=48, freq="h", tz="UTC")
    local = hours.tz_convert("Europe/Brussels")
    csv = tmp_path / "time_series_60min_singleindex.csv"
    pd.DataFrame({"utc_timestamp": hours.strftime("%Y-%m-%dT%H:%M:%SZ"),
                  "cet_cest_timestamp": local.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  "DE_load_actual_entsoe_transparency": np.arange(48.0),
                  "published": local.strftime("%d/%m/%Y")}).to_csv(csv, index=False)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.timestamp_col == "utc_timestamp" and frame.index[0] == hours[0]
    assert list(frame.columns) == ["DE_load_actual_entsoe_transparency"]
    assert panel.notes[0].startswith(f"{csv}: detected timestamps in column 'utc_timestamp', column(s) of other "
                                     f"timestamps left out ('cet_cest_timestamp', 'published')")
    with pytest.raises(DataError, match=r"column 'cet_cest_timestamp' has non-numeric value '2015-01-01T01:00:00"):
        read_panel(csv, columns=["cet_cest_timestamp", "DE_load_actual_entsoe_transparency"])


def test_rows_at_the_end_without_values_are_left_out_as_not_yet_reported(tmp_path: Path) -> None:
    """ENTSO-E's load export for a year asked before its end: the actual load is ``N/A`` from the last quarter
    hour reported on, the day-ahead forecast goes on; a gap amid the data is still refused."""
    starts = pd.date_range("2023-01-01", periods=40, freq="15min")
    actual = [f"{50000 + k}" for k in range(36)] + ["N/A"] * 4
    csv = tmp_path / "Total Load - Day Ahead _ Actual_202301010000-202401010000.csv"
    csv.write_text('"Time (CET/CEST)","Day-ahead Total Load Forecast [MW] - BZN|DE-LU","Actual Total Load [MW] - '
                   'BZN|DE-LU"\n' + "".join(f'"{s:%d.%m.%Y %H:%M} - {s + pd.Timedelta("15min"):%d.%m.%Y %H:%M}",'
                                            f'"{49000 + k}","{a}"\n' for k, (s, a) in enumerate(zip(starts, actual))))
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert len(frame) == 36 and frame.index[-1] == starts[35] and frame.iloc[-1].tolist() == [49035.0, 50035.0]
    assert panel.notes[0].endswith("4 row(s) at the end without values in 'Actual Total Load [MW] - BZN|DE-LU' (not "
                                   "yet reported) left out (from line 38)")
    assert len(read_panel(csv, fill="ffill").series[0].frame) == 40  # a fill asked for fills them
    csv.write_text(csv.read_text().replace('"50020"', '"N/A"'))  # line 22
    with pytest.raises(DataError, match=r"line 22: column 'Actual Total Load \[MW\] - BZN\|DE-LU' holds 'N/A', a "
                                        r"missing value; fill the gap or pass data.fill=ffill\|interpolate"):
        read_panel(csv)


def test_each_series_ends_at_its_last_reported_row(tmp_path: Path) -> None:
    days = pd.date_range("2024-01-01", periods=20, freq="D").strftime("%Y-%m-%d")
    rows = [(name, d, "" if name == "b" and k >= 17 else k) for name in ("a", "b") for k, d in enumerate(days)]
    csv = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["unique_id", "date", "y"]).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert [len(s.frame) for s in panel.series] == [20, 17]
    assert panel.notes[0].endswith("3 row(s) at the end of 1 series without values in 'y' (not yet reported) left "
                                   "out (from line 39)")


@pytest.mark.parametrize("per_year,freq,last", [(12, "MS", "1960-12-01"), (4, "QS-JAN", "1984-10-01")])
def test_years_with_their_fraction_passed_are_read_as_months_or_quarters(tmp_path: Path, per_year: int, freq: str,
                                                                        last: str) -> None:
    """Rdatasets' CSVs of R's time series (``rownames,time,value`` / ``2,1949.08333333333,118``), as statsmodels'
    ``get_rdataset`` reads them."""
    start, rows = (1949, 144) if per_year == 12 else (1960, 100)
    times = [start + k / per_year for k in range(rows)]
    csv = tmp_path / "AirPassengers.csv"
    csv.write_text('"rownames","time","value"\n' + "".join(f"{k + 1},{t!r},{100 + k}\n" for k, t in enumerate(times)))
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == freq and frame.index[0] == pd.Timestamp(f"{start}-01-01")
    assert frame.index[-1] == pd.Timestamp(last) and frame["value"].iloc[-1] == 100.0 + rows - 1
    what = "months" if per_year == 12 else "quarters"
    assert (f"years with their fraction passed ({start}.0 .. {times[-1]!r}), read as {what} ({times[-1]!r} is {last})"
            in panel.notes[0])
    csv.write_text("time,value\n" + "".join(f"{1949 + k / 10 + 0.013},{k}\n" for k in range(30)))
    with pytest.raises(DataError, match=r"column 'time' holds numbers \(1949.013 .. 1951.913\), not dates"):
        read_panel(csv)


@pytest.mark.parametrize("tickers,names", [(["AAPL"], ["Close", "Volume"]),
                                           (["AAPL", "MSFT"], ["Close_AAPL", "Close_MSFT", "Volume_AAPL",
                                                               "Volume_MSFT"])])
def test_pandas_levels_of_columns_name_the_columns(tmp_path: Path, tickers: list[str], names: list[str]) -> None:
    """yfinance's download written by ``to_csv``: ``Price,Close,...`` / ``Ticker,AAPL,...`` / ``Date,,...``."""
    days = pd.bdate_range("2024-01-02", periods=30, tz="UTC")
    columns = pd.MultiIndex.from_product([["Close", "Volume"], tickers], names=["Price", "Ticker"])
    values = np.arange(30 * len(columns), dtype=float).reshape(30, len(columns))
    csv = tmp_path / "prices.csv"
    pd.DataFrame(values, index=pd.Index(days, name="Date"), columns=columns).to_csv(csv)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.timestamp_col == "Date" and list(frame.columns) == names
    np.testing.assert_array_equal(frame.to_numpy(), values)
    assert panel.notes[0].startswith(f"{csv}: detected 2 row(s) under the header of pandas' levels of columns "
                                     f"('Ticker' ..), joined into the columns' names ({', '.join(names[:3])}")


def _ons(tmp_path: Path, years: bool = True) -> Path:
    """The Office for National Statistics' time series download: lines of what the series is, then its values by
    year, quarter and month."""
    above = ('"Title","CPIH ANNUAL RATE 00: ALL ITEMS 2015=100"\n"CDID","L55O"\n"Source dataset ID","MM23"\n'
             '"PreUnit",""\n"Unit","%"\n"Release date","15-11-2023"\n"Next release","13 December 2023"\n'
             '"Important notes",""\n')
    months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    rows = [f'"{y}","{y - 2000}.5"\n' for y in (2020, 2021)] if years else []
    rows += [f'"{y} Q{q}","{q}.0"\n' for y in (2020, 2021) for q in range(1, 5)] if years else []
    rows += [f'"{y} {m}","{k + 12 * (y - 2020)}.0"\n' for y in (2020, 2021) for k, m in enumerate(months)]
    csv = tmp_path / "series-151123.csv"
    csv.write_text(above + "".join(rows))
    return csv


@pytest.mark.parametrize("years", [True, False])
def test_an_ons_series_is_read_by_its_finest_period(tmp_path: Path, years: bool) -> None:
    csv = _ons(tmp_path, years)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "MS" and list(frame.columns) == ["CPIH ANNUAL RATE 00: ALL ITEMS 2015=100"]
    assert frame.index[0] == pd.Timestamp("2020-01-01") and frame.iloc[:, 0].tolist() == [float(k) for k in range(24)]
    coarser = ", 10 row(s) of coarser periods (years, quarters) left out" if years else ""
    assert panel.notes[0].startswith(f"{csv}: detected the series by month in column 'Title' below 7 line(s) of what "
                                     f"it is{coarser}")
    csv.write_text(csv.read_text().replace('"2020 JAN","0.0"', '"2020 JAN",""'))  # the file's lines in messages
    line = 19 if years else 9
    with pytest.raises(DataError, match=rf"line {line}: column 'CPIH ANNUAL RATE 00: ALL ITEMS 2015=100' is empty"):
        read_panel(csv)


def test_years_alone_are_no_stacked_periods(tmp_path: Path) -> None:
    csv = tmp_path / "years.csv"
    csv.write_text("Year,value\n" + "".join(f"{y},{y - 1990}\n" for y in range(1990, 2020)))
    panel = read_panel(csv)
    assert panel.timestamp_col == "Year" and len(panel.series[0].frame) == 30


def test_a_title_holding_the_separator_above_the_header_is_left_out(tmp_path: Path) -> None:
    """The EIA's browser download: a title with a comma (two fields, as the data has), its address and source."""
    months = pd.date_range("2001-01-01", periods=30, freq="MS")[::-1]
    csv = tmp_path / "Net_generation_for_all_sectors.csv"
    csv.write_text("Net generation for all sectors, monthly\nhttps://www.eia.gov/electricity/data/browser/#/topic/"
                   "0?agg=2,0,1\nSource: U.S. Energy Information Administration\nmonth,United States : all fuels\n"
                   + "".join(f"{m:%b %Y},{300 + k}\n" for k, m in enumerate(months)))
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert frame.index[0] == pd.Timestamp("2001-01-01") and frame.iloc[-1, 0] == 300.0 and len(frame) == 30
    assert panel.notes[0].startswith(f"{csv}: detected 3 line(s) of another number of fields above the header left "
                                     f"out (Net generation for all sectors, monthly)")
    csv.write_text("date,value\n2020-01-01,1\n" + "".join(f"2020-01-{d:02d},{d}\n" for d in range(2, 30)))
    assert len(read_panel(csv).series[0].frame) == 29  # a first data line with digits is no title


@pytest.mark.parametrize("per_year,freq", [(4, "QS-JAN"), (12, "MS")])
def test_periods_after_a_colon_in_a_column_named_dates(tmp_path: Path, per_year: int, freq: str) -> None:
    """gretl's and Stata's results: ``dates, cpi`` / ``1950:1, 28.980`` (quarters; months up to 12)."""
    csv = tmp_path / "arima111_forecasts.csv"
    cells = [f"{1950 + k // per_year}:{k % per_year + 1}" for k in range(30)]
    csv.write_text("dates, cpi\n" + "".join(f"{c}, {28 + k / 10:.3f}\n" for k, c in enumerate(cells)))
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.timestamp_col == "dates" and panel.freq == freq and frame.index[0] == pd.Timestamp("1950-01-01")
    assert frame.index[per_year] == pd.Timestamp("1951-01-01") and frame["cpi"].iloc[-1] == pytest.approx(30.9)
    what = "quarters" if per_year == 4 else "months"
    assert f"{what} after a colon ({cells[0]} .. {cells[-1]})" in panel.notes[0]


@pytest.mark.parametrize("written", ["%Y-%m-%d", "%d.%m.%Y %H:%M"])
def test_a_row_without_a_timestamp_is_named_as_such(tmp_path: Path, written: str) -> None:
    dates = pd.date_range("2020-01-01", periods=30, freq="D")
    frame = pd.DataFrame({"date": dates.strftime(written), "v": np.arange(30.0)})
    frame.loc[12, "date"] = ""
    csv = tmp_path / "gap.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == f"{csv}: line 14: no timestamp in column 'date'; write the row's time, or remove the row"
