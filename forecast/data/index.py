"""The windows of one split of every series, as integer ids over shared arrays (no window is stored).

Series ``s`` holds rows ``[row_start[s], row_end[s])`` of the shared arrays; its windows in a split have
origins ``first[s] + k * stride`` for ``k < count[s]``. Window ids run over the series one after another:
``win_offsets[s] <= id < win_offsets[s + 1]`` are series ``s``'s, so an id maps to its series with one
``searchsorted`` and to its origin with one multiply-add. A batch of ids is one gather,
``origin[:, None] + arange(length)``.
"""

from __future__ import annotations

import math

from typing import Sequence

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset

from forecast.data.batch import Batch
from forecast.data.row_marks import RowMarks
from forecast.data.windows import WindowDataset


def window_count(rows: int, seq_len: int, pred_len: int, stride: int) -> int:
    """Windows of ``seq_len + pred_len`` rows in ``rows`` rows, origins every ``stride`` rows."""
    span = rows - seq_len - pred_len
    return 0 if span < 0 else span // stride + 1


def _sliding(rows: Tensor, length: int) -> Tensor:
    """Every run of ``length`` consecutive rows as a view. Shapes: (N, C) -> (N - length + 1, length, C)."""
    n, c = rows.shape
    return rows.as_strided((max(0, n - length + 1), length, c), (rows.stride(0), rows.stride(0), rows.stride(1)))


class _MarkRuns:
    """Every run of ``length`` consecutive rows of the marks, gathered by first row: a view of (N, M) marks, or of
    a :class:`~forecast.data.row_marks.RowMarks`' rows, then looked up in its table."""

    def __init__(self, marks: Tensor | RowMarks, length: int) -> None:
        self._table = marks.table if isinstance(marks, RowMarks) else None
        self._runs = _sliding(marks.rows[:, None] if isinstance(marks, RowMarks) else marks, length)  # (R, length, *)

    def take(self, first: Tensor) -> Tensor:
        """The runs starting at rows ``first``. Shapes: (B,) -> (B, length, M)."""
        runs = self._runs.index_select(0, first)  # (B, length, M), or (B, length, 1) rows of the table
        return runs if self._table is None else self._table[runs[..., 0]]


class WindowIndex(Dataset[Batch]):
    """Windows of one split over many series: ``len`` ids, ``index[i]`` one window, ``index[ids]`` a batch.

    Window ``i`` (origin ``o``) holds inputs ``[o, o + seq_len)``, decoder marks
    ``[o + seq_len - label_len, o + seq_len + pred_len)`` and targets ``[o + seq_len, o + seq_len + pred_len)``.

    Args:
        inputs: scaled input columns of every series one after another, (N, C_in).
        targets: scaled target columns, (N, C_out).
        marks: time marks, (N, M), or stored once per distinct timestamp (:class:`~forecast.data.row_marks.RowMarks`).
        starts: first row of each series' split range in the shared arrays, (S,).
        ends: one past the last row of each series' split range, (S,).
        seq_len: encoder window length.
        label_len: start-token length (<= seq_len).
        pred_len: horizon.
        stride: step between window origins within a series.
    """

    def __init__(self, inputs: Tensor, targets: Tensor, marks: Tensor | RowMarks, *, starts: Sequence[int],
                 ends: Sequence[int], seq_len: int, label_len: int, pred_len: int, stride: int = 1) -> None:
        if not 0 <= label_len <= seq_len:
            raise ValueError(f"label_len must be in [0, seq_len={seq_len}], got {label_len}")
        self.inputs, self.targets, self.marks = inputs, targets, marks
        self.seq_len, self.label_len, self.pred_len, self.stride = seq_len, label_len, pred_len, stride
        self.starts = np.asarray(starts, dtype=np.int64)  # (S,)
        self.ends = np.asarray(ends, dtype=np.int64)  # (S,)
        counts = np.array([window_count(int(e - s), seq_len, pred_len, stride)
                           for s, e in zip(self.starts, self.ends)], dtype=np.int64)  # (S,)
        self.win_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)  # (S + 1,)
        # every window of each length as a strided view (no copy): view[o] is rows [o, o + length)
        self._enc = _sliding(inputs, seq_len)  # (N - seq_len + 1, seq_len, C_in)
        self._enc_marks = _MarkRuns(marks, seq_len)  # (N - seq_len + 1, seq_len, M)
        self._dec_marks = _MarkRuns(marks, label_len + pred_len)  # (N - label_len - pred_len + 1, label+pred, M)
        self._tgt = _sliding(targets, pred_len)  # (N - pred_len + 1, pred_len, C_out)

    def __len__(self) -> int:
        return int(self.win_offsets[-1])

    @property
    def n_series(self) -> int:
        return len(self.starts)

    def series_of(self, ids: np.ndarray) -> np.ndarray:
        """The series (position in the index) of each window id. Shapes: (B,) -> (B,)."""
        return np.searchsorted(self.win_offsets, ids, side="right") - 1

    def origins(self, ids: np.ndarray) -> np.ndarray:
        """Row (of the shared arrays) of the first encoder input of each window. Shapes: (B,) -> (B,)."""
        ids = np.asarray(ids, dtype=np.int64)
        series = self.series_of(ids)
        return self.starts[series] + (ids - self.win_offsets[series]) * self.stride

    def origin(self, i: int) -> int:
        """Row of the first encoder input of window ``i``."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        return int(self.origins(np.array([i]))[0])

    def __getitem__(self, i: int | np.ndarray | Sequence[int]) -> Batch:
        """One window (an int: unbatched shapes) or a batch (an array of ids: one gather).

        Shapes (batched): x_enc (B, seq_len, C_in), x_mark_enc (B, seq_len, M),
        x_mark_dec (B, label_len + pred_len, M), y (B, pred_len, C_out); without the B for an int.
        """
        if isinstance(i, (int, np.integer)):
            if not 0 <= i < len(self):
                raise IndexError(i)
            return Batch(*(t[0] for t in self.gather(np.array([i]))))
        return self.gather(np.asarray(i, dtype=np.int64))

    def gather(self, ids: np.ndarray) -> Batch:
        """The windows ``ids`` as one batch (shapes as in :class:`Batch`)."""
        o = torch.from_numpy(self.origins(ids))  # (B,)
        end = o + self.seq_len
        return Batch(x_enc=self._enc.index_select(0, o),  # (B, seq_len, C_in)
                     x_mark_enc=self._enc_marks.take(o),  # (B, seq_len, M)
                     x_mark_dec=self._dec_marks.take(end - self.label_len),  # (B, label_len + pred_len, M)
                     y=self._tgt.index_select(0, end))  # (B, pred_len, C_out)

    @property
    def parts(self) -> list[WindowDataset]:
        """One :class:`WindowDataset` per series (views of the same arrays), in index order."""
        return [WindowDataset(self.inputs, self.targets, self.marks, start=int(s), end=int(e), seq_len=self.seq_len,
                              label_len=self.label_len, pred_len=self.pred_len, stride=self.stride)
                for s, e in zip(self.starts, self.ends)]

    def with_stride(self, stride: int) -> "WindowIndex":
        """The same series and ranges, origins every ``stride`` rows."""
        return WindowIndex(self.inputs, self.targets, self.marks, starts=self.starts, ends=self.ends,
                           seq_len=self.seq_len, label_len=self.label_len, pred_len=self.pred_len, stride=stride)


def stride_under_cap(index: WindowIndex, cap: int | None, season: int | None = None) -> int:
    """The smallest stride, at least ``index.stride``, that leaves at most ``cap`` windows in the index, and
    shares no factor with ``season`` (the steps of the data's season, e.g. 7 for daily data), so that the
    windows kept start at every phase of the season, not always on a Monday.

    ``cap`` None keeps the index's own stride. A panel of nearly ``cap`` series keeps one window a series (its
    first), the fewest a stride can leave: the stride that passes every series' last origin (with more series
    than ``cap``, :func:`sampled_series` draws some).
    """
    if cap is None or len(index) <= cap:
        return index.stride
    span = _last_origins(index)
    span = span[span >= 0]
    one_each = int(span.max()) + 1
    stride = max(index.stride, -(-len(index) * index.stride // cap))
    while stride < one_each and (_windows_at(span, stride) > cap or math.gcd(stride, season or 1) > 1):
        stride += 1
    return max(index.stride, min(stride, one_each))


def _last_origins(index: WindowIndex) -> np.ndarray:
    """Each series' last window origin, from its first, (S,); negative where the series holds no window."""
    return index.ends - index.starts - index.seq_len - index.pred_len


