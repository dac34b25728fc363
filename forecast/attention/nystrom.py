"""Nyströmformer attention (Xiong et al., AAAI 2021), O(L * m) memory.

``softmax(Q K^T) V ~ F pinv(A) (G V)`` with landmarks ``Q~``, ``K~`` (m each):
``F = softmax(Q K~^T)`` (Lq, m), ``A = softmax(Q~ K~^T)`` (m, m), ``G = softmax(Q~ K^T)`` (m, Lk).
The product is taken right to left (``G V`` is (m, D)); nothing of size Lq x Lk is formed.

Landmarks are *masked segment means*: the r-th valid position of n valid ones belongs to segment
``floor(r * m / n)``. With ``n`` a multiple of ``m`` these are the paper's equal segments; otherwise
segments differ by at most one element (xformers' AvgPool behaviour) and no padding is averaged in,
so padded positions never move a landmark (padding invariance). In self-attention
(``Lq == Lk``) the key-padding mask also marks the padded *queries* out of the query landmarks.
Empty segments (fewer valid positions than landmarks) give empty landmarks: their rows/columns of
``A`` are zero, which the pseudo-inverse carries through (zero rows/columns of ``pinv``).

Pseudo-inverse: Razavi et al.'s iteration ``Z <- Z (13 I - AZ (15 I - AZ (7 I - AZ))) / 4`` from
``Z0 = A^T / (|A|_1 |A|_inf)`` with the norms taken *per matrix* (mlpen and lucidrains take one
max over the whole batch, coupling samples and heads), run in at least float32; or exact
``torch.linalg.pinv`` (``pinv: exact``). With ``m >= L`` (one token per landmark) and the exact
pinv the result is exact softmax attention.

Not causal: every landmark averages over future tokens (``supports_causal = False``).
The optional depthwise-conv residual on V of the paper belongs to a model, not to this kernel.
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor

from forecast.attention.base import AttentionBackend, check_layout
from forecast.attention.linear import accumulation_dtype


def segment_assignment(valid: Tensor, m: int) -> Tensor:
    """One-hot segment membership of each valid position (rows of invalid positions are zero).

    Shapes: valid (B, L) bool -> (B, L, m).
    """
    count = valid.sum(-1, keepdim=True).clamp(min=1)  # (B, 1)
    rank = valid.long().cumsum(-1) - 1  # (B, L): rank among the valid positions
    segment = (rank.clamp(min=0) * m) // count  # (B, L), in [0, m)
    onehot = torch.nn.functional.one_hot(segment, m)  # (B, L, m)
    return onehot * valid[..., None]


def landmarks(x: Tensor, assignment: Tensor) -> tuple[Tensor, Tensor]:
    """Masked segment means and which landmarks are non-empty.

    Shapes: x (B, H, L, E), assignment (B, L, m) -> (B, H, m, E), (B, m) bool.
    """
    onehot = assignment.to(x.dtype)
    sums = torch.einsum("blm,bhle->bhme", onehot, x)  # (B, H, m, E)
    counts = onehot.sum(1)  # (B, m)
    return sums / counts.clamp(min=1)[:, None, :, None], counts > 0


def iterative_pinv(a: Tensor, iterations: int) -> Tensor:
    """Razavi et al. iterative Moore-Penrose inverse with a per-matrix initialisation.

    Shapes: a (..., m, n) -> (..., n, m).
    """
    absa = a.abs()
    norm1 = absa.sum(-2).amax(-1)  # (...,) max column sum
    norminf = absa.sum(-1).amax(-1)  # (...,) max row sum
    z = a.transpose(-1, -2) / (norm1 * norminf).clamp(min=torch.finfo(a.dtype).tiny)[..., None, None]
    eye = torch.eye(a.shape[-2], dtype=a.dtype, device=a.device)
    for _ in range(iterations):
        az = a @ z  # (..., m, m)
        z = 0.25 * z @ (13 * eye - az @ (15 * eye - az @ (7 * eye - az)))
    return z


def masked_softmax(scores: Tensor, allowed: Tensor) -> Tensor:
    """Softmax over the last axis restricted to ``allowed``; rows with nothing allowed give 0."""
    probs = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return probs.nan_to_num(0.0)


class NystromAttention(AttentionBackend):
    """Nyström approximation of softmax attention.

    Args:
        num_landmarks: m (HF / paper default 64; xformers: 64 often enough).
        pinv_iterations: iterations of the iterative pseudo-inverse (paper: 6).
        pinv: ``iterative`` (paper) or ``exact`` (``torch.linalg.pinv``, for tests/small m).
        scale: score scale; ``None`` means ``1/sqrt(E)``.
    """

    exact = False
    supports_causal = False
    supports_cross = True
    supports_causal_cross = False

    def __init__(self, *, num_landmarks: int = 64, pinv_iterations: int = 6,
                 pinv: Literal["iterative", "exact"] = "iterative", scale: float | None = None) -> None:
        super().__init__()
        if num_landmarks < 1 or pinv_iterations < 1:
            raise ValueError("num_landmarks and pinv_iterations must be >= 1")
        if pinv not in ("iterative", "exact"):
            raise ValueError(f"pinv must be 'iterative' or 'exact', got {pinv!r}")
        self.num_landmarks, self.pinv_iterations = num_landmarks, pinv_iterations
        self.pinv, self.scale = pinv, scale

    def kernels(self, q: Tensor, k: Tensor,
                key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """The three softmax kernels F, A, G.

        Shapes: q (B, H, Lq, E), k (B, H, Lk, E), key_padding_mask (B, Lk)
        -> F (B, H, Lq, m), A (B, H, m, m), G (B, H, m, Lk).
        """
        b, _, lq, e = q.shape
        lk = k.shape[2]
        q = q * (self.scale if self.scale is not None else 1.0 / math.sqrt(e))
        k_valid = (key_padding_mask if key_padding_mask is not None
                   else torch.ones(b, lk, dtype=torch.bool, device=k.device))  # (B, Lk)
        q_valid = k_valid if lq == lk else torch.ones(b, lq, dtype=torch.bool, device=q.device)  # (B, Lq)
        q_land, q_has = landmarks(q, segment_assignment(q_valid, self.num_landmarks))  # (B, H, m, E), (B, m)
        k_land, k_has = landmarks(k, segment_assignment(k_valid, self.num_landmarks))  # (B, H, m, E), (B, m)
        f = masked_softmax(q @ k_land.transpose(-1, -2), k_has[:, None, None, :])  # (B, H, Lq, m)
        a = masked_softmax(q_land @ k_land.transpose(-1, -2), k_has[:, None, None, :])  # (B, H, m, m)
        a = a * q_has[:, None, :, None]  # empty query landmarks: zero rows
        g = masked_softmax(q_land @ k.transpose(-1, -2), k_valid[:, None, None, :])  # (B, H, m, Lk)
        g = g * q_has[:, None, :, None]
        return f, a, g

    def pseudo_inverse(self, a: Tensor) -> Tensor:
        """pinv of the landmark kernel, in at least float32. Shapes: a (B, H, m, m) -> (B, H, m, m)."""
        a32 = a.to(accumulation_dtype(a.dtype))
        z = torch.linalg.pinv(a32) if self.pinv == "exact" else iterative_pinv(a32, self.pinv_iterations)
        return z.to(a.dtype)

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Nyström attention; see the module docstring.

        Shapes:
            q (B, H, Lq, E), k (B, H, Lk, E), v (B, H, Lk, D), key_padding_mask (B, Lk)
            -> (B, H, Lq, D).

        Raises:
            ValueError: ``causal=True`` (landmarks average over future steps).
        """
        check_layout(q, k, v)
        if causal:
            raise ValueError("nystrom attention is not causal (its landmarks average over future steps); "
                             "use full, prob, local or linear for causal attention")
        f, a, g = self.kernels(q, k, key_padding_mask)
        gv = g @ v  # (B, H, m, D)
        return f @ (self.pseudo_inverse(a) @ gv)  # (B, H, Lq, D)
