"""The one interface every attention backend implements.

A backend is the attention *kernel* only: the multi-head wrapper (``forecast.models.multihead``)
owns the q/k/v/out projections and hands the backend tensors in the layout of
``torch.nn.functional.scaled_dot_product_attention``.

Time alignment: query ``i`` sits at time ``q_offset + i`` and key ``j`` at time ``j * k_stride``
(both in the encoder-input time axis). Position-based patterns (bands, residues, log hops and
causality across different lengths) are defined on that time difference, never on an index
rescale. Self-attention uses ``q_offset=0, k_stride=1``.
"""

from __future__ import annotations

from typing import ClassVar

import torch
from torch import Tensor, nn

from forecast.core.errors import BackendRoleError

#: Backends that accept every (causal, cross) combination; named in refusal messages.
UNIVERSAL_BACKENDS = "full"


class AttentionBackend(nn.Module):
    """Base class of the attention kernels.

    Subclasses declare what they support through class attributes, which the model checks
    when it is built (:meth:`check_role`) and the contract tests read:

    Attributes:
        exact: computes softmax attention over its pattern exactly (no approximation).
        supports_causal: can run with ``causal=True``.
        supports_cross: accepts ``Lq != Lk`` (encoder-decoder attention).
        supports_causal_cross: accepts ``causal=True`` together with ``Lq != Lk``.
        randomized: draws random numbers (seeded through a constructor ``seed``).
        position_based: its pattern depends on positions (so it needs ``q_offset``/``k_stride``
            to be meaningful and cannot run over concatenated multi-resolution keys).
        pad_multiple: block size it pads to internally (1 = none). Padding is always masked.
        replaces_layer: the backend is a whole layer type (GAU), not a kernel.
        rowwise: output row i depends on query row i (at position ``q_offset + i``) and the keys
            only, never on the other queries: the last m queries with ``q_offset + Lq - m`` give
            the last m rows. The decoder then runs its last layer on the horizon rows alone.
    """

    exact: ClassVar[bool] = True
    supports_causal: ClassVar[bool] = True
    supports_cross: ClassVar[bool] = True
    supports_causal_cross: ClassVar[bool] = False
    randomized: ClassVar[bool] = False
    position_based: ClassVar[bool] = False
    pad_multiple: ClassVar[int] = 1
    replaces_layer: ClassVar[bool] = False
    rowwise: ClassVar[bool] = False

    def forward(
        self,
        q: Tensor,
        k: Tensor,
        v: Tensor,
        *,
        causal: bool = False,
        key_padding_mask: Tensor | None = None,
        q_offset: int = 0,
        k_stride: int = 1,
    ) -> Tensor:
        """Attend queries to keys.

        Args:
            q: queries.
            k: keys.
            v: values.
            causal: query at time t may only attend keys at time <= t.
            key_padding_mask: boolean, True where the key is real ("may attend").
            q_offset: time of query 0 relative to key 0.
            k_stride: time step between consecutive keys.

        Returns:
            The attention output.

        Shapes:
            q: (B, H, Lq, E); k: (B, H, Lk, E); v: (B, H, Lk, D);
            key_padding_mask: (B, Lk); returns (B, H, Lq, D).
        """
        raise NotImplementedError

    @classmethod
    def backend_name(cls) -> str:
        return cls.__name__

    def check_role(self, *, causal: bool, cross: bool, role: str, concatenated_keys: bool = False) -> None:
        """Refuse, with a message naming a working backend, a role this backend cannot fill.

        Args:
            causal: the role needs causal masking.
            cross: the role attends to keys of another length (encoder-decoder attention).
            role: human-readable role name used in the message (e.g. ``decoder self-attention``).
            concatenated_keys: keys are a concatenation of several resolutions (InformerStack).

        Raises:
            BackendRoleError: the backend does not support the role.
        """
        name = self.backend_name()
        if causal and not self.supports_causal:
            raise BackendRoleError(
                f"attention backend {name} cannot be used for {role}: it is not causal "
                f"(its output at step t depends on later steps); use {UNIVERSAL_BACKENDS}, prob, local "
                f"or linear there instead", role=role
            )
        if cross and not self.supports_cross:
            raise BackendRoleError(
                f"attention backend {name} cannot be used for {role}: it does not support queries and "
                f"keys of different lengths; use {UNIVERSAL_BACKENDS} there instead", role=role
            )
        if cross and causal and not self.supports_causal_cross:
            raise BackendRoleError(
                f"attention backend {name} cannot be used for {role}: it does not support causal "
                f"attention between different lengths; use {UNIVERSAL_BACKENDS} there instead", role=role
            )
        if concatenated_keys and self.position_based:
            raise BackendRoleError(
                f"attention backend {name} cannot be used for {role}: its pattern is position-based and "
                f"the InformerStack encoder output concatenates several time resolutions; use "
                f"{UNIVERSAL_BACKENDS} there instead", role=role
            )


def check_layout(q: Tensor, k: Tensor, v: Tensor) -> None:
    """Raise ValueError unless q, k, v follow the (B, H, L, E) layout with matching B, H, Lk, E."""
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError(f"attention expects 4-d (B, H, L, E) tensors, got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")
    if q.shape[:2] != k.shape[:2] or k.shape[:3] != v.shape[:3] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"incompatible attention shapes q {tuple(q.shape)}, k {tuple(k.shape)}, "
                         f"v {tuple(v.shape)}")


def seeded_generator(seed: int, device: torch.device | str = "cpu") -> torch.Generator:
    """A fresh generator on ``device`` seeded with ``seed``."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


class SampleStream:
    """Random draws of a randomised backend (on CPU).

    Training draws from one persistent generator seeded with ``seed`` (fresh samples every step,
    reproducible run to run); eval re-seeds on every call, so inference is a deterministic function
    of the weights and the input.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._train: torch.Generator | None = None

    def generator(self, training: bool) -> torch.Generator:
        if not training:
            return seeded_generator(self.seed)
        if self._train is None:
            self._train = seeded_generator(self.seed)
        return self._train

    def state(self) -> Tensor | None:
        """The training generator's state (None before the first training draw), to resume a run."""
        return None if self._train is None else self._train.get_state()

    def restore(self, state: Tensor | None) -> None:
        """Continue the training draws from ``state`` (from :meth:`state`); None starts them afresh."""
        self._train = None
        if state is not None:
            self._train = seeded_generator(self.seed)
            self._train.set_state(state)
