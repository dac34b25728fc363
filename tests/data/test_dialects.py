"""CSVs as people export them: separators, number marks, missing-value codes, date orders, time zones, Unix times
and trading days, each read into the same series as the plain file (issue #39)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.dialect import WHITESPACE, Dialect, dialect_from_settings, sniff_sep
from forecast.data.errors import DataError
from forecast.data.hints import PREDICT
from forecast.data.reader import Panel, read_panel
from forecast.data.regular import offset
from forecast.data.spec import DataSpec
from forecast.data.time_features import future_index, time_marks
from tests.conftest import ETTH1


def etth1(rows: int = 300) -> pd.DataFrame:
    return pd.read_csv(ETTH1, nrows=rows)


def reference(rows: int = 300) -> pd.DataFrame:
    """ETTh1's first rows as the plain reader gives them."""
    return read_panel(ETTH1).series[0].frame.iloc[:rows]


def berlin_hours(start: str, end: str) -> pd.DatetimeIndex:
    return pd.date_range(start, end, freq="h", tz="Europe/Berlin")


def hourly(index: pd.DatetimeIndex, stamps: list[str]) -> pd.DataFrame:
    t = np.arange(len(index), dtype=np.float64)
    return pd.DataFrame({"date": stamps, "load": 50 + 10 * np.sin(2 * np.pi * t / 24), "OT": 20 + np.cos(t / 7)})


# --------------------------------------------------------------------------------- text of the file
def test_semicolons_and_decimal_commas_are_detected(tmp_path: Path) -> None:
    csv = tmp_path / "eu.csv"
    etth1().to_csv(csv, sep=";", decimal=",", index=False)
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())
    assert panel.notes == (f"{csv}: detected semicolon-separated columns, decimal commas",)


def test_decimal_commas_are_detected_beside_numbers_written_with_an_exponent(tmp_path: Path) -> None:
    """A spreadsheet writes 0.00001 as ``1E-05``: no decimals to mark, so no sign against the commas."""
    csv = tmp_path / "LD.txt"
    csv.write_text('"";"MT_001"\n' + "".join(f'"2011-01-01 {h:02d}:00:00";{"1E-05" if h % 5 else f"{h},5"}\n'
                                               for h in range(24)))
    panel = read_panel(csv)
    assert panel.series[0].frame["MT_001"].tolist() == [1e-05 if h % 5 else h + 0.5 for h in range(24)]
    assert "decimal commas" in panel.notes[0]


def test_explicit_separator_and_decimal_read_the_same(tmp_path: Path) -> None:
    csv = tmp_path / "eu.csv"
    etth1().to_csv(csv, sep=";", decimal=",", index=False)
    settings = dialect_from_settings(sep="semicolon", decimal="comma")
    assert settings == Dialect(sep=";", decimal=",")
    panel = read_panel(csv, dialect=settings)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())
    assert panel.notes == ()


def test_thousands_commas_are_detected(tmp_path: Path) -> None:
    frame = etth1()
    frame["OT"] = (frame["OT"] * 1000).map(lambda v: f"{v:,.3f}")
    assert frame["OT"].str.contains(",").any()
    csv = tmp_path / "th.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv)
    np.testing.assert_allclose(panel.series[0].frame["OT"], reference()["OT"] * 1000, rtol=1e-7)
    assert panel.notes == (f"{csv}: detected thousands separated by commas",)


def test_dots_in_a_file_of_decimal_commas_group_thousands(tmp_path: Path) -> None:
    """Where numbers are written 1,5 a dot can only group thousands: 1.037 is 1037, 10.204,09 is 10204.09."""
    frame = etth1()
    big = (frame["OT"] * 1000).round(2)
    frame["OT"] = big.map(lambda v: f"{v:,.2f}".replace(",", "_").replace(".", ",").replace("_", "."))
    frame["count"] = (frame["HUFL"].abs() * 300).round().astype(int).map(lambda v: f"{v:,}".replace(",", "."))
    assert frame["OT"].str.contains(r"\d\.\d{3},").any() and frame["count"].str.fullmatch(r"\d\.\d{3}").any()
    csv = tmp_path / "de.csv"
    frame.to_csv(csv, sep=";", decimal=",", index=False)
    panel = read_panel(csv)
    got = panel.series[0].frame
    np.testing.assert_allclose(got["OT"], big, rtol=1e-12)
    np.testing.assert_array_equal(got["count"], (reference()["HUFL"].abs() * 300).round())
    pd.testing.assert_frame_equal(got.drop(columns=["OT", "count"]), reference().drop(columns="OT"))
    assert panel.notes == (f"{csv}: detected semicolon-separated columns, decimal commas, thousands separated by "
                           f"dots",)


def test_decimal_commas_keep_missing_words_and_codes(tmp_path: Path) -> None:
    frame = etth1(60)
    written = frame["OT"].map(lambda v: f"{v:.3f}".replace(".", ",")).astype(object)
    written[[3, 5, 7]] = ["NaN", "-200,0", ""]
    frame["OT"] = written
    csv = tmp_path / "holes.csv"
    frame.to_csv(csv, sep=";", decimal=",", index=False)
    panel = read_panel(csv, fill="ffill", dialect=Dialect(na_values=("-200",)))
    got = panel.series[0].frame["OT"].to_numpy()
    want = np.array([float(c.replace(",", ".")) if c not in ("NaN", "-200,0", "") else np.nan for c in written])
    np.testing.assert_array_equal(got, pd.Series(want).ffill().to_numpy())
    assert panel.notes[-1] == f"{csv}: 3 missing cell(s) filled by ffill (1 of them written as a missing-value code (-200))"
    frame.loc[9, "OT"] = "warm"
    frame.to_csv(csv, sep=";", decimal=",", index=False)
    with pytest.raises(DataError, match=r"line 11: column 'OT' has non-numeric value 'warm'"):
        read_panel(csv, fill="ffill")
    frame.loc[9, "OT"] = "nan(1)"  # a NaN Arrow's cast reads and a float cast does not
    frame.to_csv(csv, sep=";", decimal=",", index=False)
    with pytest.raises(DataError, match=r"line 11: column 'OT' has non-numeric value 'nan\(1\)'"):
        read_panel(csv, fill="ffill", dialect=Dialect(sep=";", decimal=","))


@pytest.mark.parametrize("space,decimal,sep", [("\u202f", ",", ";"), (" ", ",", ";"), ("\u00a0", ".", ",")])
def test_thousands_grouped_by_spaces_are_read(space: str, decimal: str, sep: str, tmp_path: Path) -> None:
    """French exports: 1 234,56 (a narrow no-break space, a space); SI style 1 234.56 (a no-break space)."""
    frame = etth1()
    big = (frame["OT"] * 1000).round(2)
    frame["OT"] = big.map(lambda v: f"{v:,.2f}".replace(",", "_").replace(".", decimal).replace("_", space))
    assert frame["OT"].str.contains(space).any()
    csv = tmp_path / "fr.csv"
    frame.to_csv(csv, sep=sep, decimal=decimal, index=False)
    panel = read_panel(csv)
    np.testing.assert_allclose(panel.series[0].frame["OT"], big, rtol=1e-12)
    pd.testing.assert_frame_equal(panel.series[0].frame.drop(columns="OT"), reference().drop(columns="OT"))
    marks = "decimal commas, thousands separated by spaces" if decimal == "," else "thousands separated by spaces"
    assert panel.notes[0].endswith(marks)


def test_an_aligned_text_table_reads_as_its_csv(tmp_path: Path) -> None:
    """Columns padded with spaces, timestamps written with a space between date and time (one field more than
    the header names)."""
    frame = etth1()
    path = tmp_path / "aligned.txt"
    path.write_text(frame.to_string(index=False) + "\n")
    panel = read_panel(path)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference(), rtol=1e-6)
    assert panel.notes == (f"{path}: detected whitespace-separated columns",)
    assert read_panel(path, dialect=dialect_from_settings(sep="whitespace")).notes == ()
    lines = path.read_text().splitlines()
    lines[8] = lines[8].rsplit(" ", 1)[0] + " warm"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"aligned.txt: line 9: column 'OT' has non-numeric value 'warm'"):
        read_panel(path)


def test_rs_write_table_with_row_names(tmp_path: Path) -> None:
    """R's ``write.table``: quoted names, one fewer than the fields of a row (the row names)."""
    frame = etth1()
    path = tmp_path / "r.txt"
    frame.index = (frame.index + 1).astype(str)
    frame.to_csv(path, sep=" ", quoting=2, index_label=False)  # quote every text field, as R does
    assert path.read_text().splitlines()[1].startswith('"1" "2016-07-01 00:00:00" ')
    panel = read_panel(path)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())
    assert panel.notes[0] == f"{path}: detected whitespace-separated columns, an unnamed column of row numbers left " \
                             f"out ('Unnamed: 0', the index pandas writes)"


def test_a_headerless_text_table_under_comments_dated_by_its_first_columns(tmp_path: Path) -> None:
    """NOAA's monthly CO2 layout: ``#`` lines, then year, month, decimal date and values padded with spaces."""
    months = pd.date_range("1958-03-01", periods=40, freq="MS")
    co2 = 315 + 0.1 * np.arange(40)
    rows = [f"  {d.year}  {d.month:3d}   {d.year + (d.month - 0.5) / 12:9.4f}   {v:7.2f}     -1   -9.99"
            for d, v in zip(months, co2)]
    path = tmp_path / "co2_mm_mlo.txt"
    path.write_text("# USE OF NOAA GML DATA\n#\n#  decimal  monthly\n" + "\n".join(rows) + "\n")
    panel = read_panel(path, header=False)
    series = panel.series[0]
    assert series.index.equals(pd.DatetimeIndex(months, name="date")) and panel.freq == "MS"
    np.testing.assert_allclose(series.frame["3"], co2)
    assert panel.notes[0] == f"{path}: detected whitespace-separated columns, 3 comment line(s) above the header " \
                             f"left out, timestamps from columns '0', '1'"


