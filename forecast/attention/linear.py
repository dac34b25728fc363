"""Linear attention (Katharopoulos et al., ICML 2020), feature map ``phi(x) = elu(x) + 1``.

``out_i = phi(q_i) . S / (phi(q_i) . z + eps)`` with ``S = sum_j phi(k_j) v_j^T`` and
``z = sum_j phi(k_j)`` over the keys query i may see. Nothing of size Lq x Lk is ever formed.

* Non-causal: one closed form, ``S`` (B, H, M, D) and ``z`` (B, H, M).
* Causal: a chunked scan. Inside a chunk of C steps a ``tril`` of the (C, C) feature scores;
  across chunks the exclusive prefix sum of the per-chunk states ``phi(K_c)^T V_c``. Memory is
  O(L * C + (L / C) * M * D); there is no per-token outer-product cumsum (O(L * M * D)).
* Key padding zeroes the rows of ``phi(K)``, so padded keys enter neither ``S`` nor ``z``;
  a row with no visible key outputs 0.
* States and normaliser are accumulated in at least float32 (fp16 overflows over long L).

The machinery (:func:`linear_attention`, :func:`chunk_prefix_states`) is shared with Performer
and the linear part of FLASH.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout


def accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    """float32 for half types, the input dtype otherwise (float64 stays float64)."""
    return torch.promote_types(dtype, torch.float32)


def to_chunks(x: Tensor, chunk: int) -> Tensor:
    """Zero-pad the time axis to a multiple of ``chunk`` and split it.

    Shapes: x (B, H, L, M) -> (B, H, ceil(L / chunk), chunk, M).
    """
    b, h, length, m = x.shape
    n = -(-length // chunk)
    x = F.pad(x, (0, 0, 0, n * chunk - length))  # (B, H, n*C, M)
    return x.view(b, h, n, chunk, m)  # (B, H, n, C, M)


def chunk_prefix_states(phi_k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """Exclusive prefix sums over chunks of the chunk states ``phi(K_c)^T V_c`` and ``sum phi(K_c)``.

    Chunk c receives the sum over chunks ``< c`` (a pad-shift, no subtraction).

    Shapes: phi_k (B, H, n, C, M), v (B, H, n, C, D) -> (B, H, n, M, D), (B, H, n, M).
    """
    state = torch.einsum("bhncm,bhncd->bhnmd", phi_k, v)  # (B, H, n, M, D)
    norm = phi_k.sum(3)  # (B, H, n, M)
    state = F.pad(state[:, :, :-1].cumsum(2), (0, 0, 0, 0, 1, 0))  # (B, H, n, M, D), chunk 0 sees 0
    norm = F.pad(norm[:, :, :-1].cumsum(2), (0, 0, 1, 0))  # (B, H, n, M)
    return state, norm


def linear_attention(phi_q: Tensor, phi_k: Tensor, v: Tensor, *, causal: bool, chunk_size: int,
                     eps: float, key_padding_mask: Tensor | None = None) -> Tensor:
    """``(phi_q phi_k^T (.) M) v / ((phi_q phi_k^T (.) M) 1 + eps)`` without forming the product.

    Args:
        phi_q: non-negative query features.
        phi_k: non-negative key features.
        v: values.
        causal: key j visible to query i only if j <= i (needs Lq == Lk).
        chunk_size: chunk length C of the causal scan.
        eps: added to the normaliser.
        key_padding_mask: True where the key is real; padded keys' feature rows are zeroed.

    Returns:
        The attention output, in ``v``'s dtype.

    Shapes:
        phi_q (B, H, Lq, M), phi_k (B, H, Lk, M), v (B, H, Lk, D), key_padding_mask (B, Lk)
        -> (B, H, Lq, D).
    """
    out_dtype = v.dtype
    acc = accumulation_dtype(v.dtype)
    phi_q, phi_k, v = phi_q.to(acc), phi_k.to(acc), v.to(acc)
    if key_padding_mask is not None:
        phi_k = phi_k * key_padding_mask[:, None, :, None].to(acc)  # (B, H, Lk, M)
    if not causal:
        state = torch.einsum("bhkm,bhkd->bhmd", phi_k, v)  # (B, H, M, D)
        norm = phi_k.sum(2)  # (B, H, M)
        num = torch.matmul(phi_q, state)  # (B, H, Lq, D)
        den = torch.einsum("bhqm,bhm->bhq", phi_q, norm)  # (B, H, Lq)
        return (num / (den[..., None] + eps)).to(out_dtype)
    if phi_q.shape[2] != phi_k.shape[2]:
        raise ValueError("causal linear attention needs Lq == Lk; use full for causal cross-attention")
    length = phi_q.shape[2]
    chunk = max(1, min(chunk_size, length))
    qc, kc, vc = to_chunks(phi_q, chunk), to_chunks(phi_k, chunk), to_chunks(v, chunk)  # (B, H, n, C, .)
    scores = torch.matmul(qc, kc.transpose(-1, -2))  # (B, H, n, C, C)
    scores = scores.tril()  # key position <= query position inside the chunk
    state, norm = chunk_prefix_states(kc, vc)  # (B, H, n, M, D), (B, H, n, M)
    num = torch.matmul(scores, vc) + torch.matmul(qc, state)  # (B, H, n, C, D)
    den = scores.sum(-1) + torch.einsum("bhncm,bhnm->bhnc", qc, norm)  # (B, H, n, C)
    out = num / (den[..., None] + eps)  # (B, H, n, C, D)
    b, h, n, c, d = out.shape
    return out.reshape(b, h, n * c, d)[:, :, :length].to(out_dtype)  # (B, H, L, D)


def elu_feature_map(x: Tensor) -> Tensor:
    """``elu(x) + 1``: positive features. Shapes: any -> same."""
    return F.elu(x) + 1.0


class LinearAttention(AttentionBackend):
    """Katharopoulos linear attention with ``phi = elu + 1``.

    Args:
        chunk_size: chunk length of the causal scan (in-chunk quadratic, across-chunk states);
            64 balances the (C, C) in-chunk scores against the (M, D) chunk states at D = 64.
        eps: added to the normaliser (fast-transformers: 1e-6).
    """

    exact = False
    supports_causal = True
    supports_cross = True
    rowwise = True
    supports_causal_cross = False

    def __init__(self, *, chunk_size: int = 64, eps: float = 1e-6) -> None:
        super().__init__()
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        if eps < 0:
            raise ValueError(f"eps must be >= 0, got {eps}")
        self.chunk_size = chunk_size
        self.pad_multiple = chunk_size  # the causal scan pads L to a multiple of the chunk
        self.eps = eps

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Linear attention; see the module docstring.

        Shapes:
            q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D), key_padding_mask (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        check_aligned_causal(q, k, causal=causal, q_offset=q_offset, k_stride=k_stride, name="linear")
        return linear_attention(elu_feature_map(q), elu_feature_map(k), v, causal=causal,
                                chunk_size=self.chunk_size, eps=self.eps, key_padding_mask=key_padding_mask)


def check_aligned_causal(q: Tensor, k: Tensor, *, causal: bool, q_offset: int, k_stride: int,
                         name: str) -> None:
    """Raise ValueError for causal attention that is not aligned self-attention."""
    if causal and (q.shape[2] != k.shape[2] or q_offset != 0 or k_stride != 1):
        raise ValueError(f"{name} causal attention needs aligned self-attention (Lq == Lk, q_offset 0, "
                         f"k_stride 1); use full for causal cross-attention")
