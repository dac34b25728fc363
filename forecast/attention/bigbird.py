"""BigBird block-sparse attention (Zaheer et al. 2020, ITC): global + sliding + random blocks.

The sequence is cut into blocks of ``block_size``. Non-causal: query blocks 0 and nb-1 are global
(dense against all keys, ``2 * b * L`` scores); every other query block q attends the key blocks
``{0, nb-1} U {q-1, q, q+1} U rand(q)``, where the r random blocks are drawn per head *outside* the
fixed ones. Causal (not in HF): window ``{q-1, q}``, block 0 as a global key only (no global query
rows), random blocks from ``[1, q-2]``, a token-level causal mask on the diagonal block.

Generic block-gather kernel: a deduplicated per-head table ``key_blocks (H, nb, Kb)`` (-1 = none)
is expanded to token indices, the keys are gathered with one ``index_select`` into
(B, H, nb, Kb*b, E), and one masked softmax runs per query block. Every key appears at most once per
row (HF's eval mode counts block 0 up to 1 + r times), padded keys are masked, and the random
blocks come from a seeded ``torch.Generator`` (re-seeded every call in eval mode, so inference is
deterministic). Only the block-level table is (nb x nb)-sized; memory is linear in L. Trailing keys
that are padding in every batch row are trimmed before the grid is laid, so padding never moves the
global blocks or changes the random draw.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from forecast.attention.base import AttentionBackend, SampleStream, check_layout, seeded_generator
from forecast.attention.sparse import block_scores, gather_keys, masked_softmax, pad_rows, real_length


class BigBirdAttention(AttentionBackend):
    """Block-sparse global + sliding + random attention (self-attention only).

    Args:
        block_size: tokens per block b (HF default 64).
        num_random_blocks: random key blocks per query block r (HF default 3).
        seed: seed of the random blocks.
        scale: score scale; ``None`` means ``1/sqrt(E)``.
    """

    exact = True
    supports_causal = True
    supports_cross = False
    supports_causal_cross = False
    randomized = True
    position_based = True

    def __init__(self, *, block_size: int = 64, num_random_blocks: int = 3, seed: int = 0,
                 scale: float | None = None) -> None:
        super().__init__()
        if block_size < 1 or num_random_blocks < 0:
            raise ValueError(f"need block_size >= 1 and num_random_blocks >= 0, got {block_size}, "
                             f"{num_random_blocks}")
        self.block_size, self.num_random_blocks = block_size, num_random_blocks
        self.seed, self.scale = seed, scale
        self.pad_multiple = block_size
        self.samples = SampleStream(seed)
        self.last_key_blocks: Tensor | None = None  # realized table of the last call (H, nb, Kb)
        self.last_length = 0  # sequence length the last table was laid over (trailing padding trimmed)


    def key_blocks(self, nb: int, n_heads: int, *, causal: bool,
                   generator: torch.Generator | None = None) -> Tensor:
        """Draw the per-head key-block table: distinct blocks per row, ascending, -1 padded.

        Returns:
            (H, nb, Kb) int64 on CPU.
        """
        gen = generator if generator is not None else seeded_generator(self.seed)
        row, col = torch.arange(nb)[:, None], torch.arange(nb)[None, :]  # block-level only
        if causal:
            fixed = (col == 0) | (col == row - 1) | (col == row)
            candidate = (col >= 1) & (col <= row - 2)
        else:
            fixed = (col == 0) | (col == nb - 1) | ((col - row).abs() <= 1)
            candidate = ~fixed
        chosen = fixed.expand(n_heads, nb, nb).clone()  # (H, nb, nb)
        n_rand = min(self.num_random_blocks, nb)
        if n_rand > 0:
            noise = torch.rand(n_heads, nb, nb, generator=gen).masked_fill(~candidate, 2.0)  # (H, nb, nb)
            value, pick = noise.topk(n_rand, dim=-1, largest=False)  # (H, nb, r)
            chosen.scatter_(-1, pick, value < 2.0)
            chosen |= fixed
        width = int(chosen.sum(-1).max())
        order = torch.sort((~chosen).to(torch.int8), dim=-1, stable=True).indices[..., :width]  # (H, nb, Kb)
        return torch.where(chosen.gather(-1, order), order, torch.full_like(order, -1))

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False,
                key_padding_mask: Tensor | None = None, q_offset: int = 0, k_stride: int = 1) -> Tensor:
        """Attend each query block to its global, sliding and random key blocks.

        Shapes:
            q: (B, H, L, E); k: (B, H, L, E); v: (B, H, L, D); key_padding_mask: (B, L)
            -> (B, H, L, D).
        """
        check_layout(q, k, v)
        b, h, length, e = q.shape
        d, bs = v.shape[-1], self.block_size
        if k.shape[2] != length or q_offset != 0 or k_stride != 1:
            raise ValueError("BigBird attention needs self-attention on one block grid (Lq == Lk, "
                             "q_offset 0, k_stride 1); use full for cross-attention")
        real = real_length(key_padding_mask, length)
        if real == 0:
            return v.new_zeros(b, h, length, d)  # (B, H, L, D): no real key anywhere
        if real < length:  # the block grid covers the real keys only: trailing padding changes nothing
            out = self(q[:, :, :real], k[:, :, :real], v[:, :, :real], causal=causal,
                       key_padding_mask=key_padding_mask[:, :real])  # (B, H, L', D)
            return F.pad(out, (0, 0, 0, length - real))  # (B, H, L, D); padded query rows output 0
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(e)
        nb = math.ceil(length / bs)
        gen = self.samples.generator(self.training)
        table = self.key_blocks(nb, h, causal=causal, generator=gen)  # (H, nb, Kb)
        self.last_key_blocks, self.last_length = table, length
        table = table.to(q.device)
        n_keys = table.shape[-1] * bs
        tokens = (table[..., None] * bs + torch.arange(bs, device=q.device)).view(h, nb, n_keys)  # (H, nb, C)
        key_ok = (table[..., None] >= 0).expand(h, nb, table.shape[-1], bs)  # (H, nb, Kb, b)
        key_ok = key_ok.reshape(h, nb, n_keys)  # (H, nb, C)
        key_ok = key_ok & (tokens < length)  # (H, nb, C)
        tokens = tokens.clamp(0, length - 1)
        allowed = key_ok[:, :, None, :]  # (H, nb, 1, C)
        if causal:
            q_time = torch.arange(nb * bs, device=q.device).view(nb, bs)  # (nb, b)
            allowed = allowed & (tokens[:, :, None, :] <= q_time[None, :, :, None])  # (H, nb, b, C)
        if key_padding_mask is not None:
            allowed = allowed & key_padding_mask[:, tokens][:, :, :, None, :]  # (B, H, nb, b|1, C)
        q_blocks = pad_rows(q, bs).view(b, h, nb, bs, e)  # (B, H, nb, b, E)
        scores = block_scores(q_blocks, gather_keys(k, tokens), scale)  # (B, H, nb, b, C)
        probs = masked_softmax(scores, allowed)
        out = torch.matmul(probs, gather_keys(v, tokens))  # (B, H, nb, b, D)
        if not causal:
            out = self._global_rows(q_blocks, k, v, out, key_padding_mask, scale)
        return out.reshape(b, h, nb * bs, d)[:, :, :length]  # (B, H, L, D)

    @staticmethod
    def _global_rows(q_blocks: Tensor, k: Tensor, v: Tensor, out: Tensor, key_padding_mask: Tensor | None,
                     scale: float) -> Tensor:
        """Replace the outputs of query blocks 0 and nb-1 by dense attention over every key.

        Shapes:
            q_blocks: (B, H, nb, b, E); k: (B, H, L, E); v: (B, H, L, D); out: (B, H, nb, b, D)
            -> (B, H, nb, b, D).
        """
        nb = q_blocks.shape[2]
        ends = [0] if nb == 1 else [0, nb - 1]
        glob = q_blocks[:, :, ends].flatten(2, 3)  # (B, H, G*b, E)
        scores = torch.matmul(glob, k.transpose(-1, -2)) * scale  # (B, H, G*b, L)
        allowed = None if key_padding_mask is None else key_padding_mask[:, None, None, :]  # (B, 1, 1, L)
        dense = torch.matmul(masked_softmax(scores, allowed), v)  # (B, H, G*b, D)
        dense = dense.unflatten(2, (len(ends), -1))  # (B, H, G, b, D)
        if nb == 1:
            return dense
        return torch.cat([dense[:, :, :1], out[:, :, 1:nb - 1], dense[:, :, 1:]], dim=2)

    def pattern(self, lq: int, lk: int, *, causal: bool, q_offset: int = 0, k_stride: int = 1,
                key_blocks: Tensor | None = None) -> Tensor:
        """Test-only: the dense per-head mask of a key-block table (default: the last call's).

        A table drawn for fewer blocks (trailing padding trimmed) leaves the remaining rows and
        columns False.

        Returns:
            (H, L, L) bool.
        """
        table = key_blocks if key_blocks is not None else self.last_key_blocks
        real = lq if key_blocks is not None else min(lq, self.last_length)
        if table is None or lq != lk or q_offset != 0 or k_stride != 1:
            raise ValueError("pattern needs a realized key-block table and self-attention")
        h, nb, _ = table.shape
        bs = self.block_size
        block_mask = torch.zeros(h, nb, nb + 1, dtype=torch.bool)
        block_mask.scatter_(-1, torch.where(table >= 0, table, nb), True)
        block_mask = block_mask[..., :nb]  # (H, nb, nb)
        if not causal:
            block_mask[:, [0, nb - 1]] = True
        dense = block_mask.repeat_interleave(bs, 1).repeat_interleave(bs, 2)[:, :real, :real]  # (H, L', L')
        dense = F.pad(dense, (0, lk - dense.shape[2], 0, lq - dense.shape[1]))  # (H, L, L): trimmed padding
        if causal:
            dense = dense & torch.ones(lq, lk, dtype=torch.bool).tril()
        return dense
