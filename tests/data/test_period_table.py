"""Tables of series by periods (the World Bank's, Eurostat's and Johns Hopkins' wide exports): a row a series, read
as one series each in time order; the same file read again for a trained model gives the same series."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.api import train
from forecast.data.period_table import _span_cells
from forecast.data.reader import read_panel
from tests.test_api import TINY

WORLD_BANK = ('"Data Source","World Development Indicators",\n\n"Last Updated Date","2024-06-28",\n\n'
              '"Country Name","Country Code","Indicator Name","Indicator Code","2001","2002","2003","2004","2005",\n'
              '"Aruba","ABW","Fertility","SP.DYN","","1.6","1.7","","1.9",\n'
              '"Chad","TCD","Fertility","SP.DYN","6.5","6.4","6.3","6.2","",\n'
              '"Nowhere","NWH","Fertility","SP.DYN","","","","","",\n')


def _write(tmp_path: Path, text: str, name: str = "wide.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _series(panel) -> dict:
    return {s.series_id: (list(s.frame.index.strftime("%Y-%m-%d")), s.frame["value"].tolist()) for s in panel.series}


def test_a_world_bank_download_is_a_series_per_country(tmp_path: Path) -> None:
    csv = _write(tmp_path, WORLD_BANK)
    panel = read_panel(csv, fill="interpolate")
    assert panel.id_col == "Country Name" and panel.freq == "YS-JAN" and panel.timestamp_col == "date"
    got = _series(panel)
    assert got["Aruba"] == (["2002-01-01", "2003-01-01", "2004-01-01", "2005-01-01"],
                            [1.6, 1.7, pytest.approx(1.8), 1.9])  # 2004 interpolated
    assert got["Chad"] == (["2001-01-01", "2002-01-01", "2003-01-01", "2004-01-01"], [6.5, 6.4, 6.3, 6.2])
    assert list(got) == ["Aruba", "Chad"]  # a row with no value is no series
    assert panel.notes[0] == (
        f"{csv}: detected 4 line(s) of another number of fields above the header left out (\"Data Source\",\"World "
        f"Development Indicators\",), 1 empty unnamed column(s) left out ('Unnamed: 9'), a table of series by years "
        f"(columns 2001 .. 2005), read as a series for each 'Country Name' (2) 'value', column(s) 'Country Code', "
        f"'Indicator Name', 'Indicator Code' left out, 7 empty cell(s) before a series' first value or after its last "
        f"left out")


def test_a_gap_inside_a_series_is_named_by_its_column(tmp_path: Path) -> None:
    csv = _write(tmp_path, WORLD_BANK)
    with pytest.raises(DataError) as caught:
        read_panel(csv)
    assert str(caught.value) == (f"{csv}: line 6: column '2004' is empty or NaN; fill the gap or pass "
                                 f"data.fill=ffill|interpolate")


def test_a_trained_model_reads_the_file_by_its_id_column(tmp_path: Path) -> None:
    csv = _write(tmp_path, WORLD_BANK)
    first = read_panel(csv, fill="interpolate")
    again = read_panel(csv, fill="interpolate", timestamp_col="date", id_col="Country Name", freq="YS-JAN",
                       model_freq=True, columns=["value"])
    assert _series(again) == _series(first)


@pytest.mark.parametrize("text,freq,expected", [
    # DataBank's year names and its .. for values not available
    ("Country Name,Series Name,2001 [YR2001],2002 [YR2002],2003 [YR2003]\nAruba,GDP,1.5,..,1.7\nChad,GDP,2,3,4\n",
     "YS-JAN", {"Aruba": [1.5, 1.6, 1.7], "Chad": [2.0, 3.0, 4.0]}),
    # Eurostat: quarters, newest first
    ("unit,geo,2023Q2,2023Q1,2022Q4,2022Q3\nEUR,DE,4,3,2,1\nEUR,FR,8,7,6,5\n", "QS-JAN",
     {"DE": [1.0, 2.0, 3.0, 4.0], "FR": [5.0, 6.0, 7.0, 8.0]}),
    # Johns Hopkins: days written month first; coordinates name no series
    ("Province/State,Country/Region,Lat,Long,1/22/20,1/23/20,1/24/20\n,Chad,1.5,2.5,0,1,3\n,Mali,1.5,3.5,2,2,5\n",
     "D", {"Chad": [0.0, 1.0, 3.0], "Mali": [2.0, 2.0, 5.0]}),
    # a spreadsheet's months (Excel's mmm-yy) and quarters written quarter first
    ("Product,Region,Nov-99,Dec-99,Jan-00,Feb-00\nTea,North,1,2,3,4\nCoffee,North,5,6,7,8\n", "MS",
     {"Tea": [1.0, 2.0, 3.0, 4.0], "Coffee": [5.0, 6.0, 7.0, 8.0]}),
    ("line,Q3 2023,Q4 2023,Q1 2024\nA,1,2,3\nB,4,5,6\n", "QS-JAN", {"A": [1.0, 2.0, 3.0], "B": [4.0, 5.0, 6.0]}),
    # one row: one series
    ("indicator,2019-01,2019-02,2019-03,2019-04\nsales,1,2,3,4\n", "MS", {None: [1.0, 2.0, 3.0, 4.0]}),
])
def test_tables_of_periods_as_exported(tmp_path: Path, text: str, freq: str, expected: dict) -> None:
    panel = read_panel(_write(tmp_path, text), fill="interpolate")
    assert panel.freq == freq
    got = _series(panel)
    assert list(got) == list(expected)
    for name, values in expected.items():
        np.testing.assert_allclose(got[name][1], values)


def test_two_columns_name_the_rows_together(tmp_path: Path) -> None:
    """Johns Hopkins' global file: a province beside its country, or the country alone."""
    csv = _write(tmp_path, "Province/State,Country/Region,Lat,Long,1/22/20,1/23/20,1/24/20\n"
                           "Victoria,Australia,1,2,0,1,3\nQueensland,Australia,3,4,2,2,5\n,Chad,5,6,1,1,1\n")
    panel = read_panel(csv)
    assert panel.id_col == "Province/State + Country/Region"
    assert panel.ids == ["Victoria / Australia", "Queensland / Australia", "Chad"]
    again = read_panel(csv, id_col="Province/State + Country/Region", columns=["value"])
    assert _series(again) == _series(panel)


