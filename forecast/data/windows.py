"""Sliding windows over one scaled array, sliced by index (no window is ever materialised)."""

from __future__ import annotations

import bisect
from typing import Sequence

import torch
from torch import Tensor
from torch.utils.data import ConcatDataset, Dataset

from forecast.data.batch import Batch

# Steps in an evaluation batch by default: 256 windows of 96 + 48 + 24 steps.
EVAL_BATCH_STEPS = 256 * (96 + 48 + 24)


def eval_batch_windows(seq_len: int, label_len: int, pred_len: int, *, at_least: int = 1) -> int:
    """Windows in a forward pass without gradients: as many as hold :data:`EVAL_BATCH_STEPS` steps of
    ``seq_len + label_len + pred_len`` each, at least ``at_least``; a long horizon's batch so takes no more
    memory than a short one's (256 windows at 96 + 48 + 24, 49 at 96 + 48 + 720)."""
    return max(at_least, EVAL_BATCH_STEPS // (seq_len + label_len + pred_len))


class WindowDataset(Dataset[Batch]):
    """Windows whose encoder input starts at rows ``start, start + stride, ...`` of the arrays.

    Window ``i`` (origin ``o = start + i * stride``) holds inputs ``[o, o + seq_len)``, decoder
    marks ``[o + seq_len - label_len, o + seq_len + pred_len)`` and targets
    ``[o + seq_len, o + seq_len + pred_len)``.

    Args:
        inputs: scaled input columns, (N, C_in).
        targets: scaled target columns, (N, C_out).
        marks: time marks, (N, M).
        start: first row of the range (its first window's first input row).
        end: one past the last row of the range.
        seq_len: encoder window length.
        label_len: start-token length (<= seq_len).
        pred_len: horizon.
        stride: step between window origins.
    """

    def __init__(self, inputs: Tensor, targets: Tensor, marks: Tensor, *, start: int, end: int,
                 seq_len: int, label_len: int, pred_len: int, stride: int = 1) -> None:
        if not 0 <= label_len <= seq_len:
            raise ValueError(f"label_len must be in [0, seq_len={seq_len}], got {label_len}")
        self.inputs, self.targets, self.marks = inputs, targets, marks
        self.start, self.end, self.stride = start, end, stride
        self.seq_len, self.label_len, self.pred_len = seq_len, label_len, pred_len

    def __len__(self) -> int:
        span = self.end - self.start - self.seq_len - self.pred_len
        return 0 if span < 0 else span // self.stride + 1

    def origin(self, i: int) -> int:
        """Row of the first encoder input of window ``i``."""
        return self.start + i * self.stride

    def __getitem__(self, i: int) -> Batch:
        if not 0 <= i < len(self):
            raise IndexError(i)
        s = self.origin(i)
        e = s + self.seq_len
        return Batch(
            x_enc=self.inputs[s:e],  # (seq_len, C_in)
            x_mark_enc=self.marks[s:e],  # (seq_len, M)
            x_mark_dec=self.marks[e - self.label_len: e + self.pred_len],  # (label_len + pred_len, M)
            y=self.targets[e: e + self.pred_len],  # (pred_len, C_out)
        )


def as_tensor(array) -> Tensor:  # noqa: ANN001 - numpy array
    """float32 tensor sharing memory with a contiguous numpy array."""
    return torch.from_numpy(array).float().contiguous()


class ConcatWindows(ConcatDataset):
    """The windows of many series (one :class:`WindowDataset` each, over shared arrays): no window
    crosses two series. ``origin(i)`` is the row of window ``i`` in the shared arrays.

    Args:
        parts: one window set per series, with equal window sizes.
    """

    def __init__(self, parts: Sequence[WindowDataset]) -> None:
        super().__init__(list(parts))
        self.parts = list(parts)
        first = self.parts[0]
        self.seq_len, self.label_len, self.pred_len = first.seq_len, first.label_len, first.pred_len

    def origin(self, i: int) -> int:
        """Row (of the shared arrays) of the first encoder input of window ``i``."""
        part = bisect.bisect_right(self.cumulative_sizes, i)
        before = self.cumulative_sizes[part - 1] if part > 0 else 0
        return self.parts[part].origin(i - before)
