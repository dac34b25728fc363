"""Peak live tensor bytes of a computation, counted with a TorchDispatchMode.

Deterministic and fast enough for unit tests; blind to scratch memory inside fused kernels (use
``benchmarks/bench_attention.py``, one process per measurement, for those).
"""

from __future__ import annotations

import math
import weakref
from typing import Callable, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class LiveBytes(TorchDispatchMode):
    """Tracks the bytes of tensor storages created inside the mode that are still alive."""

    def __init__(self) -> None:
        super().__init__()
        self.live = 0
        self.peak = 0
        self._seen: set[int] = set()

    def _release(self, key: int, nbytes: int) -> None:
        self.live -= nbytes
        self._seen.discard(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                storage = t.untyped_storage()
                key = storage.data_ptr()
                if key in self._seen or storage.nbytes() == 0:
                    continue
                self._seen.add(key)
                nbytes = storage.nbytes()
                self.live += nbytes
                self.peak = max(self.peak, self.live)
                weakref.finalize(storage, self._release, key, nbytes)
        return out


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak live bytes allocated while running ``fn`` (its inputs created outside do not count)."""
    with LiveBytes() as mode:
        result = fn()
        del result
    return mode.peak


def loglog_slope(lengths: Sequence[int], values: Sequence[float]) -> float:
    """Least-squares slope of log(values) against log(lengths)."""
    xs = [math.log(x) for x in lengths]
    ys = [math.log(y) for y in values]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