def test_rows_that_no_column_names_once_are_refused(tmp_path: Path) -> None:
    csv = _write(tmp_path, "Province/State,Country/Region,Lat,Long,1/22/20,1/23/20,1/24/20\n"
                           "A,Australia,1,2,0,1,3\nA,Australia,3,4,2,2,5\n,Chad,5,6,1,1,1\n")
    with pytest.raises(DataError) as caught:
        read_panel(csv)
    assert str(caught.value) == (
        f"{csv}: a table of series by days (columns 1/22/20 .. 1/24/20) of 3 rows, and no column or two name each "
        f"row's series once (columns: Province/State, Country/Region, Lat, Long); set data.id_col to the column that "
        f"names the series, or give each series one row")


@pytest.mark.parametrize("text", [
    "date,2019,2020,2021\n2020-01-01,1,2,3\n2020-01-02,1,2,3\n2020-01-03,1,2,3\n",  # a timestamp column: columns
    "country,2019,2020\nChad,1,2\nMali,3,4\n",  # two periods are columns
    "Date,2019,2020,2021\n2020-01-01,1,2,3\n2020-01-02,1,2,3\n2020-01-03,1,2,3\n",  # a year a column beside days
    "country,2019,2021,2020\nChad,1,2,3\nMali,3,4,5\n",  # periods out of order
])
def test_columns_named_like_periods_are_not_always_a_table(tmp_path: Path, text: str) -> None:
    csv = _write(tmp_path, text)
    try:
        panel = read_panel(csv)
    except DataError as err:
        assert "a table of series by" not in str(err)
        return
    assert panel.id_col is None and "value" not in panel.series[0].frame.columns
    np.testing.assert_array_equal(panel.series[0].frame.columns, ["2019", "2020", "2021"])


