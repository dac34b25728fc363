"""Informer encoder: post-norm self-attention layers with distilling convolutions between them."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from forecast.models.dropout import Dropout
from forecast.models.layers import Activation, FeedForward
from forecast.models.multihead import MultiHeadAttention


class EncoderLayer(nn.Module):
    """x = LN1(x + Drop(Attn(x))); out = LN2(x + FFN(x))."""

    def __init__(self, attention: MultiHeadAttention, *, d_model: int, d_ff: int, dropout: float,
                 activation: Activation = "gelu") -> None:
        super().__init__()
        self.attention = attention
        self.ff = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, d_model) -> (B, L, d_model)."""
        x = self.norm1(x + self.dropout(self.attention(x, x, x)))
        return self.norm2(x + self.ff(x))


class DistilConv(nn.Module):
    """Conv1d k3 circular -> BatchNorm1d -> ELU -> MaxPool1d(k3, s2, p1): length L -> ceil(L / 2)."""

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.conv = nn.Conv1d(d_model, d_model, kernel_size=3, padding=1, padding_mode="circular")
        self.norm = nn.BatchNorm1d(d_model)
        self.act = nn.ELU()
        self.pool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, d_model) -> (B, ceil(L/2), d_model)."""
        y = self.pool(self.act(self.norm(self.conv(x.transpose(1, 2)))))  # (B, d_model, ceil(L/2))
        return y.transpose(1, 2).contiguous()  # (B, ceil(L/2), d_model), laid out so (see TokenEmbedding)


class Encoder(nn.Module):
    """Attention layers, a distilling conv after each but the last (if given), final LayerNorm.

    Args:
        layers: the encoder layers.
        convs: ``len(layers) - 1`` distilling convs, or empty for no distilling.
        d_model: width of the final LayerNorm.
    """

    def __init__(self, layers: list[nn.Module], convs: list[nn.Module], *, d_model: int) -> None:
        super().__init__()
        if convs and len(convs) != len(layers) - 1:
            raise ValueError(f"need {len(layers) - 1} distilling convs for {len(layers)} layers, got {len(convs)}")
        self.layers, self.convs = nn.ModuleList(layers), nn.ModuleList(convs)
        self.norm = nn.LayerNorm(d_model)

    @property
    def stride(self) -> int:
        """Time steps between consecutive output positions (2 per distilling conv)."""
        return 2 ** len(self.convs)

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, d_model) -> (B, ceil(L / stride), d_model)."""
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.convs):
                x = self.convs[i](x)
        return self.norm(x)


class EncoderStack(nn.Module):
    """InformerStack pyramid: encoder i sees the last ``L / 2**i`` steps; outputs concatenated in time.

    Args:
        encoders: the encoders, finest first.
    """

    def __init__(self, encoders: list[Encoder]) -> None:
        super().__init__()
        self.encoders = nn.ModuleList(encoders)

    @property
    def stride(self) -> int:
        return self.encoders[0].stride

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, d_model) -> (B, sum_i len_i, d_model)."""
        length = x.shape[1]
        outs = [enc(x[:, length - length // (2 ** i):, :]) for i, enc in enumerate(self.encoders)]
        return torch.cat(outs, dim=1)
