"""A channel-independent MLP over each target channel's window: a residual net for a floor."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from forecast.core.forecaster import DataDims, Forecaster


class WindowMLP(Forecaster):
    """Each target channel's input window, its prior forecast and the horizon's calendar features and known-future
    inputs, mapped by one MLP shared by every channel to that channel's horizon.

    Args:
        dims: the data's sizes (``seq_len``, ``pred_len``, ``target_index``, ``n_time_features``).
        hidden: width of the hidden layers.
        layers: hidden layers (at least 1).
        dropout: dropout after each hidden layer.
        marks: read the horizon's marks: its continuous calendar features and known-future inputs (the first
            ``n_time_features + n_future`` columns of the marks).
    """

    def __init__(self, *, dims: DataDims, hidden: int = 256, layers: int = 2, dropout: float = 0.1,
                 marks: bool = True) -> None:
        super().__init__()
        for name, value in (("hidden", hidden), ("layers", layers)):
            if value < 1:
                raise ValueError(f"the MLP's {name} ({value}) must be at least 1")
        if not 0 <= dropout < 1:
            raise ValueError(f"the MLP's dropout ({dropout}) must be in [0, 1)")
        self.seq_len, self.pred_len = int(dims["seq_len"]), int(dims["pred_len"])
        self.register_buffer("target_index", torch.tensor([int(i) for i in dims["target_index"]]), persistent=False)
        self.n_marks = int(dims["n_time_features"]) + int(dims["n_future"]) if marks else 0
        width = self.seq_len + self.pred_len * (1 + self.n_marks)
        blocks: list[nn.Module] = []
        for _ in range(layers):
            blocks += [nn.Linear(width, hidden), nn.GELU(), nn.Dropout(dropout)]
            width = hidden
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(width, self.pred_len)

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None,
                prior: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); x_mark_dec: (B, T + P, M), its last P rows' first
            ``n_time_features + n_future`` columns read; prior: (B, P, C_out) or None (zeros).
            returns: (B, pred_len, C_out).
        """
        window = x_enc.index_select(-1, self.target_index).transpose(1, 2)  # (B, C_out, L)
        b, c = window.shape[0], window.shape[1]
        prior = window.new_zeros(b, self.pred_len, c) if prior is None else prior
        parts = [window, prior.transpose(1, 2)]  # (B, C_out, L), (B, C_out, P)
        if self.n_marks:
            assert x_mark_dec is not None
            horizon = x_mark_dec[:, -self.pred_len:, :self.n_marks].to(window.dtype)  # (B, P, F + K)
            parts.append(horizon.reshape(b, 1, -1).expand(-1, c, -1))  # (B, C_out, P * (F + K))
        out = self.head(self.body(torch.cat(parts, dim=-1)))  # (B, C_out, P)
        return out.transpose(1, 2)  # (B, P, C_out)

    def takes_prior(self) -> bool:
        """True: the prior forecast of each channel's horizon is an input."""
        return True

    @torch.no_grad()
    def zero_output_(self) -> None:
        """Zero the output layer: the forecast is exactly 0 until training moves it."""
        self.head.weight.zero_()
        self.head.bias.zero_()

    def output_is_zero(self) -> bool:
        """Whether the output layer is all zeros, so the forecast is exactly 0."""
        return not (self.head.weight.any() or self.head.bias.any())
