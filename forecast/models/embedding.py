"""Informer's input embedding: token conv + sinusoidal position + temporal embedding, then dropout."""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor, nn

from forecast.data.time_features import CALENDAR_SIZES
from forecast.core.errors import ConfigError
from forecast.models.dropout import Dropout

Embed = Literal["timeF", "fixed", "learned"]


def sinusoid_table(n: int, d_model: int) -> Tensor:
    """sin on even dims, cos on odd dims, frequency exp(-ln(10000) 2i / d). Shape (n, d_model)."""
    pos = torch.arange(n, dtype=torch.float32)[:, None]  # (n, 1)
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    table = torch.zeros(n, d_model)
    table[:, 0::2] = torch.sin(pos * div)
    table[:, 1::2] = torch.cos(pos * div)[:, : d_model // 2]
    return table


class TokenEmbedding(nn.Module):
    """Conv1d over time, kernel 3, circular padding 1 (length preserved), Kaiming-normal init."""

    def __init__(self, c_in: int, d_model: int) -> None:
        super().__init__()
        self.conv = nn.Conv1d(c_in, d_model, kernel_size=3, padding=1, padding_mode="circular")
        nn.init.kaiming_normal_(self.conv.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, C) -> (B, L, d_model)."""
        y = self.conv(x.transpose(1, 2))  # (B, C, L) -> (B, d_model, L)
        # (B, L, d_model), laid out so: one copy here instead of one before every later matmul and norm
        return y.transpose(1, 2).contiguous()


class PositionalEmbedding(nn.Module):
    """Fixed sinusoidal positions, computed for any length (cached up to the longest seen)."""

    def __init__(self, d_model: int, max_len: int = 5000) -> None:
        super().__init__()
        self.d_model = d_model
        self.register_buffer("table", sinusoid_table(max_len, d_model), persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, ...) -> (1, L, d_model)."""
        length = x.shape[1]
        if length > self.table.shape[0]:
            self.table = sinusoid_table(length, self.d_model).to(self.table.device)
        return self.table[None, :length]


class TemporalEmbedding(nn.Module):
    """Time marks -> d_model.

    ``timeF``: a linear map of the continuous calendar features (the first ``n_time_features``
    mark columns); nothing (zeros) without them (``n_time_features=0``: data without timestamps).
    ``fixed``/``learned``: the sum of frozen sinusoidal / trainable lookup tables of the five integer
    calendar fields (the last five mark columns: month, day, weekday, hour, minute).

    Known-future columns (``n_future``, the mark columns after the continuous calendar features) add a
    linear map of their own under every ``embed``.
    """

    def __init__(self, d_model: int, n_time_features: int, embed: Embed = "timeF", n_future: int = 0) -> None:
        super().__init__()
        if embed not in ("timeF", "fixed", "learned"):
            raise ConfigError(f"embed must be timeF, fixed or learned, got {embed!r}")
        self.embed, self.n_time_features, self.d_model = embed, n_time_features, d_model
        self.n_future = n_future
        self.known = nn.Linear(n_future, d_model) if n_future > 0 else None
        if embed == "timeF":
            self.linear = nn.Linear(n_time_features, d_model) if n_time_features > 0 else None
        else:
            tables = []
            for size in CALENDAR_SIZES:
                table = nn.Embedding(size, d_model)
                if embed == "fixed":
                    table.weight.data.copy_(sinusoid_table(size, d_model))
                    table.weight.requires_grad_(False)
                tables.append(table)
            self.tables = nn.ModuleList(tables)

    def forward(self, marks: Tensor) -> Tensor:
        """Shapes: marks (B, L, M) -> (B, L, d_model)."""
        calendar = self._calendar(marks)  # (B, L, d_model)
        if self.known is None:
            return calendar
        return calendar + self.known(marks[..., self.n_time_features: self.n_time_features + self.n_future])

    def _calendar(self, marks: Tensor) -> Tensor:
        """Shapes: marks (B, L, M) -> (B, L, d_model)."""
        if self.embed == "timeF":
            if self.linear is None:
                return marks.new_zeros(*marks.shape[:-1], self.d_model)
            return self.linear(marks[..., : self.n_time_features])
        fields = marks[..., -len(CALENDAR_SIZES):].long()  # (B, L, 5)
        return sum(table(fields[..., i]) for i, table in enumerate(self.tables))


class DataEmbedding(nn.Module):
    """Sum of token, positional and temporal embeddings, then dropout (no sqrt(d_model) scaling).

    Args:
        c_in: input channels.
        d_model: model width.
        n_time_features: continuous time-feature columns in the marks.
        embed: temporal embedding type.
        dropout: dropout after the sum.
        n_future: known-future columns in the marks.
    """

    def __init__(self, c_in: int, d_model: int, n_time_features: int, embed: Embed = "timeF",
                 dropout: float = 0.05, n_future: int = 0) -> None:
        super().__init__()
        self.token = TokenEmbedding(c_in, d_model)
        self.position = PositionalEmbedding(d_model)
        self.temporal = TemporalEmbedding(d_model, n_time_features, embed, n_future)
        self.dropout = Dropout(dropout)

    stride = 1  # steps between consecutive tokens: one token per step

    def first(self, length: int) -> int:
        """Time of the first token: every step is a token, so 0 (see ``PatchEmbedding.first``)."""
        return 0

    def forward(self, x: Tensor, marks: Tensor) -> Tensor:
        """Shapes: x (B, L, C), marks (B, L, M) -> (B, L, d_model)."""
        return self.dropout(self.token(x) + self.position(x) + self.temporal(marks))
