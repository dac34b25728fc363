"""Informer decoder: causal self-attention, cross-attention to the encoder, FFN (post-norm)."""

from __future__ import annotations

from torch import Tensor, nn

from forecast.models.layers import Activation, FeedForward
from forecast.models.multihead import MultiHeadAttention


class DecoderLayer(nn.Module):
    """x = LN1(x + Drop(SelfAttn(x, causal))); x = LN2(x + Drop(Cross(x, enc))); out = LN3(x + FFN(x))."""

    def __init__(self, self_attention: MultiHeadAttention, cross_attention: MultiHeadAttention, *, d_model: int,
                 d_ff: int, dropout: float, activation: Activation = "gelu") -> None:
        super().__init__()
        self.self_attention, self.cross_attention = self_attention, cross_attention
        self.ff = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d_model), nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor, memory: Tensor, *, q_offset: int, k_stride: int) -> Tensor:
        """Shapes: x (B, T+P, d_model), memory (B, S, d_model) -> (B, T+P, d_model).

        ``q_offset``/``k_stride`` place decoder step i at encoder time ``q_offset + i`` and memory
        position j at ``j * k_stride`` for position-based cross-attention patterns.
        """
        x = self.norm1(x + self.dropout(self.self_attention(x, x, x, causal=True)))
        x = self.norm2(x + self.dropout(self.cross_attention(x, memory, memory, q_offset=q_offset,
                                                             k_stride=k_stride)))
        return self.norm3(x + self.ff(x))


class Decoder(nn.Module):
    """Decoder layers, final LayerNorm and the output projection to ``c_out``."""

    def __init__(self, layers: list[nn.Module], *, d_model: int, c_out: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(d_model)
        self.projection = nn.Linear(d_model, c_out)

    def forward(self, x: Tensor, memory: Tensor, *, q_offset: int, k_stride: int) -> Tensor:
        """Shapes: x (B, T+P, d_model), memory (B, S, d_model) -> (B, T+P, c_out)."""
        for layer in self.layers:
            x = layer(x, memory, q_offset=q_offset, k_stride=k_stride)
        return self.projection(self.norm(x))