def test_excels_separator_line_names_the_separator(tmp_path: Path) -> None:
    csv = tmp_path / "excel.csv"
    csv.write_text("sep=;\n" + etth1().to_csv(sep=";", decimal=",", index=False))
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())
    assert panel.notes == (f"{csv}: detected Excel's separator line sep=; (semicolon-separated columns), decimal "
                           f"commas",)


def test_a_dot_that_groups_no_thousands_among_decimal_commas_is_refused(tmp_path: Path) -> None:
    frame = etth1()
    frame["OT"] = frame["OT"].map(lambda v: f"{v:.2f}")  # dots, in a file whose other numbers have commas
    csv = tmp_path / "mixed.csv"
    frame.to_csv(csv, sep=";", decimal=",", index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 2: column 'OT' has {frame['OT'][0]!r} where the numbers have "
                              f"decimal commas, and that dot groups no thousands; write every number with one "
                              f"decimal mark, or pass data.decimal=dot if the dots are the decimals")


def test_quoted_decimal_commas_in_a_comma_separated_file(tmp_path: Path) -> None:
    """"0,951" groups no thousands, so the commas of the column are decimal marks, "1,426" too."""
    days = pd.date_range("2020-01-01", periods=60, freq="D")
    values = 1 + 0.3 * np.sin(np.arange(60) / 5)
    cells = [f"{v:.3f}".replace(".", ",") for v in values]
    assert "0," in "".join(cells) and any(c.startswith("1,") for c in cells)
    csv = tmp_path / "q.csv"
    csv.write_text("date,ratio\n" + "".join(f'{d:%Y-%m-%d},"{c}"\n' for d, c in zip(days, cells)))
    panel = read_panel(csv)
    np.testing.assert_allclose(panel.series[0].frame["ratio"], values.round(3), rtol=1e-12)
    assert panel.notes == (f"{csv}: detected decimal commas",)


def test_n_a_is_missing_and_a_word_names_its_code_and_the_columns(tmp_path: Path) -> None:
    frame = etth1(40)
    frame["OT"] = frame["OT"].astype(str)
    frame.loc[3, "OT"], frame.loc[5, "OT"], frame["state"] = "n/a", "#N/A", ["on", "off"] * 20
    csv = tmp_path / "words.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, columns=list(frame.columns[1:]))
    assert str(err.value) == (f"{csv}: line 2: column 'state' has non-numeric value 'on'; every data column must be "
                              f"numeric; if 'on' marks a missing value, pass data.na_values=[on], or leave the column "
                              f"out: data.columns=[the columns to use]")
    with pytest.raises(DataError, match=r"line 5: column 'OT' holds 'n/a', a missing value; fill the gap or pass"):
        read_panel(csv)  # the column of on and off is left out as categories: the first missing cell stops
    panel = read_panel(csv, columns=list(frame.columns[1:-1]), fill="interpolate")  # n/a and #N/A: missing
    got = panel.series[0].frame["OT"]
    ref = reference(40)["OT"]
    assert got.notna().all() and got.iloc[3] == pytest.approx((ref.iloc[2] + ref.iloc[4]) / 2)


def test_a_question_mark_is_missing_as_in_the_uci_household_power_file(tmp_path: Path) -> None:
    """``Date;Time;Global_active_power;...`` with ``?`` on every value of a missing minute."""
    minutes = pd.date_range("2006-12-16 17:24", periods=60, freq="min")
    power = [f"{1 + k / 100:.3f}" for k in range(60)]
    power[7] = "?"
    csv = tmp_path / "household_power_consumption.txt"
    volts = ["?" if p == "?" else "240.1" for p in power]
    csv.write_text("Date;Time;Global_active_power;Voltage\n" + "".join(
        f"{t.day}/{t.month}/{t.year};{t:%H:%M:%S};{p};{v}\n" for t, p, v in zip(minutes, power, volts)))
    with pytest.raises(DataError, match=r"line 9: column 'Global_active_power' holds '\?', a missing value; fill "
                                        r"the gap or pass data.fill=ffill\|interpolate"):
        read_panel(csv)
    frame = read_panel(csv, fill="interpolate").series[0].frame
    assert frame.index[7] == minutes[7] and frame["Global_active_power"].iloc[7] == pytest.approx(1.07)
    assert frame["Voltage"].iloc[7] == pytest.approx(240.1)


def test_a_dot_is_missing_as_in_freds_downloads(tmp_path: Path) -> None:
    months = pd.date_range("1990-01-01", periods=30, freq="MS")
    cells = [f"{5 + k / 10:.1f}" for k in range(30)]
    cells[4] = "."
    csv = tmp_path / "UNRATE.csv"
    csv.write_text("DATE,UNRATE\n" + "".join(f"{m:%Y-%m-%d},{c}\n" for m, c in zip(months, cells)))
    with pytest.raises(DataError, match=r"line 6: column 'UNRATE' holds '\.', a missing value; fill the gap or pass"):
        read_panel(csv)
    assert read_panel(csv, fill="interpolate").series[0].frame["UNRATE"].iloc[4] == pytest.approx(5.4)


def test_spaces_after_the_commas_of_the_header_are_not_part_of_the_names(tmp_path: Path) -> None:
    csv = tmp_path / "spaced.csv"
    days = pd.date_range("2020-01-01", periods=40, freq="D")
    csv.write_text("date, load, temp\n" + "".join(f"{d:%Y-%m-%d}, {i}, {2 * i}\n" for i, d in enumerate(days)))
    frame = read_panel(csv, columns=["load", "temp"]).series[0].frame
    assert list(frame.columns) == ["load", "temp"] and frame["temp"].iloc[3] == 6.0


def test_the_row_numbers_pandas_writes_as_an_unnamed_first_column_are_left_out(tmp_path: Path) -> None:
    csv = tmp_path / "indexed.csv"
    etth1(50).to_csv(csv)  # index=True: a first column headed "" holding 0, 1, 2, ...
    assert csv.read_text().startswith(",date,")
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference(50))
    assert panel.notes == (f"{csv}: detected an unnamed column of row numbers left out ('Unnamed: 0', the "
                           f"index pandas writes)",)
    shuffled = etth1(50)
    shuffled.index = shuffled.index[::-1]  # not row numbers: a column of data
    shuffled.to_csv(csv)
    assert "Unnamed: 0" in read_panel(csv).series[0].frame.columns


def test_an_unnamed_first_column_of_dates_is_the_timestamps(tmp_path: Path) -> None:
    csv = tmp_path / "indexed.csv"
    etth1(50).set_index("date").rename_axis(None).to_csv(csv)  # a frame indexed by time: header ",HUFL,..."
    assert csv.read_text().startswith(",HUFL,")
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference(50))
    assert panel.notes == (f"{csv}: detected timestamps in the unnamed first column, read as 'date' (the index "
                           f"pandas writes)",)
    monthly = tmp_path / "wine.csv"
    pd.Series([15136.0, 16733.0, 20016.0], index=["Jan 1980", "Feb 1980", "Mar 1980"]).to_csv(monthly)
    frame = read_panel(monthly).series[0].frame
    assert list(frame.index) == list(pd.date_range("1980-01-01", periods=3, freq="MS"))
    assert frame.index.name == "date" and list(frame.columns) == ["0"]
    words = etth1(50).set_index("date").rename_axis(None)
    words.index = [f"row {i}" for i in range(50)]  # not dates: the file has no timestamps to find
    words.to_csv(csv)
    with pytest.raises(DataError, match=r"no timestamp column 'date' \(columns: Unnamed: 0, HUFL"):
        read_panel(csv)


def test_swiss_thousands_apostrophes_are_named_and_read_when_set(tmp_path: Path) -> None:
    frame = etth1(40)
    big = (frame["OT"] * 1000).round(1)
    frame["OT"] = big.map(lambda v: f"{v:,.1f}".replace(",", "'"))
    csv = tmp_path / "ch.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError, match="9'919.7 data.thousands=apostrophe"):
        read_panel(csv)
    got = read_panel(csv, dialect=dialect_from_settings(thousands="apostrophe")).series[0].frame["OT"]
    np.testing.assert_allclose(got, big, rtol=1e-12)


def test_a_number_of_no_clear_mark_names_the_options(tmp_path: Path) -> None:
    frame = etth1()
    frame["OT"] = frame["OT"].astype(str)
    frame.loc[3, "OT"] = "1.234,5"
    csv = tmp_path / "odd.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 5: column 'OT' has non-numeric value '1.234,5'; every data column must be "
                              f"numeric (numbers written 1,5 need data.decimal=comma, 30,531.0 data.thousands=comma, "
                              f"9'919.7 data.thousands=apostrophe)")


