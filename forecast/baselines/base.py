"""What every baseline shares: the target channels of the input window."""

from __future__ import annotations

from torch import Tensor

from forecast.core.forecaster import DataDims, Forecaster


class Baseline(Forecaster):
    """Stores the window sizes and the target channels every baseline needs; the marks are not read.

    A baseline with no options of its own needs no constructor.

    Args:
        dims: the data's sizes; ``target_index`` must name ``c_out`` channels.
    """

    def __init__(self, *, dims: DataDims) -> None:
        super().__init__()
        seq_len, pred_len, c_out, target_index = dims["seq_len"], dims["pred_len"], dims["c_out"], dims["target_index"]
        if min(seq_len, pred_len) < 1:
            raise ValueError(f"seq_len and pred_len must be >= 1, got {seq_len} and {pred_len}")
        if len(target_index) != c_out:
            raise ValueError(f"target_index has {len(target_index)} channels but c_out is {c_out}")
        self.seq_len, self.pred_len = seq_len, pred_len
        self.target_index = [int(i) for i in target_index]
        first = self.target_index[0] if self.target_index else 0
        in_order = self.target_index == list(range(first, first + len(self.target_index)))
        #: the target channels as a slice when they are consecutive (``M``, ``MS``'s last column): a view
        self._target_slice = slice(first, first + len(self.target_index)) if in_order else None

    def targets(self, x_enc: Tensor) -> Tensor:
        """The target channels of the input window (a view when they are consecutive, else a gather).
        Shapes: (B, L, C_in) -> (B, L, C_out)."""
        if self._target_slice is not None:
            return x_enc[..., self._target_slice]
        return x_enc[..., self.target_index]

    def extra_repr(self) -> str:
        return f"seq_len={self.seq_len}, pred_len={self.pred_len}, target_index={self.target_index}"
