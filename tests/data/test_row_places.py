"""A Parquet file's or a DataFrame's cells are named by row, from 0 as pandas numbers them; a text file's by line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError, at_lines, by_row
from forecast.data.reader import read_panel


def days(rows: int = 120) -> pd.DataFrame:
    return pd.DataFrame({"date": pd.date_range("2021-01-01", periods=rows, freq="D"),
                         "load": np.arange(rows, dtype=float)})


def refusal(source: object) -> str:
    with pytest.raises(DataError) as err:
        read_panel(source)
    return str(err.value)


def test_a_missing_cell_is_named_by_its_row_in_parquet_and_a_dataframe_by_its_line_in_csv(tmp_path: Path) -> None:
    frame = days()
    frame.loc[50, "load"] = np.nan
    frame.to_parquet(tmp_path / "days.parquet")
    frame.to_csv(tmp_path / "days.csv", index=False)
    tail = "column 'load' is empty or NaN; fill the gap or pass data.fill=ffill|interpolate"
    assert refusal(tmp_path / "days.parquet") == f"{tmp_path / 'days.parquet'}: row 50: {tail}"
    assert refusal(frame) == f"<DataFrame>: row 50: {tail}"
    assert refusal(tmp_path / "days.csv") == f"{tmp_path / 'days.csv'}: line 52: {tail}"


def test_a_repeated_timestamp_names_both_rows(tmp_path: Path) -> None:
    frame = days()
    frame.loc[80, "date"] = frame.loc[79, "date"]
    assert refusal(frame).startswith("<DataFrame>: row 80: duplicate timestamp 2021-03-21 00:00:00 (also on row 79, "
                                     "with another 'load'); remove or aggregate duplicates")


def test_a_note_names_rows_too() -> None:
    frame = days()
    frame.iloc[[10, 11]] = frame.iloc[[11, 10]].to_numpy()
    panel = read_panel(frame)
    pd.testing.assert_frame_equal(panel.series[0].frame, days().set_index("date"))
    assert panel.notes[0].endswith("rows out of time order read in time order (row 11: 2021-01-11 00:00:00 after "
                                   "2021-01-12 00:00:00)")


def test_by_row_counts_from_the_line_under_the_header() -> None:
    assert by_row("f: line 2: x (also on line 12); before line 7, inline 9") == \
        "f: row 0: x (also on row 10); before row 5, inline 9"


def test_at_lines_names_the_file_and_the_lines_of_the_rows() -> None:
    assert at_lines("<DataFrame>: line 3: x (also on line 2); line 9", "<DataFrame>", "m.tsf", [14, 15]) == \
        "m.tsf: line 15: x (also on line 14); line 9"
