"""Columns stored or written as numbers are read as numbers (Parquet, large CSVs), with the same series, ids,
refusals and missing-value codes as the same cells read as text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.cells import numeric_text, plain_numbers
from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.data.reader import read_panel, read_table

pytest.importorskip("pyarrow")


def panel_frame(series: int = 3, rows: int = 50) -> pd.DataFrame:
    """A long-format panel: ids written with leading zeros, daily dates, a float, an int and a target column."""
    rng = np.random.default_rng(0)
    frames = []
    for s in range(series):
        frames.append(pd.DataFrame({
            "id": f"{s:03d}", "date": pd.date_range("2021-01-01", periods=rows, freq="D"),
            "load": rng.normal(10, 2, rows).round(4), "count": rng.integers(0, 100, rows),
            "OT": rng.normal(0, 1, rows).round(4)}))
    return pd.concat(frames, ignore_index=True)


def frames(panel) -> dict[str, pd.DataFrame]:
    return {s.series_id: s.frame for s in panel.series}


def test_a_parquet_file_reads_as_its_csv(tmp_path: Path) -> None:
    data = panel_frame()
    data.to_csv(tmp_path / "p.csv", index=False)
    data.to_parquet(tmp_path / "p.parquet", index=False)
    stored = read_table(tmp_path / "p.parquet", header=True)
    assert stored["date"].dtype.kind == "M" and stored["load"].dtype == np.float64 and stored["count"].dtype.kind == "i"
    from_csv, from_parquet = (read_panel(tmp_path / f"p.{ext}", id_col="id") for ext in ("csv", "parquet"))
    assert from_parquet.ids == from_csv.ids == ["000", "001", "002"]
    assert from_parquet.freq == from_csv.freq == "D"
    for sid, frame in frames(from_csv).items():
        pd.testing.assert_frame_equal(frames(from_parquet)[sid], frame)
    assert frames(from_csv)["001"]["count"].iloc[:3].tolist() == data["count"].iloc[50:53].astype(float).tolist()


def test_a_csv_reads_numbers_as_numbers_and_ids_as_written(tmp_path: Path) -> None:
    panel_frame().to_csv(tmp_path / "p.csv", index=False)
    cells = read_table(tmp_path / "p.csv", header=True, text=["id"])
    assert cells["load"].dtype == np.float64 and cells["count"].dtype.kind == "i"
    assert cells["id"].iloc[0] == "000" and cells["date"].iloc[0] == "2021-01-01"  # as written, not parsed
    as_text = read_table(tmp_path / "p.csv", header=True, typed=False)
    assert (as_text["load"].astype(float).to_numpy() == cells["load"].to_numpy()).all()


def test_zoned_parquet_timestamps_convert_like_offsets(tmp_path: Path) -> None:
    stamps = pd.date_range("2021-03-27 22:00", periods=8, freq="h", tz="Europe/Berlin")
    pd.DataFrame({"date": stamps, "OT": np.arange(8.0)}).to_parquet(tmp_path / "z.parquet", index=False)
    panel = read_panel(tmp_path / "z.parquet")
    index = panel.series[0].frame.index
    assert str(index.tz) == "UTC" and index.equals(stamps.tz_convert("UTC"))
    berlin = read_panel(tmp_path / "z.parquet", dialect=Dialect(tz="Europe/Berlin")).series[0].frame.index
    assert berlin.equals(stamps)


def test_zoned_dates_are_read_as_the_local_dates_they_name(tmp_path: Path) -> None:
    """A zone-aware daily index (a DataFrame's, or a Parquet column): in UTC every row would be the day before, and
    off the daily grid across a change of offset."""
    days = pd.date_range("2021-03-01", periods=60, freq="D", tz="Europe/Berlin")
    pd.DataFrame({"date": days, "OT": np.arange(60.0)}).to_parquet(tmp_path / "d.parquet", index=False)
    panel = read_panel(tmp_path / "d.parquet")
    assert panel.freq == "D" and panel.series[0].frame.index.equals(days.tz_localize(None).rename("date"))
    assert panel.notes == (f"{tmp_path / 'd.parquet'}: detected timestamps in zone Europe/Berlin, all at 00:00 local "
                           f"time: read as the local dates they name (data.tz=ZONE reads them in a zone)",)
    assert read_panel(tmp_path / "d.parquet", dialect=Dialect(tz="Europe/Berlin")).series[0].frame.index.equals(
        days.rename("date"))  # the zone given: read in it
    utc = days.tz_convert("UTC").normalize()  # dates in UTC: already what they name
    pd.DataFrame({"date": utc, "OT": np.arange(60.0)}).to_parquet(tmp_path / "u.parquet", index=False)
    assert read_panel(tmp_path / "u.parquet").series[0].frame.index.equals(utc.rename("date"))


def test_naive_parquet_timestamps_are_local_in_the_zone_given(tmp_path: Path) -> None:
    local = pd.date_range("2021-03-28 00:00", periods=6, freq="h", tz="Europe/Berlin")  # clocks skip 02:00
    naive = local.tz_localize(None)
    pd.DataFrame({"date": naive, "OT": np.arange(6.0)}).to_parquet(tmp_path / "n.parquet", index=False)
    index = read_panel(tmp_path / "n.parquet", dialect=Dialect(tz="Europe/Berlin")).series[0].frame.index
    assert index.equals(local)
    skipped = pd.DataFrame({"date": pd.date_range("2021-03-28 00:00", periods=4, freq="h"), "OT": np.arange(4.0)})
    skipped.to_parquet(tmp_path / "s.parquet", index=False)
    with pytest.raises(DataError, match=r"s.parquet: row 2: timestamp 2021-03-28 02:00:00 does not exist in Europe/Berlin"):
        read_panel(tmp_path / "s.parquet", dialect=Dialect(tz="Europe/Berlin"))


def test_numbers_with_a_thousands_dot_are_read_as_written(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("date;sales;OT\n2021-01-01;1.230;1\n2021-01-02;2.500;2\n2021-01-03;3.005;3\n")
    assert read_table(tmp_path / "t.csv", header=True, sep=";")["sales"].dtype == np.float64  # 1.23 as parsed
    frame = read_panel(tmp_path / "t.csv", dialect=Dialect(sep=";", thousands=".")).series[0].frame
    assert frame["sales"].tolist() == [1230.0, 2500.0, 3005.0]


def test_a_numeric_missing_value_code_is_missing_in_stored_numbers(tmp_path: Path) -> None:
    data = pd.DataFrame({"date": pd.date_range("2021-01-01", periods=5, freq="D"),
                         "OT": [1.0, -200.0, 3.0, -200.0, 5.0]})
    data.to_parquet(tmp_path / "c.parquet", index=False)
    panel = read_panel(tmp_path / "c.parquet", dialect=Dialect(na_values=("-200",)))
    assert panel.series[0].frame["OT"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert "2 cell(s) written as a missing-value code (-200) filled by interpolate" in panel.notes[-1]
    data.to_csv(tmp_path / "c.csv", index=False)
    from_csv = read_panel(tmp_path / "c.csv", dialect=Dialect(na_values=("-200",)))
    pd.testing.assert_frame_equal(from_csv.series[0].frame, panel.series[0].frame)


@pytest.mark.parametrize("cell, message", [("inf", "line 3: column 'OT' has the non-finite value 'inf'"),
                                           ("NaN", "line 3: column 'OT' is empty or NaN")])
def test_a_non_finite_number_is_refused_at_its_line(tmp_path: Path, cell: str, message: str) -> None:
    (tmp_path / "f.csv").write_text(f"date,OT\n2021-01-01,1.5\n2021-01-02,{cell}\n2021-01-03,2\n")
    assert read_table(tmp_path / "f.csv", header=True)["OT"].dtype == np.float64
    with pytest.raises(DataError, match=message):
        read_panel(tmp_path / "f.csv")


def test_an_empty_stored_number_is_refused_at_its_row(tmp_path: Path) -> None:
    pd.DataFrame({"date": pd.date_range("2021-01-01", periods=4, freq="D"),
                  "OT": [1.0, 2.0, np.nan, 4.0]}).to_parquet(tmp_path / "e.parquet", index=False)
    with pytest.raises(DataError, match=r"e.parquet: row 2: column 'OT' is empty or NaN; fill the gap or pass"):
        read_panel(tmp_path / "e.parquet")
    filled = read_panel(tmp_path / "e.parquet", fill="interpolate").series[0].frame["OT"]
    assert filled.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_missing_stored_timestamp_is_refused_at_its_row(tmp_path: Path) -> None:
    stamps = pd.Series(pd.date_range("2021-01-01", periods=4, freq="D"))
    stamps.iloc[2] = pd.NaT
    pd.DataFrame({"date": stamps, "OT": np.arange(4.0)}).to_parquet(tmp_path / "t.parquet", index=False)
    with pytest.raises(DataError, match=r"t.parquet: row 2: empty timestamp in column 'date'"):
        read_panel(tmp_path / "t.parquet")


@pytest.mark.parametrize("cells", [["1.5", None, "2"], ["1,5", np.nan, "2"], ["$1.5", None, "$2"], ["1.5K", None, "2M"]])
def test_a_dataframes_text_column_with_missing_cells_reads_as_a_csv_with_empty_ones(tmp_path: Path,
                                                                                   cells: list) -> None:
    frame = pd.DataFrame({"date": pd.date_range("2023-01-16", periods=3, freq="D"), "v": cells})
    csv = tmp_path / "same.csv"
    frame.to_csv(csv, index=False)
    from_frame = read_panel(frame, fill="ffill").series[0].frame
    pd.testing.assert_frame_equal(from_frame, read_panel(csv, fill="ffill").series[0].frame)
    with pytest.raises(DataError, match=r"<DataFrame>: row 1: column 'v' is empty or NaN; fill the gap"):
        read_panel(frame)


@pytest.mark.parametrize(("cells", "expected"), [
    (["1", "", "-2.5e1", "nan", "inf"], [1.0, np.nan, -25.0, np.nan, np.inf]),
    (["1", " 2"], None),  # a space: read with the file's dialect
    (["1,5", "2"], None),  # a decimal comma
    (["1", "-"], None),  # a word
])
def test_plain_numbers_are_read_by_arrow_and_the_rest_left_to_the_dialect(cells: list[str], expected: list) -> None:
    got = plain_numbers(pd.Series(cells, dtype="str"))
    if expected is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(plain_numbers(pd.Series([1, 2])), [1.0, 2.0])  # stored numbers as they are


def test_columns_written_with_digits_and_marks_alone_are_numeric_text() -> None:
    """Such columns hold no sign, unit, flag, bound, magnitude letter, boolean or word for the reader to look for."""
    raw = pd.DataFrame({
        "comma": ["12,5", " 1\u00a0234,5 ", "", "1E-05", "-3", None],
        "plain": ["1.5", "2", "3e4", "+4.", "\t5", ""],
        "percent": ["1,2 %", "3", "4", "5", "6", "7"],
        "bound": ["<1", "3", "4", "5", "6", "7"],
        "flag": ["12.5 p", "3", "4", "5", "6", "7"],
        "word": ["nan", "3", "4", "5", "6", "7"],
        "bool": ["TRUE", "FALSE", "TRUE", "TRUE", "FALSE", "TRUE"],
        "typed": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    })
    raw[["comma", "plain"]] = raw[["comma", "plain"]].astype(pd.StringDtype("pyarrow"))
    assert numeric_text(raw, list(raw.columns)) == {"comma", "plain"}
