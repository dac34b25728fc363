"""A file of numbers only, without a timestamp column: read as consecutive steps when training, with a note; a file
where some column could hold the times is refused as before, and so is every file read for a trained model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.reader import read_panel

NOTE = ("detected rows without timestamps (no column 'date' nor any of times), read as consecutive steps without "
        "calendar features (data.timestamp_col=NAME names a column of times)")


def _csv(tmp_path: Path, frame: pd.DataFrame, header: bool = True) -> Path:
    csv = tmp_path / "numbers.csv"
    frame.to_csv(csv, index=False, header=header)
    return csv


def _values(n: int = 40) -> np.ndarray:
    return np.round(np.sin(np.arange(n) / 3.0) * 10, 3)


@pytest.mark.parametrize("header", [True, False])
def test_numbers_only_are_steps(tmp_path: Path, header: bool) -> None:
    csv = _csv(tmp_path, pd.DataFrame({"a": _values(), "b": _values() * 2}), header=header)
    panel = read_panel(csv, header=header, steps_without_timestamps=True)
    assert panel.timestamp_col is None and panel.freq is None
    frame = panel.series[0].frame
    assert isinstance(frame.index, pd.RangeIndex) and len(frame) == 40
    np.testing.assert_array_equal(frame.iloc[:, 0].to_numpy(), _values())
    assert panel.notes == (f"{csv}: {NOTE}",)


def test_a_series_id_may_be_text(tmp_path: Path) -> None:
    frame = pd.DataFrame({"store": ["x"] * 40 + ["y"] * 40, "sales": np.r_[_values(), _values()]})
    panel = read_panel(_csv(tmp_path, frame), id_col="store", steps_without_timestamps=True)
    assert panel.ids == ["x", "y"] and panel.timestamp_col is None


def test_a_model_reading_a_file_asks_for_its_timestamps(tmp_path: Path) -> None:
    csv = _csv(tmp_path, pd.DataFrame({"a": _values()}))
    with pytest.raises(DataError, match=r"no timestamp column 'date' \(columns: a\)"):
        read_panel(csv)


@pytest.mark.parametrize("frame,columns", [
    (pd.DataFrame({"t": np.arange(40) * 3600 + 1_700_000_000, "a": _values()}), "t, a"),  # Unix times
    (pd.DataFrame({"elapsed_time": np.arange(40.0), "a": _values()}), "elapsed_time, a"),  # named like a time
    (pd.DataFrame({"hr": np.arange(40) % 24, "a": _values()}), "hr, a"),  # a date's part
    (pd.DataFrame({"when": ["soon"] * 40, "a": _values()}), "when, a"),  # text
])
def test_a_column_that_could_hold_times_is_not_guessed(tmp_path: Path, frame: pd.DataFrame, columns: str) -> None:
    with pytest.raises(DataError, match=rf"no timestamp column 'date' \(columns: {columns}\)"):
        read_panel(_csv(tmp_path, frame), steps_without_timestamps=True)


def test_a_named_column_that_is_missing_is_refused(tmp_path: Path) -> None:
    csv = _csv(tmp_path, pd.DataFrame({"a": _values()}))
    with pytest.raises(DataError, match=r"no timestamp column 'stamp' \(columns: a\)"):
        read_panel(csv, timestamp_col="stamp", steps_without_timestamps=True)
