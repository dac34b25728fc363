"""Channel independence (PatchTST-style) around any forecaster: every channel its own univariate series."""

from __future__ import annotations

from typing import Any, Iterable

from torch import Tensor

from forecast.core.forecaster import DataDims, ForecasterFactory
from forecast.wrappers.base import Wrapper


class ChannelIndependent(Wrapper):
    """Feeds each input channel to one shared univariate forecaster and keeps the target channels.

    The wrapped net is built for one channel in and one out (``enc_in = c_out = 1``); every channel
    of every window becomes a row of its batch, with the window's time marks.

    Args:
        net: factory of the wrapped forecaster.
        dims: the data's sizes.
    """

    def __init__(self, *, net: ForecasterFactory, dims: DataDims) -> None:
        super().__init__()
        self.target_index = [int(i) for i in dims["target_index"]]
        self.pred_len = dims["pred_len"]
        self.net = net(dims=DataDims(**{**dims, "enc_in": 1, "c_out": 1, "target_index": [0]}))

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """Nothing: the wrapped net sees transformed windows, so a choice on raw ones would not be its own."""

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in), x_mark_enc (B, seq_len, M), x_mark_dec (B, T + P, M) -> (B, P, C_out)."""
        b, length, c = x_enc.shape
        series = x_enc.permute(0, 2, 1).reshape(b * c, length, 1)  # (B*C_in, seq_len, 1)
        out = self.net(series, x_mark_enc.repeat_interleave(c, dim=0),
                       x_mark_dec.repeat_interleave(c, dim=0))  # (B*C_in, P, 1)
        out = out.reshape(b, c, self.pred_len).permute(0, 2, 1)  # (B, P, C_in)
        return out[..., self.target_index]  # (B, P, C_out)