def _windows_at(spans: np.ndarray, stride: int) -> int:
    """Windows of series whose last origins are ``spans`` (:func:`_last_origins`), origins every ``stride`` rows."""
    return int(np.sum(spans[spans >= 0] // stride + 1))


def one_each(index: WindowIndex, cap: int | None, stride: int) -> bool:
    """Whether ``index`` thinned under ``cap`` is one window a series, better drawn (:func:`sampled_series`): the
    panel has more series than ``cap``, or ``stride`` (:func:`stride_under_cap`) leaves one window of each."""
    if cap is None or len(index) <= cap:
        return False
    return index.n_series > cap or _windows_at(_last_origins(index), stride) == index.n_series


def sampled_series(index: WindowIndex, cap: int, seed: int, stream: int = 0) -> WindowIndex:
    """One window of each of ``cap`` series drawn from ``seed`` (and ``stream``, one a split), at one of its
    origins drawn with them (not every series' first, which in a panel of aligned series is one date). The others
    keep their place in the index without a window, so positions still name the same series."""
    counts = np.diff(index.win_offsets)  # (S,)
    rng = np.random.Generator(np.random.PCG64([int(seed), 0x5EED, 1 + int(stream)]))
    chosen = np.sort(rng.choice(np.flatnonzero(counts), size=cap, replace=False))  # (cap,)
    origins = index.starts[chosen] + rng.integers(0, counts[chosen]) * index.stride  # (cap,)
    starts = index.starts.copy()  # (S,)
    starts[chosen] = origins
    ends = starts.copy()  # (S,) no window where not chosen
    ends[chosen] = origins + index.seq_len + index.pred_len
    return WindowIndex(index.inputs, index.targets, index.marks, starts=starts, ends=ends, seq_len=index.seq_len,
                       label_len=index.label_len, pred_len=index.pred_len, stride=index.stride)


def fixed_sample(n: int, cap: int | None, seed: int) -> np.ndarray:
    """At most ``cap`` of the ids ``0 .. n-1``, drawn once from ``seed`` and sorted (all of them when few)."""
    if cap is None or n <= cap:
        return np.arange(n, dtype=np.int64)
    rng = np.random.Generator(np.random.PCG64([int(seed), 0x5EED]))
    return np.sort(rng.choice(n, size=cap, replace=False)).astype(np.int64)
