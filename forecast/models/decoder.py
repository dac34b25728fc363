"""Informer decoder: causal self-attention, cross-attention to the encoder, FFN (post-norm)."""

from __future__ import annotations

from torch import Tensor, nn

from forecast.models.dropout import Dropout
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
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor, memory: Tensor, *, q_offset: int, k_stride: int,
                keep_last: int | None = None) -> Tensor:
        """Shapes: x (B, T+P, d_model), memory (B, S, d_model) -> (B, T+P, d_model), or (B, m, d_model)
        with ``keep_last=m``.

        ``q_offset``/``k_stride`` place decoder step i at encoder time ``q_offset + i`` and memory
        position j at ``j * k_stride`` for position-based cross-attention patterns. ``keep_last=m``
        computes only the last m rows, exactly: the self-attention sees every step; the rows before
        the last m leave after it when the cross-attention is row-wise, else after the cross-attention.
        """
        early = keep_last if keep_last is not None and self.cross_attention.attention.rowwise else None
        shift = 0 if early is None else x.shape[1] - early
        x = self.norm1(x[:, shift:] + self.dropout(self.self_attention(x, x, x, causal=True, keep_last=early)))
        x = self.norm2(x + self.dropout(self.cross_attention(x, memory, memory, q_offset=q_offset + shift,
                                                             k_stride=k_stride)))
        x = keep_rows(x, keep_last)  # (B, m, d_model)
        return self.norm3(x + self.ff(x))


def keep_rows(x: Tensor, keep_last: int | None) -> Tensor:
    """The last ``keep_last`` time steps (all when None). Shapes: (B, L, d) -> (B, m, d)."""
    return x if keep_last is None else x[:, x.shape[1] - keep_last:]


class Decoder(nn.Module):
    """Decoder layers, final LayerNorm and the output projection to ``c_out``."""

    def __init__(self, layers: list[nn.Module], *, d_model: int, c_out: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(d_model)
        self.projection = nn.Linear(d_model, c_out)

    def forward(self, x: Tensor, memory: Tensor, *, q_offset: int, k_stride: int,
                keep_last: int | None = None) -> Tensor:
        """Shapes: x (B, T+P, d_model), memory (B, S, d_model) -> (B, T+P, c_out), or (B, m, c_out) with
        ``keep_last=m``: the last layer, the final norm and the projection then run on those rows only."""
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            x = layer(x, memory, q_offset=q_offset, k_stride=k_stride, keep_last=keep_last if i == last else None)
        return self.projection(self.norm(x))
