"""Calendar features per frequency."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.time_features import (
    future_index, infer_frequency, n_continuous_features, n_time_marks, time_marks,
)


@pytest.mark.parametrize("freq,n_cont", [("s", 6), ("min", 5), ("15min", 5), ("h", 4), ("D", 3), ("B", 3),
                                          ("W", 2), ("MS", 1), ("ME", 1)])
def test_shapes_and_ranges_per_frequency(freq: str, n_cont: int) -> None:
    index = pd.date_range("2021-01-01", periods=50, freq=freq)
    marks = time_marks(index, freq)
    assert n_continuous_features(freq) == n_cont
    assert marks.shape == (50, n_time_marks(freq)) == (50, n_cont + 5)
    assert marks.dtype == np.float32
    assert np.all(marks[:, :n_cont] >= -0.5) and np.all(marks[:, :n_cont] <= 0.5)
    cal = marks[:, n_cont:]
    np.testing.assert_array_equal(cal[:, 0], index.month)
    np.testing.assert_array_equal(cal[:, 3], index.hour)
    np.testing.assert_array_equal(cal[:, 4], index.minute)


def test_hourly_features_match_their_definition() -> None:
    index = pd.DatetimeIndex(["2016-07-01 13:00"])
    hour, dow, dom, doy = time_marks(index, "h")[0, :4]
    assert hour == pytest.approx(13 / 23 - 0.5)
    assert dow == pytest.approx(4 / 6 - 0.5)  # Friday
    assert dom == pytest.approx(0 / 30 - 0.5)
    assert doy == pytest.approx((183 - 1) / 365 - 0.5)


@pytest.mark.parametrize("freq", ["h", "15min", "D", "B", "W-SUN", "MS"])
def test_frequency_is_inferred_and_continued(freq: str) -> None:
    index = pd.date_range("2020-01-01", periods=40, freq=freq)
    inferred = infer_frequency(index, source="x.csv")
    future = future_index(index[-1], inferred, 5)
    expected = pd.date_range("2020-01-01", periods=45, freq=freq)[40:]
    assert list(future) == list(expected)


def test_irregular_spacing_names_the_row() -> None:
    index = pd.DatetimeIndex(list(pd.date_range("2020-01-01", periods=10, freq="h")) + [pd.Timestamp("2020-01-01 12:00")])
    with pytest.raises(DataError, match=r"x.csv: timestamps are irregularly spaced \(row 11: 2020-01-01 12:00:00 follows"):
        infer_frequency(index, source="x.csv")


def test_unknown_frequency_is_refused() -> None:
    with pytest.raises(DataError, match="unknown frequency 'fortnightly'"):
        n_continuous_features("fortnightly")
