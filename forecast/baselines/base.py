"""What every baseline shares: the target channels of the input window."""

from __future__ import annotations

from typing import Sequence

from torch import Tensor

from forecast.core.forecaster import Forecaster


class Baseline(Forecaster):
    """Stores the window sizes and the target channels every baseline needs.

    The constructor takes the data sizes every forecaster is built from, so a baseline with no options
    of its own needs no constructor; the sizes a baseline does not use are accepted and ignored.

    Args:
        enc_in: input channels (unused).
        c_out: number of predicted channels (must match ``target_index``).
        n_time_features: time-feature columns (unused).
        n_future: known-future mark columns (unused: this forecaster reads no marks).
        seq_len: input window length.
        label_len: start-token length (unused).
        pred_len: horizon.
        target_index: positions of the predicted channels among the inputs (all of them for ``M``).
    """

    def __init__(self, *, enc_in: int, c_out: int, n_time_features: int, seq_len: int, label_len: int,
                 pred_len: int, target_index: Sequence[int], n_future: int = 0) -> None:
        super().__init__()
        if min(seq_len, pred_len) < 1:
            raise ValueError(f"seq_len and pred_len must be >= 1, got {seq_len} and {pred_len}")
        if len(target_index) != c_out:
            raise ValueError(f"target_index has {len(target_index)} channels but c_out is {c_out}")
        self.seq_len, self.pred_len = seq_len, pred_len
        self.target_index = [int(i) for i in target_index]

    def targets(self, x_enc: Tensor) -> Tensor:
        """The target channels of the input window. Shapes: (B, L, C_in) -> (B, L, C_out)."""
        return x_enc[..., self.target_index]

    def extra_repr(self) -> str:
        return f"seq_len={self.seq_len}, pred_len={self.pred_len}, target_index={self.target_index}"