def test_cells_read_again_as_written_keep_the_joined_ids(tmp_path: Path) -> None:
    """A missing-value code has the cells read again as text, melted with the same ids."""
    csv = _write(tmp_path, 'Province/State,Country/Region,Lat,Long,1/22/20,1/23/20,1/24/20\n'
                           'Victoria,Australia,1,2,1200,-99,1450\n,Chad,5,6,1,1,2000\n'
                           'Queensland,Australia,3,4,1,2,3\n')
    panel = read_panel(csv, fill="interpolate", dialect=Dialect(na_values=("-99",)))
    assert panel.ids == ["Victoria / Australia", "Chad", "Queensland / Australia"]
    np.testing.assert_array_equal(panel.series[0].frame["value"].to_numpy(), [1200.0, 1325.0, 1450.0])
    np.testing.assert_array_equal(panel.series[1].frame["value"].to_numpy(), [1.0, 1.0, 2000.0])


M4 = ('"V1","V2","V3","V4","V5","V6"\n'
      '"H1",605,586,586,559,511\n'
      '"H2",3124,2990,2862,,\n')


def test_the_m4_competitions_table_of_series_by_steps(tmp_path: Path) -> None:
    """``V1`` names each series, ``V2 ..`` are its steps, a shorter series' row ends in empty cells."""
    panel = read_panel(_write(tmp_path, M4, "Hourly-train.csv"))
    assert panel.id_col == "V1" and panel.timestamp_col is None and panel.freq is None
    assert {s.series_id: s.frame["value"].tolist() for s in panel.series} == {
        "H1": [605.0, 586.0, 586.0, 559.0, 511.0], "H2": [3124.0, 2990.0, 2862.0]}
    assert list(panel.series[1].frame.index) == [0, 1, 2]
    assert panel.notes == (f"{tmp_path / 'Hourly-train.csv'}: detected a table of series by steps (columns V2 .. V6), "
                           f"read as a series for each 'V1' (2) 'value', in steps without timestamps, 2 empty cell(s) "
                           f"before a series' first value or after its last left out",)
    again = read_panel(_write(tmp_path, M4, "Hourly-test.csv"), timestamp_col=None, id_col="V1", columns=["value"])
    assert [len(s.frame) for s in again.series] == [5, 3]  # as forecast-predict reads it with the model's spec


def test_an_m3_table_names_its_series_and_leaves_its_other_columns_out(tmp_path: Path) -> None:
    csv = _write(tmp_path, "Series,N,NF,Category,1,2,3,4,5,6\nN1,6,6,MICRO,10,11,12,13,14,15\n"
                           "N2,5,6,FINANCE,20,21,22,23,24,\n")
    panel = read_panel(csv)
    assert panel.id_col == "Series" and [len(s.frame) for s in panel.series] == [6, 5]
    assert "column(s) 'N', 'NF', 'Category' left out" in panel.notes[0]


def test_rows_of_numbers_under_numbered_names_are_steps_not_series(tmp_path: Path) -> None:
    """``x1,x2,x3``: no column names a row, so each row is a step of three series; a row named by its time
    (Stata's ``t``: ``1960q1``) is a step too, and a few numbered columns among more others are no steps."""
    csv = _write(tmp_path, "x1,x2,x3\n" + "".join(f"{k},{k + 1},{k + 2}\n" for k in range(30)))
    panel = read_panel(csv, steps_without_timestamps=True)
    assert panel.id_col is None and list(panel.series[0].frame.columns) == ["x1", "x2", "x3"]
    assert len(panel.series[0].frame) == 30
    quarters = [f"{1960 + k // 4}q{k % 4 + 1}" for k in range(30)]
    csv = _write(tmp_path, "t,sm1,sm2,sm3,sm4\n" + "".join(f"{q},{k},1,2,3\n" for k, q in enumerate(quarters)))
    panel = read_panel(csv)
    assert panel.timestamp_col == "t" and list(panel.series[0].frame.columns) == ["sm1", "sm2", "sm3", "sm4"]
    csv = _write(tmp_path, "name,a,b,c,d,s1,s2,s3\n" + "".join(f"n{k},{k},1,2,3,4,5,6\n" for k in range(30)))
    with pytest.raises(DataError, match=r"no timestamp column 'date'"):
        read_panel(csv)


