"""Full (canonical) softmax attention through PyTorch's fused ``scaled_dot_product_attention``."""

from __future__ import annotations

import warnings

import torch.nn.functional as F
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.masks import causal_mask, combine_masks


#: Lq * Lk from which training with attention dropout on CPU warns that it runs the dense path.
DENSE_WARN_SCORES = 1024 * 1024


class FullAttention(AttentionBackend):
    """Softmax attention over every key: SDPA, causal through ``is_causal``.

    A dense boolean mask is only built when ``is_causal`` cannot express the request (causal
    with ``q_offset``/``k_stride``, or a key-padding mask); rows left with no key output 0.

    Args:
        dropout: dropout on the attention probabilities during training.
        scale: score scale; ``None`` means ``1/sqrt(E)``.
    """

    exact = True
    supports_causal = True
    supports_cross = True
    supports_causal_cross = True
    rowwise = True

    def __init__(self, *, dropout: float = 0.0, scale: float | None = None) -> None:
        super().__init__()
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.dropout = dropout
        self.scale = scale

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Shapes: q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D) -> (B, H, Lq, D)."""
        check_layout(q, k, v)
        lq, lk = q.shape[2], k.shape[2]
        p = self.dropout if self.training else 0.0
        if p > 0 and q.device.type == "cpu" and lq * lk >= DENSE_WARN_SCORES:
            warnings.warn(f"full attention with dropout {p} on CPU has no fused SDPA kernel: it holds the "
                          f"(B, H, {lq}, {lk}) probabilities and draws a mask over them, O(L^2) in memory "
                          f"and time; for long inputs set the role's dropout to 0 (e.g. encoder_attention.dropout=0)",
                          stacklevel=2)
        simple_causal = causal and q_offset == 0 and k_stride == 1 and lq <= lk
        if key_padding_mask is None and (not causal or simple_causal):
            return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal, scale=self.scale)
        pattern = causal_mask(lq, lk, q_offset=q_offset, k_stride=k_stride, device=q.device) if causal else None
        mask = combine_masks(pattern, key_padding_mask)  # (B|1, 1, Lq, Lk)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p, scale=self.scale)
        has_key = mask.any(-1, keepdim=True)  # (B|1, 1, Lq, 1)
        return out.masked_fill(~has_key, 0.0).nan_to_num(0.0)
