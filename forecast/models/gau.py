"""Gated Attention Unit layers (Hua et al., ICML 2022) for the FLASH / FLASH-Quad backends.

A GAU block replaces multi-head attention *and* the feed-forward block of a layer:

    h = LN(x); U, V = SiLU(h W_uv) (each e = expansion_factor * d_model); Z = SiLU(h W_z) (s)
    Q_i = Z * gamma_i + beta_i  (per-dimension offset/scale; 4 heads for FLASH: quad q/k, lin q/k)
    out = x + Drop(W_o(U * kernel(Q, K, V)))

The kernel is the attention backend (single head: H = 1, E = s, D = e), which owns the relu^2
attention and its normaliser; the block reads ``query_key_dim``, ``expansion_factor``, ``norm_eps``
and ``qk_heads`` from it. The model builds these layers instead of ``EncoderLayer`` /
``DecoderLayer`` when the backend has ``replaces_layer = True``. The decoder layer adds a
post-norm cross-attention sublayer (any cross backend, ``full`` by default) after the causal GAU.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from forecast.attention.base import AttentionBackend
from forecast.models.dropout import Dropout
from forecast.models.decoder import keep_rows
from forecast.models.multihead import MultiHeadAttention


class GatedAttentionUnit(nn.Module):
    """One pre-norm GAU block with residual.

    Args:
        attention: a GAU kernel (``replaces_layer = True``).
        d_model: model width.
        dropout: dropout on the block output.
    """

    def __init__(self, attention: AttentionBackend, *, d_model: int, dropout: float) -> None:
        super().__init__()
        if not getattr(attention, "replaces_layer", False):
            raise ValueError(f"{attention.backend_name()} is an attention kernel, not a GAU kernel")
        self.attention = attention
        hidden = int(attention.expansion_factor * d_model)
        qk_dim, self.qk_heads = attention.query_key_dim, attention.qk_heads
        self.norm = nn.LayerNorm(d_model, eps=attention.norm_eps)
        self.to_uv = nn.Linear(d_model, 2 * hidden)
        self.to_z = nn.Linear(d_model, qk_dim)
        # Offset/scale initialised as bert4keras (ones/zeros), matching the default "ns" scaling: rows
        # start mean-like. The paper draws gamma ~ N(0, 0.02), which starts relu^2 attention near 0
        # (and its gradient with it, since d relu^2(x) = 2 relu(x)).
        self.gamma = nn.Parameter(torch.ones(self.qk_heads, qk_dim))
        self.beta = nn.Parameter(torch.zeros(self.qk_heads, qk_dim))
        self.to_out = nn.Linear(hidden, d_model)
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor, *, causal: bool = False, key_padding_mask: Tensor | None = None) -> Tensor:
        """Shapes: x (B, L, d_model), key_padding_mask (B, L) -> (B, L, d_model)."""
        h = self.norm(x)
        u, v = F.silu(self.to_uv(h)).chunk(2, dim=-1)  # (B, L, e) each
        z = F.silu(self.to_z(h))  # (B, L, s)
        heads = z[:, None] * self.gamma[None, :, None, :] + self.beta[None, :, None, :]  # (B, n_qk, L, s)
        q, k = heads[:, 0:1], heads[:, 1:2]  # (B, 1, L, s): single-head layout for the kernel
        extra = {"lin_q": heads[:, 2:3], "lin_k": heads[:, 3:4]} if self.qk_heads == 4 else {}
        v = v[:, None]  # (B, 1, L, e)
        attn = self.attention(q, k, v, causal=causal, key_padding_mask=key_padding_mask,
                              **extra)  # (B, 1, L, e)
        return x + self.dropout(self.to_out(u * attn[:, 0]))  # (B, L, d_model)


class GAUEncoderLayer(nn.Module):
    """Encoder layer made of one non-causal GAU block (no separate FFN).

    Args:
        attention: a GAU kernel.
        d_model: model width.
        dropout: dropout on the block output.
    """

    def __init__(self, attention: AttentionBackend, *, d_model: int, dropout: float) -> None:
        super().__init__()
        self.gau = GatedAttentionUnit(attention, d_model=d_model, dropout=dropout)

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (B, L, d_model) -> (B, L, d_model)."""
        return self.gau(x, causal=False)


class GAUDecoderLayer(nn.Module):
    """x = GAU_causal(x); out = LN(x + Drop(Cross(x, memory))).

    Args:
        attention: a GAU kernel for the causal self-attention block.
        cross_attention: the multi-head cross-attention (from the cross-attention factory).
        d_model: model width.
        dropout: dropout.
    """

    def __init__(self, attention: AttentionBackend, cross_attention: MultiHeadAttention, *, d_model: int,
                 dropout: float) -> None:
        super().__init__()
        self.gau = GatedAttentionUnit(attention, d_model=d_model, dropout=dropout)
        self.cross_attention = cross_attention
        self.norm = nn.LayerNorm(d_model)
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor, memory: Tensor, *, q_offset: int, k_stride: int,
                keep_last: int | None = None) -> Tensor:
        """Shapes: x (B, T+P, d_model), memory (B, S, d_model) -> (B, T+P, d_model), or (B, m, d_model)
        with ``keep_last=m`` (the last m rows, exactly: see :class:`~forecast.models.decoder.DecoderLayer`)."""
        x = self.gau(x, causal=True)
        shift = x.shape[1] - keep_last if keep_last is not None and self.cross_attention.attention.rowwise else 0
        x = x[:, shift:]  # (B, T+P-shift, d_model)
        x = self.norm(x + self.dropout(self.cross_attention(x, memory, memory, q_offset=q_offset + shift,
                                                           k_stride=k_stride)))
        return keep_rows(x, keep_last)
