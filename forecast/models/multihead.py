"""Multi-head attention: the q/k/v/out projections around one injected attention backend."""

from __future__ import annotations

from torch import Tensor, nn

from forecast.attention.base import AttentionBackend
from forecast.core.errors import ConfigError


class MultiHeadAttention(nn.Module):
    """Projects to heads, calls the backend in the SDPA layout, merges heads and projects back.

    Args:
        attention: the attention kernel.
        d_model: model width.
        n_heads: heads; ``d_model`` must be divisible by it.
        mix: the reference decoder's "mix" merge, which reshapes (B, H, L, D) straight to
            (B, L, H*D) and so scrambles heads and time steps (row t holds head t // (L/H) at time
            steps H*(t mod L/H) ... +H-1). Only for paper-faithful experiments; off by default.
    """

    def __init__(self, attention: AttentionBackend, *, d_model: int, n_heads: int, mix: bool = False) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ConfigError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        self.attention = attention
        self.n_heads, self.d_head, self.mix = n_heads, d_model // n_heads, mix
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1,
                keep_last: int | None = None) -> Tensor:
        """Shapes: queries (B, L, d_model), keys/values (B, S, d_model) -> (B, L, d_model).

        ``keep_last=m`` returns only the last m rows, (B, m, d_model): every query still enters the
        backend, and the output projection runs on the rows kept.
        """
        b, lq, _ = queries.shape
        lk = keys.shape[1]
        h, e = self.n_heads, self.d_head
        q = self.q_proj(queries).view(b, lq, h, e).transpose(1, 2)  # (B, H, L, E)
        k = self.k_proj(keys).view(b, lk, h, e).transpose(1, 2)  # (B, H, S, E)
        v = self.v_proj(values).view(b, lk, h, e).transpose(1, 2)  # (B, H, S, D)
        out = self.attention(q, k, v, causal=causal, key_padding_mask=key_padding_mask,
                             q_offset=q_offset, k_stride=k_stride)  # (B, H, L, D)
        if self.mix:
            out = out.contiguous().view(b, lq, h * e)  # reference "mix": (B, H, L, D) read as (B, L, H*D)
        else:
            out = out.transpose(1, 2).reshape(b, lq, h * e)  # (B, L, H*D)
        if keep_last is not None:
            out = out[:, lq - keep_last:]  # (B, m, H*D)
        return self.out_proj(out)
