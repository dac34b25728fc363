"""Forecast files: pyarrow's writer, read back as pandas' own writer's output reads back."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.predict.output import default_output, write_csv, write_frame, write_parts


def rolling_like(rows: int, text: str = "OT") -> pd.DataFrame:
    """A frame shaped like ``forecast-predict --rolling``'s long table: text stamps, float32 and float64."""
    rng = np.random.default_rng(0)
    stamps = pd.date_range("2016-07-01", periods=rows, freq="h").strftime("%d.%m.%Y %H:%M").to_numpy(dtype=object)
    pred = rng.normal(size=rows).astype(np.float32)
    pred[1] = np.nan
    return pd.DataFrame({"id": np.arange(rows) % 3, "origin": stamps, "column": np.full(rows, text, dtype=object),
                         "prediction": pred, "actual": rng.normal(size=rows) * 1e-7,
                         "lo_80": np.r_[np.inf, rng.normal(size=rows - 1)]})


@pytest.mark.parametrize("text", ["OT", "load, kW", 'say "x"'])
def test_the_file_reads_back_as_pandas_own_output(tmp_path: Path, text: str) -> None:
    frame = rolling_like(50, text)
    write_frame(frame, tmp_path / "ours.csv")
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    ours, theirs = pd.read_csv(tmp_path / "ours.csv"), pd.read_csv(tmp_path / "pandas.csv")
    pd.testing.assert_frame_equal(ours, theirs)
    assert ours["column"].iloc[0] == text and np.isnan(ours["prediction"].iloc[1])



def test_slices_read_back_as_one_frame_when_a_late_value_needs_quotes(tmp_path: Path) -> None:
    frame = rolling_like(50)
    frame.loc[45, "column"] = "load, kW"  # in the last slice of 7 rows: the file restarts with quotes
    frame["when"] = pd.date_range("2016-07-01", periods=50, freq="h", tz="UTC")
    write_frame(frame, tmp_path / "ours.csv", chunk_rows=7)
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "ours.csv"), pd.read_csv(tmp_path / "pandas.csv"))


@pytest.mark.parametrize("cuts", [(0, 50), (0, 3, 10, 11, 31, 50), (0, 20, 50)])
def test_parts_are_written_as_their_concatenation(tmp_path: Path, cuts: tuple[int, ...]) -> None:
    """A backtest's long table written a series at a time: the bytes of the whole frame written at once, in the
    same slices of 7 rows (a slice across parts; whole floats in one slice, fractions in another), quotes where a
    late part needs them."""
    frame = rolling_like(50)
    frame["actual"] = np.r_[np.arange(25.0), np.arange(25) + 0.5]
    for name, changed in (("plain", frame), ("quoted", frame.assign(column=["OT"] * 45 + ["load, kW"] * 5))):
        parts = [changed.iloc[a:b] for a, b in zip(cuts, cuts[1:])]
        write_frame(changed, tmp_path / f"{name}_whole.csv", chunk_rows=7)
        write_parts(lambda parts=parts: iter(parts), tmp_path / f"{name}_parts.csv", chunk_rows=7)
        assert (tmp_path / f"{name}_parts.csv").read_bytes() == (tmp_path / f"{name}_whole.csv").read_bytes()
    write_parts(lambda: [frame.iloc[:0]], tmp_path / "empty.csv")
    assert (tmp_path / "empty.csv").read_text() == "id,origin,column,prediction,actual,lo_80\n"


def test_a_column_pyarrow_cannot_convert_is_written_by_pandas(tmp_path: Path) -> None:
    frame = pd.DataFrame({"mixed": [1, "a", 2.5] * 4, "value": np.arange(12) + 0.5})
    write_frame(frame, tmp_path / "out.csv", chunk_rows=5)
    assert (tmp_path / "out.csv").read_text() == frame.to_csv(index=False)

def test_values_that_need_no_quotes_are_written_without_them(tmp_path: Path) -> None:
    write_frame(rolling_like(3), tmp_path / "out.csv")
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "id,origin,column,prediction,actual,lo_80"
    assert lines[1].startswith("0,01.07.2016 00:00,OT,") and lines[1].split(",")[-1] == "inf"
    assert lines[2].split(",")[3] == ""  # NaN: an empty cell


def test_dates_and_booleans_keep_pandas_forms(tmp_path: Path) -> None:
    frame = pd.DataFrame({"date": pd.date_range("2016-07-01", periods=2, freq="h", tz="UTC"), "flag": [True, False]})
    write_frame(frame, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text() == frame.to_csv(index=False)



@pytest.mark.parametrize("values", [
    [pd.Timestamp("2020-01-01", tz="Europe/Berlin"), pd.Timestamp("2020-07-01", tz="Etc/GMT-2")],  # two offsets
    [dt.datetime(2020, 1, 1, 5), dt.datetime(2020, 1, 2, 6)],
    [dt.date(2020, 1, 1), None],
    [True, None],
], ids=["tz-offsets", "datetimes", "dates", "booleans"])
def test_object_columns_of_stamps_and_flags_keep_pandas_forms(tmp_path: Path, values: list) -> None:
    frame = pd.DataFrame({"when": pd.Series(values, dtype=object), "value": [1.5, 2.0]})
    write_frame(frame, tmp_path / "out.csv")
    stamps = lambda text: [line.rsplit(",", 1)[0] for line in text.splitlines()]  # noqa: E731
    assert stamps((tmp_path / "out.csv").read_text()) == stamps(frame.to_csv(index=False))


def test_a_float_column_of_whole_numbers_reads_back_as_floats(tmp_path: Path) -> None:
    frame = pd.DataFrame({"actual": [3.0, 0.0, 5.0, -2.0, 7.0], "prediction": [2.5, 0.25, 1.0, 1.0, 3.0],
                          "empty": np.full(5, np.nan)})
    write_frame(frame, tmp_path / "out.csv", chunk_rows=2)
    back = pd.read_csv(tmp_path / "out.csv")
    pd.testing.assert_frame_equal(back, pd.read_csv(io.StringIO(frame.to_csv(index=False))))
    assert back.dtypes.tolist() == [np.float64] * 3

def test_write_csv_refuses_an_existing_file_and_leaves_it(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("mine\n")
    with pytest.raises(FileExistsError):
        write_csv(rolling_like(3), target, overwrite=False)
    assert target.read_text() == "mine\n"
    write_csv(rolling_like(3), target, overwrite=True)
    assert target.read_text().startswith("id,origin,")


@pytest.mark.parametrize(("given", "written"), [
    ("data/ETTh2.csv", "data/ETTh2.forecast.csv"), ("log.csv.gz", "log.forecast.csv"),
    ("bulk/log.CSV.ZIP", "bulk/log.forecast.csv"), ("msft.tar.gz", "msft.forecast.csv"), ("x.txt", "x.forecast.csv"),
    ("notes", "notes.forecast.csv")])
def test_the_default_output_is_named_after_the_file_inside_a_compressed_input(given: str, written: str) -> None:
    assert default_output(given, "forecast") == Path(written)
