"""Marks stored once per distinct timestamp serve the same windows as marks stored for every row."""

import numpy as np
import pandas as pd
import torch

from forecast.data.index import WindowIndex
from forecast.data.row_marks import RowMarks, calendar_marks
from forecast.data.time_features import time_marks


def _panel_index(series: int, days: int) -> pd.DatetimeIndex:
    """Daily stamps of ``series`` series one after another, each starting a day later than the one before."""
    return pd.DatetimeIndex(np.concatenate([pd.date_range("2021-01-01", periods=days, freq="D") + pd.Timedelta(days=s)
                                            for s in range(series)]))


def test_a_panel_of_shared_dates_stores_each_date_once():
    index = _panel_index(series=4, days=30)
    marks = calendar_marks(index, "D")
    assert isinstance(marks, RowMarks)
    assert marks.table.shape == (33, time_marks(index[:1], "D").shape[1])
    assert marks.shape == (120, marks.table.shape[1])
    assert torch.equal(marks[:], torch.from_numpy(time_marks(index, "D")))
    assert torch.equal(marks[45:50], torch.from_numpy(time_marks(index[45:50], "D")))


def test_one_series_keeps_a_row_of_marks_a_row():
    index = pd.date_range("2021-01-01", periods=50, freq="h")
    marks = calendar_marks(index, "h")
    assert isinstance(marks, torch.Tensor)
    assert torch.equal(marks, torch.from_numpy(time_marks(index, "h")))


def test_windows_over_stored_marks_equal_windows_over_every_row():
    index = _panel_index(series=3, days=40)
    dense = torch.from_numpy(time_marks(index, "D"))
    shared = calendar_marks(index, "D")
    values = torch.randn(len(index), 2)
    kwargs = dict(starts=[0, 40, 80], ends=[40, 80, 120], seq_len=8, label_len=4, pred_len=3, stride=2)
    a, b = WindowIndex(values, values, dense, **kwargs), WindowIndex(values, values, shared, **kwargs)
    ids = np.array([0, 5, 13, 14, 27, len(a) - 1])
    for got, want in zip(b[ids], a[ids]):
        assert torch.equal(got, want)
    assert b[ids].x_mark_dec.shape == (6, 7, dense.shape[1])
    for part_a, part_b in zip(a.parts, b.parts):
        for got, want in zip(part_b[1], part_a[1]):
            assert torch.equal(got, want)
    thinned = b.with_stride(5)
    assert torch.equal(thinned[np.array([1, 2])].x_mark_enc, a.with_stride(5)[np.array([1, 2])].x_mark_enc)
