"""What every baseline shares: the target channels of the input window."""

from __future__ import annotations

from typing import Sequence

from torch import Tensor, nn


class Baseline(nn.Module):
    """Stores the window sizes and the target channels every baseline needs.

    Subclasses take the whole constructor contract of the models (``enc_in``, ``c_out``,
    ``n_time_features``, ``seq_len``, ``label_len``, ``pred_len``, ``target_index`` and the three
    attention factories ``encoder_attention``, ``decoder_attention``, ``cross_attention`` that
    ``conf/train.yaml`` always fills) and pass the part they use here.

    Args:
        seq_len: input window length.
        pred_len: horizon.
        target_index: positions of the predicted channels among the inputs (all of them for ``M``).
        c_out: number of predicted channels (must match ``target_index``).
    """

    def __init__(self, *, seq_len: int, pred_len: int, target_index: Sequence[int], c_out: int) -> None:
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
