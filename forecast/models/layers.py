"""Position-wise feed-forward block shared by encoder and decoder layers."""

from __future__ import annotations

from typing import Literal

import torch.nn.functional as F
from torch import Tensor, nn

from forecast.core.errors import ConfigError
from forecast.models.dropout import Dropout

Activation = Literal["gelu", "relu"]


class FeedForward(nn.Module):
    """Linear -> activation -> dropout -> Linear -> dropout.

    Identical in math to the reference's pair of kernel-1 ``Conv1d`` (a kernel-1 convolution over
    time is a position-wise linear map); ``nn.Linear`` is the cheaper kernel on CPU.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float, activation: Activation = "gelu") -> None:
        super().__init__()
        if activation not in ("gelu", "relu"):
            raise ConfigError(f"activation must be gelu or relu, got {activation!r}")
        self.fc1, self.fc2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.dropout = Dropout(dropout)
        self.act = F.gelu if activation == "gelu" else F.relu

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, d_model) -> (B, L, d_model)."""
        return self.dropout(self.fc2(self.dropout(self.act(self.fc1(x)))))
