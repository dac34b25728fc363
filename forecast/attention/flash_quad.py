"""FLASH-Quad (Hua et al., ICML 2022): the GAU kernel with full quadratic relu^2 attention.

``out_i = (1 / l_i) * sum_j relu^2-term(q_i, k_j) v_j`` over the real keys row i may see
(``tril`` when causal), ``l_i`` their count; the scaling options are those of
:mod:`forecast.attention.flash` (``ns`` default: ``relu^2(q.k / sqrt(s)) / l_i``). This is the O(L^2)
member of the family, the baseline FLASH's mixed chunks improve on. Like FLASH it replaces the whole
layer (``replaces_layer = True``: the model builds :mod:`forecast.models.gau` layers); as a plain
kernel it also accepts non-causal cross-attention (``Lq != Lk``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from forecast.attention.base import check_layout
from forecast.attention.flash import GAUKernel, visible_counts
from forecast.attention.linear import accumulation_dtype, check_aligned_causal


class FlashQuadAttention(GAUKernel):
    """Single-chunk GAU kernel with full quadratic relu^2 attention.

    Args:
        query_key_dim, expansion_factor, gau_scaling, norm_eps: see
            :class:`forecast.attention.flash.GAUKernel`.
    """

    supports_cross = True
    qk_heads = 2

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Quadratic relu^2 attention with a per-row visible-key normaliser.

        Shapes:
            q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D), key_padding_mask (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        check_aligned_causal(q, k, causal=causal, q_offset=q_offset, k_stride=k_stride, name="flash_quad")
        b, _, lq, e = q.shape
        lk = k.shape[2]
        acc = accumulation_dtype(v.dtype)
        valid = (key_padding_mask if key_padding_mask is not None
                 else torch.ones(b, lk, dtype=torch.bool, device=k.device))  # (B, Lk)
        counts = visible_counts(valid, causal=causal)  # (B, Lk)
        if not causal:
            counts = counts[:, :1].expand(b, lq)  # (B, Lq): every row sees every real key
        count = counts.to(acc)[:, None, :, None]  # (B, 1, Lq, 1)
        scores = torch.matmul(q.to(acc), k.to(acc).transpose(-1, -2))  # (B, H, Lq, Lk)
        attn = self.quad_term(scores, count, dim=e) * valid[:, None, None, :].to(acc)  # (B, H, Lq, Lk)
        if causal:
            attn = attn.tril()
        return (torch.matmul(attn, v.to(acc)) / count).to(v.dtype)  # (B, H, Lq, D)