def test_missing_value_code(tmp_path: Path) -> None:
    frame = etth1()
    frame.loc[5, "HULL"] = -200
    csv = tmp_path / "na.csv"
    frame.to_csv(csv, index=False)
    assert read_panel(csv).series[0].frame["HULL"].iloc[5] == -200  # without the option -200 is a value
    coded = read_panel(csv, dialect=Dialect(na_values=("-200",)))  # the option alone: declared missing, interpolated
    assert coded.notes == (f"{csv}: 1 cell(s) written as a missing-value code (-200) filled by interpolate "
                           f"(data.fill=ffill|interpolate chooses)",)
    expected = (frame["HULL"].iloc[4] + frame["HULL"].iloc[6]) / 2
    assert coded.series[0].frame["HULL"].iloc[5] == pytest.approx(expected)
    filled = read_panel(csv, dialect=dialect_from_settings(na_values=[-200]), fill="ffill").series[0].frame
    assert filled["HULL"].iloc[5] == frame["HULL"].iloc[4]
    pd.testing.assert_frame_equal(filled.drop(index=filled.index[5]), reference().drop(index=filled.index[5]))
    frame.loc[8, "OT"] = None  # an empty cell is not a declared code: still refused without data.fill
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, dialect=Dialect(na_values=("-200",)))
    assert str(err.value) == (f"{csv}: line 10: column 'OT' is empty or NaN; fill the gap or pass "
                              f"data.fill=ffill|interpolate")
    frame["OT"] = None  # nothing to fill from: the remedy is to leave the column out
    frame.to_csv(csv, index=False)
    panel = read_panel(csv, dialect=Dialect(na_values=("-200",)), fill="ffill")  # not asked for: left out
    assert list(panel.series[0].frame.columns) == list(frame.columns[1:-1])
    assert panel.notes[0] == f"{csv}: detected column(s) with no value in any row left out ('OT')"
    with pytest.raises(DataError) as err:  # the target: refused
        read_panel(csv, dialect=Dialect(na_values=("-200",)), keep=["OT"])
    assert str(err.value) == (f"{csv}: column 'OT' is empty or NaN on every row; leave the column out: "
                              f"data.columns=[the columns to use]")


# ------------------------------------------------------------------------------------ date orders
def test_day_first_dates_are_the_only_increasing_order(tmp_path: Path) -> None:
    frame = etth1()
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d/%m/%Y %H:%M")
    csv = tmp_path / "dayfirst.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())
    assert panel.dialect.dayfirst is True
    assert panel.notes[0].startswith(f"{csv}: detected day-first dates (")


def test_month_first_is_kept_for_a_day_first_file_it_fits(tmp_path: Path) -> None:
    """Dates that read increasing both ways are refused, naming the setting that settles them."""
    frame = etth1(24)  # one day: 01/07/2016 00:00 .. 23:00 increases read either way
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d/%m/%Y %H:%M")
    csv = tmp_path / "oneday.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: the dates in column 'date' (01/07/2016 00:00 .. 01/07/2016 23:00) increase "
                              f"read day-first and month-first; pass data.dayfirst=true or data.dayfirst=false")
    assert read_panel(csv, dialect=Dialect(dayfirst=True)).series[0].index[0] == pd.Timestamp("2016-07-01")
    assert read_panel(csv, dialect=Dialect(dayfirst=False)).series[0].index[0] == pd.Timestamp("2016-01-07")


def test_month_starts_written_month_first_read_by_the_evenly_spaced_order(tmp_path: Path) -> None:
    """``1/1/85 .. 12/1/85, 1/1/86`` increases read either way; only month-first gives evenly spaced steps."""
    months = pd.date_range("1985-01-01", periods=30, freq="MS")
    csv = tmp_path / "fred.csv"
    pd.DataFrame({"Date": [f"{d.month}/1/{d.year % 100:02d}" for d in months],
                  "INDPRO": np.arange(30.0)}).to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="Date")
    assert panel.series[0].index.equals(pd.DatetimeIndex(months, name="Date"))
    assert panel.freq == "MS" and panel.dialect.dayfirst is False
    assert f"{csv}: detected month-first dates (2/1/85 is 1985-02-01 00:00:00: the only order giving evenly " \
           f"spaced timestamps)" in panel.notes


def test_the_wrong_order_given_is_named_in_the_refusal(tmp_path: Path) -> None:
    frame = etth1(300)
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%m/%d/%Y %H:%M")
    csv = tmp_path / "us.csv"
    frame.to_csv(csv, index=False)
    assert read_panel(csv).dialect.dayfirst is False
    with pytest.raises(DataError, match=r"cannot parse timestamp '07/13/2016 00:00' in column 'date' day-first"):
        read_panel(csv, dialect=Dialect(dayfirst=True))


def test_date_format(tmp_path: Path) -> None:
    frame = etth1()
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d.%m.%Y %H.%M")
    csv = tmp_path / "dots.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 2: cannot parse timestamp '01.07.2016 00.00' in column 'date'; use ISO "
                              f"format like 2016-07-01 00:00:00, or pass data.date_format='%d.%m.%Y %H:%M' with the "
                              f"file's format")
    panel = read_panel(csv, dialect=Dialect(date_format="%d.%m.%Y %H.%M"))
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())


# ------------------------------------------------------------------------------------- time zones
def test_local_time_with_daylight_saving_needs_the_zone(tmp_path: Path) -> None:
    index = berlin_hours("2021-03-27", "2021-11-01")  # spring's skipped hour and autumn's repeated one
    csv = tmp_path / "dst.csv"
    hourly(index, list(index.strftime("%Y-%m-%d %H:%M:%S"))).to_csv(csv, index=False)
    text = pd.read_csv(csv)["date"]
    assert "2021-03-28 02:00:00" not in set(text) and (text == "2021-10-31 02:00:00").sum() == 2
    repeated = int(np.flatnonzero(text == "2021-10-31 02:00:00")[1]) + 2
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line {repeated}: duplicate timestamp 2021-10-31 02:00:00 (also on line "
                              f"{repeated - 1}, with another 'load'); remove or aggregate duplicates; if the file is in local time with "
                              f"daylight saving, pass data.tz=Europe/Berlin (its zone)")
    panel = read_panel(csv, dialect=Dialect(tz="Europe/Berlin"))
    assert panel.freq == "h" and panel.series[0].index.equals(index.rename("date"))
    with pytest.raises(DataError, match="pass data.tz=Europe/Berlin when training"):
        read_panel(csv, hints=PREDICT)



def test_a_date_repeated_in_october_names_no_time_zone(tmp_path: Path) -> None:
    """Dates without times of day repeat no hour when clocks go back."""
    days = pd.date_range("2021-10-01", periods=60, freq="D").strftime("%Y-%m-%d")
    csv = tmp_path / "days.csv"
    pd.DataFrame({"date": [*days[:31], days[30], *days[31:]], "load": np.arange(61.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value).startswith(f"{csv}: line 33: duplicate timestamp 2021-10-31 00:00:00 (also on line 32, "
                                     f"with another 'load'); remove or aggregate duplicates")
    assert "data.tz" not in str(err.value)

def test_local_time_with_a_gap_and_the_repeated_hour_names_the_gap(tmp_path: Path) -> None:
    """A gap leaves the frequency to be found by steps and calendars: the repeated hour is no month's start."""
    index = berlin_hours("2021-10-20", "2021-11-05")
    csv = tmp_path / "autumn.csv"
    frame = hourly(index, list(index.strftime("%Y-%m-%d %H:%M:%S"))).drop(index=[100])
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, dialect=Dialect(tz="Europe/Berlin"))
    assert str(err.value).startswith(f"{csv}: line 102: timestamp 2021-10-24 05:00:00+02:00 follows 2021-10-24 "
                                     f"03:00:00+02:00, but the inferred frequency 'h' expects")
    panel = read_panel(csv, dialect=Dialect(tz="Europe/Berlin"), fill="interpolate", fill_missing_dates=True)
    assert panel.freq == "h" and panel.series[0].index.equals(index.rename("date"))



@pytest.mark.parametrize("winter, summer", [("CET", "CEST"), ("MEZ", "MESZ")])
def test_zone_abbreviations_after_the_time_are_their_offsets(winter: str, summer: str, tmp_path: Path) -> None:
    """``27.03.2021 00:00 MEZ`` .. ``28.03.2021 03:00 MESZ``: each abbreviation its offset, so the skipped hour is
    no gap; ``CST`` (US Central or China) is no one offset and stays unread."""
    local = pd.date_range("2021-03-27", periods=60, freq="h", tz="Europe/Berlin")
    cells = [t.strftime("%d.%m.%Y %H:%M ") + (summer if t.dst() else winter) for t in local]
    csv = tmp_path / "zeit.csv"
    pd.DataFrame({"Zeit": cells, "Last": np.arange(60.0)}).to_csv(csv, index=False, sep=";")
    panel = read_panel(csv)
    assert panel.freq == "h" and panel.series[0].index.equals(local.tz_convert("UTC").rename("Zeit"))
    assert panel.notes == (f"{csv}: detected semicolon-separated columns, timestamps in the first column, 'Zeit', "
                           f"time zone abbreviations read as their UTC offsets ({winter}, {summer}), timestamps with "
                           f"UTC offsets (+01:00, +02:00), read as UTC",)
    kept = read_panel(csv, dialect=Dialect(tz="Europe/Berlin")).series[0].index
    assert kept.equals(local.rename("Zeit"))
    pd.DataFrame({"date": [c.replace(winter, "CST") for c in cells[:20]], "Last": np.arange(20.0)}).to_csv(
        csv, index=False)
    with pytest.raises(DataError, match=r"line 2: cannot parse timestamp '27.03.2021 00:00 CST'"):
        read_panel(csv)

def test_the_hour_skipped_in_spring_names_the_zone(tmp_path: Path) -> None:
    index = berlin_hours("2021-03-20", "2021-04-10")
    csv = tmp_path / "spring.csv"
    hourly(index, list(index.strftime("%Y-%m-%d %H:%M:%S"))).to_csv(csv, index=False)
    line = int(np.flatnonzero(pd.read_csv(csv)["date"] == "2021-03-28 03:00:00")[0]) + 2
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line {line}: timestamp 2021-03-28 03:00:00 follows 2021-03-28 01:00:00, "
                              f"but the inferred frequency 'h' expects 2021-03-28 02:00:00; 1 row(s) missing: "
                              f"pass data.fill_missing_dates=true with data.fill=ffill|interpolate to add and "
                              f"fill them, or fill the gap in the file; if the file is in local time with "
                              f"daylight saving, pass data.tz=Europe/Berlin (its zone)")
    assert read_panel(csv, dialect=Dialect(tz="Europe/Berlin")).series[0].index.equals(index.rename("date"))


