"""Shared kernels of the exact sparse backends (local, atrous, strided, logsparse, bigbird).

Three building blocks, none of which builds an Lq x Lk tensor:

* :func:`band_key_index`: for query blocks, the (few) key indices whose *time* difference to some
  query of the block lies in a band ``[lo, hi]`` (query i at ``q_offset + i``, key j at
  ``j * k_stride``);
* :func:`gather_keys`: ``index_select`` of those keys into ``(B, H, nb, C, E)`` blocks, with one
  index table shared by all heads or one per head;
* :func:`residue_groups`: the atrous regrouping ``(B, H, L, E) -> (B, H, r, L/r, E)`` that turns
  "same residue class of time mod r" into independent groups, also for ``Lq != Lk``.

Masks are boolean, True = may attend. Padded keys are always masked: they never enter a softmax.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor


def pad_rows(x: Tensor, multiple: int) -> Tensor:
    """Zero-pad axis 2 of ``x`` (B, H, L, E) up to a multiple of ``multiple``."""
    pad = -x.shape[2] % multiple
    return F.pad(x, (0, 0, 0, pad)) if pad else x


def real_length(key_padding_mask: Tensor | None, lk: int) -> int:
    """Keys up to the last one that is real in some batch row (trailing all-padding keys dropped).

    Length-dependent choices (a stride ~ sqrt(L), a window ~ log2 L, a block grid) use this, so
    appending padded keys never changes the pattern of the real ones.
    """
    if key_padding_mask is None:
        return lk
    real = key_padding_mask.any(0).nonzero()  # (n, 1)
    return int(real.max()) + 1 if real.numel() else 0


def masked_softmax(scores: Tensor, allowed: Tensor | None) -> Tensor:
    """Softmax over the last axis restricted to ``allowed``; rows with no allowed key give 0, never NaN.

    Disallowed scores are filled with ``finfo.min`` (not ``-inf``) so no NaN appears in the forward or
    backward pass; they are zeroed again after the softmax, which also zeroes empty rows.
    """
    if allowed is None:
        return torch.softmax(scores, dim=-1)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    return torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)


def band_key_index(lq: int, block: int, *, q_offset: int, k_stride: int, lo: int, hi: int,
                   device: torch.device | str | None = None) -> tuple[Tensor, Tensor]:
    """Key indices that may fall in the time band ``lo <= t_q - t_k <= hi`` of each query block.

    Query block n holds queries ``n*block ... n*block + block - 1`` (times ``q_offset + i``). Its
    keys have times in ``[t0 - hi, t0 + block - 1 - lo]``, an interval holding at most
    ``(block - 1 + hi - lo) // k_stride + 1`` key indices. Slots may fall outside ``[0, Lk)``: the
    caller masks them.

    Returns:
        ``(idx, q_time)``: key indices (nb, C) and query times (nb, block).
    """
    nb = math.ceil(lq / block)
    n_slots = (block - 1 + hi - lo) // k_stride + 1
    t0 = q_offset + torch.arange(nb, device=device) * block  # (nb,)
    first = -torch.div(hi - t0, k_stride, rounding_mode="floor")  # ceil((t0 - hi) / k_stride)
    idx = first[:, None] + torch.arange(n_slots, device=device)[None, :]  # (nb, C)
    q_time = t0[:, None] + torch.arange(block, device=device)[None, :]  # (nb, block)
    return idx, q_time


def gather_keys(x: Tensor, idx: Tensor) -> Tensor:
    """Gather rows of ``x`` by a per-block index table (indices must be in range).

    Args:
        x: keys or values.
        idx: one table shared by every head (nb, C) or one per head (H, nb, C).

    Shapes:
        x: (B, H, L, E); idx: (nb, C) or (H, nb, C) -> (B, H, nb, C, E).
    """
    b, h, length, e = x.shape
    nb, c = idx.shape[-2:]
    if idx.dim() == 2:
        return x.index_select(2, idx.reshape(-1)).view(b, h, nb, c, e)  # (B, H, nb, C, E)
    flat = x.reshape(b, h * length, e)  # (B, H*L, E)
    offset = torch.arange(h, device=idx.device)[:, None, None] * length  # (H, 1, 1)
    return flat.index_select(1, (idx + offset).reshape(-1)).view(b, h, nb, c, e)  # (B, H, nb, C, E)


def block_scores(q_blocks: Tensor, k_blocks: Tensor, scale: float) -> Tensor:
    """Scores of each query block against its gathered keys.

    Shapes:
        q_blocks: (B, H, nb, w, E); k_blocks: (B, H, nb, C, E) -> (B, H, nb, w, C).
    """
    return torch.matmul(q_blocks, k_blocks.transpose(-1, -2)) * scale


def residue_groups(q: Tensor, k: Tensor, v: Tensor, r: int, *, q_offset: int,
                   k_stride: int) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Regroup queries by time residue mod ``r`` and pair each group with its key class.

    Query group a holds queries ``a, a+r, a+2r, ...`` (time residue ``(q_offset + a) mod r``).
    With ``g = gcd(k_stride, r)`` key j has time residue ``j*k_stride mod r``, which only depends
    on ``j mod r/g``: keys are grouped in ``r/g`` classes and query group a is paired with the one
    class whose residue matches (none when ``g`` does not divide the query residue). Order inside
    a group is preserved, so a causal mask stays a comparison of times.

    Returns:
        ``(qg, kg, vg, q_time, k_index, key_ok)``: queries (B, H, r, nq, E), matching keys
        (B, H, r, nk, E) and values (B, H, r, nk, D); query times (r, nq); key indices (r, nk),
        clamped into range; key slots that are real keys of the matching class (r, nk).
    """
    b, h, lq, e = q.shape
    lk, d = k.shape[2], v.shape[-1]
    g = math.gcd(k_stride, r)
    rk = r // g
    nq, nk = math.ceil(lq / r), math.ceil(lk / rk)
    dev = q.device
    qg = pad_rows(q, r).view(b, h, nq, r, e).transpose(2, 3)  # (B, H, r, nq, E)
    kc = pad_rows(k, rk).view(b, h, nk, rk, e).transpose(2, 3)  # (B, H, r/g, nk, E)
    vc = pad_rows(v, rk).view(b, h, nk, rk, d).transpose(2, 3)  # (B, H, r/g, nk, D)
    residue = (q_offset + torch.arange(r, device=dev)) % r  # (r,)
    solvable = residue % g == 0
    inverse = pow(k_stride // g, -1, rk) if rk > 1 else 0
    cls = ((residue // g) * inverse) % rk  # (r,) key class of each query group
    kg = kc.index_select(2, cls)  # (B, H, r, nk, E)
    vg = vc.index_select(2, cls)  # (B, H, r, nk, D)
    q_time = q_offset + torch.arange(r, device=dev)[:, None] + torch.arange(nq, device=dev)[None, :] * r
    k_index = cls[:, None] + torch.arange(nk, device=dev)[None, :] * rk  # (r, nk)
    key_ok = solvable[:, None] & (k_index < lk)
    return qg, kg, vg, q_time, k_index.clamp(max=lk - 1), key_ok


def ungroup(out: Tensor, lq: int) -> Tensor:
    """Inverse of the query regrouping of :func:`residue_groups`.

    Shapes:
        out: (B, H, r, nq, D) -> (B, H, Lq, D).
    """
    b, h, r, nq, d = out.shape
    return out.transpose(2, 3).reshape(b, h, nq * r, d)[:, :, :lq]  # (B, H, Lq, D)


def dense_times(lq: int, lk: int, q_offset: int, k_stride: int,
                device: torch.device | str | None = None) -> Tensor:
    """Test-only helper: dense time differences ``t_q - t_k``. Shape (Lq, Lk)."""
    q_time = q_offset + torch.arange(lq, device=device)  # (Lq,)
    return q_time[:, None] - (torch.arange(lk, device=device) * k_stride)[None, :]