def test_a_model_trained_on_a_table_of_steps_forecasts_each_row(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [f'"S{k}",' + ",".join(f"{100 * k + v:.1f}" for v in rng.normal(size=120 - 10 * k)) + "," * (10 * k)
            for k in range(3)]
    csv = _write(tmp_path, ",".join(f'"V{i}"' for i in range(1, 122)) + "\n" + "\n".join(rows) + "\n", "train.csv")
    windows = ["data.seq_len=8", "data.label_len=4", "data.pred_len=2"]
    run = train(data=csv, overrides=[*windows, *TINY[4:], "trainer.max_epochs=0"], run_dir=tmp_path / "run",
                threads=1)
    future = run.load().predict(csv)
    assert list(future.columns) == ["V1", "step", "value"] and future["V1"].unique().tolist() == ["S0", "S1", "S2"]
    assert future["step"].tolist() == [120, 121, 110, 111, 100, 101]


def test_eurostats_tab_separated_table_with_flags(tmp_path: Path) -> None:
    """Eurostat's bulk download: ``freq,unit,geo\\TIME_PERIOD`` then years with a trailing space, values with a
    flag after them (``1061.3 p``), ``:`` for not available (``: c`` confidential)."""
    text = ("freq,unit,geo\\TIME_PERIOD\t2019 \t2020 \t2021 \t2022 \n"
            "A,GWH,AT\t10.5 \t11.0 e\t12.0 \t13.5 p\n"
            "A,GWH,BE\t20.0 \t: c\t22.0 \t: \n")
    panel = read_panel(_write(tmp_path, text, "nrg_cb_e.tsv"), fill="interpolate")
    assert panel.id_col == "freq,unit,geo\\TIME_PERIOD"
    assert {s.series_id: s.frame["value"].tolist() for s in panel.series} == {
        "A,GWH,AT": [10.5, 11.0, 12.0, 13.5], "A,GWH,BE": [20.0, 21.0, 22.0]}  # BE's 2022 not yet reported
    assert "Eurostat's flags after the values left out of column 'value' ('c', 'e', 'p')" in panel.notes[0]
    with pytest.raises(DataError, match=r"line 3: column '2020' holds ': c', a missing value; fill the gap"):
        read_panel(_write(tmp_path, text, "nrg_cb_e.tsv"))


def test_cells_of_plain_numbers_are_read_with_the_files_marks(tmp_path: Path) -> None:
    """A table whose cells all read as plain numbers (``1.234``) is read as numbers, and again as written where the
    file's marks say otherwise: with decimal commas, the dot groups thousands."""
    csv = _write(tmp_path, "Land;2019;2020;2021;2022\nDE;;1.250;;1.300\nFR;2.345;2.350;2.360;2.370\n")
    panel = read_panel(csv, fill="interpolate", dialect=Dialect(decimal=","))
    assert {s.series_id: s.frame["value"].tolist() for s in panel.series} == {
        "DE": [1250.0, 1275.0, 1300.0], "FR": [2345.0, 2350.0, 2360.0, 2370.0]}
    plain = read_panel(csv, fill="interpolate")
    assert {s.series_id: s.frame["value"].tolist() for s in plain.series} == {
        "DE": [1.25, 1.275, 1.3], "FR": [2.345, 2.35, 2.36, 2.37]}


@pytest.mark.parametrize("seed", range(3))
def test_a_tables_kept_cells_are_taken_row_by_row(seed: int) -> None:
    """Each row's run of kept cells, from its first cell and count, is ``np.nonzero``'s order."""
    rng = np.random.default_rng(seed)
    first, last = rng.integers(0, 9, 40), rng.integers(-1, 8, 40)  # rows with no kept cell among them
    at = np.arange(8)[None, :]
    kept = (at >= first[:, None]) & (at <= last[:, None])  # (40, 8)
    rows, periods = _span_cells(kept)
    expected = np.nonzero(kept)
    np.testing.assert_array_equal(rows, expected[0])
    np.testing.assert_array_equal(periods, expected[1])
