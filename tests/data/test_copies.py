"""Rows written twice (overlapping exports joined) are left out; a timestamp repeated with other values is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.copies import copied_rows, differing_column
from forecast.data.errors import DataError
from forecast.data.reader import read_panel


def logger(rows: int = 30) -> pd.DataFrame:
    """A 10-minute logger's readings, a missing cell in row 6."""
    times = pd.date_range("2009-01-01 00:10", periods=rows, freq="10min")
    frame = pd.DataFrame({"Date Time": times.strftime("%d.%m.%Y %H:%M:%S"), "T (degC)": np.arange(rows) / 4,
                          "wv (m/s)": np.arange(rows) % 7 + 0.5})
    frame.loc[6, "wv (m/s)"] = np.nan
    return frame


def test_rows_repeating_the_row_before_them_are_left_out(tmp_path: Path) -> None:
    frame = logger()
    joined = pd.concat([frame.iloc[:8], frame.iloc[5:20], frame.iloc[20:], frame.iloc[[29]]])  # rows 5-7 twice
    csv = tmp_path / "jena.csv"
    joined.to_csv(csv, index=False)
    panel = read_panel(csv, fill="interpolate")
    series = panel.series[0].frame
    assert len(series) == 30 and panel.freq == "10min"
    np.testing.assert_array_equal(series["T (degC)"].to_numpy(), np.arange(30) / 4)
    assert panel.notes[0].endswith("4 row(s) repeating the row before them, timestamp and every value, left out "
                                   "(the first: line 10, 2009-01-01 01:00:00)")
    assert "1 missing cell(s) filled by interpolate" in " ".join(panel.notes)


def test_a_timestamp_repeated_with_another_value_is_refused(tmp_path: Path) -> None:
    frame = logger()
    other = frame.iloc[[12]].assign(**{"T (degC)": 99.0})
    csv = tmp_path / "jena.csv"
    pd.concat([frame.iloc[:13], other, frame.iloc[13:]]).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, fill="interpolate")
    assert str(err.value).startswith(f"{csv}: line 15: duplicate timestamp 2009-01-01 02:10:00 (also on line 14, "
                                     f"with another 'T (degC)'); remove or aggregate duplicates")


def test_copies_are_found_within_a_series_only(tmp_path: Path) -> None:
    dates = pd.date_range("2020-01-01", periods=20, freq="D").strftime("%Y-%m-%d")
    frame = pd.DataFrame({"date": np.tile(dates, 2), "store": np.repeat(["a", "b"], 20), "sales": 5.0})
    csv = tmp_path / "long.csv"
    pd.concat([frame, frame.iloc[[25]]]).to_csv(csv, index=False)  # b's sixth day twice, at the end of the file
    panel = read_panel(csv, id_col="store")
    assert [len(s.frame) for s in panel.series] == [20, 20]
    assert "1 row(s) repeating the row before them, timestamp and every value, left out (the first: line 42, " \
           "2020-01-06 00:00:00)" in panel.notes[0]


def test_readings_aggregated_into_steps_keep_their_repeats(tmp_path: Path) -> None:
    """Two calls at one second are two calls: counted, not left out as a copy."""
    csv = tmp_path / "calls.csv"
    csv.write_text("time,agent\n2020-01-01 00:10:00,a\n2020-01-01 00:10:00,a\n2020-01-01 01:20:00,b\n"
                   "2020-01-01 02:30:00,a\n")
    frame = read_panel(csv, timestamp_col="time", resample="h", agg="count").series[0].frame
    assert frame["count"].tolist() == [2.0, 1.0, 1.0]


def test_a_long_file_with_rows_written_twice_still_names_its_series(tmp_path: Path) -> None:
    dates = pd.date_range("2020-01-01", periods=30, freq="D").strftime("%Y-%m-%d")
    frame = pd.DataFrame({"date": np.tile(dates, 3), "store": np.repeat(["north", "south", "east"], 30),
                          "sales": np.round(5 + np.sin(np.arange(90.0)), 3)})
    csv = tmp_path / "stores.csv"
    pd.concat([frame, frame.iloc[[10, 40]]]).to_csv(csv, index=False)  # two rows again at the end
    panel = read_panel(csv)
    assert panel.id_col == "store" and [len(s.frame) for s in panel.series] == [30, 30, 30]
    assert "series named by column 'store'" in panel.notes[0]
    assert "2 row(s) repeating the row before them, timestamp and every value, left out" in panel.notes[0]
    labelled = frame.assign(weather="sun")
    pd.concat([labelled, labelled.iloc[[10, 40]].assign(weather="rain")]).to_csv(csv, index=False)
    panel = read_panel(csv)  # rows alike in every value, another label
    assert panel.id_col == "store" and [len(s.frame) for s in panel.series] == [30, 30, 30]
    other = frame.iloc[[10]].assign(sales=-1.0)  # the same store and day with another value: no series named
    pd.concat([frame, other]).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 32: duplicate timestamp 2020-01-01 00:00:00 \(also on line 2, "
                                        r"with another 'sales'\)"):
        read_panel(csv)


def test_an_hour_repeated_for_each_of_its_labels_is_read_once(tmp_path: Path) -> None:
    """The Metro traffic file writes an hour once for each weather condition: its values the same, its labels not."""
    hours = pd.date_range("2012-10-02 09:00", periods=40, freq="h").strftime("%Y-%m-%d %H:%M:%S")
    frame = pd.DataFrame({"temp": np.arange(40) / 2 + 270, "weather_main": "Clouds", "date_time": hours,
                          "traffic_volume": np.arange(40) * 100})
    repeated = frame.iloc[[3, 17]].assign(weather_main="Mist")
    csv = tmp_path / "metro.csv"
    pd.concat([frame, repeated]).sort_index(kind="stable").to_csv(csv, index=False)
    panel = read_panel(csv, timestamp_col="date_time")
    assert panel.series[0].frame["traffic_volume"].tolist() == [k * 100.0 for k in range(40)]
    assert "2 row(s) repeating the row before them, timestamp and every value, left out (the first: line 6" \
        in panel.notes[0]
    pd.concat([frame, repeated.assign(temp=0.0)]).sort_index(kind="stable").to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 6: duplicate timestamp 2012-10-02 12:00:00 \(also on line 5, "
                                        r"with another 'temp'\)"):
        read_panel(csv, timestamp_col="date_time")


def test_missing_cells_of_any_kind_are_alike_only_beside_each_other() -> None:
    """Nullable columns (a DataFrame's Int64, Arrow's strings) hold pd.NA, which has no truth value."""
    raw = pd.DataFrame({"t": ["x"] * 3, "a": pd.array([1, None, 1], dtype="Int64"),
                        "s": pd.array(["u1", None, "v1"], dtype="string[pyarrow]"), "note": ["ok", "ok", "late"]})
    assert differing_column(raw, 0, 1, ("t",)) == "a"
    assert differing_column(raw, 0, 2, ("t",)) == "s"
    assert differing_column(raw, 1, 1, ("t",)) is None
    assert differing_column(raw.drop(columns=["s"]), 0, 2, ("t",)) == "note"  # a label, where no value differs
    two = pd.DataFrame({"t": ["x"] * 3, "a": pd.array([None, 1, 1], dtype="Int64"),
                        "s": pd.array(["1", None, None], dtype="string[pyarrow]")})
    stamps = pd.DatetimeIndex(["2020-01-01"] * 3)
    assert copied_rows(two, stamps, [(None, np.arange(3))], ("t",)).tolist() == [False, False, True]