def test_a_local_time_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    stamps = [f"2021-03-28 0{h}:00:00" for h in range(5)]  # 02:00 is skipped in Berlin
    csv = tmp_path / "skip.csv"
    pd.DataFrame({"date": stamps, "OT": np.arange(5.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, dialect=Dialect(tz="Europe/Berlin"))
    assert str(err.value) == (f"{csv}: line 4: timestamp 2021-03-28 02:00:00 does not exist in Europe/Berlin (the "
                              f"clocks skip that hour); remove the row or fix its time")


@pytest.mark.parametrize("tz", [None, "Europe/Berlin", "America/New_York"])
def test_changing_utc_offsets_convert_to_one_zone(tz: str | None, tmp_path: Path) -> None:
    index = berlin_hours("2021-03-27", "2021-04-05")
    csv = tmp_path / "offsets.csv"
    hourly(index, [t.isoformat() for t in index]).to_csv(csv, index=False)
    assert pd.read_csv(csv)["date"].str[-6:].nunique() == 2  # +01:00, then +02:00
    panel = read_panel(csv, dialect=Dialect(tz=tz))
    assert panel.freq == "h" and panel.series[0].index.equals(index.tz_convert(tz or "UTC").rename("date"))
    assert panel.notes == (f"{csv}: detected timestamps with UTC offsets (+01:00, +02:00), read as {tz or 'UTC'}",)


@pytest.mark.parametrize("zone,offsets", [("Europe/Berlin", "+01:00, +02:00"), ("Asia/Kolkata", "+05:30")])
def test_dates_with_utc_offsets_are_read_as_the_local_dates_they_name(zone: str, offsets: str, tmp_path: Path) -> None:
    """A zone-aware daily index as pandas writes it (``2021-03-28 00:00:00+02:00``): in UTC every row would be a day
    early (``2021-03-27 22:00``), and an hour off the daily grid across a change of offset."""
    index = pd.date_range("2021-03-01", "2021-04-30", freq="D", tz=zone)
    csv = tmp_path / "daily.csv"
    hourly(index, [str(t) for t in index]).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.freq == "D" and panel.series[0].index.equals(index.tz_localize(None).rename("date"))
    assert panel.notes == (f"{csv}: detected timestamps with UTC offsets ({offsets}), all at 00:00 local time: read "
                           f"as the local dates they name (data.tz=ZONE reads them in a zone)",)
    in_zone = read_panel(csv, dialect=Dialect(tz=zone))  # the zone given: read in it, as before
    assert in_zone.freq == "D" and in_zone.series[0].index.equals(index.rename("date"))


@pytest.mark.parametrize("freq", ["MS", "QS-JAN"])
def test_months_dated_on_one_day_of_the_month_are_read_as_their_months(freq: str, tmp_path: Path) -> None:
    """A monthly series dated mid-month (``2020-01-15``): pandas names no frequency for it."""
    months = pd.date_range("1990-01-01", periods=60, freq=freq)
    csv = tmp_path / "mid.csv"
    hourly(months, list((months + pd.Timedelta(days=14)).strftime("%Y-%m-%d"))).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.freq == freq and panel.series[0].index.equals(months.rename("date"))
    assert panel.notes == (f"{csv}: detected timestamps all on day 15 of their month, read as their months (MS)",)
    with_gap = hourly(months, list((months + pd.Timedelta(days=14)).strftime("%Y-%m-%d"))).drop(index=30)
    with_gap.to_csv(csv, index=False)
    with pytest.raises(DataError, match=f"line 32: .* but the inferred frequency '{freq}' expects .*; 1 row"):
        read_panel(csv)


def test_a_loggers_timestamps_a_few_seconds_off_its_step_are_read_on_its_grid(tmp_path: Path) -> None:
    grid = pd.date_range("2021-01-01 00:05", periods=500, freq="10min")
    late = pd.to_timedelta(np.random.default_rng(0).integers(0, 5, len(grid)), unit="s")  # 0 to 4 s late
    csv = tmp_path / "logger.csv"
    hourly(grid, list((grid + late).strftime("%Y-%m-%d %H:%M:%S"))).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.freq == "10min" and panel.series[0].index.equals(grid.rename("date"))
    assert panel.notes == (f"{csv}: detected timestamps up to 4 s off a step of 10min, each read as the step it is "
                           f"nearest",)
    hourly(grid, list((grid + late).strftime("%Y-%m-%d %H:%M:%S"))).drop(index=[100, 101]).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 102: timestamp 2021-01-01 17:05:00 follows 2021-01-01 16:35:00, but "
                                        r"the inferred frequency '10min' expects .*; 2 row\(s\) missing"):
        read_panel(csv)
    far = (grid + late).strftime("%Y-%m-%d %H:%M:%S").tolist()
    far[200] = (grid[200] + pd.Timedelta(minutes=3)).strftime("%Y-%m-%d %H:%M:%S")  # 3 of 10 minutes off: refused
    hourly(grid, far).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 202: timestamp 2021-01-02 09:28:00 is 180 s off the steps of 10min "
                                        r"the other timestamps keep to within 4 s; correct its time or remove the row"):
        read_panel(csv)


def test_offsets_on_some_rows_only_are_refused(tmp_path: Path) -> None:
    csv = tmp_path / "some.csv"
    pd.DataFrame({"date": ["2021-01-01 00:00+01:00", "2021-01-01 01:00", "2021-01-01 02:00+01:00"],
                  "OT": [1.0, 2.0, 3.0]}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 3: timestamp '2021-01-01 01:00' in column 'date' has no UTC offset, but "
                              f"line 2 has one ('2021-01-01 00:00+01:00'); give every timestamp an offset or none")


def test_unknown_zone_named() -> None:
    with pytest.raises(DataError, match="data.tz: unknown time zone 'Europe/Paradise'"):
        dialect_from_settings(tz="Europe/Paradise")


# ------------------------------------------------------------------------------------- Unix times
@pytest.mark.parametrize("unit,per_second", [("s", 1), ("ms", 1000)])
def test_unix_times_are_detected_from_their_size(unit: str, per_second: int, tmp_path: Path) -> None:
    frame = etth1()
    seconds = (pd.to_datetime(frame.pop("date")) - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1)
    frame.insert(0, "timestamp", seconds * per_second)
    csv = tmp_path / "epoch.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.timestamp_col == "timestamp" and panel.dialect.epoch_unit == unit
    assert panel.series[0].index.equals(reference().index.tz_localize("UTC").rename("timestamp"))
    np.testing.assert_array_equal(panel.series[0].frame.to_numpy(), reference().to_numpy())


