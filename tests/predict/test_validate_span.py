"""Frequency checks, backtest spans and checkpoint resolution (no training needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.splits import RowRange
from forecast.predict.checkpoint import resolve_checkpoint
from forecast.predict.span import resolve_span
from forecast.predict.validate import check_frequency, check_length, same_frequency


def test_same_frequency_compares_offsets() -> None:
    assert same_frequency("h", "60min") and same_frequency("15min", "15min") and same_frequency("D", "1D")
    assert not same_frequency("h", "30min") and not same_frequency("B", "D") and not same_frequency("MS", "ME")


@pytest.mark.parametrize("freq", ["h", "15min", "D", "B", "W", "MS"])
def test_check_frequency_accepts_regular(freq: str) -> None:
    index = pd.date_range("2021-01-04", periods=40, freq=freq)
    check_frequency(index, freq, source="x.csv")


def test_check_frequency_names_the_gap_line() -> None:
    index = pd.date_range("2021-01-04", periods=40, freq="B").delete(12)  # a missing business day
    with pytest.raises(DataError, match=r"x.csv: line 14: timestamp 2021-01-21 00:00:00 follows 2021-01-19"):
        check_frequency(index, "B", source="x.csv")


def test_check_frequency_other_frequency() -> None:
    with pytest.raises(DataError, match="at frequency 'D' but the model was trained on 'B'"):
        check_frequency(pd.date_range("2021-01-04", periods=40, freq="D"), "B", source="x.csv")


def test_check_length() -> None:
    check_length(96, 96, source="x.csv", what="w")
    with pytest.raises(DataError, match="x.csv: 95 data rows, but w needs at least 96"):
        check_length(95, 96, source="x.csv", what="w")


def test_span_test_uses_training_borders() -> None:
    index = pd.date_range("2016-07-01", periods=17420, freq="h")
    config = {"data": {"borders": [8640, 11520, 14400], "ratios": [0.7, 0.1, 0.2]}}
    assert resolve_span(index, config, seq_len=96, span="test") == RowRange(11520 - 96, 14400)
    ratios = {"data": {"borders": None, "ratios": [0.7, 0.1, 0.2]}}
    assert resolve_span(index[:1000], ratios, seq_len=24, span="test") == RowRange(800 - 24, 1000)


def test_span_bounds_rows_and_timestamps() -> None:
    index = pd.date_range("2020-01-01", periods=100, freq="h")
    assert resolve_span(index, {}, seq_len=10) == RowRange(0, 100)
    assert resolve_span(index, {}, seq_len=10, start="50", end="80") == RowRange(40, 80)
    # timestamps: start inclusive, end inclusive
    assert resolve_span(index, {}, seq_len=10, start="2020-01-03 02:00", end="2020-01-04 00:00") == RowRange(40, 73)
    with pytest.raises(DataError, match="not both"):
        resolve_span(index, {}, seq_len=10, span="test", start="5")
    with pytest.raises(DataError, match="--end 500: row out of range"):
        resolve_span(index, {}, seq_len=10, end="500")



@pytest.mark.parametrize(("bounds", "message"), [
    ({"start": "2099-01-01"}, "--start 2099-01-01: after the file's last timestamp, 2020-01-05 03:00:00; give a time "
                              "within the file"),
    ({"end": "2019-12-31"}, "--end 2019-12-31: before the file's first timestamp, 2020-01-01 00:00:00; give a time "
                            "within the file"),
    ({"start": "80", "end": "50"}, "--start 80 and --end 50 leave no row to forecast (rows 80 to 50, the end "
                                   "exclusive); give an --end after the --start"),
    ({"start": "2020-01-03 02:00", "end": "2020-01-03 01:00"},
     "--start 2020-01-03 02:00 and --end 2020-01-03 01:00 leave no row to forecast (rows 50 to 50, the end exclusive); "
     "give an --end after the --start")])
def test_bounds_outside_the_file_or_out_of_order_name_the_bound(bounds: dict[str, str], message: str) -> None:
    index = pd.date_range("2020-01-01", periods=100, freq="h")
    with pytest.raises(DataError) as caught:
        resolve_span(index, {}, seq_len=10, **bounds)
    assert str(caught.value) == message


def test_run_dir_resolution(tmp_path: Path) -> None:
    ckpts = tmp_path / "run" / "checkpoints"
    ckpts.mkdir(parents=True)
    (ckpts / "best-epoch00.ckpt").write_bytes(b"a")
    (ckpts / "best-epoch03.ckpt").write_bytes(b"b")
    # metrics.json names the best one; the run dir may have moved since training
    (tmp_path / "run" / "metrics.json").write_text(json.dumps({"checkpoint": "/elsewhere/checkpoints/best-epoch00.ckpt"}))
    assert resolve_checkpoint(tmp_path / "run") == ckpts / "best-epoch00.ckpt"
    (tmp_path / "run" / "metrics.json").unlink()
    assert resolve_checkpoint(tmp_path / "run").name.startswith("best-epoch0")
    with pytest.raises(DataError, match="no checkpoint in this directory"):
        resolve_checkpoint(tmp_path)
