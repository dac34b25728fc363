"""The backends a benchmark can run: the ``forecast/conf/attention`` registry plus two baselines.

* ``sdpa``: ``torch.nn.functional.scaled_dot_product_attention`` as shipped (default kernel
  choice; the ``full`` backend's path without its mask handling). O(L) memory where a fused
  kernel runs.
* ``dense``: explicit einsum -> softmax -> einsum in the input dtype: the O(L^2)-memory reference
  ("sparse saves memory" holds only against this one; design note §12).

Registry backends are built with ``hydra.utils.instantiate(OmegaConf.load(path))()`` and put in
eval mode, so dropout is off for every backend and ``full`` is comparable to ``sdpa``.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # torch is imported lazily: the orchestrating process never needs it
    from torch import Tensor

#: (q, k, v, causal) -> out, all in the SDPA layout.
AttentionFn = Callable[["Tensor", "Tensor", "Tensor", bool], "Tensor"]

BASELINES: tuple[str, ...] = ("sdpa", "dense")
#: the backend registry shipped inside the package (found without importing forecast, which would import torch)
CONF_DIR = Path(importlib.util.find_spec("forecast").origin).parent / "conf" / "attention"


@dataclass(frozen=True)
class BackendEntry:
    """A benchmarkable backend: its name and, for registry backends, its YAML."""

    name: str
    conf_path: Path | None = None


def discover(conf_dir: Path = CONF_DIR) -> list[BackendEntry]:
    """Every ``conf_dir/*.yaml`` (sorted by name), then the baselines not shadowed by a YAML."""
    entries = [BackendEntry(p.stem, p) for p in sorted(conf_dir.glob("*.yaml"))]
    names = {e.name for e in entries}
    return entries + [BackendEntry(name) for name in BASELINES if name not in names]


def select(names: list[str], conf_dir: Path = CONF_DIR) -> list[BackendEntry]:
    """Resolve ``--backends``: ``all`` or a list of names, in the given order.

    Raises:
        ValueError: a name is neither a YAML in ``conf_dir`` nor a baseline.
    """
    available = {e.name: e for e in discover(conf_dir)}
    if names == ["all"]:
        return list(available.values())
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown attention backend(s) {unknown}; available: {sorted(available)}")
    return [available[n] for n in dict.fromkeys(names)]


def dense_attention(q: Tensor, k: Tensor, v: Tensor, causal: bool) -> Tensor:
    """softmax(q k^T / sqrt(E)) v with the full (B, H, Lq, Lk) score tensor materialised."""
    import torch

    scores = torch.einsum("bhqe,bhke->bhqk", q, k) * (1.0 / math.sqrt(q.shape[-1]))
    if causal:
        lq, lk = q.shape[2], k.shape[2]
        future = torch.ones(lq, lk, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.einsum("bhqk,bhkd->bhqd", torch.softmax(scores, dim=-1), v)


def sdpa_attention(q: Tensor, k: Tensor, v: Tensor, causal: bool) -> Tensor:
    """PyTorch SDPA with its default kernel selection."""
    import torch.nn.functional as F

    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def build(entry: BackendEntry, *, causal: bool, device: str) -> AttentionFn:
    """Instantiate ``entry`` and return its call; refusals raise :class:`Unsupported`.

    Raises:
        Unsupported: the backend declares it cannot run the requested mode.
    """
    if entry.conf_path is None:
        return {"sdpa": sdpa_attention, "dense": dense_attention}[entry.name]
    import hydra.utils
    from omegaconf import OmegaConf

    module = hydra.utils.instantiate(OmegaConf.load(entry.conf_path))()
    if causal and not getattr(module, "supports_causal", True):
        raise Unsupported(f"{entry.name} declares supports_causal = False")
    check_role = getattr(module, "check_role", None)
    if check_role is not None:
        try:
            check_role(causal=causal, cross=False, role="benchmark self-attention")
        except ValueError as err:
            raise Unsupported(str(err)) from err
    module = module.to(device).eval()

    def call(q: Tensor, k: Tensor, v: Tensor, causal_: bool) -> Tensor:
        return module(q, k, v, causal=causal_)

    return call


class Unsupported(Exception):
    """The backend refuses the requested mode through its capability flags."""