@pytest.mark.parametrize("per_day", [1, 24])
def test_excel_serial_days_are_dates(per_day: int, tmp_path: Path) -> None:
    """A date column whose format Excel lost: days since 1899-12-30, the time of day as the fraction."""
    stamps = pd.date_range("2022-12-30", periods=300, freq="D" if per_day == 1 else "h", name="date")
    serial = (stamps - pd.Timestamp("1899-12-30")) / pd.Timedelta(days=1)
    assert serial[2 * per_day] == 44927  # 2023-01-01, as Excel numbers it
    csv = tmp_path / "excel.csv"
    pd.DataFrame({"date": serial.round(10), "OT": np.arange(300.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(stamps)
    assert panel.freq == ("D" if per_day == 1 else "h")
    assert any("Excel's serial days (44925" in note and "is 2022-12-30 00:00)" in note for note in panel.notes)


def test_numbers_of_no_clear_unit_name_the_option(tmp_path: Path) -> None:
    csv = tmp_path / "small.csv"
    pd.DataFrame({"time": np.arange(50) * 3600, "OT": np.arange(50.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: column 'time' holds numbers (0 .. 176400), not dates; if they are Unix times "
                              f"pass data.epoch_unit=s (or ms, us, ns), else name the timestamp column (set "
                              f"data.timestamp_col=NAME, or data.timestamp_col=null for rows without timestamps)")
    panel = read_panel(csv, dialect=Dialect(epoch_unit="s"))
    assert panel.series[0].index[1] == pd.Timestamp("1970-01-01 01:00", tz="UTC")



def test_a_column_of_years_is_yearly(tmp_path: Path) -> None:
    """Whole numbers 1000 .. 2999 are years, not Unix times; the checkpoint's dialect reads them again."""
    csv = tmp_path / "years.csv"
    pd.DataFrame({"year": np.arange(1960, 2012), "rate": np.linspace(5.0, 2.0, 52)}).to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="year")
    assert panel.dialect.date_format == "%Y"
    assert panel.series[0].index.equals(pd.DatetimeIndex(pd.date_range("1960-01-01", periods=52, freq="YS"),
                                                         name="year"))
    assert any("years (1960 .. 2011)" in note for note in panel.notes)
    assert read_panel(csv, timestamp_col="year", dialect=panel.dialect).series[0].index.equals(panel.series[0].index)


def test_years_written_as_floats_are_years(tmp_path: Path) -> None:
    """pandas writes a float column of years as 1700.0 (statsmodels' sunspots); the checkpoint reads them again."""
    csv = tmp_path / "sun.csv"
    frame = pd.DataFrame({"YEAR": np.arange(1700.0, 1760.0), "SUNACTIVITY": np.linspace(5.0, 2.0, 60)})
    frame.to_csv(csv, index=False)
    assert csv.read_text().splitlines()[1].startswith("1700.0,")
    panel = read_panel(csv, timestamp_col="YEAR")
    assert panel.series[0].index.equals(pd.DatetimeIndex(pd.date_range("1700-01-01", periods=60, freq="YS"),
                                                         name="YEAR"))
    assert panel.notes == (f"{csv}: detected years (1700.0 .. 1759.0)",)
    assert read_panel(csv, timestamp_col="YEAR", dialect=panel.dialect).series[0].index.equals(panel.series[0].index)


@pytest.mark.parametrize("written,freq,first", [("%Y%m%d", "D", "20180101"), ("%Y%m", "MS", "201801")])
def test_dates_written_as_one_number_are_dates(written: str, freq: str, first: str, tmp_path: Path) -> None:
    """20180131 and 201801 (KNMI's and many banks' exports) are dates, not Unix times; the checkpoint's dialect reads
    them again, and so does a float column (Parquet) of the same numbers."""
    stamps = pd.date_range("2018-01-01", periods=40, freq=freq)
    frame = pd.DataFrame({"date": stamps.strftime(written).astype(int), "load": np.linspace(5.0, 2.0, 40)})
    csv = tmp_path / "compact.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(pd.DatetimeIndex(stamps, name="date", freq=None))
    words = {"%Y%m%d": "YYYYMMDD", "%Y%m": "YYYYMM"}[written]
    assert panel.notes == (f"{csv}: detected dates written {words} ({first} .. {stamps[-1].strftime(written)})",)
    assert panel.dialect.date_format == written
    parquet = tmp_path / "compact.parquet"
    frame.astype({"date": float}).to_parquet(parquet, index=False)
    again = read_panel(parquet, dialect=panel.dialect)
    assert again.series[0].index.equals(panel.series[0].index)
    frame.loc[3, "date"] = int(f"{first[:4]}13" + first[6:])  # month 13: not a date, so the column is numbers
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError, match="holds numbers"):
        read_panel(csv)


@pytest.mark.parametrize("written,words", [("%b-%y", "Mmm-yy"), ("%YM%m", "YYYYMmm"), ("%m.%Y", "MM.YYYY"),
                                           ("%Y.%m", "YYYY.MM")])
def test_months_written_in_spreadsheet_and_statistics_formats_are_months(written: str, words: str,
                                                                         tmp_path: Path) -> None:
    """Excel's Mmm-yy (Jan-05 is January 2005: pandas' own parser reads it as 5 January of year 1), 1980M01,
    01.1980 and 2003.10 (the 40 months run past October: a number column would have written 2003.1)."""
    stamps = pd.date_range("2003-01-01", periods=40, freq="MS")
    csv = tmp_path / "monthly.csv"
    pd.DataFrame({"date": stamps.strftime(written), "load": np.linspace(5.0, 2.0, 40)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(pd.DatetimeIndex(stamps, name="date", freq=None))
    assert panel.notes == (f"{csv}: detected dates written {words} ({stamps[0].strftime(written)} .. "
                           f"{stamps[-1].strftime(written)})",)
    assert read_panel(csv, dialect=panel.dialect).series[0].index.equals(panel.series[0].index)


def test_months_with_a_dot_need_two_digit_months(tmp_path: Path) -> None:
    """1980.1 is how a number column writes 1980.10: no month format, the column is refused as numbers."""
    csv = tmp_path / "floats.csv"
    pd.DataFrame({"date": ["1980.08", "1980.09", "1980.1", "1980.11"], "v": [1.0, 2.0, 3.0, 4.0]}).to_csv(csv,
                                                                                                       index=False)
    with pytest.raises(DataError, match="holds numbers"):
        read_panel(csv)


@pytest.mark.parametrize("form", ["{y}m{m}", "{y}M{m}", "{y}m{m:02d}"])
def test_months_as_stata_and_the_imf_write_them_are_months(form: str, tmp_path: Path) -> None:
    """1960m1 (Stata's %tm), 1960M1 (IMF tables): each month its first day."""
    stamps = pd.date_range("1960-01-01", periods=30, freq="MS")
    cells = [form.format(y=t.year, m=t.month) for t in stamps]
    csv = tmp_path / "monthly.csv"
    pd.DataFrame({"date": cells, "cpi": np.linspace(5.0, 2.0, 30)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(pd.DatetimeIndex(stamps, name="date", freq=None)) and panel.freq == "MS"
    assert panel.notes == (f"{csv}: detected months ({cells[0]} .. {cells[-1]})",)
    csv.write_text("date,cpi\n1960m1,1\n1960m13,2\n1960m3,3\n")
    with pytest.raises(DataError, match=r"line 3: cannot parse timestamp '1960m13'"):
        read_panel(csv)


@pytest.mark.parametrize("write", ["%Y-%m-%d {h}:00", "%d.%m.%Y {h}:00", "%Y-%m-%dT{h}:00:00"])
def test_midnight_written_24_00_ends_its_day(write: str, tmp_path: Path) -> None:
    """Hourly files that write each day's hours 01:00 .. 24:00: 24:00 is 00:00 of the next day; 00:24:00 is not."""
    stamps = pd.date_range("2021-03-01 01:00", periods=72, freq="h")
    cells = [(t - pd.Timedelta(hours=1)).strftime(write.format(h=24)) if t.hour == 0
             else t.strftime(write.format(h=f"{t.hour:02d}")) for t in stamps]
    csv = tmp_path / "hours.csv"
    pd.DataFrame({"date": cells, "load": np.arange(72.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert cells[23].endswith(("24:00", "24:00:00")) and panel.freq == "h"
    assert panel.series[0].index.equals(pd.DatetimeIndex(stamps, name="date", freq=None))
    assert panel.notes[0].startswith(f"{csv}: detected midnight written 24:00, read as 00:00 of the next day")
    minutes = pd.date_range("2021-03-01", periods=40, freq="min")  # 00:24:00 is a time like any other
    pd.DataFrame({"date": minutes.strftime("%Y-%m-%d %H:%M:%S"), "load": np.arange(40.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(pd.DatetimeIndex(minutes, name="date", freq=None)) and panel.notes == ()


@pytest.mark.parametrize("form", ["{y} Q{q}", "Q{q} {y}", "{y}-Q{q}", "Q{q}-{y}", "{y}Q{q}", "{y}:Q{q}"])
def test_quarters_as_statistics_offices_write_them_are_quarters(form: str, tmp_path: Path) -> None:
    """1990 Q1 (the ONS), Q1 1990, 1990-Q1 ...: each quarter its first day, in a column named for dates or in the
    first column whatever its name."""
    stamps = pd.date_range("1990-01-01", periods=40, freq="QS")
    cells = [form.format(y=t.year, q=(t.month + 2) // 3) for t in stamps]
    csv = tmp_path / "quarterly.csv"
    pd.DataFrame({"date": cells, "gdp": np.linspace(5.0, 2.0, 40)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(pd.DatetimeIndex(stamps, name="date", freq=None))
    assert panel.freq == "QS-JAN"
    assert panel.notes == (f"{csv}: detected quarters ({cells[0]} .. {cells[-1]})",)
    pd.DataFrame({"period": cells, "gdp": np.linspace(5.0, 2.0, 40)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.series[0].index.equals(pd.DatetimeIndex(stamps, name="period", freq=None))
    assert panel.notes == (f"{csv}: detected timestamps in the first column, 'period', quarters ({cells[0]} .. "
                           f"{cells[-1]})",)


def test_a_file_written_newest_first_is_read_oldest_first(tmp_path: Path) -> None:
    csv = tmp_path / "newest_first.csv"
    frame = etth1(400)
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d/%m/%Y %H:%M")  # day-first, up to 17/07/2016
    frame.iloc[::-1].to_csv(csv, index=False)
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference(400))
    assert panel.notes[0].startswith(f"{csv}: detected day-first dates")
    assert panel.notes[0].endswith(", rows newest first, read oldest first")
    mixed = frame.iloc[::-1].copy()
    mixed.iloc[[10, 11]] = mixed.iloc[[11, 10]].to_numpy()  # one pair in time order: the file is not sorted
    mixed.to_csv(csv, index=False)
    panel = read_panel(csv)  # the fields say day-first (17/07/2016), so the order is the rows' to sort
    pd.testing.assert_frame_equal(panel.series[0].frame, reference(400))
    assert panel.notes[0].endswith("rows out of time order read in time order (line 3: 2016-07-17 14:00:00 after "
                                   "2016-07-17 15:00:00)")
    ambiguous = etth1(40)  # days 1 .. 2 of July: read month-first or day-first, the rows' order decides
    ambiguous["date"] = pd.to_datetime(ambiguous["date"]).dt.strftime("%d/%m/%Y %H:%M")
    ambiguous.iloc[[10, 11]] = ambiguous.iloc[[11, 10]].to_numpy()
    ambiguous.to_csv(csv, index=False)
    with pytest.raises(DataError, match="sort the file by 'date' \\(dates read"):
        read_panel(csv)


@pytest.mark.parametrize("sep", [",", ";"])
def test_a_windows_1252_export_is_read_with_its_names(sep: str, tmp_path: Path) -> None:
    """A Western European spreadsheet's CSV on Windows: names and cells in cp1252, not UTF-8."""
    frame = etth1(60).rename(columns={"OT": "Température (°C)", "HUFL": "Verbrauch €"})
    csv = tmp_path / "export.csv"
    frame.to_csv(csv, index=False, sep=sep, encoding="cp1252")
    with pytest.raises(UnicodeDecodeError):
        csv.read_text(encoding="utf-8")
    panel = read_panel(csv)
    got = panel.series[0].frame
    assert list(got.columns)[0] == "Verbrauch €" and list(got.columns)[-1] == "Température (°C)"
    np.testing.assert_array_equal(got.to_numpy(), reference(60).to_numpy())
    separated = [] if sep == "," else ["semicolon-separated columns"]
    legacy = "Windows-1252 text (not UTF-8; data.encoding names another, such as cp932 or cp1251)"
    assert panel.notes == (f"{csv}: detected {', '.join(separated + [legacy])}",)
    frame.to_csv(csv, index=False, sep=sep, encoding="utf-8-sig")  # a byte-order mark: UTF-8, nothing to say
    assert read_panel(csv).notes == ((f"{csv}: detected semicolon-separated columns",) if separated else ())



def test_a_chinese_export_is_read_as_gb18030(tmp_path: Path) -> None:
    """Excel on a Chinese Windows writes GBK: names and labels read as written, said in the note."""
    frame = etth1(60).rename(columns={"date": "日期", "OT": "销量（件）", "HUFL": "气温"})
    csv = tmp_path / "销量.csv"
    frame.to_csv(csv, index=False, encoding="gbk")
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns)[0] == "气温" and list(panel.series[0].frame.columns)[-1] == "销量（件）"
    np.testing.assert_array_equal(panel.series[0].frame.to_numpy(), reference(60).to_numpy())
    assert panel.notes == (f"{csv}: detected GB18030 text (Chinese, not UTF-8), timestamps in the first column, "
                           f"'日期'",)


@pytest.mark.parametrize("names, encoding", [(["Дата", "Значение"], "cp1251"), (["Datum", "Größe"], "cp1252"),
                                             (["Date", "Temp ÀÉ"], "cp1252")])
def test_cyrillic_and_western_exports_are_not_read_as_chinese(names: list[str], encoding: str,
                                                              tmp_path: Path) -> None:
    csv = tmp_path / "export.csv"
    pd.DataFrame({names[0]: ["2021-01-01", "2021-01-02", "2021-01-03"], names[1]: [1.0, 2.0, 3.0]}).to_csv(
        csv, index=False, encoding=encoding)
    panel = read_panel(csv)
    assert "Windows-1252 text" in panel.notes[0]
    read = read_panel(csv, dialect=Dialect(encoding=encoding))
    assert read.timestamp_col == names[0] and list(read.series[0].frame.columns) == [names[1]]


def test_another_encoding_is_named_by_data_encoding(tmp_path: Path) -> None:
    """A Japanese export (cp932) has bytes Windows-1252 lacks: refused naming the setting, which reads it."""
    csv = tmp_path / "uriage.csv"
    pd.DataFrame({"日付": ["2021-01-01", "2021-01-02", "2021-01-03"], "売上高": [1.0, 2.0, 3.0]}).to_csv(
        csv, index=False, encoding="cp932")
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 1: byte 0x8F is neither UTF-8 nor Windows-1252 text; pass "
                              f"data.encoding=NAME, the file's encoding, such as cp932 (Japanese Windows), cp1251 "
                              f"(Cyrillic) or big5")
    panel = read_panel(csv, dialect=dialect_from_settings(encoding="cp932"))
    assert panel.timestamp_col == "日付" and panel.series[0].frame["売上高"].tolist() == [1.0, 2.0, 3.0]
    assert panel.notes == (f"{csv}: detected timestamps in the first column, '日付'",)
    with pytest.raises(DataError) as err:
        read_panel(csv, dialect=Dialect(encoding="utf-8"))
    assert str(err.value).startswith(f"{csv}: line 1: byte 0x93 is no utf-8 text; pass data.encoding=NAME")
    for bad in ("klingon", "base64"):
        with pytest.raises(DataError) as err:
            dialect_from_settings(encoding=bad)
        assert str(err.value) == (f"data.encoding: unknown text encoding {bad!r}; use a Python codec name such as "
                                  f"cp932 (Japanese Windows), cp1251 (Cyrillic), big5 or latin-1")

@pytest.mark.parametrize("written,sep", [(lambda v: f"${v:.2f}", ","), (lambda v: f"{'-' if v < 0 else ''}${abs(v):.2f}", ","),
                                         (lambda v: f"{v:.2f} %", ","), (lambda v: f"{v:.2f}€".replace(".", ","), ";")])
def test_numbers_written_as_money_or_percent_lose_the_sign(written, sep: str, tmp_path: Path) -> None:
    frame = etth1(60)
    frame["OT"] = frame["OT"] - 10.0  # negative values too
    want = frame["OT"].round(2).to_numpy()
    frame["OT"] = frame["OT"].map(written)
    csv = tmp_path / "money.csv"
    decimal = "," if sep == ";" else "."
    frame.to_csv(csv, index=False, sep=sep, decimal=decimal)
    panel = read_panel(csv)
    np.testing.assert_allclose(panel.series[0].frame["OT"].to_numpy(), want, rtol=0, atol=1e-12)
    sign = next(u for u in "$%€" if u in frame["OT"].iloc[0])
    assert f"{sign!r} signs left out of column 'OT'" in panel.notes[0]
    frame.loc[7, "OT"] = "12"  # one cell without the sign: the column is not so written
    frame.to_csv(csv, index=False, sep=sep, decimal=decimal)
    with pytest.raises(DataError, match="has non-numeric value"):
        read_panel(csv)



@pytest.mark.parametrize("cells, want", [(["1,234.50", "(1,234.50)", "0.00", "(12.00)"], [1234.5, -1234.5, 0.0, -12.0]),
                                         (["$5.00", "($1,234.50)", "$0.00", "($12.00)"], [5.0, -1234.5, 0.0, -12.0]),
                                         (["12%", "(3%)", "", "4%"], [12.0, -3.0, -3.0, 4.0])])
def test_negative_numbers_in_parentheses_are_read_negative(cells: list[str], want: list[float],
                                                           tmp_path: Path) -> None:
    """Spreadsheets' accounting format: ``(1,234.50)`` is -1234.5, beside a currency or percent sign too."""
    csv = tmp_path / "ledger.csv"
    pd.DataFrame({"date": pd.date_range("2021-01-01", periods=4, freq="D").strftime("%Y-%m-%d"),
                  "net": cells}).to_csv(csv, index=False)
    panel = read_panel(csv, fill="ffill")
    assert panel.series[0].frame["net"].tolist() == want
    negatives = sum(c.startswith("(") for c in cells)
    assert f"{negatives} negative number(s) in parentheses ({cells[1]}) read with a minus sign in column 'net'" in \
        panel.notes[0]
    cells = [*cells[:2], "(low)", cells[3]]
    pd.DataFrame({"date": pd.date_range("2021-01-01", periods=4, freq="D").strftime("%Y-%m-%d"),
                  "net": cells}).to_csv(csv, index=False)
    with pytest.raises(DataError, match="column 'net' has non-numeric value"):
        read_panel(csv, fill="ffill")

def test_excels_unicode_text_is_read(tmp_path: Path) -> None:
    """Excel's "Unicode Text": UTF-16 with its byte-order mark, tab-separated."""
    path = tmp_path / "unicode.csv"
    etth1(60).rename(columns={"OT": "Température"}).to_csv(path, index=False, sep="\t", encoding="utf-16")
    panel = read_panel(path)
    assert list(panel.series[0].frame.columns)[-1] == "Température"
    np.testing.assert_array_equal(panel.series[0].frame.to_numpy(), reference(60).to_numpy())
    assert panel.notes == (f"{path}: detected tab-separated columns, UTF-16 text",)


def test_comment_lines_above_the_header_are_left_out(tmp_path: Path) -> None:
    """NOAA's and KNMI's files begin with lines of ``#``; line numbers in messages stay the file's."""
    csv = tmp_path / "station.csv"
    frame = etth1(60)
    csv.write_text("# Station: De Bilt\n# Units: degrees C\n\n" + frame.to_csv(index=False))
    panel = read_panel(csv)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference(60))
    assert panel.notes == (f"{csv}: detected 3 comment line(s) above the header left out",)
    frame["OT"] = frame["OT"].astype(object)
    frame.loc[9, "OT"] = "warm"  # data row 10: line 3 + 1 (header) + 10
    csv.write_text("# Station: De Bilt\n# Units: degrees C\n\n" + frame.to_csv(index=False))
    with pytest.raises(DataError, match=r"station.csv: line 14: column 'OT' has non-numeric value 'warm'"):
        read_panel(csv)


def test_a_parquet_file_has_no_separator_to_detect(tmp_path: Path) -> None:
    path = tmp_path / "e.parquet"
    etth1().to_parquet(path, index=False)
    panel = read_panel(path)
    pd.testing.assert_frame_equal(panel.series[0].frame, reference())
    assert panel.notes == ()

# ------------------------------------------------------------------------------------ trading days
def trading(days: pd.DatetimeIndex) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"Date": days.strftime("%Y-%m-%d"), "Close": 100 + np.cumsum(rng.normal(0, 1, len(days))),
                         "Volume": np.arange(len(days)) % 7 + 1.0})


HOLIDAYS = pd.to_datetime(["2019-01-01", "2019-05-27", "2019-07-04", "2019-12-24", "2019-12-25", "2020-01-01"])


def test_trading_days_are_business_days_with_holidays(tmp_path: Path) -> None:
    days = pd.bdate_range("2019-01-02", "2020-03-31")
    days = days[~days.isin(HOLIDAYS)]
    csv = tmp_path / "prices.csv"
    trading(days).to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="date")
    assert panel.freq == "B" and panel.timestamp_col == "Date"
    assert panel.series[0].index.equals(pd.DatetimeIndex(days, name="Date"))  # the rows are the steps
    assert panel.notes[0] == f"{csv}: detected timestamps in column 'Date', business days (B)"
    assert panel.notes[1].startswith(f"{csv}: 5 holiday(s) (business days at 'B' without a row: 2019-05-27, "
                                     f"2019-07-04, 2019-12-24, ...)")
    assert read_panel(csv, timestamp_col="Date", freq="B").series[0].index.equals(panel.series[0].index)
    with pytest.raises(DataError, match=r"no timestamp column 'Datum' \(columns: Date, Close, Volume\)"):
        read_panel(csv, timestamp_col="Datum")  # a name given that is no timestamp name is not guessed
    filled = read_panel(csv, timestamp_col="Date", fill="ffill", fill_missing_dates=True).series[0]
    assert len(filled.frame) == len(days) + 5 and filled.index.equals(pd.bdate_range(days[0], days[-1], name="Date"))
    nxt = future_index(panel.series[0].index[-1], panel.freq, 3)
    assert list(nxt) == list(pd.to_datetime(["2020-04-01", "2020-04-02", "2020-04-03"]))


def test_a_fixed_weekly_pattern_of_days(tmp_path: Path) -> None:
    days = pd.date_range("2024-01-01", "2024-03-31", freq=pd.offsets.CustomBusinessDay(weekmask="Sun Mon Tue Wed Thu"))
    days = days.delete(10)
    csv = tmp_path / "tase.csv"
    trading(days).to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="Date")
    assert panel.freq == "C-MonTueWedThuSun" and len(panel.series[0].frame) == len(days)
    assert panel.notes[1].startswith(f"{csv}: 1 holiday(s)")
    last = panel.series[0].index[-1]
    assert last == pd.Timestamp("2024-03-31")  # a Sunday
    assert list(future_index(last, panel.freq, 5).day_name()) == ["Monday", "Tuesday", "Wednesday", "Thursday",
                                                                  "Sunday"]
    assert time_marks(panel.series[0].index, panel.freq).shape == (len(days), 3 + 5)


def test_a_long_closure_is_a_gap_not_holidays(tmp_path: Path) -> None:
    days = pd.bdate_range("2019-01-02", "2019-06-28")
    days = days[(days < "2019-03-01") | (days > "2019-03-15")]  # two weeks without rows
    csv = tmp_path / "closed.csv"
    trading(days).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"expects 2019-03-01 00:00:00; 11 row\(s\) missing: pass "
                                        r"data.fill_missing_dates=true"):
        read_panel(csv, timestamp_col="Date")


def test_daily_data_with_every_weekday_is_not_business_days(tmp_path: Path) -> None:
    days = pd.date_range("2019-01-01", "2019-03-31", freq="D").delete([20, 40])
    csv = tmp_path / "daily.csv"
    trading(days).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"1 row\(s\) missing \(and 1 more gap\(s\)\)"):
        read_panel(csv, timestamp_col="Date")


def test_rows_with_no_values_off_the_grid_are_left_out(tmp_path: Path) -> None:
    """Dividend dates between month starts with every value empty (matplotlib's ``Stocks.csv``): the monthly rows
    are the series; a later row with values off the grid is still refused, naming its line."""
    months = pd.date_range("1990-01-01", periods=36, freq="MS")
    frame = pd.DataFrame({"Date": months.strftime("%Y-%m-%d"), "IBM": 10 + np.arange(36.0),
                          "SPX": 300 - np.arange(36.0)})
    odd = pd.DataFrame({"Date": ["1990-02-05", "1990-05-04", "1991-08-06"], "IBM": [np.nan] * 3, "SPX": [np.nan] * 3})
    written = pd.concat([frame, odd]).sort_values("Date")
    csv = tmp_path / "stocks.csv"
    written.to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="Date")
    assert panel.freq == "MS"
    pd.testing.assert_frame_equal(panel.series[0].frame, frame.set_index(pd.DatetimeIndex(months, name="Date"))
                                  .drop(columns="Date"), check_freq=False)
    assert panel.notes == (f"{csv}: detected 3 row(s) with no values off the steps of 'MS' the other rows keep, left "
                           f"out (the first: line 4, 1990-02-05 00:00:00)",)
    late = pd.concat([written, pd.DataFrame({"Date": ["1993-01-28"], "IBM": [1.0], "SPX": [2.0]})])
    late.to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"stocks\.csv: line 41: timestamp 1993-01-28 00:00:00 follows 1992-12-01 "
                                        r"00:00:00, but the inferred frequency 'MS' expects 1993-01-01"):
        read_panel(csv, timestamp_col="Date")


def test_empty_weekends_in_a_file_of_trading_days_are_left_out(tmp_path: Path) -> None:
    """Every calendar day written, the weekends without values: the trading days are the steps; number marks
    (decimal commas) are read on the rows kept."""
    days = pd.date_range("2019-01-01", "2019-03-31", freq="D")
    prices = trading(days)
    weekend = days.dayofweek >= 5
    prices.loc[weekend, ["Close", "Volume"]] = np.nan
    csv = tmp_path / "prices.csv"
    text = prices.assign(Close=prices.Close.map(lambda v: "" if np.isnan(v) else f"{v:.3f}".replace(".", ",")),
                         Volume=prices.Volume.map(lambda v: "" if np.isnan(v) else f"{v:.0f}"))
    text.to_csv(csv, index=False, sep=";")
    panel = read_panel(csv, timestamp_col="Date")
    assert panel.freq == "B"
    kept = prices[~weekend]
    assert panel.series[0].index.equals(pd.DatetimeIndex(days[~weekend], name="Date"))
    np.testing.assert_allclose(panel.series[0].frame.Close.to_numpy(), kept.Close.round(3).to_numpy())
    np.testing.assert_array_equal(panel.series[0].frame.Volume.to_numpy(), kept.Volume.to_numpy())
    assert f"{int(weekend.sum())} row(s) with no values off the steps of 'B' the other rows keep, left out (the " \
           f"first: line 6, 2019-01-05 00:00:00)" in panel.notes[0]


def test_rows_with_no_values_on_the_grid_are_missing_values(tmp_path: Path) -> None:
    """An empty row at a step of the grid is a missing step, not a stray row: refused without a fill, filled with
    one; in a file of many series, one series' stray empty rows are left out and the others' rows kept."""
    months = pd.date_range("2000-01-01", periods=24, freq="MS")
    values = 1.0 + np.arange(24.0)
    values[5] = np.nan
    csv = tmp_path / "monthly.csv"
    pd.DataFrame({"date": months.strftime("%Y-%m-%d"), "y": values}).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 7: column 'y' is empty or NaN"):
        read_panel(csv)
    filled = read_panel(csv, fill="interpolate").series[0]
    assert len(filled.frame) == 24 and filled.frame.y.iloc[5] == 6.0
    dates = list(months.strftime("%Y-%m-%d"))
    long = pd.DataFrame({"id": ["a"] * 24 + ["b"] * 25, "date": dates + sorted([*dates, "2000-03-17"]),
                         "y": [*(1.0 + np.arange(24.0)), 1.0, 2.0, 3.0, np.nan, *(4.0 + np.arange(21.0))]})
    long.to_csv(csv, index=False)
    panel = read_panel(csv, id_col="id")
    assert [len(s.frame) for s in panel.series] == [24, 24]
    np.testing.assert_array_equal(panel.series[1].frame.y.to_numpy(), 1.0 + np.arange(24.0))
    assert "1 row(s) with no values off the steps of 'MS' the other rows keep, left out (the first: line 29" \
        in panel.notes[0]


# ----------------------------------------------------------------------------- settings and storage
@pytest.mark.parametrize("settings,message", [
    (dict(sep=";;"), "data.sep must be one character (or comma, semicolon, tab, pipe, whitespace), got ';;'"),
    (dict(decimal=",", sep=","), "data.decimal ',' is also the separator; give them different characters"),
    (dict(dayfirst="yes"), "data.dayfirst must be true, false or null (detect), got 'yes'"),
    (dict(epoch_unit="minutes"), "data.epoch_unit must be one of s, ms, us, ns or null, got 'minutes'"),
    (dict(na_values={"a": 1}), None),
])
def test_bad_settings_are_one_line(settings: dict, message: str | None) -> None:
    if message is None:  # a mapping is iterable: its keys are the codes
        assert dialect_from_settings(**settings).na_values == ("a",)
        return
    with pytest.raises(DataError) as err:
        dialect_from_settings(**settings)
    assert str(err.value) == message


def test_sniffing_the_separator() -> None:
    assert sniff_sep("date;HUFL;HULL\n") == ";" and sniff_sep("date,HUFL\n") == ","
    assert sniff_sep("a\tb\tc\n") == "\t" and sniff_sep("only\n") == ","
    assert sniff_sep("  year  month   value\n", ["  1958      3  315.71\n", "  1958      4  317.45\n"]) == WHITESPACE
    assert sniff_sep('"date" "value"\n', ['"1" "2020-01-01" 1.5\n']) == WHITESPACE  # R's write.table
    assert sniff_sep("Daily sunspots\n", ["12\n", "15\n"]) == ","  # one column named in two words
    assert sniff_sep("Monthly sales\n", ["1 234\n", "12 500\n"]) == ","  # thousands grouped by spaces
    assert sniff_sep("Passengers\n", ["1 234\n", "12 500\n", "987\n", "2 001\n"]) == ","  # a column of them
    assert sniff_sep("a b c\n", ["1 2\n", "1 2 3\n"]) == ","  # lines of different widths
    assert sniff_sep("date value\n") == ","  # no line below to confirm it
    assert sniff_sep("date\tvalue  other\n", ["2020-01-01 \t 1\t  2\n", "2020-01-02\t 3 4\n"]) == WHITESPACE
    assert sniff_sep("date\tvalue\n", ["2020-01-01\t1\n", "2020-01-02\t3\t\n", "Notes: a b c\n"]) == "\t"


def test_a_header_of_names_separated_by_spaces_names_the_setting(tmp_path: Path) -> None:
    """Rows too ragged for the separator to be detected: the refusal says how to set it."""
    path = tmp_path / "ragged.txt"
    path.write_text("date value\n2020-01-01 1\n2020-01-02\n2020-01-03 3 4\n2020-01-04 4\n")
    with pytest.raises(DataError) as err:
        read_panel(path)
    assert str(err.value) == (f"{path}: no numeric columns besides 'date value'; the header line holds spaces: pass "
                              f"data.sep=whitespace")
    with pytest.raises(DataError, match=r"ragged.txt: cannot read as CSV \(.*\); expected a whitespace-separated file"):
        read_panel(path, dialect=dialect_from_settings(sep="whitespace"))


@pytest.mark.parametrize("word", [" ", "space", "whitespace"])
def test_a_separator_of_spaces_is_set_by_word(word: str) -> None:
    assert dialect_from_settings(sep=word).sep == WHITESPACE


def test_the_settled_dialect_is_in_the_spec(tmp_path: Path) -> None:
    frame = etth1(400)
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d/%m/%Y %H:%M")
    frame = frame.rename(columns={"date": "Date"})
    csv = tmp_path / "eu.csv"
    frame.to_csv(csv, sep=";", decimal=",", index=False)
    dm = ForecastDataModule(path=str(csv), target="OT", seq_len=24, label_len=12, pred_len=6, na_values=-200)
    dm.setup()
    spec = dm.spec
    assert spec.timestamp_col == "Date" and spec.freq == "h"
    assert spec.dialect == Dialect(na_values=("-200",), dayfirst=True)  # separator and marks detected per file
    assert DataSpec.from_dict(spec.to_dict()) == spec
    assert DataSpec.from_dict({k: v for k, v in spec.to_dict().items() if k != "dialect"}).dialect == Dialect()
    sun_to_thu = pd.date_range("2024-01-05", periods=6, freq=offset("C-SunMonTueWedThu"))
    assert list(sun_to_thu.day_name().str[:3]) == ["Sun", "Mon", "Tue", "Wed", "Thu", "Sun"]


def test_a_separator_that_splits_nothing_names_the_right_one(tmp_path: Path) -> None:
    csv = tmp_path / "eu.csv"
    etth1().to_csv(csv, sep=";", decimal=",", index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, dialect=Dialect(sep=","))
    assert str(err.value) == (f"{csv}: no timestamp column 'date' (columns: date;HUFL;HULL;MUFL;MULL;LUFL;LULL;OT); "
                              f"the header line holds semicolons: pass data.sep=semicolon")


def test_a_bad_date_format_is_one_line() -> None:
    with pytest.raises(DataError) as err:
        read_panel(ETTH1, dialect=Dialect(date_format="%Q"))
    assert str(err.value).startswith("data.date_format '%Q': not a date format (")


def test_many_series_in_local_time_each_place_their_repeated_hour(tmp_path: Path) -> None:
    index = berlin_hours("2021-10-30", "2021-11-01")
    parts = [hourly(index, list(index.strftime("%d/%m/%Y %H:%M"))).assign(store=s) for s in ("a", "b")]
    frame = pd.concat(parts).sort_index(kind="stable").reset_index(drop=True)  # interleaved: a, b, a, b ...
    csv = tmp_path / "stores.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv, id_col="store", dialect=Dialect(tz="Europe/Berlin"))
    assert panel.ids == ["a", "b"] and panel.dialect.dayfirst is True
    for s in panel.series:
        assert s.index.equals(index.rename("date"))




def test_an_unsorted_file_names_the_order_it_was_read_in(tmp_path: Path) -> None:
    frame = etth1()
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d/%m/%Y %H:%M")
    csv = tmp_path / "unsorted.csv"
    frame.iloc[[0, 1, 2, 5, 4, 3, *range(6, len(frame))]].to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 6: timestamp 2016-07-01 04:00:00 comes before the previous row's "
                              f"2016-07-01 05:00:00; sort the file by 'date' (dates read day-first; if they are "
                              f"month-first pass data.dayfirst=false)")


def test_a_headerless_file_leaves_out_the_empty_columns_at_the_end_of_its_lines(tmp_path: Path) -> None:
    """``1.5;2.0;;`` without a header: columns '2' and '3' have no value and are left out, said in the note;
    an empty column between values is still an error that names it."""
    csv = tmp_path / "noheader.csv"
    csv.write_text("".join(f"{i * 0.5:.1f};{i + 1}.0;;\n" for i in range(40)))
    panel = read_panel(csv, timestamp_col=None, header=False)
    assert list(panel.series[0].frame.columns) == ["0", "1"]
    assert panel.series[0].frame["1"].iloc[-1] == 40.0
    assert panel.notes == (f"{csv}: detected semicolon-separated columns, 2 empty last column(s) left out ('2', '3')",)
    middle = tmp_path / "middle.csv"
    middle.write_text("".join(f"{i * 0.5:.1f};;{i + 1}.0\n" for i in range(40)))
    with pytest.raises(DataError, match=r"column '1' is empty or NaN on every row; leave the column out"):
        read_panel(middle, timestamp_col=None, header=False)


@pytest.mark.parametrize("header", [True, None])
def test_a_field_longer_than_the_csv_module_reads_is_refused_in_one_line(tmp_path: Path, header: bool | None) -> None:
    """scipy's pdist test files: one line of numbers, separated by spaces, longer than a field the csv module reads;
    the header's detection (None) reads that line too."""
    path = tmp_path / "long.txt"
    path.write_text(" ".join(f"{k * 1e-4:.7e}" for k in range(12_000)) + "\n")
    with pytest.raises(DataError, match=r"long.txt: cannot read as CSV \(field larger than field limit \(131072\)\)"):
        read_panel(path, steps_without_timestamps=True, header=header)


def test_flags_after_some_values_are_left_out_and_other_words_refused(tmp_path: Path) -> None:
    days = pd.date_range("2020-01-01", periods=30, freq="D")
    cells = [f"{k}.5" for k in range(30)]
    cells[3], cells[7] = "3.5 p", "7.5 e"
    csv = tmp_path / "flagged.csv"
    csv.write_text("date,value\n" + "".join(f"{d:%Y-%m-%d},{c}\n" for d, c in zip(days, cells)))
    panel = read_panel(csv)
    assert panel.series[0].frame["value"].tolist() == [k + 0.5 for k in range(30)]
    assert panel.notes == (f"{csv}: detected Eurostat's flags after the values left out of column 'value' ('e', 'p')",)
    rows = [f"{d:%Y-%m-%d},{k},{c}\n" for k, (d, c) in enumerate(zip(days, cells))]
    csv.write_text("date,count,value\n" + "".join(rows))
    coded = read_panel(csv, dialect=Dialect(na_values=("x",)))  # a column of numbers: the cells read again as text
    assert coded.series[0].frame["value"].tolist() == [k + 0.5 for k in range(30)]
    cells[7] = "7.5 days"
    csv.write_text("date,value\n" + "".join(f"{d:%Y-%m-%d},{c}\n" for d, c in zip(days, cells)))
    with pytest.raises(DataError, match=r"line 5: column 'value' has non-numeric value '3.5 p'"):
        read_panel(csv)


def test_a_column_beginning_later_than_the_file_is_named_with_its_first_line(tmp_path: Path) -> None:
    """matplotlib's ``Stocks.csv``: AMZN has no price before it was listed; a first cell alone empty is a gap."""
    months = pd.date_range("1990-01-01", periods=40, freq="MS")
    csv = tmp_path / "Stocks.csv"
    csv.write_text("# Data source: https://finance.yahoo.com\nDate,IBM,AMZN\n" + "".join(
        f"{m:%Y-%m-%d},{10 + k},{'' if k < 12 else 5 + k}\n" for k, m in enumerate(months)))
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: column 'AMZN' has no value before line 15, its first; leave the column out: "
                              f"data.columns=[the columns to use], or pass data.fill=ffill|interpolate (which fills "
                              f"backwards with its first value)")
    csv.write_text("Date,IBM,AMZN\n" + "".join(f"{m:%Y-%m-%d},{10 + k},{'' if k < 1 else 5 + k}\n"
                                               for k, m in enumerate(months)))
    with pytest.raises(DataError, match=r"line 2: column 'AMZN' is empty or NaN; fill the gap or pass"):
        read_panel(csv)
