"""Dropout whose CPU mask comes from 16-bit lanes of 64-bit random words, four elements per draw.

On CPUs other than Intel's, ATen draws ``bernoulli_`` (and so ``F.dropout``) one double-precision
uniform per element from its serial generator; the mask then costs tens of multiplies per element
(docs/performance.md). :class:`Dropout` draws one 64-bit word per four elements from the same
seeded default generator (``random_`` over the full int64 range) and keeps an element where its
16-bit lane is at or above a threshold:

* the drop probability is ``p`` rounded to a multiple of 2**-16 (0.05 -> 3277 / 65536 = 0.050003),
  and kept elements are scaled by ``1 / (1 - that probability)``, so the expectation is exact;
* the masks are a function of the generator's state alone, as ``F.dropout``'s are: the same seed
  gives the same masks, at any thread count (``random_`` on CPU draws serially);
* inside ``torch.compile`` the mask is drawn by the same code behind a custom operator
  (``forecast::keep_mask``), opaque to the compiler: Inductor's own CPU dropout draws one Philox number
  per element in scalar C++ (about 16 ns an element, slower than ATen), while the multiply by the mask
  still fuses with its neighbours. The operator is tagged ``nondeterministic_seeded``, so the
  compiler saves the mask for the backward instead of drawing it again;
* on other devices (CUDA's fused Philox kernel) it is ``F.dropout``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

#: 16-bit lanes: the drop probability's resolution.
LANES = 2**16


def keep_threshold(p: float) -> tuple[int, float]:
    """The int16 threshold at or above which a lane keeps its element, and the drop probability it gives."""
    dropped = round(p * LANES)
    return dropped - LANES // 2, dropped / LANES


def keep_mask(shape: torch.Size, p: float, device: torch.device) -> tuple[Tensor, float]:
    """A boolean keep-mask of ``shape`` and the drop probability it was drawn with (``p`` to 2**-16).

    Shapes: one int64 word per four elements, viewed as ``ceil(n / 4) * 4`` int16 lanes, the first
    ``n = prod(shape)`` of them reshaped to ``shape``.
    """
    n = shape.numel()
    words = torch.empty((n + 3) // 4, dtype=torch.int64, device=device).random_(-(2**63), None)
    lanes = words.view(torch.int16)[:n].view(shape)  # (*shape,) uniform over [-32768, 32767]
    threshold, p_drawn = keep_threshold(p)
    return lanes >= threshold, p_drawn


def _mask_for_compile(like: Tensor, p: float) -> Tensor:
    """:func:`keep_mask` of ``like``'s shape as one operator that ``torch.compile`` calls, not traces.

    Shapes: like (*) -> a boolean keep-mask (*); ``like`` gives the shape and device only.
    """
    return keep_mask(like.shape, p, like.device)[0]


def _fake_mask(like: Tensor, p: float) -> Tensor:
    return torch.empty_like(like, dtype=torch.bool)


try:  # torch >= 2.5: custom operators with tags; older torch compiles F.dropout instead
    compiled_keep_mask = torch.library.custom_op("forecast::keep_mask", _mask_for_compile, mutates_args=(),
                                                 device_types="cpu", tags=(torch.Tag.nondeterministic_seeded,))
    compiled_keep_mask.register_fake(_fake_mask)
except (AttributeError, TypeError):
    compiled_keep_mask = None


def dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    """``F.dropout(x, p, training)`` with the mask of :func:`keep_mask` on CPU.

    Shapes: x (*) -> (*). In float32 and float64 the scale rides on the mask (0 or the scale, in ``x``'s
    dtype), so forward and backward are one product each, with the bits of ``x * mask * scale``. In a
    16-bit dtype (bf16 under autocast) the 0/1 mask multiplies exactly and the scale, a Python float, is
    applied at float precision before the result is rounded.
    """
    if not training or p == 0.0:
        return x
    compiling = torch.compiler.is_compiling()
    if x.device.type != "cpu" or p >= 1.0 or (compiling and compiled_keep_mask is None):
        return F.dropout(x, p, training)
    if compiling:
        keep, p_drawn = compiled_keep_mask(x.detach(), p), keep_threshold(p)[1]
    else:
        keep, p_drawn = keep_mask(x.shape, p, x.device)
    scale = 1.0 / (1.0 - p_drawn)
    if x.dtype in (torch.float32, torch.float64):
        return x * torch.where(keep, x.new_tensor(scale), x.new_zeros(()))
    return x * keep.to(x.dtype) * scale


class Dropout(nn.Dropout):
    """``nn.Dropout`` with :func:`dropout`'s mask (a drop-in: same ``p``, no parameters or state)."""

    def forward(self, x: Tensor) -> Tensor:
        """Shapes: x (*) -> (*)."""
        if self.inplace:
            return F.dropout(x, self.p, self.training, inplace=True)
        return dropout(x, self.p, self.training)
