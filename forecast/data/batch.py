"""The batch every forecaster consumes."""

from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple

from torch import Tensor


class Batch(NamedTuple):
    """One window (or a collated batch of windows).

    Shapes (batched):
        x_enc: (B, seq_len, C_in) scaled inputs.
        x_mark_enc: (B, seq_len, M) time marks of the inputs.
        x_mark_dec: (B, label_len + pred_len, M) time marks of the start token and the horizon.
        y: (B, pred_len, C_out) scaled targets (empty ``(B, pred_len, 0)`` when the future is unknown).
    """

    x_enc: Tensor
    x_mark_enc: Tensor
    x_mark_dec: Tensor
    y: Tensor


class WindowRange:
    """Windows ``start`` to ``stop`` (counted over every batch, in order) of re-iterable batches, re-iterable.

    Args:
        batches: ``Batch``es (or any named tuples of tensors with the window first), re-iterable.
        start: first window.
        stop: one past the last window.
    """

    def __init__(self, batches: Iterable[Batch], start: int, stop: int) -> None:
        self.batches, self.start, self.stop = batches, start, stop

    def __iter__(self) -> Iterator[Batch]:
        offset = 0
        for batch in self.batches:
            size = len(batch[0])
            low, high = max(self.start - offset, 0), min(self.stop - offset, size)
            offset += size
            if low < high:
                yield type(batch)(*(field[low:high] for field in batch))  # each (high - low, ...)
            if offset >= self.stop:
                return


def window_count(batches: Iterable[Batch]) -> int:
    """The number of windows of re-iterable ``batches``: from their range, their own ``window_count()`` (a wrapper
    that changes each window, not which) and their ordered loader's ids where those say it (no pass over the
    windows), else by one pass."""
    if isinstance(batches, WindowRange):
        return max(0, min(batches.stop, window_count(batches.batches)) - batches.start)
    counted = getattr(batches, "window_count", None)
    if callable(counted):
        return counted()
    ids = getattr(getattr(batches, "sampler", None), "ids", None)
    if ids is not None:
        return len(ids)
    return sum(len(batch[0]) for batch in batches)
