"""FLASH (Hua et al., ICML 2022): the mixed-chunk relu^2 kernel of the Gated Attention Unit.

GAU replaces attention *and* the feed-forward block, so this backend has two faces:

* **Kernel** (this module, testable like any backend): ``forward(q, k, v)`` with heads as given.
  The sequence is cut into chunks of ``G = min(group_size, L)`` (padded at the end, padding masked;
  L <= group_size is one chunk either way):
  ``out_i = (1 / l_i) * (sum_{j in chunk(i)} quad(q_i, k_j) v_j + sum_{j in lin(i)} tau (lq_i . lk_j) v_j)``
  where ``lin(i)`` is every key (non-causal) or the keys of strictly earlier chunks (causal), the
  quadratic part is ``tril``-masked inside the chunk when causal, and ``l_i`` is the number of real
  keys row i may see (per row: no dependence on the total length, so appending tokens never changes
  earlier causal outputs; lucidrains divides by a constant G or n instead). ``lq``/``lk`` default to
  ``q``/``k``; the GAU layer passes its own four offset/scale heads (quad_q, quad_k, lin_q, lin_k).
  Memory O(L * G + (L / G) * E * D): nothing of size L x L.
* **Layer**: ``replaces_layer = True`` makes :class:`forecast.models.informer.Informer` build
  :class:`forecast.models.gau.GAUEncoderLayer` / ``GAUDecoderLayer`` (norm, U/V/Z projections,
  per-dim offset/scale, this kernel, gate, output projection, residual) instead of the
  attention + FFN layers. The layer reads ``query_key_dim``, ``expansion_factor``, ``norm_eps`` and
  ``qk_heads`` from the backend.

Scaling (``gau_scaling``), with ``s = E`` the query/key width:

* ``ns`` (default; Su, bert4keras): quad term ``relu^2(q.k / sqrt(s))``, linear ``tau = s^-1/2``;
  overall ``relu^2(q.k) / (l_i s)``: rows stay mean-like and length-stable.
* ``n2`` (paper, per-row): quad term ``relu^2(q.k / l_i) * l_i`` (overall ``/ l_i^2``), ``tau = 1``
  (overall ``/ l_i``, the paper's ``/ n``).

No relative-position bias: the Informer embedding already carries positions. Scores are computed
in at least float32 (relu^2 overflows fp16 beyond |score| ~ 256). Cross-attention is refused
(mixed chunks need aligned chunks): the decoder's cross-attention stays ``full``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import torch
import torch.nn.functional as F
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.linear import accumulation_dtype, chunk_prefix_states, check_aligned_causal, to_chunks

GauScaling = Literal["n2", "ns"]


def visible_counts(valid: Tensor, *, causal: bool) -> Tensor:
    """Real keys each row may see (at least 1). Shapes: valid (B, L) -> (B, L)."""
    counts = valid.long().cumsum(-1) if causal else valid.long().sum(-1, keepdim=True).expand_as(valid)
    return counts.clamp(min=1)


class GAUKernel(AttentionBackend):
    """Shared options of the GAU kernels (read by the GAU layer).

    Args:
        query_key_dim: s, width of the shared Z / Q / K (paper: 128).
        expansion_factor: e = expansion_factor * d_model for U and V (paper: 2).
        gau_scaling: ``ns`` (1/(l s), length-stable, default) or ``n2`` (paper's 1/l^2).
        norm_eps: eps of the GAU layer's input LayerNorm.
    """

    exact = False
    supports_causal = True
    supports_causal_cross = False
    replaces_layer = True
    qk_heads: ClassVar[int] = 2

    def __init__(self, *, query_key_dim: int = 128, expansion_factor: float = 2.0,
                 gau_scaling: GauScaling = "ns", norm_eps: float = 1e-5) -> None:
        super().__init__()
        if query_key_dim < 1 or expansion_factor <= 0:
            raise ValueError("query_key_dim must be >= 1 and expansion_factor > 0")
        if gau_scaling not in ("n2", "ns"):
            raise ValueError(f"gau_scaling must be 'n2' or 'ns', got {gau_scaling!r}")
        self.query_key_dim, self.expansion_factor = query_key_dim, expansion_factor
        self.gau_scaling, self.norm_eps = gau_scaling, norm_eps

    def quad_term(self, scores: Tensor, row_count: Tensor, *, dim: int) -> Tensor:
        """The relu^2 term before the per-row ``1 / l_i``, from unscaled scores ``q.k`` of width ``dim``.

        Shapes: scores (..., Lq, Lk), row_count (..., Lq, 1) -> (..., Lq, Lk).
        """
        if self.gau_scaling == "ns":
            return F.relu(scores).square() / dim
        return F.relu(scores / row_count).square() * row_count


class FlashAttention(GAUKernel):
    """FLASH mixed-chunk GAU kernel (see the module docstring).

    Args:
        group_size: chunk length G (paper / lucidrains: 256).
        query_key_dim, expansion_factor, gau_scaling, norm_eps: see :class:`GAUKernel`.
    """

    supports_cross = False
    qk_heads = 4

    def __init__(self, *, group_size: int = 256, query_key_dim: int = 128, expansion_factor: float = 2.0,
                 gau_scaling: GauScaling = "ns", norm_eps: float = 1e-5) -> None:
        super().__init__(query_key_dim=query_key_dim, expansion_factor=expansion_factor,
                         gau_scaling=gau_scaling, norm_eps=norm_eps)
        if group_size < 1:
            raise ValueError(f"group_size must be >= 1, got {group_size}")
        self.group_size = group_size
        self.pad_multiple = group_size  # pads L to a multiple of G when L > G

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1,
                lin_q: Tensor | None = None, lin_k: Tensor | None = None) -> Tensor:
        """Mixed-chunk relu^2 + linear attention.

        Shapes:
            q, k, lin_q, lin_k (B, H, L, E); v (B, H, L, D); key_padding_mask (B, L) -> (B, H, L, D).
        """
        check_layout(q, k, v)
        if q.shape[2] != k.shape[2]:
            raise ValueError("flash attention needs Lq == Lk (mixed chunks must align); use full for "
                             "cross-attention")
        check_aligned_causal(q, k, causal=causal, q_offset=q_offset, k_stride=k_stride, name="flash")
        b, h, length, e = q.shape
        acc = accumulation_dtype(v.dtype)
        lin_q, lin_k = (q if lin_q is None else lin_q), (k if lin_k is None else lin_k)
        valid = (key_padding_mask if key_padding_mask is not None
                 else torch.ones(b, length, dtype=torch.bool, device=q.device))  # (B, L)
        count = visible_counts(valid, causal=causal).to(acc)  # (B, L)
        g = min(self.group_size, length)  # L <= G: one chunk either way, without padding to G
        validc = to_chunks(valid[:, None, :, None].to(acc), g)  # (B, 1, n, G, 1)
        countc = to_chunks(count[:, None, :, None], g).clamp(min=1)  # (B, 1, n, G, 1), pad rows 1
        qc, kc = to_chunks(q.to(acc), g), to_chunks(k.to(acc), g) * validc  # (B, H, n, G, E)
        vc = to_chunks(v.to(acc), g)  # (B, H, n, G, D)
        scores = torch.matmul(qc, kc.transpose(-1, -2))  # (B, H, n, G, G)
        quad = self.quad_term(scores, countc, dim=e) * validc.transpose(-1, -2)  # (B, H, n, G, G)
        if causal:
            quad = quad.tril()
        out = torch.matmul(quad, vc)  # (B, H, n, G, D)
        tau = e ** -0.5 if self.gau_scaling == "ns" else 1.0
        lqc, lkc = to_chunks(lin_q.to(acc), g), to_chunks(lin_k.to(acc), g) * validc  # (B, H, n, G, E)
        if causal:
            state, _ = chunk_prefix_states(lkc, vc)  # (B, H, n, E, D): keys of earlier chunks
            out = out + tau * torch.matmul(lqc, state)  # (B, H, n, G, D)
        else:
            state = torch.einsum("bhncm,bhncd->bhmd", lkc, vc)  # (B, H, E, D): every key
            out = out + tau * torch.matmul(lqc, state[:, :, None])  # (B, H, n, G, D)
        out = out / countc  # (B, H, n, G, D)
        n = out.shape[2]
        return out.reshape(b, h, n * g, -1)[:, :, :length].to(v.dtype)  # (B, H, L, D)
