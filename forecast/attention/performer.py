"""Performer FAVOR+ attention (Choromanski et al., ICLR 2021): positive orthogonal random features.

``softmax(q k^T / sqrt(E))`` is estimated through ``exp(q_hat . k_hat) = E_w[phi(q) . phi(k)]`` with
``x_hat = x * E^-1/4`` and ``phi(x) = m^-1/2 (exp(W x_hat - |x_hat|^2 / 2 - stab) + eps)``; the
features then go through the linear-attention machinery of :mod:`forecast.attention.linear`
(closed form, or the chunked causal scan). Memory O(L * m).

Projection ``W`` (m, E): ``ceil(m / E)`` orthogonal blocks (QR of a Gaussian E x E, sign-fixed),
rows rescaled to Gaussian-row norms (``row_norms="gaussian"``, FAVOR+ ``scaling=0``) or to sqrt(E)
(``"fixed"``). The backend does not know E before its first call, so ``W`` is a deterministic
function of ``(seed, E, draw)`` and cached (not a buffer: a checkpoint needs no extra state):

* training: ``draw = training_calls // redraw_interval`` (0 = never redraw);
* eval: always draw 0, so inference is a function of the weights and ``seed`` alone.

Stabilisers (detached; they only scale features and cancel in the ratio, up to ``eps``):

* queries: the row max over features;
* keys, non-causal: one max over the valid keys and features of each (batch, head);
* keys, causal: the row max of the *first valid key* (visible to every query that sees any key),
  floored at ``max_i |w_i|^2 / 2 - 60`` (an upper bound of the exponent minus a margin, so exp
  cannot overflow). A max over all keys would let future keys leak in through ``eps``.

Padded keys get zero feature rows (they enter neither numerator nor normaliser).
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout, seeded_generator
from forecast.attention.linear import accumulation_dtype, check_aligned_causal, linear_attention

_OVERFLOW_MARGIN = 60.0


def orthogonal_random_matrix(m: int, dim: int, *, generator: torch.Generator,
                             row_norms: Literal["gaussian", "fixed"] = "gaussian",
                             orthogonal: bool = True) -> Tensor:
    """Stacked orthogonal Gaussian blocks, float64 on CPU. Shape (m, dim)."""
    if orthogonal:
        blocks = []
        for _ in range(-(-m // dim)):
            g = torch.randn(dim, dim, generator=generator, dtype=torch.float64)
            qmat, rmat = torch.linalg.qr(g)
            qmat = qmat * torch.sign(torch.diagonal(rmat))[None, :]  # Haar-distributed (sign fix)
            blocks.append(qmat.T)  # rows orthonormal
        w = torch.cat(blocks, dim=0)[:m]  # (m, dim)
    else:
        w = torch.randn(m, dim, generator=generator, dtype=torch.float64)
        w = w / w.norm(dim=1, keepdim=True)
    if row_norms == "gaussian":
        norms = torch.randn(m, dim, generator=generator, dtype=torch.float64).norm(dim=1)  # (m,)
    else:
        norms = torch.full((m,), math.sqrt(dim), dtype=torch.float64)
    return w * norms[:, None]


def softmax_kernel_features(x: Tensor, projection: Tensor, *, stabiliser: Tensor | float,
                            eps: float) -> Tensor:
    """``m^-1/2 (exp(W x_hat - |x_hat|^2 / 2 - stabiliser) + eps)`` with ``x_hat = x * E^-1/4``.

    Shapes: x (B, H, L, E), projection (m, E), stabiliser broadcastable to (B, H, L, m)
    -> (B, H, L, m).
    """
    return positive_features(log_features(x, projection), stabiliser, eps)


def positive_features(log_x: Tensor, stabiliser: Tensor | float, eps: float) -> Tensor:
    """``m^-1/2 (exp(log_x - stabiliser) + eps)``. Shapes: log_x (B, H, L, m) -> (B, H, L, m)."""
    return (torch.exp(log_x - stabiliser) + eps) / math.sqrt(log_x.shape[-1])


def log_features(x: Tensor, projection: Tensor) -> Tensor:
    """``W x_hat - |x_hat|^2 / 2``. Shapes: x (B, H, L, E), projection (m, E) -> (B, H, L, m)."""
    x = x * x.shape[-1] ** -0.25
    return torch.matmul(x, projection.T) - 0.5 * x.pow(2).sum(-1, keepdim=True)


class PerformerAttention(AttentionBackend):
    """FAVOR+ attention.

    Args:
        nb_features: random features m (paper: int(E ln E), 266 at E = 64; google-research: 256).
        redraw_interval: redraw the projection every this many training calls (0: never).
        orthogonal: orthogonal blocks (FAVOR+) instead of i.i.d. rows.
        row_norms: ``gaussian`` (Gaussian-row norms) or ``fixed`` (sqrt(E)).
        seed: seed of the projection draws.
        chunk_size: chunk of the causal scan.
        eps: feature and normaliser stabiliser (google-research: 1e-6).
    """

    exact = False
    supports_causal = True
    supports_cross = True
    rowwise = True
    supports_causal_cross = False
    randomized = True

    def __init__(self, *, nb_features: int = 256, redraw_interval: int = 1000, orthogonal: bool = True,
                 row_norms: Literal["gaussian", "fixed"] = "gaussian", seed: int = 0, chunk_size: int = 64,
                 eps: float = 1e-6) -> None:
        super().__init__()
        if nb_features < 1 or redraw_interval < 0 or chunk_size < 1 or eps < 0:
            raise ValueError("need nb_features >= 1, redraw_interval >= 0, chunk_size >= 1, eps >= 0")
        if row_norms not in ("gaussian", "fixed"):
            raise ValueError(f"row_norms must be 'gaussian' or 'fixed', got {row_norms!r}")
        self.nb_features, self.redraw_interval = nb_features, redraw_interval
        self.orthogonal, self.row_norms, self.seed = orthogonal, row_norms, seed
        self.chunk_size, self.eps = chunk_size, eps
        self.pad_multiple = chunk_size  # the causal scan pads L to a multiple of the chunk
        self.training_calls = 0
        self._cache: tuple[tuple, Tensor] | None = None

    def draw_index(self) -> int:
        """Index of the projection draw in use: 0 in eval, ``calls // interval`` in training."""
        if not self.training or self.redraw_interval == 0:
            return 0
        return self.training_calls // self.redraw_interval

    def projection(self, dim: int, *, draw: int | None = None, device: torch.device | str = "cpu",
                   dtype: torch.dtype = torch.float32) -> Tensor:
        """The random projection of ``(seed, dim, draw)``, cached. Shape (nb_features, dim)."""
        draw = self.draw_index() if draw is None else draw
        key = (dim, draw, str(device), dtype)
        if self._cache is None or self._cache[0] != key:
            seed = (self.seed * 1_000_003 + dim * 7_919 + draw * 104_729) % (2**63)
            w = orthogonal_random_matrix(self.nb_features, dim, generator=seeded_generator(seed),
                                         row_norms=self.row_norms, orthogonal=self.orthogonal)
            self._cache = (key, w.to(device=device, dtype=dtype))
        return self._cache[1]

    def feature_maps(self, q: Tensor, k: Tensor, *, causal: bool,
                     key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Stabilised positive features of queries and keys (padded keys not yet zeroed).

        Shapes: q (B, H, Lq, E), k (B, H, Lk, E), key_padding_mask (B, Lk)
        -> (B, H, Lq, m), (B, H, Lk, m), in at least float32.
        """
        acc = accumulation_dtype(q.dtype)
        w = self.projection(q.shape[-1], device=q.device, dtype=acc)  # (m, E)
        log_q, log_k = log_features(q.to(acc), w), log_features(k.to(acc), w)  # (B, H, L, m)
        q_stab = log_q.detach().amax(-1, keepdim=True)  # (B, H, Lq, 1)
        row_max = log_k.detach().amax(-1)  # (B, H, Lk)
        if causal:
            first = (torch.zeros(k.shape[0], dtype=torch.long, device=k.device)
                     if key_padding_mask is None else key_padding_mask.long().argmax(-1))  # (B,)
            k_stab = row_max.gather(2, first[:, None, None].expand(-1, k.shape[1], 1))  # (B, H, 1)
            floor = 0.5 * w.pow(2).sum(-1).max() - _OVERFLOW_MARGIN
            k_stab = k_stab.clamp(min=floor.item())[..., None]  # (B, H, 1, 1)
        else:
            if key_padding_mask is not None:
                row_max = row_max.masked_fill(~key_padding_mask[:, None, :], float("-inf"))
            k_stab = row_max.amax(-1, keepdim=True)[..., None]  # (B, H, 1, 1)
            k_stab = torch.where(torch.isfinite(k_stab), k_stab, torch.zeros_like(k_stab))
        return positive_features(log_q, q_stab, self.eps), positive_features(log_k, k_stab, self.eps)

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """FAVOR+ attention; see the module docstring.

        Shapes:
            q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D), key_padding_mask (B, Lk)
            -> (B, H, Lq, D).
        """
        check_layout(q, k, v)
        check_aligned_causal(q, k, causal=causal, q_offset=q_offset, k_stride=k_stride, name="performer")
        phi_q, phi_k = self.feature_maps(q, k, causal=causal, key_padding_mask=key_padding_mask)
        if self.training:
            self.training_calls += 1
        return linear_attention(phi_q, phi_k, v, causal=causal, chunk_size=self.chunk_size, eps=self.eps,
                                key_padding_mask=key_padding_mask)
